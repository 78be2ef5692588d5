"""Shared plumbing for the exact solvers: input validation, certificates, deadlines.

The solvers take plain inputs (``n`` and an edge list, or a weight matrix) so they do not
depend on any graph class. Validation here is strict and the messages name the bad value
and the fix.

Example:
    >>> normalize_edges(3, [(0, 1, 4), (2, 1)], directed=False)
    {(0, 1): 4, (1, 2): 1}
    >>> Certificate("highs-milp", 7).as_dict()
    {'method': 'highs-milp', 'bound': 7, 'gap': 0}
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard, TypeVar

import numpy as np

from closurebench.errors import ConfigError, GraphError
from closurebench.graphs.exact.errors import SolverTimeout

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "Certificate",
    "Deadline",
    "Number",
    "adjacency_bitsets",
    "check_n",
    "check_node",
    "is_int",
    "most_connected",
    "normalize_edges",
    "solve_by_method",
    "to_number",
]

Number = int | float
R = TypeVar("R")

#: Seconds an NP-hard solver may spend before raising :class:`SolverTimeout`.
DEFAULT_TIME_LIMIT = 60.0


@dataclass(frozen=True, slots=True)
class Certificate:
    """Proof of optimality attached to an NP-hard answer.

    Attributes:
        method: How optimality was proven (e.g. ``"highs-milp+dfj"``, ``"dsatur-bnb"``).
        bound: The proven lower bound on the optimum (for a minimisation); equal to the
            answer, since only closed gaps are ever reported.
        gap: Always ``0``: an open gap raises :class:`SolverTimeout` instead.
    """

    method: str
    bound: Number
    gap: Number = 0

    def as_dict(self) -> dict[str, object]:
        """Return the ``{"method", "bound", "gap"}`` record the instance schema stores."""
        return {"method": self.method, "bound": self.bound, "gap": self.gap}


def is_int(value: object) -> TypeGuard[numbers.Integral]:
    """True for Python/numpy integers, False for bools and everything else.

    Example:
        >>> is_int(3), is_int(True), is_int(3.0)
        (True, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def to_number(value: object, what: str) -> Number:
    """Return ``value`` as a finite int or float (whole floats become ints).

    Raises:
        GraphError: if ``value`` is not a finite real number.

    Example:
        >>> to_number(3.0, "w"), to_number(2.5, "w")
        (3, 2.5)
    """
    if is_int(value):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        f = float(value)
        if not math.isfinite(f):
            raise GraphError(f"{what} is {value!r}; weights must be finite numbers")
        return int(f) if f.is_integer() else f
    raise GraphError(f"{what} is {value!r} of type {type(value).__name__}; expected a number")


def check_n(n: object) -> int:
    """Validate a node count (an int >= 1).

    Example:
        >>> check_n(5)
        5
    """
    if not is_int(n) or int(n) < 1:
        raise GraphError(f"n={n!r} is not a valid node count; pass an int >= 1")
    return int(n)


def check_node(value: object, n: int, what: str) -> int:
    """Validate a node id in ``0..n-1``.

    Example:
        >>> check_node(2, 3, "source")
        2
    """
    if not is_int(value) or not 0 <= int(value) < n:
        raise GraphError(f"{what}={value!r} is not a node id; pass an int in 0..{n - 1}")
    return int(value)


def normalize_edges(
    n: int,
    edges: Iterable[Sequence[object]],
    *,
    directed: bool,
    allow_negative: bool = False,
) -> dict[tuple[int, int], Number]:
    """Validate an edge list and return ``{(u, v): weight}``.

    Edges are ``(u, v)`` (weight 1) or ``(u, v, w)`` (tuples, lists or numpy rows).
    Undirected keys are stored with ``u < v``. A repeated edge with the same weight is
    merged (so an adjacency list that lists each undirected edge from both ends is fine);
    a repeated edge with a different weight is ambiguous and raises.

    Raises:
        GraphError: bad shape, node id out of range, self-loop, non-finite or negative
            weight, or conflicting duplicate.

    Example:
        >>> normalize_edges(3, [(1, 0), (0, 1), (1, 2, 2.5)], directed=False)
        {(0, 1): 1, (1, 2): 2.5}
        >>> normalize_edges(2, [(1, 0)], directed=True)
        {(1, 0): 1}
    """
    out: dict[tuple[int, int], Number] = {}
    if isinstance(edges, str | bytes):
        raise GraphError(f"edges={edges!r} is a string; pass a list of (u, v) or (u, v, w)")
    for idx, edge in enumerate(edges):
        if isinstance(edge, np.ndarray):
            edge = edge.tolist()
        if (
            isinstance(edge, str | bytes)
            or not isinstance(edge, Sequence)
            or len(edge) not in (2, 3)
        ):
            raise GraphError(
                f"edge #{idx} is {edge!r}; every edge must be a tuple (u, v) or (u, v, weight)"
            )
        u = check_node(edge[0], n, f"edge #{idx} endpoint")
        v = check_node(edge[1], n, f"edge #{idx} endpoint")
        if u == v:
            raise GraphError(f"edge #{idx} ({u}, {v}) is a self-loop; graphs here are simple")
        w: Number = 1 if len(edge) == 2 else to_number(edge[2], f"weight of edge ({u}, {v})")
        if w < 0 and not allow_negative:
            raise GraphError(f"weight of edge ({u}, {v}) is {w}; weights must be >= 0")
        key = (u, v) if directed or u < v else (v, u)
        old = out.get(key)
        if old is not None and old != w:
            raise GraphError(
                f"edge {key} is given twice with weights {old} and {w}; give each edge once"
            )
        out[key] = w
    return out


def adjacency_bitsets(n: int, edge_keys: Iterable[tuple[int, int]]) -> list[int]:
    """Undirected adjacency as Python-int bitsets: bit ``v`` of ``adj[u]`` is edge ``u-v``.

    Example:
        >>> adjacency_bitsets(3, [(0, 1), (1, 2)])
        [2, 5, 2]
    """
    adj = [0] * n
    for u, v in edge_keys:
        adj[u] |= 1 << v
        adj[v] |= 1 << u
    return adj


def most_connected(cand: int, adj: list[int], within: int) -> int:
    """The vertex of bitset ``cand`` with the most neighbours in ``within`` (smallest id on ties).

    Returns ``-1`` when ``cand`` is empty.

    Example:
        >>> most_connected(0b111, [0b110, 0b101, 0b011], 0b011)
        2
    """
    best, best_deg = -1, -1
    while cand:
        low = cand & -cand
        v = low.bit_length() - 1
        cand ^= low
        d = (adj[v] & within).bit_count()
        if d > best_deg:
            best, best_deg = v, d
    return best


def solve_by_method(
    task: str,
    n: int,
    edges: Iterable[Sequence[object]],
    time_limit: float,
    method: str,
    methods: Mapping[str, Callable[[int, list[tuple[int, int]], Deadline], R]],
) -> R:
    """Validate an undirected instance and run the chosen method on it.

    Args:
        task: The solver's name (messages and the deadline).
        n: Number of nodes.
        edges: ``(u, v)`` or ``(u, v, w)``; weights are ignored.
        time_limit: Seconds before :class:`SolverTimeout` is raised.
        method: A key of ``methods``.
        methods: ``name -> f(n, sorted edge keys, deadline)``.

    Raises:
        GraphError: malformed input.
        ConfigError: unknown method.

    Example:
        >>> solve_by_method("demo", 3, [(1, 0)], 1.0, "m", {"m": lambda n, keys, d: keys})
        [(0, 1)]
    """
    n = check_n(n)
    if method not in methods:
        raise ConfigError(f"method={method!r} is unknown; use one of {', '.join(methods)}")
    keys = sorted(normalize_edges(n, edges, directed=False))
    return methods[method](n, keys, Deadline(time_limit, task))


class Deadline:
    """A wall-clock budget for one solver call.

    Example:
        >>> d = Deadline(10.0, "demo")
        >>> d.remaining() > 9.0, d.expired()
        (True, False)
    """

    __slots__ = ("_end", "task", "time_limit")

    def __init__(self, time_limit: object, task: str) -> None:
        if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
            raise ConfigError(
                f"time_limit={time_limit!r} is not a number; pass seconds as a float > 0"
            )
        limit = float(time_limit)
        if math.isnan(limit) or limit <= 0:
            raise ConfigError(f"time_limit={time_limit!r} must be > 0 (seconds; math.inf = none)")
        self.task = task
        self.time_limit = limit
        self._end = time.perf_counter() + limit

    def remaining(self) -> float:
        """Seconds left (may be negative, ``inf`` when unlimited)."""
        return self._end - time.perf_counter()

    def expired(self) -> bool:
        """True once the budget is spent."""
        return time.perf_counter() >= self._end

    def check(self, detail: str = "") -> None:
        """Raise :class:`SolverTimeout` if the budget is spent."""
        if time.perf_counter() >= self._end:
            raise SolverTimeout(self.task, self.time_limit, detail)
