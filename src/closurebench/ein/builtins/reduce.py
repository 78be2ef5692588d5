"""Reductions: ``sum``, ``max``, ``min``, ``mean`` and the extensions ``argmax``, ``argmin``.

``sum(T)`` reduces everything to a scalar; ``sum(T, d)`` reduces along axis ``d``
and removes it: for a matrix, ``d = 0`` runs down the columns (column sums, i.e.
in-degrees of an adjacency matrix) and ``d = 1`` across the rows (row sums, i.e.
out-degrees). ``max``, ``min`` and ``mean`` follow the same shape rules.

Example:
    >>> A = np.array([[0.0, 1.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    >>> float(sum_(A)), sum_(A, 0).tolist(), sum_(A, 1).tolist()
    (3.0, [0.0, 1.0, 2.0], [2.0, 1.0, 0.0])
    >>> float(argmax(sum_(A, 1))), float(argmin(np.array([2.0, 1.0, 1.0])))
    (0.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from closurebench.ein.abstract import Abstract
from closurebench.ein.builtins.base import Param, builtin, check_axis, known_int, result
from closurebench.ein.errors import ArgumentError
from closurebench.ein.limits import DEFAULT_LIMITS, Limits

__all__ = ["argmax", "argmin", "max_", "mean", "min_", "sum_"]


def _infer_reduce(fname: str) -> Callable[..., Abstract]:
    def infer(t: Abstract, d: Abstract | None = None) -> Abstract:
        if d is None:
            return Abstract(())
        if t.shape is None:
            return Abstract()
        axis = known_int(d)
        if axis is None:
            if len(t.shape) == 0:
                check_axis(fname, 0, 0, arg=1)
            return Abstract((None,) * (len(t.shape) - 1))
        check_axis(fname, axis, len(t.shape), arg=1)
        return Abstract(t.shape[:axis] + t.shape[axis + 1 :])

    return infer


def _reduce(
    fname: str, op: Callable[..., np.ndarray], t: np.ndarray, d: int | None, empty_ok: bool
) -> np.ndarray:
    if d is not None:
        check_axis(fname, d, t.ndim, arg=1)
    if not empty_ok and (t.size == 0 or (d is not None and t.shape[d] == 0)):
        where = "the value" if d is None else f"axis {d}"
        raise ArgumentError(f"{fname}: {where} is empty (shape {t.shape}); nothing to reduce")
    return result(op(t) if d is None else op(t, axis=d))


_T = Param("T")
_D = Param("d", "axis", optional=True)


@builtin("sum", _T, _D, infer=_infer_reduce("sum"))
def sum_(t: np.ndarray, d: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Total of all entries; sum(T, d) sums along axis d and removes it
    (d=0: column sums / in-degrees, d=1: row sums / out-degrees).

    Example:
        >>> float(sum_(np.zeros(0)))
        0.0
    """
    return _reduce("sum", np.sum, t, d, empty_ok=True)


@builtin("max", _T, _D, infer=_infer_reduce("max"), group="minmax")
def max_(t: np.ndarray, d: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Largest / smallest / average entry, or along axis d (same shape rules as sum).

    Example:
        >>> max_(np.array([[1.0, 5.0], [3.0, 2.0]]), 0).tolist()
        [3.0, 5.0]
    """
    return _reduce("max", np.max, t, d, empty_ok=False)


@builtin("min", _T, _D, infer=_infer_reduce("min"), group="minmax")
def min_(t: np.ndarray, d: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Smallest entry, or smallest along axis d (same shape rules as sum).

    Example:
        >>> min_(np.array([[1.0, 5.0], [3.0, 2.0]]), 1).tolist()
        [1.0, 2.0]
    """
    return _reduce("min", np.min, t, d, empty_ok=False)


@builtin("mean", _T, _D, infer=_infer_reduce("mean"), group="minmax")
def mean(t: np.ndarray, d: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Average entry, or average along axis d (same shape rules as sum).

    Example:
        >>> float(mean(np.array([1.0, 2.0])))
        1.5
    """
    return _reduce("mean", np.mean, t, d, empty_ok=False)


def _infer_arg(t: Abstract) -> Abstract:
    return Abstract(())


def _arg(fname: str, op: Callable[..., np.intp], v: np.ndarray) -> np.ndarray:
    if v.size == 0:
        raise ArgumentError(f"{fname}: the vector is empty; there is no position to return")
    return result(float(op(v)))


@builtin("argmax", Param("v", ranks=(1,)), infer=_infer_arg, group="arg", extension=True)
def argmax(v: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Index of the first maximum / minimum of a vector (project extension).

    Example:
        >>> float(argmax(np.array([1.0, 3.0, 3.0])))
        1.0
    """
    return _arg("argmax", np.argmax, v)


@builtin("argmin", Param("v", ranks=(1,)), infer=_infer_arg, group="arg", extension=True)
def argmin(v: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Index of the first minimum of a vector (project extension).

    Example:
        >>> float(argmin(np.array([2.0, 0.0, 0.0])))
        1.0
    """
    return _arg("argmin", np.argmin, v)
