"""Exact structural measures: degrees, density, triangles.

Every function takes a :class:`~closurebench.graphs.types.Graph` or an adjacency matrix
(dense ``numpy`` array or ``scipy.sparse``; any nonzero entry is an edge ``i -> j``, the
diagonal must be zero). Counts are computed in int64 sparse arithmetic, so they are exact
integers with no float rounding, and fast for thousands of nodes.

Example:
    >>> from closurebench.graphs.types import Graph
    >>> k4 = Graph(4, [(u, v) for u in range(4) for v in range(u + 1, 4)], directed=False)
    >>> triangle_count(k4), triangles_per_node(k4).tolist(), density(k4)
    (4, [3, 3, 3, 3], 1.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from closurebench.errors import GraphError
from closurebench.graphs.convert import to_scipy_sparse
from closurebench.graphs.types import Graph

__all__ = [
    "degrees",
    "density",
    "in_degrees",
    "out_degrees",
    "triangle_count",
    "triangles_per_node",
]

GraphLike = Any  # Graph | np.ndarray | scipy.sparse matrix/array


def _pattern(x: GraphLike) -> tuple[sp.csr_array, bool | None]:
    """Return the 0/1 int64 CSR pattern and the directedness (``None`` for a matrix)."""
    if isinstance(x, Graph):
        return to_scipy_sparse(x, weighted=False), x.directed
    if sp.issparse(x):
        a = sp.csr_array(x, copy=True)  # sum_duplicates below must not touch the caller's
        shape = a.shape
    else:
        dense = np.asarray(x)
        shape = dense.shape
        if dense.ndim != 2:
            raise GraphError(f"adjacency must be a 2-D square matrix; got shape {shape}")
        a = sp.csr_array(dense)
    if shape[0] != shape[1]:
        raise GraphError(f"adjacency must be square (n x n); got shape {shape}")
    a.sum_duplicates()
    a.eliminate_zeros()
    a = sp.csr_array((np.ones(a.nnz, dtype=np.int64), a.indices, a.indptr), shape=a.shape)
    diag = a.diagonal()
    if diag.any():
        i = int(np.flatnonzero(diag)[0])
        raise GraphError(f"adjacency has a self-loop at node {i} (A[{i}, {i}] != 0); zero it")
    return a, None


def _undirected(x: GraphLike, what: str) -> sp.csr_array:
    a, directed = _pattern(x)
    if directed:
        raise GraphError(
            f"{what} needs an undirected graph; got a directed Graph (build it with "
            "directed=False, or use out_degrees/in_degrees for directed graphs)"
        )
    if directed is None:
        asym = sp.coo_array(a != a.T)
        if asym.nnz:
            u, v = int(asym.row[0]), int(asym.col[0])
            raise GraphError(
                f"{what} needs a symmetric adjacency matrix; A[{u}, {v}] != A[{v}, {u}] "
                "(symmetrise it or pass an undirected Graph)"
            )
    return a


def out_degrees(x: GraphLike) -> np.ndarray:
    """Out-degree (row sum) of every node, int64; for undirected graphs, the degree.

    Example:
        >>> import numpy as np
        >>> out_degrees(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])).tolist()
        [2, 1, 0]
    """
    if isinstance(x, Graph):
        return x.out_degrees()
    a, _ = _pattern(x)
    return np.diff(a.indptr).astype(np.int64)


def in_degrees(x: GraphLike) -> np.ndarray:
    """In-degree (column sum) of every node, int64; for undirected graphs, the degree.

    Example:
        >>> import numpy as np
        >>> in_degrees(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])).tolist()
        [0, 1, 2]
    """
    if isinstance(x, Graph):
        arr = x.edge_array()
        deg = np.bincount(arr[:, 1], minlength=x.n)
        if not x.directed:
            deg = deg + np.bincount(arr[:, 0], minlength=x.n)
        return deg.astype(np.int64, copy=False)
    a, _ = _pattern(x)
    return np.bincount(a.indices, minlength=a.shape[0]).astype(np.int64)


def degrees(x: GraphLike) -> np.ndarray:
    """Degree of every node of an undirected graph (symmetric matrix), int64.

    Raises:
        GraphError: for a directed :class:`Graph` or a non-symmetric matrix.

    Example:
        >>> from closurebench.graphs.types import Graph
        >>> degrees(Graph(3, [(0, 1), (0, 2)], directed=False)).tolist()
        [2, 1, 1]
    """
    if isinstance(x, Graph) and not x.directed:
        return x.out_degrees()
    a = _undirected(x, "degrees")
    return np.diff(a.indptr).astype(np.int64)


def density(x: GraphLike) -> float:
    """Fraction of possible edges present: ``m / (n(n-1))`` directed, ``m / C(n, 2)`` undirected.

    A symmetric matrix gives the same value under either reading. Graphs with fewer than
    two nodes have density 0.0.

    Example:
        >>> from closurebench.graphs.types import Graph
        >>> density(Graph(3, [(0, 1), (1, 2), (2, 0)])), density(Graph(3, [(0, 1)], directed=False))
        (0.5, 0.3333333333333333)
    """
    if isinstance(x, Graph):
        n, m = x.n, x.m
        pairs = n * (n - 1) if x.directed else n * (n - 1) // 2
        return m / pairs if pairs else 0.0
    a, _ = _pattern(x)
    n = a.shape[0]
    return a.nnz / (n * (n - 1)) if n > 1 else 0.0


def _closed_walks(a: sp.csr_array) -> sp.csr_array:
    # (A·A) ∘ A counts, for each edge (i, j), the common neighbours of i and j: exact int64.
    return (a @ a).multiply(a)


def triangle_count(x: GraphLike) -> int:
    """Number of triangles (3-cliques) of an undirected graph, exactly: ``sum((A·A) ∘ A) / 6``.

    Equals ``trace(A³) / 6`` and ``sum(nx.triangles(G).values()) // 3``.

    Raises:
        GraphError: for a directed :class:`Graph` or a non-symmetric matrix.

    Example:
        >>> import numpy as np
        >>> triangle_count(np.ones((5, 5)) - np.eye(5))
        10
    """
    a = _undirected(x, "triangle_count")
    return int(_closed_walks(a).sum()) // 6


def triangles_per_node(x: GraphLike) -> np.ndarray:
    """Number of triangles through each node of an undirected graph (like ``nx.triangles``).

    Example:
        >>> from closurebench.graphs.types import Graph
        >>> triangles_per_node(Graph(4, [(0, 1), (1, 2), (0, 2), (2, 3)], directed=False)).tolist()
        [1, 1, 1, 0]
    """
    a = _undirected(x, "triangles_per_node")
    return (np.asarray(_closed_walks(a).sum(axis=1)).ravel() // 2).astype(np.int64)
