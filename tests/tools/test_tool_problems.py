"""Every problem type on hand-made graphs with hand-checked answers, plus reference checks."""

from __future__ import annotations

import itertools
import random
from typing import Any

import networkx as nx
import numpy as np
import pytest
from tool_calls import DIGRAPH, HAND_CALLS, ROADS, SQUARE, STAR, WHEEL, make_call

from closurebench.graphs import Graph
from closurebench.graphs.closure import desc, reach, reach_in, scc_labels
from closurebench.graphs.exact import check_colouring, check_cover, check_tour
from closurebench.graphs.measures import in_degrees, out_degrees, triangle_count
from closurebench.tools import PROBLEM_TYPES, PROBLEMS, ToolResult, run_tool


def ok(call: dict[str, Any]) -> ToolResult:
    r = run_tool(call)
    assert r.ok, r.text
    assert r.kind == "ok"
    return r


def test_every_problem_type_has_a_solver_and_a_hand_call() -> None:
    assert list(PROBLEMS) == list(PROBLEM_TYPES)
    assert set(HAND_CALLS) == set(PROBLEM_TYPES)
    for name, call in HAND_CALLS.items():
        assert ok(call).problem_type == name


# --- the six GRIT tasks ---------------------------------------------------------------


def test_shortest_path_weighted_and_unweighted() -> None:
    r = ok(HAND_CALLS["shortest_path"])  # A-C 1, C-B 2, B-D 5, D-E 3
    assert r.value == 11
    assert r.details["path"] == ["A", "C", "B", "D", "E"]
    assert r.text == (
        "Shortest path algorithm (Dijkstra) result:\n• Path: A → C → B → D → E\n• Total Length: 11"
    )
    hops = ok(make_call("shortest_path", ROADS, weighted=False, start="A", end="E"))
    assert hops.value == 3  # A-B-D-E or A-C-D-E: 3 edges
    assert hops.details["path"] in (["A", "B", "D", "E"], ["A", "C", "D", "E"])
    assert "BFS" in hops.text and "unweighted" in hops.text
    assert ok(make_call("shortest_path", ROADS, weighted=True, start="B", end="B")).value == 0


def test_shortest_path_unreachable_says_so() -> None:
    r = ok(
        make_call(
            "shortest_path",
            {"a": {"b": 2}, "b": {}},
            directed=True,
            weighted=True,
            start="b",
            end="a",
        )
    )
    assert r.value is None and r.details["reachable"] is False
    assert "No Path: a cannot be reached from b (directed graph)" in r.text


def test_graph_coloring_of_the_wheel_needs_four_colours() -> None:
    r = ok(HAND_CALLS["graph_coloring"])
    assert r.value == 4
    colouring = r.details["coloring"]
    assert set(colouring) == set(WHEEL) | {"r5"}
    for u, nbrs in WHEEL.items():
        for v in nbrs:
            assert colouring[u] != colouring[v]
    assert sorted(set(colouring.values())) == [1, 2, 3, 4]
    assert r.details["certificate"]["gap"] == 0
    assert "Chromatic Number: 4" in r.text
    odd = ok(make_call("coloring", {"a": ["b"], "b": ["c"], "c": ["d"], "d": ["e"], "e": ["a"]}))
    assert odd.value == 3
    assert ok(make_call("graph_coloring", {"a": [], "b": []})).value == 1


def test_graph_coloring_output_does_not_depend_on_the_method(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The printed colouring is the canonical one: forcing "auto" onto SAT (threshold
    # lowered instead of a graph at n >= 50) changes only the named proof.
    from closurebench.graphs.exact import coloring

    rng = random.Random(42)
    names = [f"v{i}" for i in range(14)]
    graph = {a: [b for b in names[i + 1 :] if rng.random() < 0.55] for i, a in enumerate(names)}
    by_dsatur = ok(make_call("graph_coloring", graph))
    monkeypatch.setattr(coloring, "AUTO_SAT_MIN_N", 10)
    by_sat = ok(make_call("graph_coloring", graph))
    assert by_dsatur.details["certificate"]["method"] == "dsatur-bnb"
    assert by_sat.details["certificate"]["method"] == "sat-cadical195"
    for key in ("chromatic_number", "coloring", "color_classes"):
        assert by_sat.details[key] == by_dsatur.details[key]
    assert by_sat.text.splitlines()[:3] == by_dsatur.text.splitlines()[:3]


def test_tsp_square_and_start_and_brute_force() -> None:
    r = ok(HAND_CALLS["tsp"])
    assert r.value == 4
    assert r.details["tour"] in (["a", "b", "c", "d"], ["a", "d", "c", "b"])
    started = ok(make_call("tsp", SQUARE, weighted=True, start="c"))
    assert started.details["tour"][0] == "c" and started.value == 4
    assert started.text.splitlines()[1].startswith("• Tour: c → ")
    assert ok(make_call("tsp", {"a": {"b": 3}}, weighted=True)).value == 6
    assert ok(make_call("tsp", {"a": {}}, weighted=True)).value == 0
    rng = random.Random(5)
    for n in (5, 6, 7):
        names = [f"p{i}" for i in range(n)]
        w = {(i, j): rng.randint(1, 20) for i in range(n) for j in range(i + 1, n)}
        data: dict[str, Any] = {names[i]: {} for i in range(n)}
        for (i, j), x in w.items():
            data[names[i]][names[j]] = x
        best = min(
            sum(w[min(a, b), max(a, b)] for a, b in itertools.pairwise((0, *p, 0)))
            for p in itertools.permutations(range(1, n))
        )
        got = ok(make_call("tsp", data, weighted=True))
        assert got.value == best
        matrix = [[0 if i == j else w[min(i, j), max(i, j)] for j in range(n)] for i in range(n)]
        tour = [names.index(x) for x in got.details["tour"]]
        assert check_tour(matrix, tour, optimum=best).ok


def test_vertex_cover_of_the_wheel() -> None:
    r = ok(HAND_CALLS["vertex_cover"])
    assert r.value == 4
    cover = set(r.details["cover"])
    assert "h" in cover and len(cover) == 4
    for u, nbrs in WHEEL.items():
        for v in nbrs:
            assert u in cover or v in cover
    star = ok(make_call("vertex_cover", STAR))
    assert star.value == 2 and set(star.details["cover"]) in ({"h", "z"}, {"h", "w"})


def test_bfs_orders_under_each_rule() -> None:
    data = {"c": ["a", "b"], "b": ["d"], "a": ["d", "e"]}
    assert ok(HAND_CALLS["bfs"]).value == ["c", "b", "a", "d", "e"]  # listed: keys c, b, a
    alpha = ok(make_call("bfs", data, start="c", order="alphabetical"))
    assert alpha.value == ["c", "a", "b", "d", "e"]
    numbers = {"10": ["9", "100"], "9": ["2"]}
    assert ok(make_call("bfs", numbers, start="10", order="numeric")).value == [
        "10",
        "9",
        "100",
        "2",
    ]
    assert ok(make_call("bfs", numbers, start="10", order="alphabetical")).value == [
        "10",
        "100",
        "9",
        "2",
    ]
    assert ok(make_call("bfs", numbers, start="10")).value == ["10", "9", "100", "2"]
    naturally = ok(make_call("bfs", {"v1": ["v10", "v2"]}, start="v1", order="numeric"))
    assert naturally.value == ["v1", "v2", "v10"]
    directed = ok(make_call("bfs", DIGRAPH, directed=True, start="d"))
    assert directed.value == ["d", "e"]
    assert directed.details["unreached"] == ["a", "b", "c", "f", "g"]
    assert "Not Reached: a, b, c, f, g" in directed.text


def test_centrality_measures_and_ties() -> None:
    r = ok(HAND_CALLS["centrality"])  # h lies on 5 of the 6 pairs among x, y, z, w
    assert r.value == "h"
    assert r.details["scores"]["h"] == pytest.approx(5 / 6)
    assert r.details["scores"]["z"] == pytest.approx(0.5)
    assert r.details["unique"] is True
    degree = ok(make_call("degree centrality", STAR))
    assert degree.value == "h" and degree.details["scores"]["h"] == pytest.approx(0.75)
    close = ok(make_call("centrality", STAR, metric="closeness"))
    assert close.value == "h" and close.details["scores"]["h"] == pytest.approx(0.8)
    path = {"a": ["b"], "b": ["c"], "c": ["d"]}
    tie = ok(make_call("centrality", path, centrality="closeness"))
    assert tie.details["tied"] == ["b", "c"] and tie.details["unique"] is False
    assert tie.value == "b"
    assert "Highest: tie between b, c (0.75 each)" in tie.text
    g = nx.Graph([("h", "x"), ("h", "y"), ("h", "z"), ("z", "w")])
    for measure, fn in (
        ("degree", nx.degree_centrality),
        ("closeness", nx.closeness_centrality),
        ("betweenness", nx.betweenness_centrality),
    ):
        got = ok(make_call("centrality", STAR, measure=measure)).details["scores"]
        assert got == pytest.approx(fn(g))


# --- ClosureBench primitives and the extras ---------------------------------------------


def test_directed_primitives_by_hand() -> None:
    reach_call = HAND_CALLS["reachability"]
    r = ok(reach_call)
    assert r.value is True and r.details["path"] == ["a", "b", "c", "d", "e"]
    back = ok(make_call("reachability", DIGRAPH, directed=True, start="e", end="a"))
    assert back.value is False and back.details["path"] is None
    on_cycle = ok(HAND_CALLS["reachable_set"])
    assert on_cycle.value == ["a", "b", "c", "d", "e"]  # a is on the cycle a-b-c
    assert "a is counted" in on_cycle.text
    off_cycle = ok(make_call("reachable_set", DIGRAPH, directed=True, start="d"))
    assert off_cycle.value == ["e"]
    assert ok(HAND_CALLS["out_degree"]).value == {
        "a": 1,
        "b": 1,
        "c": 2,
        "d": 1,
        "e": 0,
        "f": 1,
        "g": 0,
    }
    assert ok(HAND_CALLS["in_degree"]).value == 2
    assert ok(make_call("indegree", DIGRAPH, directed=True, source="a")).value == 1
    comps = ok(HAND_CALLS["scc"])
    assert comps.value == [["a", "b", "c"], ["d"], ["e"], ["f"], ["g"]]
    assert ok(make_call("scc", DIGRAPH, directed=True, node="c")).value == ["a", "b", "c"]
    assert ok(HAND_CALLS["ancestors"]).value == ["a", "b", "c", "f"]
    desc_a = ok(HAND_CALLS["descendants"])
    assert desc_a.value == ["b", "c", "d", "e"]  # a excluded although it is on a cycle
    assert "never counted" in desc_a.text
    assert ok(HAND_CALLS["successors"]).value == ["a", "d"]
    assert ok(HAND_CALLS["predecessors"]).value == ["c", "f"]
    assert ok(make_call("parents", DIGRAPH, directed=True, node="a")).value == ["c"]
    assert ok(make_call("children", DIGRAPH, directed=True, node="b")).value == ["c"]


def test_undirected_primitives() -> None:
    und = {"a": ["b"], "b": ["c"], "d": []}
    assert ok(make_call("reachable_set", und, start="a")).value == ["b", "c"]
    assert ok(make_call("degree", und, node="b")).value == 2
    comps = ok(make_call("scc", und)).value
    assert comps == [["a", "b", "c"], ["d"]]
    assert ok(make_call("descendants", und, node="a")).value == ["b", "c"]


def test_triangle_count() -> None:
    r = ok(HAND_CALLS["triangle_count"])  # K4
    assert r.value == 4 and r.details["per_node"] == {"a": 3, "b": 3, "c": 3, "d": 3}
    assert ok(make_call("triangles", STAR)).value == 0
    directed = ok(make_call("triangle_count", {"a": ["b"], "b": ["c"], "c": ["a"]}, directed=True))
    assert directed.value == 1 and "directions are ignored" in directed.text


def test_minimum_spanning_tree_and_forest() -> None:
    r = ok(HAND_CALLS["minimum_spanning_tree"])  # A-C 1, C-B 2, D-E 3, B-D 5
    assert r.value == 11
    assert r.details["edges"] == [["A", "C", 1], ["C", "B", 2], ["D", "E", 3], ["B", "D", 5]]
    assert "Edges (4): A - C (1), C - B (2), D - E (3), B - D (5)" in r.text
    forest = ok(make_call("mst", {"a": {"b": 2}, "c": {"d": 1}}, weighted=True))
    assert forest.value == 3 and forest.details["trees"] == 2
    assert "minimum spanning forest of 2 trees" in forest.text
    unweighted = ok(make_call("minimum_spanning_tree", WHEEL))
    assert unweighted.value == 5  # six nodes, five edges


def test_topological_sort_rules_and_cycles() -> None:
    dag = {"b": ["a"], "c": [], "a": []}
    assert ok(HAND_CALLS["topological_sort"]).value == ["b", "a", "c"]  # alphabetical ties
    assert ok(make_call("toposort", dag, directed=True, order="listed")).value == ["b", "c", "a"]
    cyclic = ok(make_call("topological_sort", DIGRAPH, directed=True))
    assert cyclic.value is None and cyclic.details["cycle"] == ["a", "b", "c"]
    assert "Cycle: a → b → c → a" in cyclic.text


def test_connectivity_and_cycle_detection() -> None:
    r = ok(HAND_CALLS["connectivity"])
    assert r.value is False
    assert r.details["weak_components"] == [["a", "b", "c", "d", "e", "f"], ["g"]]
    assert len(r.details["strong_components"]) == 5
    ring = {"a": ["b"], "b": ["c"], "c": ["a"]}
    assert ok(make_call("connectivity", ring, directed=True)).value is True
    assert ok(make_call("is connected", {"a": ["b"], "c": []})).value is False
    assert ok(make_call("connectivity", {"a": ["b"], "b": ["c"]})).value is True
    cyc = ok(HAND_CALLS["cycle_detection"])
    assert cyc.value is True and cyc.details["cycle"] == ["a", "b", "c"]
    assert ok(make_call("has_cycle", {"a": ["b", "c"], "c": ["d"]})).value is False  # a tree
    two_way = ok(make_call("cycle_detection", {"a": ["b"], "b": ["a"]}, directed=True))
    assert two_way.value is True and two_way.details["cycle"] == ["a", "b"]
    square = ok(make_call("cycle_detection", {"a": ["b"], "b": ["c"], "c": ["d"], "d": ["a"]}))
    assert square.details["cycle"] == ["a", "b", "c", "d"]


# --- randomised cross-checks against the project's graph code and networkx --------------


def _random_digraph(rng: random.Random, n: int, p: float) -> tuple[dict[str, list[str]], Graph]:
    names = [f"v{i}" for i in range(n)]
    arcs = [(u, v) for u in range(n) for v in range(n) if u != v and rng.random() < p]
    data: dict[str, list[str]] = {x: [] for x in names}
    for u, v in arcs:
        data[names[u]].append(names[v])
    return data, Graph(n, arcs, directed=True)


def _names(mask: np.ndarray) -> list[str]:
    return [f"v{i}" for i in np.flatnonzero(mask)]


@pytest.mark.parametrize("seed", range(8))
def test_primitives_match_closurebench_graphs(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 12)
    data, g = _random_digraph(rng, n, rng.choice([0.1, 0.2, 0.35]))
    x, y = rng.randrange(n), rng.randrange(n)
    sx, sy = f"v{x}", f"v{y}"

    def value(ptype: str, **params: Any) -> Any:
        return ok(make_call(ptype, data, directed=True, **params)).value

    assert value("reachability", start=sx, end=sy) == bool(reach(g, x)[y])
    assert value("descendants", node=sx) == _names(desc(g, x))
    ancestors = reach_in(g, x)
    ancestors[x] = False
    assert value("ancestors", node=sx) == _names(ancestors)
    members = reach(g, x) & reach_in(g, x)
    on_cycle = bool(members.sum() > 1)
    expected = reach(g, x).copy()
    expected[x] = on_cycle
    assert value("reachable_set", start=sx) == _names(expected)
    count, labels = scc_labels(g)
    comps = value("scc")
    assert len(comps) == count
    for comp in comps:
        ids = [int(c[1:]) for c in comp]
        assert len({int(labels[i]) for i in ids}) == 1
        assert int((labels == labels[ids[0]]).sum()) == len(ids)
    assert value("out_degree") == {f"v{i}": int(d) for i, d in enumerate(out_degrees(g))}
    assert value("in_degree") == {f"v{i}": int(d) for i, d in enumerate(in_degrees(g))}
    und = Graph(n, sorted({(min(u, v), max(u, v)) for u, v in g.edges}), directed=False)
    assert value("triangle_count") == triangle_count(und)


@pytest.mark.parametrize("seed", range(6))
def test_extras_match_networkx(seed: int) -> None:
    rng = random.Random(100 + seed)
    n = rng.randint(2, 10)
    data, g = _random_digraph(rng, n, 0.25)
    G = nx.DiGraph()
    G.add_nodes_from(f"v{i}" for i in range(n))
    G.add_edges_from((f"v{u}", f"v{v}") for u, v in g.edges)
    topo = ok(make_call("topological_sort", data, directed=True))
    cyc = ok(make_call("cycle_detection", data, directed=True))
    assert cyc.value == (not nx.is_directed_acyclic_graph(G))
    if nx.is_directed_acyclic_graph(G):
        order = topo.value
        assert order == list(nx.lexicographical_topological_sort(G))
    else:
        assert topo.value is None
        cycle = topo.details["cycle"]
        assert all(G.has_edge(a, b) for a, b in itertools.pairwise([*cycle, cycle[0]]))
    conn = ok(make_call("connectivity", data, directed=True))
    assert conn.value == nx.is_strongly_connected(G)
    assert conn.details["weakly_connected"] == nx.is_weakly_connected(G)
    # undirected weighted: MST weight and cycles
    weights: dict[str, dict[str, int]] = {f"v{i}": {} for i in range(n)}
    H = nx.Graph()
    H.add_nodes_from(weights)
    for u, v in g.edges:
        if u < v:
            w = rng.randint(1, 9)
            weights[f"v{u}"][f"v{v}"] = w
            H.add_edge(f"v{u}", f"v{v}", weight=w)
    mst = ok(make_call("minimum_spanning_tree", weights, weighted=True))
    assert mst.value == sum(d["weight"] for *_, d in nx.minimum_spanning_edges(H, data=True))
    assert mst.details["trees"] == nx.number_connected_components(H)
    has_cycle = ok(make_call("cycle_detection", weights, weighted=True))
    forest_edges = H.number_of_nodes() - nx.number_connected_components(H)
    assert has_cycle.value == (H.number_of_edges() > forest_edges)
    if has_cycle.value:
        c = has_cycle.details["cycle"]
        assert len(c) >= 3 and all(H.has_edge(a, b) for a, b in itertools.pairwise([*c, c[0]]))
    cover = ok(make_call("vertex_cover", weights))
    edges = [(int(a[1:]), int(b[1:])) for a, b in H.edges]
    ids = [int(x[1:]) for x in cover.details["cover"]]
    assert check_cover(n, edges, ids).ok
    colouring = ok(make_call("graph_coloring", weights))
    colours = [colouring.details["coloring"][f"v{i}"] for i in range(n)]
    assert check_colouring(n, edges, colours).ok
