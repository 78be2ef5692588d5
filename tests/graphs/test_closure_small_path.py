"""The bitset fast path for small graphs agrees with the general (scipy) path."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from closurebench.errors import GraphError
from closurebench.graphs.closure import SMALL_N, desc, has_path, reach, reach_in
from closurebench.graphs.types import Graph


def _cases(seed: int) -> list[tuple[np.ndarray, object]]:
    """Random graphs as (dense 0/1 matrix, the same graph in the tested form)."""
    g = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, object]] = []
    for n in [1, 2, 3, 7, 8, 9, 15, 16, 17, 40, SMALL_N, SMALL_N + 1]:
        dense = g.random((n, n)) < g.uniform(0.02, 0.4)  # self-loops included
        out.append((dense, dense))  # bool
        out.append((dense, dense.astype(np.int64) * 3))  # int weights
        out.append((dense, np.where(dense, g.uniform(0.5, 2, (n, n)), 0.0)))  # float
        loopless = dense & ~np.eye(n, dtype=bool)  # Graph has no self-loops
        edges = [(int(u), int(v)) for u, v in zip(*np.nonzero(loopless), strict=True)]
        out.append((loopless, Graph(n, edges)))
        und = loopless | loopless.T
        pairs = [(int(u), int(v)) for u, v in zip(*np.nonzero(np.triu(und)), strict=True)]
        out.append((und, Graph(n, pairs, directed=False)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_fast_path_matches_the_sparse_path(seed: int) -> None:
    for dense, form in _cases(seed):
        general = sp.csr_array(dense)  # sparse input always takes the scipy path
        n = dense.shape[0]
        for i in range(0, n, max(1, n // 5)):
            assert reach(form, i).tolist() == reach(general, i).tolist()
            assert reach_in(form, i).tolist() == reach_in(general, i).tolist()
            assert desc(form, i).tolist() == desc(general, i).tolist()
            for j in range(0, n, max(1, n // 4)):
                assert has_path(form, i, j) == has_path(general, i, j)


def test_fast_path_results_are_fresh_writable_arrays() -> None:
    a = np.array([[0, 1], [0, 0]])
    r = reach(a, 0)
    r[1] = False  # desc() writes into reach's result
    assert reach(a, 0).tolist() == [True, True]
    assert r.dtype == bool and r.shape == (2,)


def test_bad_input_still_gets_the_general_errors() -> None:
    with pytest.raises(GraphError, match="NaN or infinite"):
        reach(np.array([[0.0, np.nan], [0.0, 0.0]]), 0)
    with pytest.raises(GraphError, match="must be square"):
        reach(np.zeros((2, 3)), 0)
    with pytest.raises(GraphError, match="out of range"):
        reach(np.zeros((3, 3)), 3)
    with pytest.raises(GraphError, match="target node 5 is out of range"):
        has_path(Graph(3, [(0, 1)]), 0, 5)
