"""Level-2 and Level-3 ClosureBench categories: sampling, well-posedness, three routes."""

from __future__ import annotations

import numpy as np
import pytest

from closurebench.errors import Resample
from closurebench.graphs import Graph, desc, has_path, in_degrees, out_degrees, reach_in, scc_labels
from closurebench.schema import Ambiguity
from closurebench.tasks.closure.base import (
    ClosureStructure,
    ClosureTask,
    Verified,
    sample_verified,
    verify,
)
from closurebench.tasks.closure.l2 import L2_TASKS
from closurebench.tasks.closure.l2.degree_then_reach import DegreeThenReach, unique_hub
from closurebench.tasks.closure.l2.intersect_then_size import IntersectThenSize
from closurebench.tasks.closure.l2.reach_then_filter import ReachThenFilter
from closurebench.tasks.closure.l2.scc_then_count import SccThenCount
from closurebench.tasks.closure.l2.triangle_in_subgraph import TriangleInSubgraph
from closurebench.tasks.closure.l3 import L3_TASKS
from closurebench.tasks.closure.l3.aggregate_over_set import AggregateOverSet
from closurebench.tasks.closure.l3.chain_of_filters import ChainOfFilters
from closurebench.tasks.closure.l3.conditional import Conditional
from closurebench.tasks.closure.l3.graph_comparison import GraphComparison
from closurebench.tasks.closure.l3.kinship_complex import KinshipComplex, lineage_root
from closurebench.tasks.closure.l3.mixed_domain import MixedDomain
from closurebench.tasks.closure.l3.multi_query import MultiQuery

TASKS = {t.name: t for t in (*L2_TASKS, *L3_TASKS)}
SIZES = (4, 6, 8, 10, 14)
DENSITIES = (0.1, 0.3, 0.5)
SEEDS = 4  # per (n, density): 60 verified draws per category keeps the file fast

L2_ORDER = (
    "reach_then_count",
    "reach_then_filter",
    "kinship_chain",
    "triangle_in_subgraph",
    "path_and_compare",
    "scc_then_count",
    "degree_then_reach",
    "intersect_then_size",
)
L3_ORDER = (
    "multi_query",
    "conditional",
    "aggregate_over_set",
    "kinship_complex",
    "graph_comparison",
    "chain_of_filters",
    "mixed_domain",
)


def s_of(name: str, edges, anchors, n: int | None = None, **kw) -> ClosureStructure:
    n = n if n is not None else 1 + max(max(e) for e in edges)
    directed = kw.pop("directed", True)
    return ClosureStructure(name, Graph(n, edges, directed=directed), tuple(anchors.items()), **kw)


def check_type(task: ClosureTask, answer) -> None:
    rt = task.result_type
    if rt == "boolean":
        assert type(answer) is bool
    elif rt == "integer":
        assert type(answer) is int
    elif rt == "float":
        assert type(answer) is float and round(answer, 2) == answer
    elif rt == "set":
        assert isinstance(answer, tuple) and list(answer) == sorted(set(answer))
        assert all(type(v) is int for v in answer)
    elif rt == "compound":
        assert task.compound_keys is not None
        assert set(answer) == set(task.compound_keys)
        assert type(answer["reachable"]) is bool and type(answer["degree"]) is int


def check_well_posed(task: ClosureTask, v: Verified) -> None:
    s = v.structure
    g = s.graph
    assert s.category == task.name
    assert tuple(sorted(dict(s.anchors))) == tuple(sorted(task.anchor_names))
    assert g.directed == task.directed
    x = s.anchor("X")
    if "Y" in task.anchor_names:
        assert s.anchor("Y") != x
    ans = v.answer
    if task.result_type == "set":
        assert x not in ans
        if "Y" in task.anchor_names:
            assert s.anchor("Y") not in ans
    name = task.name
    if name == "reach_then_filter":
        d = set(np.flatnonzero(desc(g, x)).tolist())
        assert ans and set(ans) < d
    elif name in ("kinship_chain", "chain_of_filters"):
        assert ans
    elif name == "degree_then_reach":
        deg = out_degrees(g)
        hubs = np.flatnonzero(deg == deg.max())
        assert hubs.size == 1 and hubs[0] != x
    elif name == "aggregate_over_set":
        assert desc(g, x).any()
    elif name == "mixed_domain":
        _, labels = scc_labels(g)
        assert (labels == labels[x]).sum() >= 2
    elif name == "kinship_complex":
        anc = reach_in(g, x)
        anc[x] = False
        assert int((anc & (in_degrees(g) == 0)).sum()) == 1  # one founding ancestor
        assert lineage_root(g, x) != x
    elif name == "graph_comparison":
        assert s.graph2 is not None and s.graph2.n == g.n and s.graph2 != g
    elif name == "conditional":
        assert (ans == -1) == (not has_path(g, x, s.anchor("Y")))
    if task.ambiguity is None:
        assert v.alt_answer is None
    else:
        assert task.ambiguity is Ambiguity.COUNT
        if v.alt_answer is not None:
            check_type(task, v.alt_answer)


def test_registries_follow_the_spec() -> None:
    assert tuple(t.name for t in L2_TASKS) == L2_ORDER
    assert tuple(t.name for t in L3_TASKS) == L3_ORDER
    assert {t.level for t in L2_TASKS} == {2} and {t.level for t in L3_TASKS} == {3}
    for t in TASKS.values():
        # L2/L3 ambiguous categories are all count-ambiguous (the spec's class lists are
        # checked once, in test_closure_facts.py).
        assert t.ambiguity in (None, Ambiguity.COUNT), t.name
    assert MultiQuery.compound_keys == {"reachable": "boolean", "degree": "integer"}


@pytest.mark.parametrize("name", [*L2_ORDER, *L3_ORDER])
def test_sampling_sweep(name: str) -> None:
    task = TASKS[name]
    for n in SIZES:
        for d in DENSITIES:
            for k in range(SEEDS):
                v = sample_verified(task, 0, ("t", name, n, str(d), k), n=n, density=d)
                assert v.structure.n == n
                check_type(task, v.answer)
                check_well_posed(task, v)
                assert v.programs["ein"].startswith(f"// {name}\n")
                if k == 0:  # determinism: same seed path, same instance
                    w = sample_verified(task, 0, ("t", name, n, str(d), k), n=n, density=d)
                    assert w.structure == v.structure and w.answer == v.answer
                    assert w.programs == v.programs


@pytest.mark.parametrize(
    "name", ["path_and_compare", "degree_then_reach", "multi_query", "conditional"]
)
@pytest.mark.parametrize("want", [True, False])
def test_balanced_categories(name: str, want: bool) -> None:
    task = TASKS[name]
    for n, d in ((4, 0.3), (6, 0.2), (8, 0.1)):
        for k in range(3):
            v = sample_verified(task, 1, ("w", name, n, str(d), k), n=n, density=d, want=want)
            assert task.balance_key(v.answer) is want


# ------------------------------------------------------------------ hand-checked


def test_cycle_through_the_source() -> None:
    edges = ((0, 1), (1, 0), (1, 2), (2, 3))
    v = verify(IntersectThenSize(), s_of("intersect_then_size", edges, {"X": 0, "Y": 1}))
    assert v.answer == 2 and v.alt_answer == 4  # {2, 3}; with X and Y: {0, 1, 2, 3}
    v = verify(SccThenCount(), s_of("scc_then_count", edges, {"X": 0}))
    assert v.answer == 2
    # desc(0) = {1, 2, 3}: out-degrees 2, 1, 0 (X's own degree is not averaged in)
    v = verify(AggregateOverSet(), s_of("aggregate_over_set", edges, {"X": 0}))
    assert v.answer == 1.0 and v.alt_answer == 1.0
    v = verify(ReachThenFilter(), s_of("reach_then_filter", edges, {"X": 0, "k": 1}))
    assert v.answer == (1, 2)
    v = verify(ChainOfFilters(), s_of("chain_of_filters", edges, {"X": 0, "Y": 3, "k": 1}))
    assert v.answer == (1, 2)


def test_triangle_in_subgraph_counts_only_xs_component() -> None:
    edges = ((0, 1), (1, 2), (0, 2), (2, 3), (4, 5), (5, 6), (4, 6))
    s = s_of("triangle_in_subgraph", edges, {"X": 3}, directed=False)
    assert verify(TriangleInSubgraph(), s).answer == 1


def test_kinship_complex_two_parents_unique_root() -> None:
    # 3 has two parents (1, 2) from one founder 0; 4 is an unrelated founder.
    edges = ((0, 1), (0, 2), (1, 3), (2, 3), (4, 5))
    v = verify(KinshipComplex(), s_of("kinship_complex", edges, {"X": 3}))
    assert v.answer == 4 and v.alt_answer == 3
    # two parents from two founders: no unique oldest ancestor
    g = Graph(3, ((0, 2), (1, 2)))
    with pytest.raises(Resample):
        lineage_root(g, 2)
    with pytest.raises(Resample):  # a founder has no ancestor
        lineage_root(g, 0)


def test_conditional_minus_one_branch() -> None:
    s = s_of("conditional", ((0, 1), (1, 2)), {"X": 2, "Y": 0})
    v = verify(Conditional(), s)
    assert v.answer == -1 and v.alt_answer is None
    assert Conditional().balance_key(v.answer) is False
    v = verify(Conditional(), s_of("conditional", ((0, 1), (1, 2)), {"X": 0, "Y": 1}))
    assert v.answer == 2 and v.alt_answer == 3


def test_multi_query_compound_keys() -> None:
    s = s_of("multi_query", ((0, 1), (0, 2), (2, 3)), {"X": 0, "Y": 3})
    v = verify(MultiQuery(), s)
    assert v.answer == {"degree": 2, "reachable": True}
    assert MultiQuery().balance_key(v.answer) is True
    assert "\n:print Reachable\n:print Degree\n" in v.programs["ein"]


def test_mixed_domain_two_cycle() -> None:
    s = s_of("mixed_domain", ((0, 1), (1, 0), (0, 2), (2, 3)), {"X": 1})
    assert verify(MixedDomain(), s).answer == 1.5  # group {0, 1}: out-degrees 2 and 1


def test_float_routes_agree_before_rounding() -> None:
    s = s_of("aggregate_over_set", ((0, 1), (1, 2), (1, 3), (3, 1), (2, 0)), {"X": 0})
    v = verify(AggregateOverSet(), s)  # desc = {1, 2, 3}: (2 + 1 + 1) / 3
    assert v.answer == 1.33 and v.alt_answer == 1.25


def test_graph_comparison_counts_only_new_nodes() -> None:
    g1 = Graph(5, ((0, 1), (1, 2)))
    g2 = Graph(5, ((0, 1), (0, 3), (3, 4)))  # 2 is lost, 3 and 4 are new
    s = ClosureStructure("graph_comparison", g1, (("X", 0),), graph2=g2)
    v = verify(GraphComparison(), s)
    assert v.answer == 2 and v.alt_answer == 3
    assert "\nB = edges(" in v.programs["ein"] and "G2 = nx.DiGraph()" in v.programs["python"]


def test_degree_then_reach_tie_resamples() -> None:
    tie = Graph(4, ((0, 1), (0, 2), (1, 2), (1, 3)))
    with pytest.raises(Resample):
        unique_hub(tie)
    with pytest.raises(Resample):
        DegreeThenReach().solve(ClosureStructure("degree_then_reach", tie, (("X", 3),)))
    ok = Graph(4, ((0, 1), (0, 2), (0, 3), (1, 2)))
    v = verify(DegreeThenReach(), ClosureStructure("degree_then_reach", ok, (("X", 2),)))
    assert v.answer is True
