"""Shortest paths (Dijkstra) and breadth-first visit orders.

Both are polynomial and exact. Dijkstra uses a binary heap and integer arithmetic for
integer weights, so the cost is exact; among several optimal paths the one returned is
deterministic (each node keeps the smallest-id optimal predecessor found while it was
still open). BFS orders depend on the order in which neighbours are visited, which the
question states; :func:`bfs_order` takes it as a key (or rank array) over node ids.

Example:
    >>> edges = [(0, 1, 4), (0, 2, 1), (2, 1, 2), (1, 3, 1)]
    >>> r = shortest_path(4, edges, 0, 3, directed=False)
    >>> r.cost, r.path
    (4, (0, 2, 1, 3))
    >>> bfs_order(4, [(0, 2), (0, 1), (1, 3)], 0).order
    (0, 1, 2, 3)
    >>> bfs_order(4, [(0, 2), (0, 1), (1, 3)], 0, neighbour_key=[0, 9, 5, 1]).order
    (0, 2, 1, 3)
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from closurebench.errors import ConfigError
from closurebench.graphs.exact._common import Number, check_n, check_node, normalize_edges
from closurebench.graphs.exact.errors import UnreachableError

__all__ = [
    "BfsResult",
    "NeighbourKey",
    "ShortestPathResult",
    "bfs_order",
    "neighbour_ranks",
    "shortest_path",
]

#: A key function over node ids, or a sequence whose item ``i`` is the key of node ``i``.
NeighbourKey = Callable[[int], Any] | Sequence[Any] | None


@dataclass(frozen=True, slots=True)
class ShortestPathResult:
    """A minimum-cost path.

    Attributes:
        cost: Total weight (an int when all weights are whole numbers).
        path: Node ids from source to target inclusive.
    """

    cost: Number
    path: tuple[int, ...]

    @property
    def value(self) -> Number:
        """The reference answer (the cost)."""
        return self.cost

    @property
    def solution(self) -> tuple[int, ...]:
        """One optimal solution (the path)."""
        return self.path


@dataclass(frozen=True, slots=True)
class BfsResult:
    """A breadth-first visit order (every node reachable from the source, once each)."""

    order: tuple[int, ...]

    @property
    def value(self) -> tuple[int, ...]:
        """The reference answer (the order)."""
        return self.order

    @property
    def solution(self) -> tuple[int, ...]:
        """Same as :attr:`order`."""
        return self.order


def weighted_adjacency(
    n: int, edge_map: dict[tuple[int, int], Number], *, directed: bool
) -> list[list[tuple[int, Number]]]:
    """Out-neighbour lists ``adj[u] = [(v, w), ...]`` sorted by ``v``."""
    adj: list[list[tuple[int, Number]]] = [[] for _ in range(n)]
    for (u, v), w in edge_map.items():
        adj[u].append((v, w))
        if not directed:
            adj[v].append((u, w))
    for lst in adj:
        lst.sort()
    return adj


def dijkstra(adj: list[list[tuple[int, Number]]], s: int) -> tuple[list[Number | None], list[int]]:
    """Single-source distances and deterministic predecessors (``-1`` for none).

    Example:
        >>> dijkstra([[(1, 2)], [(0, 2)]], 0)
        ([0, 2], [-1, 0])
    """
    n = len(adj)
    dist: list[Number | None] = [None] * n
    pred = [-1] * n
    done = [False] * n
    dist[s] = 0
    heap: list[tuple[Number, int]] = [(0, s)]
    while heap:
        d, u = heapq.heappop(heap)
        if done[u]:
            continue
        done[u] = True
        for v, w in adj[u]:
            if done[v]:
                continue
            nd = d + w
            old = dist[v]
            if old is None or nd < old:
                dist[v] = nd
                pred[v] = u
                heapq.heappush(heap, (nd, v))
            elif nd == old and u < pred[v]:
                # Equal-cost alternative: keep the smallest finalised predecessor, so the
                # returned path does not depend on edge-list order.
                pred[v] = u
    return dist, pred


def shortest_path(
    n: int,
    edges: Iterable[Sequence[object]],
    s: int,
    t: int,
    *,
    directed: bool,
) -> ShortestPathResult:
    """Minimum-weight path from ``s`` to ``t`` by Dijkstra.

    Args:
        n: Number of nodes (ids ``0..n-1``).
        edges: ``(u, v)`` (weight 1) or ``(u, v, w)`` with ``w >= 0``.
        s: Source node.
        t: Target node.
        directed: Whether ``(u, v)`` is an arc ``u -> v`` only.

    Returns:
        The cost and one optimal path.

    Raises:
        GraphError: malformed input.
        UnreachableError: ``t`` cannot be reached from ``s``.

    Example:
        >>> shortest_path(3, [(0, 1, 2), (1, 2, 3), (0, 2, 9)], 0, 2, directed=True).path
        (0, 1, 2)
        >>> try:
        ...     shortest_path(2, [(0, 1)], 1, 0, directed=True)
        ... except UnreachableError as exc:
        ...     print(str(exc)[:40])
        node 0 is not reachable from node 1 (dir
    """
    n = check_n(n)
    s = check_node(s, n, "source")
    t = check_node(t, n, "target")
    edge_map = normalize_edges(n, edges, directed=directed)
    dist, pred = dijkstra(weighted_adjacency(n, edge_map, directed=directed), s)
    cost = dist[t]
    if cost is None:
        kind = "directed" if directed else "undirected"
        raise UnreachableError(
            f"node {t} is not reachable from node {s} ({kind} graph, {n} nodes, "
            f"{len(edge_map)} edges); pick a reachable target or resample"
        )
    path = [t]
    while path[-1] != s:
        path.append(pred[path[-1]])
    path.reverse()
    return ShortestPathResult(cost=cost, path=tuple(path))


def neighbour_ranks(n: int, neighbour_key: NeighbourKey) -> list[int]:
    """Turn a neighbour key into ``rank[i]`` (a permutation of ``0..n-1``).

    Raises:
        ConfigError: the key has the wrong length, is not comparable, or gives two nodes
            the same key (then the BFS order would not be unique).

    Example:
        >>> neighbour_ranks(3, ["b", "c", "a"])
        [1, 2, 0]
        >>> neighbour_ranks(3, None)
        [0, 1, 2]
    """
    if neighbour_key is None:
        return list(range(n))
    if callable(neighbour_key):
        keys = [neighbour_key(i) for i in range(n)]
    elif isinstance(neighbour_key, Sequence) and not isinstance(neighbour_key, str | bytes):
        if len(neighbour_key) != n:
            raise ConfigError(
                f"neighbour_key has {len(neighbour_key)} entries but the graph has {n} nodes; "
                "give one key per node id"
            )
        keys = list(neighbour_key)
    else:
        raise ConfigError(
            f"neighbour_key={neighbour_key!r} must be None, a callable node -> key, "
            "or a sequence of one key per node"
        )
    try:
        order = sorted(range(n), key=keys.__getitem__)
    except TypeError as exc:
        raise ConfigError(f"neighbour keys are not mutually comparable: {exc}") from None
    rank = [0] * n
    for r, node in enumerate(order):
        rank[node] = r
    for a, b in itertools.pairwise(order):
        if not keys[a] < keys[b]:
            raise ConfigError(
                f"nodes {a} and {b} have the same neighbour key {keys[a]!r}; the visit order "
                "would be ambiguous, so give every node a distinct key"
            )
    return rank


def bfs_order(
    n: int,
    edges: Iterable[Sequence[object]],
    s: int,
    *,
    neighbour_key: NeighbourKey = None,
    directed: bool = False,
) -> BfsResult:
    """Breadth-first visit order from ``s``, visiting neighbours in ``neighbour_key`` order.

    Args:
        n: Number of nodes.
        edges: ``(u, v)`` or ``(u, v, w)``; weights are ignored.
        s: Start node.
        neighbour_key: ``None`` (numeric id order), a callable ``id -> key`` or a sequence
            with the key of node ``i`` at index ``i`` (e.g. displayed names, so
            "alphabetical order of names" is ``neighbour_key=names``). Keys must be distinct.
        directed: Follow arcs ``u -> v`` only.

    Returns:
        The order of every node reachable from ``s``.

    Example:
        >>> bfs_order(4, [(0, 3), (0, 1), (3, 2)], 0, neighbour_key=lambda i: -i).order
        (0, 3, 1, 2)
    """
    n = check_n(n)
    s = check_node(s, n, "source")
    edge_map = normalize_edges(n, edges, directed=directed)
    rank = neighbour_ranks(n, neighbour_key)
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v in edge_map:
        adj[u].append(v)
        if not directed:
            adj[v].append(u)
    for lst in adj:
        lst.sort(key=rank.__getitem__)
    seen = [False] * n
    seen[s] = True
    order = [s]
    queue = deque([s])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if not seen[v]:
                seen[v] = True
                order.append(v)
                queue.append(v)
    return BfsResult(order=tuple(order))
