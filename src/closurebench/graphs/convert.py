"""Conversions between :class:`~closurebench.graphs.types.Graph` and other representations.

NetworkX is the independent cross-check and the target of model-written programs, so the
conversion keeps every node (isolated ones too) and the edge weights as ``weight``
attributes. SciPy sparse matrices feed the fast ``csgraph`` algorithms.

Example:
    >>> from closurebench.graphs.types import Graph
    >>> g = Graph(4, [(0, 1), (1, 2)], weights=[3, 4])
    >>> G = to_networkx(g)
    >>> sorted(G.nodes), G[0][1]["weight"]
    ([0, 1, 2, 3], 3)
    >>> from_networkx(G)[0] == g
    True
    >>> to_scipy_sparse(g).toarray().tolist()[0]
    [0, 3, 0, 0]
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any, Literal

import networkx as nx
import numpy as np
import scipy.sparse as sp

from closurebench.errors import GraphError
from closurebench.graphs.types import Graph

__all__ = ["from_adjacency", "from_networkx", "to_networkx", "to_scipy_sparse"]


def to_networkx(graph: Graph) -> nx.Graph | nx.DiGraph:
    """Return a new ``nx.DiGraph`` (directed) or ``nx.Graph`` with nodes ``0..n-1``.

    Edges carry a ``weight`` attribute when the graph is weighted.

    Example:
        >>> from closurebench.graphs.types import Graph
        >>> G = to_networkx(Graph(3, [(0, 2)], directed=False))
        >>> type(G).__name__, G.number_of_nodes(), list(G.edges)
        ('Graph', 3, [(0, 2)])
    """
    G: nx.Graph | nx.DiGraph = nx.DiGraph() if graph.directed else nx.Graph()
    G.add_nodes_from(range(graph.n))
    if graph.weights is None:
        G.add_edges_from(graph.edges)
    else:
        G.add_weighted_edges_from(
            (u, v, w) for (u, v), w in zip(graph.edges, graph.weights, strict=True)
        )
    return G


def from_networkx(
    G: nx.Graph,
    mapping: Mapping[Hashable, int] | Literal["order"] | None = None,
    *,
    weight: str = "weight",
) -> tuple[Graph, dict[Hashable, int]]:
    """Build a :class:`Graph` from a networkx graph.

    Args:
        G: A ``nx.Graph`` or ``nx.DiGraph`` (multigraphs are rejected).
        mapping: How nodes become ids ``0..n-1``. ``None`` requires the nodes to be exactly
            the ints ``0..n-1``; ``"order"`` numbers them in ``G.nodes`` order; a dict gives
            each node its id explicitly (it must be a bijection onto ``0..n-1``).
        weight: Edge attribute holding the weight. Weighted iff every edge has it; an edge
            set where only some edges have it is an error; a graph without edges comes
            back unweighted.

    Returns:
        ``(graph, mapping)`` where ``mapping[node] == id``.

    Raises:
        GraphError: on a multigraph, bad node ids, a bad mapping, partial weights, or a
            self-loop.

    Example:
        >>> import networkx as nx
        >>> g, ids = from_networkx(nx.path_graph(["a", "b", "c"]), "order")
        >>> g.edges, ids
        (((0, 1), (1, 2)), {'a': 0, 'b': 1, 'c': 2})
    """
    if G.is_multigraph():
        raise GraphError(
            f"from_networkx got a {type(G).__name__}; parallel edges are not supported, "
            "convert with nx.DiGraph(G) or nx.Graph(G) first"
        )
    n = G.number_of_nodes()
    ids: dict[Hashable, int]
    if mapping is None:
        for node in G.nodes:
            if (
                isinstance(node, bool)
                or not isinstance(node, int | np.integer)
                or not (0 <= node < n)
            ):
                raise GraphError(
                    f"node {node!r} is not an int in 0..{n - 1}; pass mapping='order' to "
                    "number nodes in G.nodes order, or a dict {node: id}"
                )
        ids = {node: int(node) for node in G.nodes}
    elif isinstance(mapping, str):
        if mapping != "order":
            raise GraphError(f"mapping={mapping!r} is not understood; use None, 'order' or a dict")
        ids = {node: i for i, node in enumerate(G.nodes)}
    else:
        ids = dict(mapping)
        missing = [v for v in G.nodes if v not in ids]
        if missing:
            raise GraphError(f"mapping has no id for node {missing[0]!r}; map every node of G")
        values = sorted(ids[v] for v in G.nodes)
        if len(ids) != n or values != list(range(n)):
            raise GraphError(
                f"mapping must be a bijection from the {n} nodes onto 0..{n - 1}; "
                f"got ids {values[:10]}{'...' if n > 10 else ''} for {len(ids)} keys"
            )
    edges = []
    weights = []
    for u, v, data in G.edges(data=True):
        edges.append((ids[u], ids[v]))
        if weight in data:
            weights.append(data[weight])
    if weights and len(weights) != len(edges):
        raise GraphError(
            f"{len(weights)} of {len(edges)} edges have a {weight!r} attribute; give every "
            "edge a weight or none"
        )
    return (
        Graph(n, edges, directed=G.is_directed(), weights=weights if weights else None),
        ids,
    )


def from_adjacency(adj: Any, *, directed: bool = True, weighted: bool = False) -> Graph:
    """Build a :class:`Graph` from a square adjacency matrix (dense or scipy sparse).

    Every nonzero entry ``adj[u, v]`` is an edge ``u -> v``. With ``directed=False`` the
    matrix must be symmetric and each pair becomes one undirected edge. With
    ``weighted=True`` the entries become the weights.

    Raises:
        GraphError: if the matrix is not square, not symmetric when ``directed=False``,
            or has a nonzero diagonal entry (self-loop).

    Example:
        >>> import numpy as np
        >>> from_adjacency(np.array([[0, 1], [1, 0]]), directed=False).edges
        ((0, 1),)
    """
    if sp.issparse(adj):
        coo = sp.coo_array(adj)
        coo.sum_duplicates()
        keep = coo.data != 0
        rows, cols, vals = coo.row[keep], coo.col[keep], coo.data[keep]
        shape = coo.shape
    else:
        a = np.asarray(adj)
        if a.ndim != 2:
            raise GraphError(f"adjacency must be a 2-D matrix; got shape {a.shape}")
        shape = a.shape
        rows, cols = np.nonzero(a)
        vals = a[rows, cols]
    if shape[0] != shape[1]:
        raise GraphError(f"adjacency must be square (n x n); got shape {shape}")
    n = int(shape[0])
    rows = rows.astype(np.int64)
    cols = cols.astype(np.int64)
    if not directed:
        entries = vals if weighted else np.ones(len(rows), dtype=np.int8)
        m = sp.csr_array((entries, (rows, cols)), shape=(n, n))
        asym = sp.coo_array(m != m.T)
        if asym.nnz:
            u, v = int(asym.row[0]), int(asym.col[0])
            raise GraphError(
                f"adjacency is not symmetric at ({u}, {v}) (entries {m[u, v]} and "
                f"{m[v, u]}); pass directed=True or symmetrise it"
            )
        keep = rows <= cols  # the diagonal stays so that Graph reports the self-loop
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    edges = np.stack([rows, cols], axis=1)
    return Graph(n, edges, directed=directed, weights=vals.tolist() if weighted else None)


def to_scipy_sparse(graph: Graph, *, weighted: bool | None = None) -> sp.csr_array:
    """Adjacency as a ``scipy.sparse.csr_array`` (symmetric for undirected graphs).

    Args:
        graph: The graph.
        weighted: Use the weights as entries (``None``: iff the graph is weighted);
            otherwise every edge is a 1. Unweighted entries are int64.

    Example:
        >>> from closurebench.graphs.types import Graph
        >>> to_scipy_sparse(Graph(3, [(0, 1)], directed=False)).toarray().tolist()
        [[0, 1, 0], [1, 0, 0], [0, 0, 0]]
    """
    use_w = graph.weighted if weighted is None else weighted
    if use_w and graph.weights is None:
        raise GraphError("weighted=True but the graph has no weights; attach them first")
    arr = graph.edge_array()
    src, dst = arr[:, 0], arr[:, 1]
    data = np.asarray(graph.weights) if use_w else np.ones(len(src), dtype=np.int64)
    if data.dtype.kind == "i":
        data = data.astype(np.int64)
    if not graph.directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        data = np.concatenate([data, data])
    n = graph.n
    return sp.csr_array((data, (src, dst)), shape=(n, n))
