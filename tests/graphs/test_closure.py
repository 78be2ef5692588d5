"""Property tests: the graph core's closure agrees with networkx on random digraphs."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from closurebench.errors import GraphError
from closurebench.graphs import closure


@st.composite
def digraphs(draw: st.DrawFn, max_n: int = 60) -> np.ndarray:
    """Random simple digraphs (no self-loops), biased towards sparse ones with cycles."""
    n = draw(st.integers(min_value=1, max_value=max_n))
    density = draw(st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.2, 0.5]))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    g = np.random.default_rng(seed)
    adj = g.random((n, n)) < density
    np.fill_diagonal(adj, False)
    return adj


def _nx(adj: np.ndarray) -> nx.DiGraph:
    G = nx.DiGraph()
    G.add_nodes_from(range(adj.shape[0]))
    G.add_edges_from(zip(*np.nonzero(adj), strict=True))
    return G


@settings(max_examples=300, deadline=None)
@given(digraphs())
def test_closure_matches_networkx(adj: np.ndarray) -> None:
    G = _nx(adj)
    n = adj.shape[0]
    T = closure.tc(adj)
    on_cycle = set()
    for comp in nx.strongly_connected_components(G):
        if len(comp) > 1:
            on_cycle |= comp
    for i in range(n):
        d = nx.descendants(G, i)
        expected_desc = np.zeros(n, dtype=bool)
        expected_desc[list(d)] = True
        assert np.array_equal(closure.desc(adj, i), expected_desc)
        assert not closure.desc(adj, i)[i]
        expected_reach = expected_desc.copy()
        expected_reach[i] = True
        assert np.array_equal(closure.reach(adj, i), expected_reach)
        # tc row i = descendants, plus i itself exactly when i lies on a cycle.
        row = expected_desc.copy()
        row[i] = i in on_cycle
        assert np.array_equal(T[i], row)
        assert bool(T[i, i]) == (i in on_cycle)
        ancestors = np.zeros(n, dtype=bool)
        ancestors[list(nx.ancestors(G, i) | {i})] = True
        assert np.array_equal(closure.reach_in(adj, i), ancestors)
    for i in range(min(n, 8)):
        for j in range(n):
            assert closure.has_path(adj, i, j) == nx.has_path(G, i, j)


@settings(max_examples=100, deadline=None)
@given(digraphs())
def test_scc_and_condensation_match_networkx(adj: np.ndarray) -> None:
    G = _nx(adj)
    count, labels = closure.scc_labels(adj)
    expected = {frozenset(c) for c in nx.strongly_connected_components(G)}
    got: dict[int, set[int]] = {}
    for node, lab in enumerate(labels.tolist()):
        got.setdefault(lab, set()).add(node)
    assert count == len(expected)
    assert {frozenset(c) for c in got.values()} == expected
    cond = closure.condensation(adj)
    position = {c: k for k, c in enumerate(cond.order)}
    assert sorted(position) == list(range(count))
    for c, succs in enumerate(cond.succ):
        for d in succs:
            assert position[c] < position[d]
    assert closure.is_strongly_connected(adj) == (count <= 1)
    assert closure.is_weakly_connected(adj) == (adj.shape[0] == 0 or nx.is_weakly_connected(G))


def test_self_loop_puts_node_on_cycle() -> None:
    adj = np.zeros((3, 3))
    adj[1, 1] = 1
    adj[0, 1] = 1
    T = closure.tc(adj)
    assert T[1, 1] and not T[0, 0]
    assert not closure.desc(adj, 1)[1]


def test_sparse_and_dense_inputs_agree() -> None:
    g = np.random.default_rng(7)
    adj = g.random((300, 300)) < 0.004
    np.fill_diagonal(adj, False)
    assert np.array_equal(closure.tc(adj), closure.tc(sp.csr_array(adj)))
    assert np.array_equal(closure.tc(adj.astype(float) * 3.5), closure.tc(adj))


def test_large_graph_is_exact_against_bfs() -> None:
    g = np.random.default_rng(11)
    n = 2000
    rows = g.integers(0, n, size=4000)
    cols = g.integers(0, n, size=4000)
    keep = rows != cols
    adj = sp.csr_array((np.ones(keep.sum(), dtype=bool), (rows[keep], cols[keep])), shape=(n, n))
    T = closure.tc(adj)
    for i in g.integers(0, n, size=25).tolist():
        row = closure.desc(adj, i)
        row[i] = T[i, i]
        assert np.array_equal(T[i], row)


def test_empty_graph() -> None:
    assert closure.tc(np.zeros((0, 0))).shape == (0, 0)
    assert closure.scc_labels(np.zeros((0, 0)))[0] == 0


@pytest.mark.parametrize(
    ("adj", "match"),
    [
        (np.zeros((2, 3)), r"shape \(2, 3\)"),
        (np.zeros(4), r"shape \(4,\)"),
        (np.array([[0.0, np.nan], [0.0, 0.0]]), "NaN"),
    ],
)
def test_bad_matrix_is_a_clear_error(adj: np.ndarray, match: str) -> None:
    with pytest.raises(GraphError, match=match):
        closure.tc(adj)


def test_bad_node_is_a_clear_error() -> None:
    adj = np.zeros((3, 3))
    with pytest.raises(GraphError, match=r"node 5 is out of range .* 0\.\.2"):
        closure.reach(adj, 5)
    with pytest.raises(GraphError, match="not an integer"):
        closure.desc(adj, 1.5)  # type: ignore[arg-type]
    with pytest.raises(GraphError, match="target node -1"):
        closure.has_path(adj, 0, -1)


def test_graph_objects_are_accepted() -> None:
    from closurebench.graphs import Graph

    directed = Graph(4, ((0, 1), (1, 2)))
    assert closure.desc(directed, 0).nonzero()[0].tolist() == [1, 2]
    assert not closure.tc(directed)[0, 0]
    undirected = Graph(4, ((0, 1), (1, 2)), directed=False)
    # An undirected edge is a 2-cycle, so every non-isolated node lies on a cycle.
    assert closure.tc(undirected).diagonal().tolist() == [True, True, True, False]
    assert closure.has_path(undirected, 2, 0)


def test_tc_tick_is_called_and_can_interrupt() -> None:
    """``tick`` runs during long closures, and an exception from it stops the closure."""
    import numpy as np
    import pytest

    from closurebench.graphs.closure import TICK_EVERY, tc

    n = 4 * TICK_EVERY
    dag = np.triu(np.ones((n, n), dtype=bool), 1)
    calls: list[int] = []
    out = tc(dag, tick=lambda: calls.append(1))
    assert out.tolist() == dag.tolist() and len(calls) >= n // TICK_EVERY

    class Stop(Exception):
        pass

    def stop_on_third() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise Stop

    calls.clear()
    with pytest.raises(Stop):
        tc(dag, tick=stop_on_third)
    assert len(calls) == 3
