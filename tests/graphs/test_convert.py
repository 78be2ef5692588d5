"""Round trips between Graph, networkx, adjacency matrices and scipy sparse."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from closurebench.errors import GraphError
from closurebench.graphs.convert import from_adjacency, from_networkx, to_networkx, to_scipy_sparse
from closurebench.graphs.types import Graph


@st.composite
def graphs(draw: st.DrawFn, max_n: int = 10) -> Graph:
    n = draw(st.integers(0, max_n))
    d = draw(st.booleans())
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v and (d or u < v)]
    mask = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    edges = [p for p, keep in zip(pairs, mask, strict=True) if keep]
    weights = None
    if draw(st.booleans()):
        weights = draw(
            st.lists(
                st.integers(1, 10) | st.floats(0.5, 100, allow_nan=False),
                min_size=len(edges),
                max_size=len(edges),
            )
        )
    return Graph(n, edges, directed=d, weights=weights)


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_networkx_round_trip(g: Graph) -> None:
    G = to_networkx(g)
    assert G.is_directed() == g.directed
    assert sorted(G.nodes) == list(range(g.n))  # isolated nodes kept
    assert G.number_of_edges() == g.m
    if g.weights is not None:
        for (u, v), w in zip(g.edges, g.weights, strict=True):
            assert G[u][v]["weight"] == w
    back, ids = from_networkx(G)
    if g.m == 0:  # weights cannot be told apart from no weights without edges
        g = Graph(g.n, directed=g.directed)
    assert back == g
    assert ids == {v: v for v in range(g.n)}


@settings(max_examples=150, deadline=None)
@given(graphs())
def test_adjacency_and_sparse_round_trip(g: Graph) -> None:
    a = g.adjacency()
    s = to_scipy_sparse(g, weighted=False)
    assert isinstance(s, sp.csr_array)
    assert (s.toarray() == a).all()
    unweighted = Graph(g.n, g.edges, directed=g.directed)
    assert from_adjacency(a, directed=g.directed) == unweighted
    assert from_adjacency(s, directed=g.directed) == unweighted
    if g.weights is not None:
        w = to_scipy_sparse(g)
        assert from_adjacency(w, directed=g.directed, weighted=True) == g
        assert from_adjacency(w.toarray(), directed=g.directed, weighted=True) == g


def test_to_networkx_weights_and_types() -> None:
    G = to_networkx(Graph(4, [(0, 1)], directed=False, weights=[2.5]))
    assert type(G) is nx.Graph and G.number_of_nodes() == 4
    assert G[1][0]["weight"] == 2.5
    assert type(to_networkx(Graph(2, [(1, 0)]))) is nx.DiGraph


def test_from_networkx_mappings() -> None:
    G = nx.DiGraph()
    G.add_edge("b", "a", weight=4)
    G.add_node("c")
    with pytest.raises(GraphError, match=r"node 'b'.*mapping='order'"):
        from_networkx(G)
    g, ids = from_networkx(G, "order")
    assert ids == {"b": 0, "a": 1, "c": 2}
    assert g == Graph(3, [(0, 1)], weights=[4])
    g2, ids2 = from_networkx(G, {"a": 0, "b": 1, "c": 2})
    assert g2.edges == ((1, 0),) and ids2["c"] == 2
    with pytest.raises(GraphError, match="bijection"):
        from_networkx(G, {"a": 0, "b": 0, "c": 2})
    with pytest.raises(GraphError, match="no id for node 'c'"):
        from_networkx(G, {"a": 0, "b": 1})
    with pytest.raises(GraphError, match="'sorted'"):
        from_networkx(G, "sorted")  # type: ignore[arg-type]


def test_from_networkx_errors() -> None:
    with pytest.raises(GraphError, match="MultiGraph"):
        from_networkx(nx.MultiGraph([(0, 1)]))
    G = nx.Graph()
    G.add_edge(0, 1, weight=2)
    G.add_edge(1, 2)
    with pytest.raises(GraphError, match="1 of 2 edges"):
        from_networkx(G)
    with pytest.raises(GraphError, match="self-loop"):
        from_networkx(nx.Graph([(0, 0), (0, 1)]))
    with pytest.raises(GraphError, match="node 5"):
        from_networkx(nx.Graph([(0, 5)]))


def test_from_adjacency_errors() -> None:
    with pytest.raises(GraphError, match=r"not symmetric at \(0, 1\)"):
        from_adjacency(np.array([[0, 1], [0, 0]]), directed=False)
    with pytest.raises(GraphError, match="not symmetric"):
        from_adjacency(np.array([[0, 2], [3, 0]]), directed=False, weighted=True)
    with pytest.raises(GraphError, match="self-loop"):
        from_adjacency(np.eye(2))
    with pytest.raises(GraphError, match="square"):
        from_adjacency(np.zeros((2, 3)))
    with pytest.raises(GraphError, match="2-D"):
        from_adjacency(np.zeros(4))


def test_to_scipy_sparse_weighted() -> None:
    g = Graph(3, [(0, 1), (1, 2)], directed=False, weights=[4, 7])
    assert to_scipy_sparse(g).toarray().tolist() == [[0, 4, 0], [4, 0, 7], [0, 7, 0]]
    assert to_scipy_sparse(g, weighted=False).toarray().sum() == 4
    with pytest.raises(GraphError, match="no weights"):
        to_scipy_sparse(Graph(2, [(0, 1)]), weighted=True)
