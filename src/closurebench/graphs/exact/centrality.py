"""Exact degree, closeness and betweenness centrality on undirected graphs.

Scores follow networkx's normalised conventions (``degree_centrality``,
``closeness_centrality`` with ``wf_improved=True``, ``betweenness_centrality`` with
``normalized=True``) but are computed in exact rational arithmetic, so ties are real ties
and the ``unique`` flag of the argmax is trustworthy (no float noise decides a winner).
Betweenness is Brandes' algorithm; its dependency accumulation runs on integers scaled by
the lcm of the path counts.

Example:
    >>> star = [(0, 1), (0, 2), (0, 3)]
    >>> r = centrality(4, star, "betweenness")
    >>> r.scores, r.argmax, r.unique
    ((1.0, 0.0, 0.0, 0.0), 0, True)
    >>> centrality(3, [(0, 1), (1, 2)], "closeness").exact
    (Fraction(2, 3), Fraction(1, 1), Fraction(2, 3))
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, cast

from closurebench.errors import ConfigError, GraphError
from closurebench.graphs.exact._common import Number, check_n, normalize_edges
from closurebench.graphs.exact.paths import dijkstra, weighted_adjacency

__all__ = ["CENTRALITY_KINDS", "CentralityKind", "CentralityResult", "centrality"]

CentralityKind = Literal["degree", "closeness", "betweenness"]
CENTRALITY_KINDS: tuple[str, ...] = ("degree", "closeness", "betweenness")


@dataclass(frozen=True, slots=True)
class CentralityResult:
    """All centrality scores and the node with the highest one.

    Attributes:
        kind: ``"degree"``, ``"closeness"`` or ``"betweenness"``.
        scores: Float score of node ``i`` at index ``i``.
        exact: The same scores as exact fractions.
        argmax: A node with the highest score (the smallest id among tied nodes).
        unique: True when no other node has exactly that score.
        margin: Highest minus second-highest score (``0.0`` on a tie, ``inf`` if ``n == 1``).
    """

    kind: str
    scores: tuple[float, ...]
    exact: tuple[Fraction, ...]
    argmax: int
    unique: bool
    margin: float

    @property
    def value(self) -> int:
        """The reference answer (the argmax node)."""
        return self.argmax

    @property
    def solution(self) -> int:
        """Same as :attr:`argmax`."""
        return self.argmax


def _exact(x: Number) -> int | Fraction:
    return x if isinstance(x, int) else Fraction(x)


def _distances(adj: list[list[tuple[int, Number]]], s: int, weighted: bool) -> list[object]:
    if weighted:
        dist, _ = dijkstra(adj, s)
        return [None if d is None else _exact(d) for d in dist]
    dist2: list[object] = [None] * len(adj)
    dist2[s] = 0
    queue = deque([s])
    while queue:
        u = queue.popleft()
        du = dist2[u]
        for v, _w in adj[u]:
            if dist2[v] is None:
                dist2[v] = du + 1  # type: ignore[operator]
                queue.append(v)
    return dist2


def _closeness(adj: list[list[tuple[int, Number]]], weighted: bool) -> list[Fraction]:
    n = len(adj)
    out = []
    for u in range(n):
        dist = [d for d in _distances(adj, u, weighted) if d is not None]
        total = sum(dist)  # type: ignore[arg-type]
        reach = len(dist) - 1
        if total == 0 or n == 1:
            out.append(Fraction(0))
        else:
            # networkx wf_improved: ((r-1)/total) * ((r-1)/(n-1)).
            out.append(Fraction(reach * reach) / (Fraction(total) * (n - 1)))
    return out


def _brandes_source(
    adj: list[list[tuple[int, Number]]], s: int, weighted: bool
) -> tuple[list[int], int]:
    """Dependencies ``delta[v]`` of source ``s`` as integers over a common denominator."""
    n = len(adj)
    sigma = [0] * n
    sigma[s] = 1
    preds: list[list[int]] = [[] for _ in range(n)]
    stack: list[int] = []
    if weighted:
        dist, _ = dijkstra(adj, s)
        exact = [None if d is None else _exact(d) for d in dist]
        reached = [v for v in range(n) if exact[v] is not None]
        order = sorted(reached, key=lambda v: cast(int | Fraction, exact[v]))
        for v in order:
            stack.append(v)
            dv = exact[v]
            for u, w in adj[v]:
                du = exact[u]
                if du is not None and du == dv + _exact(w):  # type: ignore[operator]
                    sigma[u] += sigma[v]
                    preds[u].append(v)
    else:
        hop = [-1] * n
        hop[s] = 0
        queue = deque([s])
        while queue:
            v = queue.popleft()
            stack.append(v)
            for u, _w in adj[v]:
                if hop[u] < 0:
                    hop[u] = hop[v] + 1
                    queue.append(u)
                if hop[u] == hop[v] + 1:
                    sigma[u] += sigma[v]
                    preds[u].append(v)
    # With L divisible by every sigma, D[w] = L * (1 + delta[w]) / sigma[w] is an integer
    # and delta[v] * L = sigma[v] * sum(D[w] for children w): exact, without Fractions.
    lcm = 1
    for v in stack:
        lcm = math.lcm(lcm, sigma[v])
    acc = [0] * n  # sum of D over children
    delta_l = [0] * n
    for w in reversed(stack):
        d_w = lcm // sigma[w] + acc[w]
        for v in preds[w]:
            acc[v] += d_w
        if w != s:
            delta_l[w] = sigma[w] * acc[w]
    return delta_l, lcm


def _betweenness(adj: list[list[tuple[int, Number]]], weighted: bool) -> list[Fraction]:
    n = len(adj)
    total = [Fraction(0)] * n
    for s in range(n):
        delta_l, lcm = _brandes_source(adj, s, weighted)
        for v in range(n):
            if delta_l[v]:
                total[v] += Fraction(delta_l[v], lcm)
    if n <= 2:
        return total
    # Each unordered pair is counted from both ends; networkx's normalisation for
    # undirected graphs is 1 / ((n-1)(n-2)) on that double count.
    scale = Fraction(1, (n - 1) * (n - 2))
    return [x * scale for x in total]


def centrality(
    n: int,
    edges: Iterable[Sequence[object]],
    kind: str,
    *,
    weighted: bool = False,
) -> CentralityResult:
    """Exact centrality scores of an undirected graph and their argmax.

    Args:
        n: Number of nodes.
        edges: ``(u, v)`` or ``(u, v, w)`` pairs, undirected.
        kind: ``"degree"``, ``"closeness"`` or ``"betweenness"``.
        weighted: Use edge weights as distances for closeness/betweenness (default: hop
            counts). Degree centrality always counts edges.

    Returns:
        Scores (float and exact) and the argmax with its ``unique`` flag and margin.

    Raises:
        ConfigError: unknown ``kind``.
        GraphError: malformed input.

    Example:
        >>> r = centrality(4, [(0, 1), (1, 2), (2, 3)], "degree")
        >>> r.argmax, r.unique, round(r.scores[1], 4)
        (1, False, 0.6667)
    """
    n = check_n(n)
    if kind not in CENTRALITY_KINDS:
        raise ConfigError(
            f"centrality kind {kind!r} is unknown; use one of {', '.join(CENTRALITY_KINDS)}"
        )
    edge_map = normalize_edges(n, edges, directed=False)
    if weighted and kind != "degree":
        for (u, v), w in edge_map.items():
            if w <= 0:
                raise GraphError(
                    f"edge ({u}, {v}) has weight {w}; weighted {kind} needs positive weights "
                    "(or pass weighted=False for hop counts)"
                )
    adj = weighted_adjacency(n, edge_map, directed=False)
    if kind == "degree":
        denom = max(n - 1, 1)
        exact = [Fraction(len(adj[u]), denom) for u in range(n)] if n > 1 else [Fraction(1)]
    elif kind == "closeness":
        exact = _closeness(adj, weighted)
    else:
        exact = _betweenness(adj, weighted)
    best = max(exact)
    argmax = exact.index(best)
    unique = exact.count(best) == 1
    others = [x for i, x in enumerate(exact) if i != argmax]
    margin = float(best - max(others)) if others else math.inf
    return CentralityResult(
        kind=kind,
        scores=tuple(float(x) for x in exact),
        exact=tuple(exact),
        argmax=argmax,
        unique=unique,
        margin=margin,
    )
