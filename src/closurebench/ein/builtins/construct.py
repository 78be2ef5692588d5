"""Constructors: ``vec``, ``ones``, ``zeros``, ``eye``.

Sizes are checked against :attr:`Limits.max_elements` before anything is allocated.

Example:
    >>> ones(2, 3).shape, zeros(2).tolist(), eye(2).tolist()
    ((2, 3), [0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
    >>> vec(np.array([1.0, 0.0, 1.0]), 3).tolist()
    [1.0, 0.0, 1.0]
"""

from __future__ import annotations

import numpy as np

from closurebench.ein.abstract import Abstract, ensure_elements
from closurebench.ein.builtins.base import Param, builtin, known_int
from closurebench.ein.errors import ShapeError
from closurebench.ein.limits import DEFAULT_LIMITS, Limits
from closurebench.ein.values import int_text

__all__ = ["eye", "ones", "vec", "zeros"]


def _infer_vec(lst: Abstract, n: Abstract | None = None) -> Abstract:
    known_n = known_int(n)
    length = None if lst.shape is None else lst.shape[0]
    if known_n is not None and length is not None and known_n != length:
        raise ShapeError(f"vec: the list has {lst.describe()} but N = {int_text(known_n)}")
    return Abstract((known_n if known_n is not None else length,))


@builtin("vec", Param("L", ranks=(1,)), Param("N", "size", optional=True), infer=_infer_vec)
def vec(lst: np.ndarray, n: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Vector literal of length N, e.g. vec([1,0,1], 3) (N may be omitted).

    Example:
        >>> vec(np.array([1.0, 2.0]), 3)
        Traceback (most recent call last):
        ...
        closurebench.ein.errors.ShapeError: vec: the list has shape (2,) but N = 3
    """
    if n is not None and lst.shape[0] != n:
        raise ShapeError(f"vec: the list has shape ({lst.shape[0]},) but N = {int_text(n)}")
    ensure_elements(lst.shape, limits, f"vec(..., {lst.shape[0]})")
    return lst.astype(np.float64, copy=True)


def _infer_fill(n: Abstract, m: Abstract | None = None) -> Abstract:
    if m is None:
        return Abstract((known_int(n),))
    return Abstract((known_int(n), known_int(m)))


def _fill(name: str, value: float, n: int, m: int | None, limits: Limits) -> np.ndarray:
    shape = (n,) if m is None else (n, m)
    args = ", ".join(int_text(d) for d in shape)
    ensure_elements(shape, limits, f"{name}({args})")
    return np.full(shape, value, dtype=np.float64)


@builtin(
    "ones",
    Param("N", "size"),
    Param("M", "size", optional=True),
    infer=_infer_fill,
    group="fill",
)
def ones(n: int, m: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Vector of length N, or N×M matrix, filled with ones / zeros.

    Example:
        >>> ones(3).tolist()
        [1.0, 1.0, 1.0]
    """
    return _fill("ones", 1.0, n, m, limits)


@builtin(
    "zeros",
    Param("N", "size"),
    Param("M", "size", optional=True),
    infer=_infer_fill,
    group="fill",
)
def zeros(n: int, m: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Vector of N zeros, or N×M matrix of zeros.

    Example:
        >>> zeros(1, 2).tolist()
        [[0.0, 0.0]]
    """
    return _fill("zeros", 0.0, n, m, limits)


def _infer_eye(n: Abstract) -> Abstract:
    k = known_int(n)
    return Abstract((k, k))


@builtin("eye", Param("N", "size"), infer=_infer_eye)
def eye(n: int, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """N×N identity matrix.

    Example:
        >>> eye(1).tolist()
        [[1.0]]
    """
    ensure_elements((n, n), limits, f"eye({int_text(n)})")
    return np.eye(n, dtype=np.float64)
