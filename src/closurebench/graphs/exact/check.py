"""Solution checkers: judge a candidate answer against an instance.

Every checker returns a :class:`Verdict` and never raises on a bad *candidate* (wrong
type, string ids, out-of-range ids, wrong length...): those are invalid verdicts with a
reason. A malformed *instance* (the trusted side) still raises :class:`GraphError`.
When ``optimum`` is not given, it is computed by the exact solvers of this package.

Example:
    >>> edges = [(0, 1, 2), (1, 2, 2), (0, 2, 5)]
    >>> check_path(3, edges, 0, 2, [0, 1, 2], directed=False)
    Verdict(valid=True, optimal=True, reason='', value=4)
    >>> check_path(3, edges, 0, 2, [0, 2], directed=False).reason
    'cost 5 exceeds optimum 4'
    >>> check_cover(3, edges, ["1"]).reason
    "node '1' is a str, not a node id; expected an int in 0..2"
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from closurebench.graphs.exact._common import Number, check_n, check_node, is_int, normalize_edges
from closurebench.graphs.exact.centrality import centrality
from closurebench.graphs.exact.coloring import chromatic_number
from closurebench.graphs.exact.cover import vertex_cover
from closurebench.graphs.exact.errors import SolverError
from closurebench.graphs.exact.paths import NeighbourKey, bfs_order, shortest_path
from closurebench.graphs.exact.tsp import check_weight_matrix, tsp

__all__ = [
    "Verdict",
    "check_bfs_order",
    "check_centrality",
    "check_colouring",
    "check_cover",
    "check_path",
    "check_tour",
]


@dataclass(frozen=True, slots=True)
class Verdict:
    """The judgement of one candidate.

    Attributes:
        valid: The candidate is a feasible solution (a real path / tour / cover / proper
            colouring / BFS order under some neighbour order / a node id).
        optimal: It is also correct: optimal cost or size, the stated BFS order (any BFS
            order in lenient mode), a highest-centrality node.
        reason: Why it failed (empty when ``valid and optimal``).
        value: When valid, the candidate's cost (path, tour), size (cover), colour count,
            number of nodes (BFS order) or score (centrality); else ``None``.
    """

    valid: bool
    optimal: bool
    reason: str = ""
    value: Number | None = None

    @property
    def ok(self) -> bool:
        """True when the candidate is fully correct."""
        return self.valid and self.optimal


def _invalid(reason: str) -> Verdict:
    return Verdict(valid=False, optimal=False, reason=reason)


def _describe(x: object) -> str:
    return f"{x!r} is a {type(x).__name__}"


def _as_ids(candidate: object, n: int, what: str, *, allow_set: bool = False) -> list[int] | str:
    """Candidate node ids as a list, or the reason they are not."""
    if isinstance(candidate, np.ndarray):
        candidate = candidate.tolist()
    if allow_set and isinstance(candidate, set | frozenset):
        items: Iterable[object] = sorted(candidate, key=repr)
    elif isinstance(candidate, list | tuple):
        items = candidate
    else:
        kinds = "a list or set" if allow_set else "a list"
        return f"{what} {_describe(candidate)}, expected {kinds} of node ids"
    out: list[int] = []
    for item in items:
        if not is_int(item) or not 0 <= int(item) < n:
            if is_int(item):
                return f"node {item} does not exist; node ids are 0..{n - 1}"
            return f"node {_describe(item)}, not a node id; expected an int in 0..{n - 1}"
        out.append(int(item))
    return out


def _first_repeat(ids: Sequence[int]) -> int | None:
    seen: set[int] = set()
    for v in ids:
        if v in seen:
            return v
        seen.add(v)
    return None


def _compare(value: Number, optimum: Number, what: str) -> Verdict:
    if value > optimum:
        return Verdict(True, False, f"{what} {value} exceeds optimum {optimum}", value)
    if value < optimum:
        raise SolverError(
            f"a valid candidate has {what} {value}, below the stated optimum {optimum}; "
            "the optimum passed in does not belong to this instance"
        )
    return Verdict(True, True, "", value)


def check_path(
    n: int,
    edges: Iterable[Sequence[object]],
    s: int,
    t: int,
    candidate: object,
    *,
    directed: bool,
    optimum: Number | None = None,
) -> Verdict:
    """Judge a path: starts at ``s``, ends at ``t``, simple, real edges, optimal cost.

    Example:
        >>> check_path(3, [(0, 1), (1, 2)], 0, 2, [0, 2], directed=False).reason
        'edge 0-2 does not exist'
    """
    n = check_n(n)
    s, t = check_node(s, n, "source"), check_node(t, n, "target")
    edge_map = normalize_edges(n, edges, directed=directed)
    ids = _as_ids(candidate, n, "path")
    if isinstance(ids, str):
        return _invalid(ids)
    if not ids:
        return _invalid("path is empty")
    if ids[0] != s:
        return _invalid(f"path starts at node {ids[0]}, not at the source {s}")
    if ids[-1] != t:
        return _invalid(f"path ends at node {ids[-1]}, not at the target {t}")
    rep = _first_repeat(ids)
    if rep is not None:
        return _invalid(f"node {rep} appears twice; a path visits each node at most once")
    cost: Number = 0
    for a, b in itertools.pairwise(ids):
        key = (a, b) if directed or a < b else (b, a)
        if key not in edge_map:
            sep = "->" if directed else "-"
            kind = "arc" if directed else "edge"
            return _invalid(f"{kind} {a}{sep}{b} does not exist")
        cost += edge_map[key]
    if optimum is None:
        optimum = shortest_path(n, edge_map_to_list(edge_map), s, t, directed=directed).cost
    return _compare(cost, optimum, "cost")


def edge_map_to_list(edge_map: Mapping[tuple[int, int], Number]) -> list[tuple[int, int, Number]]:
    """``{(u, v): w}`` back to ``[(u, v, w), ...]``."""
    return [(u, v, w) for (u, v), w in edge_map.items()]


def check_tour(weights: object, candidate: object, *, optimum: Number | None = None) -> Verdict:
    """Judge a tour: every node exactly once (closing the cycle is optional), optimal cost.

    Any rotation and direction is accepted; ``[0, 2, 1, 0]`` and ``[0, 2, 1]`` are the same
    tour.

    Example:
        >>> w = [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]]
        >>> check_tour(w, [2, 1, 0, 3, 2]).ok
        True
        >>> check_tour(w, [0, 1, 2]).reason
        'tour misses node 3'
    """
    w = check_weight_matrix(weights)
    n = len(w)
    ids = _as_ids(candidate, n, "tour")
    if isinstance(ids, str):
        return _invalid(ids)
    if len(ids) == n + 1 and ids[0] == ids[-1]:
        ids = ids[:-1]
    rep = _first_repeat(ids)
    if rep is not None:
        return _invalid(f"node {rep} is visited twice; a tour visits every node exactly once")
    missing = sorted(set(range(n)) - set(ids))
    if missing:
        return _invalid(f"tour misses node {missing[0]}")
    cost = sum(w[a][b] for a, b in zip(ids, [*ids[1:], ids[0]], strict=True)) if n > 1 else 0
    if optimum is None:
        optimum = tsp(w).cost
    return _compare(cost, optimum, "cost")


def check_cover(
    n: int,
    edges: Iterable[Sequence[object]],
    candidate: object,
    *,
    optimum: int | None = None,
) -> Verdict:
    """Judge a vertex cover: every edge touched, minimum size.

    Example:
        >>> check_cover(4, [(0, 1), (1, 2), (2, 4 - 1)], [1]).reason
        'cover leaves edge (2, 3) uncovered'
        >>> check_cover(4, [(0, 1), (1, 2), (2, 3)], {0, 1, 2}).reason
        'size 3 exceeds optimum 2'
    """
    n = check_n(n)
    keys = sorted(normalize_edges(n, edges, directed=False))
    ids = _as_ids(candidate, n, "cover", allow_set=True)
    if isinstance(ids, str):
        return _invalid(ids)
    rep = _first_repeat(ids)
    if rep is not None:
        return _invalid(f"node {rep} is listed twice in the cover")
    chosen = set(ids)
    for a, b in keys:
        if a not in chosen and b not in chosen:
            return _invalid(f"cover leaves edge ({a}, {b}) uncovered")
    if optimum is None:
        optimum = vertex_cover(n, keys).size
    return _compare(len(chosen), optimum, "size")


def check_colouring(
    n: int,
    edges: Iterable[Sequence[object]],
    candidate: object,
    *,
    optimum: int | None = None,
) -> Verdict:
    """Judge a colouring: proper, and using exactly the chromatic number of colours.

    ``candidate`` is a sequence (colour of node ``i`` at index ``i``) or a mapping
    ``{node: colour}`` covering every node. Colours are any hashable labels (ints, names).

    Example:
        >>> tri = [(0, 1), (1, 2), (0, 2)]
        >>> check_colouring(3, tri, ["red", "green", "blue"]).ok
        True
        >>> check_colouring(3, tri, {0: 1, 1: 1, 2: 2}).reason
        'colour conflict on edge (0, 1): both have colour 1'
    """
    n = check_n(n)
    keys = sorted(normalize_edges(n, edges, directed=False))
    colour: list[Hashable]
    if isinstance(candidate, Mapping):
        bad = [k for k in candidate if not (is_int(k) and 0 <= int(k) < n)]
        if bad:
            return _invalid(f"colouring key {bad[0]!r} is not a node id in 0..{n - 1}")
        by_node = {int(k): c for k, c in candidate.items()}
        missing = [v for v in range(n) if v not in by_node]
        if missing:
            return _invalid(f"node {missing[0]} has no colour")
        values: list[object] = [by_node[v] for v in range(n)]
    elif isinstance(candidate, list | tuple | np.ndarray):
        values = list(candidate.tolist() if isinstance(candidate, np.ndarray) else candidate)
        if len(values) != n:
            return _invalid(f"colouring has {len(values)} entries for {n} nodes")
    else:
        return _invalid(f"colouring {_describe(candidate)}, expected a list or a mapping")
    colour = []
    for v, c in enumerate(values):
        if c is None or isinstance(c, bool) or not isinstance(c, Hashable):
            return _invalid(f"colour of node {v} ({c!r}) is not a colour label")
        if isinstance(c, numbers.Real) and not is_int(c) and not float(c).is_integer():
            return _invalid(f"colour of node {v} ({c!r}) is not a colour label")
        colour.append(c)
    for a, b in keys:
        if colour[a] == colour[b]:
            return _invalid(f"colour conflict on edge ({a}, {b}): both have colour {colour[a]!r}")
    used = len(set(colour))
    if optimum is None:
        optimum = chromatic_number(n, keys, canonical=False).chromatic_number
    if used > optimum:
        return Verdict(True, False, f"uses {used} colours, the chromatic number is {optimum}", used)
    return _compare(used, optimum, "colour count")


def _is_bfs_order(adj: list[list[int]], s: int, order: list[int], reachable: set[int]) -> str:
    """Empty string if ``order`` is a BFS order from ``s`` for some neighbour order."""
    if not order:
        return "order is empty"
    if order[0] != s:
        return f"order starts at node {order[0]}, not at the source {s}"
    extra = sorted(set(order) - reachable)
    if extra:
        return f"node {extra[0]} is not reachable from {s}"
    missing = sorted(reachable - set(order))
    if missing:
        return f"order misses node {missing[0]}, which is reachable from {s}"
    pos = {v: i for i, v in enumerate(order)}
    nxt = 1
    for head, u in enumerate(order):
        if head >= nxt:
            return f"node {u} at position {head} is not adjacent to any earlier node"
        fresh = {v for v in adj[u] if pos.get(v, len(order)) >= nxt}
        block = set(order[nxt : nxt + len(fresh)])
        if block != fresh:
            k = next(i for i in range(nxt, nxt + len(fresh)) if order[i] not in fresh)
            return (
                f"position {k} is node {order[k]}, but after dequeuing {u} its unvisited "
                f"neighbours {sorted(fresh)} must come next"
            )
        nxt += len(fresh)
    return ""


def check_bfs_order(
    n: int,
    edges: Iterable[Sequence[object]],
    s: int,
    candidate: object,
    *,
    neighbour_key: NeighbourKey = None,
    directed: bool = False,
    lenient: bool = False,
) -> Verdict:
    """Judge a breadth-first visit order.

    ``valid`` means it is a BFS order under *some* neighbour order; ``optimal`` means it is
    the answer: the order under ``neighbour_key`` (strict) or any valid one (``lenient``).

    Example:
        >>> sq = [(0, 1), (0, 2), (1, 3), (2, 3)]
        >>> v = check_bfs_order(4, sq, 0, [0, 2, 1, 3])
        >>> v.valid, v.ok
        (True, False)
        >>> check_bfs_order(4, sq, 0, [0, 2, 1, 3], lenient=True).ok
        True
        >>> print(check_bfs_order(4, sq, 0, [0, 1, 3, 2]).reason)
        position 2 is node 3, but after dequeuing 0 its unvisited neighbours [1, 2] must come next
    """
    n = check_n(n)
    s = check_node(s, n, "source")
    edge_map = normalize_edges(n, edges, directed=directed)
    reference = bfs_order(
        n, edge_map_to_list(edge_map), s, neighbour_key=neighbour_key, directed=directed
    ).order
    ids = _as_ids(candidate, n, "order")
    if isinstance(ids, str):
        return _invalid(ids)
    rep = _first_repeat(ids)
    if rep is not None:
        return _invalid(f"node {rep} appears twice; BFS visits each node once")
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v in edge_map:
        adj[u].append(v)
        if not directed:
            adj[v].append(u)
    reason = _is_bfs_order(adj, s, ids, set(reference))
    if reason:
        return _invalid(reason)
    if lenient or tuple(ids) == reference:
        return Verdict(True, True, "", len(ids))
    k = next(i for i, (a, b) in enumerate(zip(ids, reference, strict=True)) if a != b)
    return Verdict(
        True,
        False,
        f"a valid BFS order, but not with neighbours in the stated order: position {k} is "
        f"node {ids[k]}, expected node {reference[k]}",
        len(ids),
    )


def check_centrality(
    n: int,
    edges: Iterable[Sequence[object]],
    kind: str,
    candidate: object,
    *,
    weighted: bool = False,
    score: object = None,
    tol: float = 1e-2,
) -> Verdict:
    """Judge "which node has the highest centrality" (and optionally its claimed score).

    ``optimal`` when the node attains the maximum score. If ``score`` is given it must be a
    number within ``tol`` of the node's true score, otherwise the verdict is invalid.

    Example:
        >>> star = [(0, 1), (0, 2), (0, 3)]
        >>> check_centrality(4, star, "degree", 0, score=1.0).ok
        True
        >>> check_centrality(4, star, "degree", 2).reason
        'node 2 has degree centrality 0.3333, the maximum is 1 (node 0)'
    """
    n = check_n(n)
    res = centrality(n, edges, kind, weighted=weighted)
    if not is_int(candidate):
        return _invalid(f"answer {_describe(candidate)}, expected a node id in 0..{n - 1}")
    node = int(candidate)
    if not 0 <= node < n:
        return _invalid(f"node {node} does not exist; node ids are 0..{n - 1}")
    if score is not None:
        if isinstance(score, bool) or not isinstance(score, numbers.Real):
            return _invalid(f"score {_describe(score)}, expected a number")
        true = res.scores[node]
        if not math.isfinite(float(score)) or abs(float(score) - true) > tol:
            return _invalid(
                f"score {float(score):g} for node {node} differs from {true:.4g} "
                f"by more than {tol:g}"
            )
    if res.exact[node] == res.exact[res.argmax]:
        return Verdict(True, True, "", res.scores[node])
    return Verdict(
        True,
        False,
        f"node {node} has {kind} centrality {res.scores[node]:.4g}, the maximum is "
        f"{res.scores[res.argmax]:.4g} (node {res.argmax})",
        res.scores[node],
    )
