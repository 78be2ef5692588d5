"""Shortest paths and BFS orders: networkx / scipy agree, NLGraph references reproduced."""

from __future__ import annotations

import json
import re
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra as sp_dijkstra

from closurebench.errors import ConfigError, GraphError
from closurebench.graphs.exact import (
    UnreachableError,
    bfs_order,
    check_bfs_order,
    check_path,
    shortest_path,
)
from closurebench.seeding import rng

NLGRAPH = Path(__file__).resolve().parents[3] / "shared" / "external" / "nlgraph"


def random_graph(k: int, *, directed: bool, n_max: int = 12, weighted: bool = True):
    g = rng(0, "test", "paths", k)
    n = int(g.integers(2, n_max + 1))
    p = float(g.uniform(0.15, 0.7))
    edges = []
    for u in range(n):
        for v in range(n):
            if u == v or (not directed and v < u):
                continue
            if g.random() < p:
                edges.append((u, v, int(g.integers(1, 11))) if weighted else (u, v))
    return n, edges


def to_nx(n, edges, directed):
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    for e in edges:
        G.add_edge(e[0], e[1], weight=e[2] if len(e) == 3 else 1)
    return G


@pytest.mark.parametrize("directed", [False, True])
def test_shortest_path_matches_networkx_and_scipy(directed: bool) -> None:
    checked = 0
    for k in range(250):
        n, edges = random_graph(k, directed=directed)
        G = to_nx(n, edges, directed)
        mat = np.zeros((n, n))
        for u, v, w in edges:
            mat[u, v] = w
            if not directed:
                mat[v, u] = w
        dist = sp_dijkstra(csr_matrix(mat), directed=directed)
        g = rng(0, "test", "paths-st", k)
        s, t = (int(x) for x in g.integers(0, n, size=2))
        if not nx.has_path(G, s, t):
            with pytest.raises(UnreachableError):
                shortest_path(n, edges, s, t, directed=directed)
            continue
        r = shortest_path(n, edges, s, t, directed=directed)
        assert r.cost == nx.dijkstra_path_length(G, s, t) == int(dist[s, t])
        assert isinstance(r.cost, int)
        assert check_path(n, edges, s, t, list(r.path), directed=directed, optimum=r.cost).ok
        # The returned path does not depend on the order the edges are listed in.
        assert shortest_path(n, edges[::-1], s, t, directed=directed).path == r.path
        checked += 1
    assert checked > 150


def test_shortest_path_edge_cases() -> None:
    assert shortest_path(1, [], 0, 0, directed=False).path == (0,)
    assert shortest_path(3, [(0, 1, 2.5), (1, 2, 0.5)], 0, 2, directed=False).cost == 3.0
    # An undirected edge listed from both ends with the same weight is merged.
    assert shortest_path(2, [(0, 1, 4), (1, 0, 4)], 0, 1, directed=False).cost == 4
    with pytest.raises(GraphError, match="given twice"):
        shortest_path(2, [(0, 1, 4), (1, 0, 5)], 0, 1, directed=False)
    with pytest.raises(GraphError, match="self-loop"):
        shortest_path(2, [(0, 0, 1)], 0, 1, directed=False)
    with pytest.raises(GraphError, match=">= 0"):
        shortest_path(2, [(0, 1, -1)], 0, 1, directed=False)
    with pytest.raises(GraphError, match="not a node id"):
        shortest_path(2, [(0, 2)], 0, 1, directed=False)
    with pytest.raises(GraphError, match="source"):
        shortest_path(2, [(0, 1)], "0", 1, directed=False)  # type: ignore[arg-type]
    with pytest.raises(GraphError, match="finite"):
        shortest_path(2, [(0, 1, float("nan"))], 0, 1, directed=False)


def nx_bfs(n, edges, s, rank, directed):
    G = to_nx(n, edges, directed)
    out = [s]
    out += [
        v for _, v in nx.bfs_edges(G, s, sort_neighbors=lambda it: sorted(it, key=rank.__getitem__))
    ]
    return out


def test_bfs_order_matches_networkx_under_any_neighbour_order() -> None:
    for k in range(250):
        directed = k % 3 == 0
        n, edges = random_graph(k, directed=directed, weighted=False)
        g = rng(0, "test", "bfs", k)
        s = int(g.integers(0, n))
        rank = [int(x) for x in g.permutation(n)]
        got = bfs_order(n, edges, s, neighbour_key=rank, directed=directed).order
        assert list(got) == nx_bfs(n, edges, s, rank, directed)
        assert check_bfs_order(n, edges, s, list(got), neighbour_key=rank, directed=directed).ok
        default = bfs_order(n, edges, s, directed=directed).order
        assert list(default) == nx_bfs(n, edges, s, list(range(n)), directed)
        # Any neighbour order gives a valid BFS order, accepted in lenient mode.
        lenient = check_bfs_order(n, edges, s, list(got), directed=directed, lenient=True)
        assert lenient.ok


def test_bfs_neighbour_key_by_name() -> None:
    names = ["node 0", "node 1", "node 2", "node 10"]  # alphabetical: "node 10" < "node 2"
    edges = [(0, 1), (0, 2), (0, 3)]
    assert bfs_order(4, edges, 0, neighbour_key=names).order == (0, 1, 3, 2)
    assert bfs_order(4, edges, 0, neighbour_key=lambda i: -i).order == (0, 3, 2, 1)
    with pytest.raises(ConfigError, match="same neighbour key"):
        bfs_order(4, edges, 0, neighbour_key=["a", "b", "a", "c"])
    with pytest.raises(ConfigError, match="one key per node"):
        bfs_order(4, edges, 0, neighbour_key=["a"])


def _nlgraph_items():
    if not NLGRAPH.is_dir():
        pytest.skip(f"NLGraph reference data not found at {NLGRAPH}")
    data = json.loads((NLGRAPH / "shortest_path_main.json").read_text(encoding="utf-8"))
    return list(data.values())


def test_nlgraph_shortest_paths_reproduced() -> None:
    items = _nlgraph_items()
    edge_re = re.compile(r"an edge between node (\d+) and node (\d+) with weight (\d+)")
    n_re = re.compile(r"numbered from 0 to (\d+)")
    q_re = re.compile(r"Give the shortest path from node (\d+) to node (\d+)")
    a_re = re.compile(r"is ([\d,]+) with a total weight of (\d+)")
    multiple = 0
    for item in items:
        q = item["question"]
        n_m, q_m, a_m = n_re.search(q), q_re.search(q), a_re.search(item["answer"])
        assert n_m is not None and q_m is not None and a_m is not None, item
        n = int(n_m.group(1)) + 1
        edges = [tuple(int(x) for x in m) for m in edge_re.findall(q)]
        s, t = (int(x) for x in q_m.groups())
        path_txt, total = a_m.groups()
        ref_path = [int(x) for x in path_txt.split(",")]
        r = shortest_path(n, edges, s, t, directed=False)
        assert r.cost == int(total)
        verdict = check_path(n, edges, s, t, ref_path, directed=False)
        assert verdict.ok, verdict
        multiple += list(r.path) != ref_path
        # Mutations of the reference are rejected with a reason.
        if len(ref_path) > 2:
            bad = check_path(n, edges, s, t, [ref_path[0], *ref_path[2:]], directed=False)
            assert not bad.ok and bad.reason
    assert len(items) == 380
    assert multiple > 0  # some items have several optimal paths: compare by cost, not text
