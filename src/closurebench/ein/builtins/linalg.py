"""Linear-algebra builtins: ``trace``, ``diag``, ``transpose``.

Example:
    >>> M = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> float(trace(M)), diag(M).tolist(), transpose(M).tolist()
    (5.0, [1.0, 4.0], [[1.0, 3.0], [2.0, 4.0]])
"""

from __future__ import annotations

import numpy as np

from closurebench.ein.abstract import Abstract, ensure_elements
from closurebench.ein.builtins.base import Param, builtin, check_square, result
from closurebench.ein.limits import DEFAULT_LIMITS, Limits

__all__ = ["diag", "trace", "transpose"]


def _infer_trace(a: Abstract) -> Abstract:
    check_square("trace", a.shape)
    return Abstract(())


@builtin("trace", Param("A", ranks=(2,)), infer=_infer_trace)
def trace(a: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Sum of the diagonal of a square matrix.

    Example:
        >>> float(trace(np.eye(3)))
        3.0
    """
    check_square("trace", a.shape)
    return result(np.trace(a))


def _infer_diag(a: Abstract) -> Abstract:
    if a.shape is None:
        return Abstract()
    if len(a.shape) == 1:
        return Abstract((a.shape[0], a.shape[0]))
    n, m = a.shape
    return Abstract((None if n is None or m is None else min(n, m),))


@builtin("diag", Param("A", ranks=(1, 2)), infer=_infer_diag)
def diag(a: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Diagonal of a matrix as a vector; of a vector, the diagonal matrix.

    Example:
        >>> diag(np.array([1.0, 2.0])).tolist()
        [[1.0, 0.0], [0.0, 2.0]]
    """
    if a.ndim == 1:
        ensure_elements((a.shape[0], a.shape[0]), limits, "diag(v)")
        return result(np.diag(a))  # a new matrix
    ensure_elements((min(a.shape),), limits, "diag(A)")
    return result(np.diag(a)).copy()  # np.diag of a matrix is a read-only view


def _infer_transpose(a: Abstract) -> Abstract:
    return Abstract(None if a.shape is None else tuple(reversed(a.shape)))


@builtin("transpose", Param("A"), infer=_infer_transpose)
def transpose(a: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Matrix transpose (a vector or scalar is returned unchanged).

    Example:
        >>> transpose(np.array([[0.0, 1.0], [0.0, 0.0]])).tolist()
        [[0.0, 0.0], [1.0, 0.0]]
    """
    ensure_elements(a.shape[::-1], limits, "transpose(A)")
    return np.array(a.T, dtype=np.float64, order="C")
