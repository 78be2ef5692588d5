"""Measures against networkx on hypothesis-generated graphs, and their errors."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from closurebench.errors import GraphError
from closurebench.graphs.convert import to_networkx
from closurebench.graphs.measures import (
    degrees,
    density,
    in_degrees,
    out_degrees,
    triangle_count,
    triangles_per_node,
)
from closurebench.graphs.sample import erdos_renyi
from closurebench.graphs.types import Graph
from closurebench.seeding import rng


@st.composite
def graphs(draw: st.DrawFn, directed: bool | None = None, max_n: int = 12) -> Graph:
    n = draw(st.integers(0, max_n))
    d = draw(st.booleans()) if directed is None else directed
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v and (d or u < v)]
    mask = draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    return Graph(n, [p for p, keep in zip(pairs, mask, strict=True) if keep], directed=d)


@settings(max_examples=150, deadline=None)
@given(graphs(directed=False))
def test_triangles_match_networkx(g: Graph) -> None:
    G = to_networkx(g)
    per_node = nx.triangles(G)
    expected = sum(per_node.values()) // 3
    assert triangle_count(g) == expected
    assert triangle_count(g.adjacency()) == expected
    assert triangle_count(sp.csr_array(g.adjacency())) == expected
    assert triangles_per_node(g).tolist() == [per_node[v] for v in range(g.n)]
    assert isinstance(triangle_count(g), int)


@settings(max_examples=100, deadline=None)
@given(graphs())
def test_degrees_and_density_match_networkx(g: Graph) -> None:
    G = to_networkx(g)
    a = g.adjacency()
    if g.directed:
        assert out_degrees(g).tolist() == [G.out_degree(v) for v in range(g.n)]
        assert in_degrees(g).tolist() == [G.in_degree(v) for v in range(g.n)]
        assert out_degrees(a).tolist() == out_degrees(g).tolist()
        assert in_degrees(a).tolist() == in_degrees(g).tolist()
    else:
        expected = [G.degree(v) for v in range(g.n)]
        assert degrees(g).tolist() == expected
        assert degrees(a).tolist() == expected
        assert out_degrees(g).tolist() == in_degrees(g).tolist() == expected
    assert math.isclose(density(g), nx.density(G) if g.n > 1 else 0.0)
    assert math.isclose(density(a), density(g))


def test_triangle_count_exact_on_large_dense_graph() -> None:
    n = 300
    k = np.ones((n, n), dtype=np.uint8) - np.eye(n, dtype=np.uint8)
    assert triangle_count(k) == math.comb(n, 3)
    g = erdos_renyi(rng(0, "test", "tri-big"), 400, 0.2, directed=False)
    assert triangle_count(g) == sum(nx.triangles(to_networkx(g)).values()) // 3


def test_undirected_measures_reject_directed_input() -> None:
    g = Graph(3, [(0, 1), (1, 2), (2, 0)])
    for fn in (triangle_count, triangles_per_node, degrees):
        with pytest.raises(GraphError, match="undirected"):
            fn(g)
    with pytest.raises(GraphError, match=r"A\[0, 1\] != A\[1, 0\]"):
        triangle_count(g.adjacency())


def test_matrix_errors() -> None:
    with pytest.raises(GraphError, match="self-loop at node 1"):
        out_degrees(np.diag([0, 1, 0]))
    with pytest.raises(GraphError, match=r"\(2, 3\)"):
        density(np.zeros((2, 3)))
    with pytest.raises(GraphError, match="2-D"):
        density(np.zeros(3))


def test_sparse_input_is_not_mutated() -> None:
    m = sp.csr_array(
        (np.array([1, 0, 1]), (np.array([0, 1, 1]), np.array([1, 0, 2]))), shape=(3, 3)
    )
    before = m.nnz
    assert out_degrees(m).tolist() == [1, 1, 0]
    assert m.nnz == before


def test_density_small() -> None:
    assert density(Graph(1)) == 0.0
    assert density(Graph(0)) == 0.0
    assert density(np.zeros((1, 1))) == 0.0
