"""The GRIT structure: the graph and query that a question renders and the reader recovers.

A :class:`GritStructure` is the view-independent content of a GRIT question: the task, a
graph on node ids ``0..n-1`` and the query parameters. The eight views of one base graph
(2 forms x 4 naming schemes) all render the same structure; the reader must recover it
exactly from each view's text. Tasks (:mod:`closurebench.tasks.grit`) sample and solve it;
the surface (:mod:`closurebench.surface.grit`) renders it and reads it back; both import it
from here, below them.

Canonical form (so two equal structures compare equal):

* ``edges`` is a sorted tuple of ``(u, v, w)`` int triples; undirected edges have ``u < v``
  (a given ``(v, u, w)`` is flipped) and unweighted edges have ``w == 1``;
* ``params`` is a sorted tuple of ``(key, value)`` pairs (a mapping may be passed); the
  values of :data:`NODE_PARAMS` are node ids, the others strings or ints.

This module holds no per-task table: which tasks may be directed, weighted or complete and
which parameters each takes are facts of the task classes, checked by
:meth:`closurebench.tasks.grit.GritTask.validate` (``GRIT_TASKS[name].structure(...)``
builds and validates in one step).

The per-view facts a task needs from a rendered question (display names, aliases, the BFS
neighbour order) are described by the protocols :class:`NodeNames` and :class:`GritView`.

Example:
    >>> s = GritStructure("shortest_path", 3, False, True, [(1, 0, 4), (1, 2, 7)],
    ...                   {"target": 2, "source": 0})
    >>> s.edges
    ((0, 1, 4), (1, 2, 7))
    >>> s.params
    (('source', 0), ('target', 2))
    >>> s.param("target")
    2
    >>> GritStructure("bfs", 3, False, False, [(0, 1), (1, 2)], {"source": 1}).edges
    ((0, 1, 1), (1, 2, 1))
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from closurebench.errors import ConfigError, GraphError

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["NODE_PARAMS", "Edge", "GritStructure", "GritView", "NodeNames"]

#: Parameter keys whose values are node ids (relabelled with the nodes, range-checked).
NODE_PARAMS: tuple[str, ...] = ("source", "target")

Edge = tuple[int, int, int]


class NodeNames(Protocol):
    """Display names of one view: ``names[i]`` is node ``i``; ``aliases`` maps alias → id.

    Satisfied by a rendered question and by a GRIT instance record.
    """

    @property
    def names(self) -> Sequence[str]:
        """Display name of node ``i`` at index ``i``."""
        ...

    @property
    def aliases(self) -> Mapping[str, int]:
        """``{alias: node id}`` stated in the text."""
        ...


class GritView(NodeNames, Protocol):
    """What a task needs from one rendered view to give that view's answer."""

    @property
    def neighbour_order(self) -> tuple[int, ...] | None:
        """BFS only: node ids from first to last in the stated neighbour order."""
        ...


def _as_int(value: Any, what: str) -> int:
    if type(value) is int:  # the common case, without the ABC check
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise GraphError(f"{what} is {value!r} ({type(value).__name__}); pass an int")
    return int(value)


def _canonical_edges(n: int, edges: Iterable[Any], directed: bool, weighted: bool) -> tuple:
    out: dict[tuple[int, int], int] = {}
    for i, edge in enumerate(edges):
        items = tuple(edge)
        if len(items) not in (2, 3):
            raise GraphError(f"edge #{i} {edge!r} must be (u, v) or (u, v, w)")
        u, v = items[0], items[1]
        w = items[2] if len(items) == 3 else 1
        if not (type(u) is int and type(v) is int and type(w) is int):  # else: say which
            u = _as_int(u, f"edge #{i} endpoint u")
            v = _as_int(v, f"edge #{i} endpoint v")
            w = _as_int(w, f"edge #{i} weight")
        for node in (u, v):
            if not 0 <= node < n:
                raise GraphError(
                    f"edge #{i} {items!r} names node {node}, outside 0..{n - 1}; "
                    "use node ids in 0..n-1"
                )
        if u == v:
            raise GraphError(f"edge #{i} {items!r} is a self-loop; drop it")
        if weighted and w < 1:
            raise GraphError(f"edge #{i} {items!r} has weight {w}; weights must be ints >= 1")
        if not weighted and w != 1:
            raise GraphError(
                f"edge #{i} {items!r} has weight {w} in an unweighted graph; "
                "drop the weight or pass weighted=True"
            )
        key = (u, v) if directed or u < v else (v, u)
        if key in out:
            raise GraphError(f"edge #{i} {items!r} duplicates an earlier edge {key}; drop one")
        out[key] = w
    return tuple((u, v, w) for (u, v), w in sorted(out.items()))


def _canonical_params(raw: Any, n: int) -> tuple[tuple[str, Any], ...]:
    items = dict(raw.items() if isinstance(raw, Mapping) else raw)
    out: dict[str, Any] = {}
    for key, value in items.items():
        if not isinstance(key, str):
            raise ConfigError(f"param key {key!r} is a {type(key).__name__}; use a str")
        if key in NODE_PARAMS:
            node = _as_int(value, f"param {key!r}")
            if not 0 <= node < n:
                raise ConfigError(f"param {key}={node} is outside 0..{n - 1}; pick a node id")
            out[key] = node
        elif isinstance(value, str) or (
            isinstance(value, numbers.Integral) and not isinstance(value, bool)
        ):
            out[key] = value if isinstance(value, str) else int(value)
        else:
            raise ConfigError(f"param {key}={value!r} must be a str or an int")
    return tuple(sorted(out.items()))


@dataclass(frozen=True, init=False)
class GritStructure:
    """A GRIT task instance without surface: graph on ``0..n-1`` plus query parameters.

    Args:
        task: The GRIT task's name (a key of ``closurebench.tasks.grit.GRIT_TASKS``).
        n: Number of nodes (>= 1).
        directed: Whether edges are one-way.
        weighted: Whether edges carry integer weights >= 1.
        edges: ``(u, v)`` or ``(u, v, w)`` items; stored canonical (see module docstring).
        params: A mapping or ``(key, value)`` pairs.

    Raises:
        ConfigError: on an empty task name, ``n < 1`` or a malformed parameter.
        GraphError: on a malformed edge (bad node id, self-loop, duplicate, bad weight).

    Example:
        >>> GritStructure("centrality", 2, False, False, [(0, 1)], {"centrality": "degree"})
        ... # doctest: +ELLIPSIS
        GritStructure(task='centrality', n=2, ..., params=(('centrality', 'degree'),))
        >>> try:
        ...     GritStructure("bfs", 2, False, False, [(0, 1)], {"source": 2})
        ... except ConfigError as exc:
        ...     print(exc)
        param source=2 is outside 0..1; pick a node id
    """

    task: str
    n: int
    directed: bool
    weighted: bool
    edges: tuple[Edge, ...]
    params: tuple[tuple[str, Any], ...] = ()

    def __init__(
        self,
        task: str,
        n: int,
        directed: bool,
        weighted: bool,
        edges: Iterable[Sequence[int]],
        params: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
    ) -> None:
        if not isinstance(task, str) or not task:
            raise ConfigError(f"task {task!r} is not a task name; pass a GRIT task's name")
        size = _as_int(n, "n")
        if size < 1:
            raise ConfigError(f"n={size} is too small; a GRIT graph needs at least 1 node")
        directed, weighted = bool(directed), bool(weighted)
        object.__setattr__(self, "task", task)
        object.__setattr__(self, "n", size)
        object.__setattr__(self, "directed", directed)
        object.__setattr__(self, "weighted", weighted)
        object.__setattr__(self, "edges", _canonical_edges(size, edges, directed, weighted))
        object.__setattr__(self, "params", _canonical_params(params, size))

    @classmethod
    def from_record(cls, record: GritInstance) -> GritStructure:
        """The structure an instance record states (its ``task``, ``graph`` and ``params``).

        Example:
            >>> from closurebench.schema import GritInstance
            >>> rec = GritInstance.model_validate({
            ...     "id": "x", "suite": "grit", "split": "test", "task": "bfs", "graph_id": "g",
            ...     "view": "standard/canonical", "form": "standard", "naming": "canonical",
            ...     "scenario": "s", "n": 2, "question": "Q?", "answer": ["0", "1"],
            ...     "solution": [0, 1], "certificate": None, "names": ["0", "1"], "aliases": {},
            ...     "graph": {"directed": False, "weighted": False, "n": 2, "edges": [[0, 1, 1]]},
            ...     "params": {"source": 0}, "seed": {"structure": 1, "surface": 2},
            ...     "version": "0.1.0"})
            >>> GritStructure.from_record(rec).params
            (('source', 0),)
        """
        g = record.graph
        return cls(record.task, g.n, g.directed, g.weighted, g.edges, record.params)

    def param(self, key: str) -> Any:
        """Return parameter ``key``.

        Raises:
            ConfigError: if the structure has no such parameter.

        Example:
            >>> GritStructure("bfs", 2, False, False, [(0, 1)], {"source": 1}).param("source")
            1
        """
        for k, v in self.params:
            if k == key:
                return v
        raise ConfigError(f"task {self.task!r} has no parameter {key!r}; it has {self.params}")

    @property
    def m(self) -> int:
        """Number of edges.

        Example:
            >>> GritStructure("vertex_cover", 3, False, False, [(0, 1), (1, 2)]).m
            2
        """
        return len(self.edges)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``graph`` and ``params`` parts of the instance record).

        Example:
            >>> GritStructure("vertex_cover", 2, False, False, [(0, 1)]).to_dict()["graph"]
            {'directed': False, 'weighted': False, 'n': 2, 'edges': [[0, 1, 1]]}
        """
        return {
            "task": self.task,
            "graph": {
                "directed": self.directed,
                "weighted": self.weighted,
                "n": self.n,
                "edges": [list(e) for e in self.edges],
            },
            "params": dict(self.params),
        }
