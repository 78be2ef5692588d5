"""Minimum vertex cover: brute force, both methods and G-REAL agree; timeouts raise."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from closurebench.errors import ConfigError
from closurebench.graphs.exact import SolverTimeout, check_cover, max_clique, vertex_cover
from closurebench.graphs.exact._common import adjacency_bitsets
from closurebench.seeding import rng

GREAL = Path(__file__).resolve().parents[3] / "shared" / "external" / "g-real"


def random_graph(k: int, n_max: int = 12):
    g = rng(0, "test", "cover", k)
    n = int(g.integers(1, n_max + 1))
    p = float(g.uniform(0.1, 0.9))
    return n, [(u, v) for u in range(n) for v in range(u + 1, n) if g.random() < p]


def brute_force_cover(n: int, edges) -> int:
    """Smallest popcount over all 2^n vertex subsets that touch every edge (vectorised)."""
    masks = np.arange(1 << n, dtype=np.int64)
    ok = np.ones(len(masks), dtype=bool)
    for u, v in edges:
        ok &= ((masks >> u) | (masks >> v)) & 1 == 1
    sizes = np.array([int(m).bit_count() for m in masks[ok]])
    return int(sizes.min())


def test_both_methods_match_brute_force() -> None:
    for k in range(200):
        n, edges = random_graph(k)
        expected = brute_force_cover(n, edges)
        for method in ("clique", "ilp"):
            r = vertex_cover(n, edges, method=method)
            assert r.size == expected == len(r.cover), (k, method)
            assert r.certificate.bound == expected and r.certificate.gap == 0
            assert check_cover(n, edges, list(r.cover), optimum=expected).ok


def test_max_clique_matches_networkx() -> None:
    for k in range(200):
        g = rng(0, "test", "clique", k)
        n = int(g.integers(1, 25))
        p = float(g.uniform(0.1, 0.95))
        edges = [(u, v) for u in range(n) for v in range(u + 1, n) if g.random() < p]
        G = nx.Graph()
        G.add_nodes_from(range(n))
        G.add_edges_from(edges)
        clique = max_clique(adjacency_bitsets(n, edges))
        assert len(clique) == max(len(c) for c in nx.find_cliques(G))
        assert all(G.has_edge(a, b) for a, b in itertools.combinations(clique, 2))


def test_cover_larger_graphs_methods_agree() -> None:
    for k in range(3):
        g = rng(0, "test", "cover-large", k)
        n, p = 30, (0.1, 0.3, 0.5)[k % 3]
        edges = [(u, v) for u in range(n) for v in range(u + 1, n) if g.random() < p]
        a = vertex_cover(n, edges)
        b = vertex_cover(n, edges, method="ilp")
        assert a.size == b.size
        assert check_cover(n, edges, a.cover, optimum=a.size).ok


def test_cover_timeout_and_errors() -> None:
    g = rng(0, "test", "cover-timeout", 0)
    edges = [(u, v) for u in range(60) for v in range(u + 1, 60) if g.random() < 0.5]
    with pytest.raises(SolverTimeout, match="vertex_cover"):
        vertex_cover(60, edges, method="ilp", time_limit=1e-3)
    with pytest.raises(ConfigError, match="unknown"):
        vertex_cover(3, [(0, 1)], method="greedy")
    with pytest.raises(ConfigError, match="time_limit"):
        vertex_cover(3, [(0, 1)], time_limit=0)
    assert vertex_cover(3, []).size == 0


def greal(task: str) -> list[dict]:
    path = GREAL / f"{task}.jsonl"
    if not path.is_file():
        pytest.skip(f"G-REAL reference data not found at {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_greal_vertex_cover_reproduced() -> None:
    records = greal("vertex_cover")
    assert len(records) == 110
    suboptimal = 0
    for rec in records:
        adj = np.array(rec["adj"])
        n = len(adj)
        edges = [(int(u), int(v)) for u, v in zip(*np.nonzero(np.triu(adj, 1)), strict=True)]
        ids = {name: i for i, name in enumerate(rec["name_list"])}
        ref = rec["result"]["brute_force"]
        a = vertex_cover(n, edges)
        assert a.size == ref["min_vertex"], rec["source_file"]
        if rec["size_param"] % 3 == 0:  # the ILP on a third of them, to keep the suite fast
            assert vertex_cover(n, edges, method="ilp").size == a.size
        for algo, res in rec["result"].items():
            v = check_cover(n, edges, [ids[x] for x in res["vertex_cover_text"]], optimum=a.size)
            assert v.valid, (algo, v)
            assert v.optimal == (len(res["vertex_cover_text"]) == a.size), (algo, v)
            suboptimal += not v.optimal
    assert suboptimal > 100  # greedy / 2-approximation answers are feasible but not minimum
