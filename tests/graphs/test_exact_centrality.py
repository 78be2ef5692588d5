"""Exact centrality agrees with networkx; the argmax and its uniqueness flag are exact."""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import pytest

from closurebench.errors import ConfigError, GraphError
from closurebench.graphs.exact import centrality, check_centrality
from closurebench.seeding import rng

NX = {
    "degree": lambda G, w: nx.degree_centrality(G),
    "closeness": lambda G, w: nx.closeness_centrality(G, distance=w),
    "betweenness": lambda G, w: nx.betweenness_centrality(G, weight=w),
}


def random_graph(k: int):
    g = rng(0, "test", "centrality", k)
    n = int(g.integers(1, 13))
    p = float(g.uniform(0.1, 0.8))
    edges = [
        (u, v, int(g.integers(1, 6))) for u in range(n) for v in range(u + 1, n) if g.random() < p
    ]
    return n, edges


@pytest.mark.parametrize("kind", ["degree", "closeness", "betweenness"])
@pytest.mark.parametrize("weighted", [False, True])
def test_scores_match_networkx(kind: str, weighted: bool) -> None:
    for k in range(150):
        n, edges = random_graph(k)
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_weighted_edges_from(edges)
        theirs = NX[kind](G, "weight" if weighted else None)
        r = centrality(n, edges, kind, weighted=weighted)
        for v in range(n):
            assert r.scores[v] == pytest.approx(theirs[v], abs=1e-9), (k, v)
            assert float(r.exact[v]) == r.scores[v]
        best = max(r.exact)
        assert r.exact[r.argmax] == best
        assert r.argmax == min(v for v in range(n) if r.exact[v] == best)
        assert r.unique == (r.exact.count(best) == 1)
        assert (r.margin > 0) == r.unique or n == 1
        assert check_centrality(n, edges, kind, r.argmax, weighted=weighted).ok


def test_ties_are_exact_not_float_noise() -> None:
    # A 6-cycle: every node has betweenness exactly 0.2; floats could differ in the last bit.
    cycle = [(i, (i + 1) % 6) for i in range(6)]
    r = centrality(6, cycle, "betweenness")
    assert set(r.exact) == {Fraction(1, 5)}
    assert not r.unique and r.margin == 0.0 and r.argmax == 0
    star = [(0, i) for i in range(1, 5)]
    for kind in ("degree", "closeness", "betweenness"):
        s = centrality(5, star, kind)
        assert s.argmax == 0 and s.unique and s.margin > 0


def test_centrality_errors_and_checker() -> None:
    with pytest.raises(ConfigError, match="unknown"):
        centrality(3, [(0, 1)], "pagerank")
    with pytest.raises(GraphError, match="positive weights"):
        centrality(3, [(0, 1, 0), (1, 2, 1)], "closeness", weighted=True)
    path = [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert check_centrality(5, path, "betweenness", 2, score=4 / 6).ok
    assert "differs" in check_centrality(5, path, "betweenness", 2, score=0.9).reason
    assert "maximum" in check_centrality(5, path, "closeness", 0).reason
    for bad in ("2", 2.0, None, -1, 5, True, [2]):
        v = check_centrality(5, path, "degree", bad)
        assert not v.valid and v.reason, bad
    assert not check_centrality(5, path, "degree", 2, score="high").valid
