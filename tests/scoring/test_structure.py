"""Structure-recovery metrics (GRAIN Tables 6 and 19): every decomposition class, names
resolved through the view's name map, direction and weight rules, both suites."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from closurebench.generate.closure import ClosureConfig
from closurebench.generate.closure import generate_records as generate_closure
from closurebench.generate.grit import GritConfig, generate_records
from closurebench.schema import ClosureInstance, GritInstance
from closurebench.scoring.structure import (
    NO_CALL,
    STRUCTURE_CLASSES,
    StructureScore,
    aggregate_structure,
    score_structure,
)
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tools.types import ToolGraph

Edge = tuple[str, str, float | None]


@pytest.fixture(scope="module")
def grit() -> list[GritInstance]:
    recs, _ = generate_records(GritConfig(split="test", seed=0, count=6, n_max=10))
    return recs


@pytest.fixture(scope="module")
def closure() -> list[ClosureInstance]:
    return generate_closure(ClosureConfig(count=len(CLOSURE_TASKS)))


def _view(recs: Sequence[GritInstance], task: str, naming: str) -> GritInstance:
    return next(r for r in recs if r.task == task and r.naming == naming)


def _perfect(rec: GritInstance, names: Sequence[str] | None = None) -> ToolGraph:
    """The true graph of ``rec`` written with ``names`` (default: the display names)."""
    names = list(names if names is not None else rec.names)
    g = rec.graph
    edges = tuple((names[u], names[v], float(w) if g.weighted else None) for u, v, w in g.edges)
    return ToolGraph(g.directed, g.weighted, tuple(names), edges)


def _with(graph: ToolGraph, **changes: Any) -> ToolGraph:
    fields: dict[str, Any] = {
        "directed": graph.directed,
        "weighted": graph.weighted,
        "nodes": graph.nodes,
        "edges": graph.edges,
    }
    fields.update(changes)
    return ToolGraph(**fields)


def _non_edge(rec: GritInstance) -> tuple[int, int]:
    present = {frozenset((u, v)) for u, v, _ in rec.graph.edges}
    return next(
        (u, v)
        for u in range(rec.n)
        for v in range(u + 1, rec.n)
        if frozenset((u, v)) not in present
    )


def _assert_perfect(s: StructureScore) -> None:
    assert s.cls == "exact" and s.exact
    assert s.s_inv == 1.0 and s.node_f1 == 1.0 and s.edge_f1 == 1.0
    assert s.s_inv_casefold == 1.0
    assert s.unknown_names == s.extra_edges == s.missing_edges == s.weight_errors == 0


# --- exact ------------------------------------------------------------------------


def test_every_grit_record_rebuilt_from_its_names_is_exact(grit: list[GritInstance]) -> None:
    assert {r.naming for r in grit} == {"canonical", "random", "semantic", "mixed"}
    for rec in grit:
        s = score_structure(rec, _perfect(rec))
        _assert_perfect(s)
        assert s.true_nodes == s.model_nodes == s.matched_nodes == rec.n
        assert s.true_edges == s.model_edges == s.matched_edges == len(rec.graph.edges)


def test_every_closure_record_rebuilt_from_its_labels_is_exact(
    closure: list[ClosureInstance],
) -> None:
    assert len({r.category for r in closure}) == len(CLOSURE_TASKS)
    for rec in closure:
        g = rec.graph
        edges: tuple[Edge, ...] = tuple((rec.labels[u], rec.labels[v], None) for u, v in g.edges)
        s = score_structure(rec, ToolGraph(g.directed, False, tuple(rec.labels), edges))
        _assert_perfect(s)
        assert s.true_nodes == rec.n and s.true_edges == len(g.edges)


def test_mixed_views_resolve_aliases_to_their_node(grit: list[GritInstance]) -> None:
    mixed = [r for r in grit if r.naming == "mixed"]
    assert mixed and all(r.aliases for r in mixed)
    for rec in mixed:
        names = list(rec.names)
        for alias, node in rec.aliases.items():
            names[node] = alias  # the model writes the alias everywhere instead of the name
        _assert_perfect(score_structure(rec, _perfect(rec, names)))
        # ... or the name as a key and the alias as a neighbour (one node under two names)
        alias, node = next(iter(rec.aliases.items()))
        g = _perfect(rec)
        edges = tuple((a, alias if b == rec.names[node] else b, w) for a, b, w in g.edges)
        s = score_structure(rec, _with(g, nodes=(*g.nodes, alias), edges=edges))
        _assert_perfect(s)
        assert s.model_nodes == rec.n


def test_alias_matched_case_and_space_insensitively(grit: list[GritInstance]) -> None:
    rec = _view(grit, "shortest_path", "mixed")
    alias, node = next(iter(rec.aliases.items()))
    names = list(rec.names)
    names[node] = f"  {alias.upper()} "
    s = score_structure(rec, _perfect(rec, names))
    # the recovery metrics read the miscased alias as its node ...
    assert s.cls == "exact" and s.exact and s.node_f1 == 1.0 and s.edge_f1 == 1.0
    assert s.s_inv_casefold == 1.0
    # ... s_inv aligns names exactly through the view's map: that node's edges miss
    touching = sum(1 for u, v, _ in rec.graph.edges if node in (u, v))
    m = len(rec.graph.edges)
    assert touching and s.s_inv == pytest.approx((m - touching) / (m + touching))


def test_undirected_edges_listed_in_both_directions_count_once(grit: list[GritInstance]) -> None:
    rec = _view(grit, "shortest_path", "semantic")
    g = _perfect(rec)
    both = g.edges + tuple((b, a, w) for a, b, w in g.edges)
    for directed in (False, True):  # a model that calls the graph directed lists both ways
        s = score_structure(rec, _with(g, directed=directed, edges=both))
        _assert_perfect(s)
        assert s.model_edges == len(rec.graph.edges)


def test_weights_compare_as_floats_with_a_tolerance(grit: list[GritInstance]) -> None:
    rec = _view(grit, "tsp", "random")
    assert rec.graph.weighted
    g = _perfect(rec)
    # int weights (as a JSON number 7) and floats from strings ("7" -> 7.0) are the same
    as_ints = tuple((a, b, int(w)) for a, b, w in g.edges if w is not None)
    _assert_perfect(score_structure(rec, _with(g, edges=as_ints)))
    nudged = tuple((a, b, w + 1e-12) for a, b, w in g.edges if w is not None)
    _assert_perfect(score_structure(rec, _with(g, edges=nudged)))


def test_unweighted_truth_ignores_model_weights(grit: list[GritInstance]) -> None:
    rec = _view(grit, "vertex_cover", "canonical")
    assert not rec.graph.weighted
    g = _perfect(rec)
    weighted = tuple((a, b, 99.0) for a, b, _ in g.edges)
    _assert_perfect(score_structure(rec, _with(g, weighted=True, edges=weighted)))


def test_isolated_true_node_listed_is_exact_and_left_out_is_node_mismatch(
    closure: list[ClosureInstance],
) -> None:
    rec = next(
        r for r in closure if len({v for e in r.graph.edges for v in e}) < r.n and r.graph.edges
    )
    edges: tuple[Edge, ...] = tuple(
        (rec.labels[u], rec.labels[v], None) for u, v in rec.graph.edges
    )
    full = ToolGraph(rec.graph.directed, False, tuple(rec.labels), edges)
    _assert_perfect(score_structure(rec, full))
    touched = tuple(dict.fromkeys(x for a, b, _ in edges for x in (a, b)))
    s = score_structure(rec, _with(full, nodes=touched))
    assert s.cls == "node_mismatch" and not s.exact
    assert s.s_inv == 1.0 and s.edge_f1 == 1.0  # the edges are all right
    assert s.node_f1 == pytest.approx(2 * len(touched) / (len(touched) + rec.n))


def test_graph_comparison_is_scored_against_the_first_graph(
    closure: list[ClosureInstance],
) -> None:
    rec = next(r for r in closure if r.category == "graph_comparison")
    assert rec.graph2 is not None
    lab = rec.labels

    def graph(edges: Sequence[tuple[int, int]]) -> ToolGraph:
        return ToolGraph(True, False, tuple(lab), tuple((lab[u], lab[v], None) for u, v in edges))

    _assert_perfect(score_structure(rec, graph(rec.graph.edges)))
    if {tuple(e) for e in rec.graph2.edges} != {tuple(e) for e in rec.graph.edges}:
        assert not score_structure(rec, graph(rec.graph2.edges)).exact


# --- the failure classes ------------------------------------------------------------


def test_parse_failure_is_all_zero(grit: list[GritInstance]) -> None:
    rec = grit[0]
    s = score_structure(rec, None)
    assert s.cls == "parse_failure" and not s.exact
    assert (s.node_f1, s.edge_f1, s.s_inv) == (0.0, 0.0, 0.0)
    assert s.true_nodes == rec.n and s.true_edges == len(rec.graph.edges)
    assert s.model_nodes == s.model_edges == 0


def test_renamed_node_is_a_node_mismatch(grit: list[GritInstance]) -> None:
    rec = _view(grit, "bfs", "semantic")
    names = list(rec.names)
    names[2] = "Nowhere Street"  # an unknown name: a node of its own
    s = score_structure(rec, _perfect(rec, names))
    assert s.cls == "node_mismatch"
    assert s.unknown_names == 1
    assert s.model_nodes == rec.n and s.matched_nodes == rec.n - 1
    assert s.node_f1 == pytest.approx((rec.n - 1) / rec.n)
    deg = sum(1 for u, v, _ in rec.graph.edges if 2 in (u, v))
    m = len(rec.graph.edges)
    assert s.matched_edges == m - deg
    assert s.s_inv == pytest.approx((m - deg) / (m + deg))
    assert s.extra_edges == s.missing_edges == deg


def test_extra_node_is_a_node_mismatch(grit: list[GritInstance]) -> None:
    rec = _view(grit, "centrality", "canonical")
    g = _perfect(rec)
    s = score_structure(rec, _with(g, nodes=(*g.nodes, "Ghost")))
    assert s.cls == "node_mismatch" and s.edge_f1 == 1.0 and s.unknown_names == 1


def test_extra_edges_only(grit: list[GritInstance]) -> None:
    rec = _view(grit, "shortest_path", "random")
    g = _perfect(rec)
    u, v = _non_edge(rec)
    s = score_structure(rec, _with(g, edges=(*g.edges, (rec.names[u], rec.names[v], 3.0))))
    m = len(rec.graph.edges)
    assert s.cls == "extra_edges" and s.extra_edges == 1
    assert s.s_inv == pytest.approx(m / (m + 1))
    assert s.edge_f1 == pytest.approx(2 * m / (2 * m + 1))
    assert s.node_f1 == 1.0


def test_missing_edges_only(grit: list[GritInstance]) -> None:
    rec = _view(grit, "graph_coloring", "semantic")
    g = _perfect(rec)
    s = score_structure(rec, _with(g, edges=g.edges[1:]))
    m = len(rec.graph.edges)
    assert s.cls == "missing_edges" and s.missing_edges == 1 and s.extra_edges == 0
    assert s.s_inv == pytest.approx((m - 1) / m)


def test_weight_mismatch_only(grit: list[GritInstance]) -> None:
    rec = _view(grit, "shortest_path", "canonical")
    g = _perfect(rec)
    a, b, w = g.edges[0]
    assert w is not None
    s = score_structure(rec, _with(g, edges=((a, b, w + 1), *g.edges[1:])))
    m = len(rec.graph.edges)
    assert s.cls == "weight_mismatch" and s.weight_errors == 1
    assert s.matched_edges == m - 1 and s.s_inv == pytest.approx((m - 1) / (m + 1))
    assert s.extra_edges == s.missing_edges == 0
    # a difference beyond the tolerance is a different weight
    s = score_structure(rec, _with(g, edges=((a, b, w + 1e-6), *g.edges[1:])))
    assert s.cls == "weight_mismatch"


def test_unweighted_model_of_a_weighted_truth_misses_every_weight(
    grit: list[GritInstance],
) -> None:
    rec = _view(grit, "tsp", "semantic")
    g = _perfect(rec)
    bare = tuple((a, b, None) for a, b, _ in g.edges)
    s = score_structure(rec, _with(g, weighted=False, edges=bare))
    assert s.cls == "weight_mismatch" and s.weight_errors == len(rec.graph.edges)
    assert s.s_inv == 0.0 and s.edge_f1 == 0.0 and s.node_f1 == 1.0
    # even if it writes numbers, a graph declared unweighted carries no weights
    s = score_structure(rec, _with(g, weighted=False))
    assert s.cls == "weight_mismatch"


def test_conflicting_weights_for_one_undirected_edge(grit: list[GritInstance]) -> None:
    rec = _view(grit, "shortest_path", "semantic")
    g = _perfect(rec)
    a, b, w = g.edges[0]
    assert w is not None
    s = score_structure(rec, _with(g, directed=True, edges=(*g.edges, (b, a, w + 2))))
    assert s.cls == "weight_mismatch" and s.weight_errors == 1
    assert s.model_edges == len(rec.graph.edges) + 1


@pytest.mark.parametrize("change", ["missing_and_extra", "extra_and_weight"])
def test_mixed(grit: list[GritInstance], change: str) -> None:
    rec = _view(grit, "shortest_path", "mixed")
    g = _perfect(rec)
    u, v = _non_edge(rec)
    extra = (rec.names[u], rec.names[v], 1.0)
    if change == "missing_and_extra":
        edges = (*g.edges[1:], extra)
    else:
        a, b, w = g.edges[0]
        assert w is not None
        edges = ((a, b, w + 5), *g.edges[1:], extra)
    s = score_structure(rec, _with(g, edges=edges))
    assert s.cls == "mixed" and not s.exact
    assert s.extra_edges == 1
    assert 0.0 < s.s_inv < 1.0


# --- direction ----------------------------------------------------------------------


def _directed_record() -> GritInstance:
    """A hand-made directed, weighted GRIT view: 0->1 (2), 1->2 (3), 2->0 (4), node 3 alone."""
    recs, _ = generate_records(GritConfig(split="test", seed=1, count=1, n_max=10))
    base = recs[0]
    graph = base.graph.model_copy(
        update={
            "directed": True,
            "weighted": True,
            "n": 4,
            "edges": [(0, 1, 2), (1, 2, 3), (2, 0, 4)],
        }
    )
    return base.model_copy(
        update={"graph": graph, "names": ["A", "B", "C", "D"], "aliases": {"Bee": 1}}
    )


def test_directed_truth_compares_ordered_pairs() -> None:
    rec = _directed_record()
    nodes = ("A", "B", "C", "D")
    right = (("A", "B", 2.0), ("Bee", "C", 3.0), ("C", "A", 4.0))
    _assert_perfect(score_structure(rec, ToolGraph(True, True, nodes, right)))
    reversed_one = (("B", "A", 2.0), *right[1:])
    s = score_structure(rec, ToolGraph(True, True, nodes, reversed_one))
    assert s.cls == "mixed" and s.extra_edges == s.missing_edges == 1


def test_undirected_model_of_a_directed_truth_means_both_directions() -> None:
    rec = _directed_record()
    nodes = ("A", "B", "C", "D")
    right = (("A", "B", 2.0), ("B", "C", 3.0), ("C", "A", 4.0))
    s = score_structure(rec, ToolGraph(False, True, nodes, right))
    assert s.cls == "extra_edges" and s.extra_edges == 3
    assert s.model_edges == 6 and s.s_inv == 0.5


def test_duck_typed_record_and_graph() -> None:
    from types import SimpleNamespace as NS

    rec = NS(
        names=["x", "y"],
        aliases={},
        graph=NS(directed=False, weighted=False, n=2, edges=[[0, 1, 1]]),
    )
    g = NS(directed=False, weighted=False, nodes=["x", "y"], edges=[("y", "x", None)])
    _assert_perfect(score_structure(rec, g))  # type: ignore[arg-type]
    empty = NS(names=[], aliases={}, graph=NS(directed=False, weighted=False, n=0, edges=[]))
    s = score_structure(empty, NS(directed=False, weighted=False, nodes=[], edges=[]))  # type: ignore[arg-type]
    _assert_perfect(s)


# --- the score object and the aggregate -----------------------------------------------


def test_json_round_trip_and_validation(grit: list[GritInstance]) -> None:
    rec = _view(grit, "bfs", "mixed")
    s = score_structure(rec, _perfect(rec, ["?" + n for n in rec.names]))
    data = s.to_json()
    assert set(data) >= {"node_f1", "edge_f1", "exact", "s_inv", "cls", "unknown_names"}
    assert StructureScore.from_json(data) == s
    with pytest.raises(ValueError, match="cls"):
        StructureScore.from_json({k: v for k, v in data.items() if k != "cls"})
    with pytest.raises(ValueError, match="exact"):
        StructureScore.from_json({**data, "exact": 1})
    with pytest.raises(ValueError, match="unknown structure class"):
        StructureScore.from_json({**data, "cls": "nope"})


def test_aggregate_means_rates_and_shares() -> None:
    scores = [
        StructureScore(1.0, 1.0, True, 1.0, "exact"),
        StructureScore(1.0, 0.5, False, 0.25, "missing_edges"),
        StructureScore(0.0, 0.0, False, 0.0, "parse_failure"),
    ]
    agg = aggregate_structure(scores, no_call=1)
    assert agg["n"] == 4
    assert agg["node_f1"] == 0.5 and agg["edge_f1"] == 0.375
    assert agg["s_inv"] == pytest.approx(1.25 / 4) and agg["exact_rate"] == 0.25
    assert list(agg["shares"]) == [*STRUCTURE_CLASSES, NO_CALL]
    assert agg["counts"]["parse_failure"] == 1 and agg["counts"][NO_CALL] == 1
    assert sum(agg["shares"].values()) == pytest.approx(100.0)
    empty = aggregate_structure([])
    assert empty["n"] == 0 and math.isnan(empty["exact_rate"])
    assert all(math.isnan(v) for v in empty["shares"].values())
