"""Comparison builtins ``ge gt eq le lt ne``: elementwise with numpy broadcasting, giving 0/1.

Example:
    >>> ge(np.array([1.0, 2.0, 3.0]), np.array(2.0)).tolist()
    [0.0, 1.0, 1.0]
    >>> eq(np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([1.0, 1.0])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from closurebench.ein.abstract import Abstract, broadcast_shapes, element_count, ensure_elements
from closurebench.ein.builtins.base import Param, builtin
from closurebench.ein.errors import ShapeError
from closurebench.ein.limits import DEFAULT_LIMITS, Limits

__all__ = ["compare_values", "eq", "ge", "gt", "le", "lt", "ne"]


def _infer_compare(a: Abstract, b: Abstract) -> Abstract:
    return Abstract(broadcast_shapes(a.shape, b.shape))


def compare_values(
    fname: str, op: Callable[..., np.ndarray], a: np.ndarray, b: np.ndarray, limits: Limits
) -> np.ndarray:
    """Broadcast ``a`` and ``b`` (checking shapes and the element cap first), apply ``op``."""
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ShapeError(
            f"{fname}: cannot broadcast shape {a.shape} with shape {b.shape}"
        ) from None
    # The comparison's boolean array (1 byte per element) lives until the float copy exists.
    ensure_elements(shape, limits, f"{fname}(...)", scratch=element_count(shape))
    return op(a, b).astype(np.float64)


_A, _B = Param("A"), Param("B")


@builtin("ge", _A, _B, infer=_infer_compare, group="compare")
def ge(a: np.ndarray, b: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Elementwise comparisons with broadcasting, giving 0/1: ge >=, gt >, eq ==, le <=,
    lt <, ne !=.

    Example:
        >>> ge(np.array(1.0), np.array(1.0)).tolist()
        1.0
    """
    return compare_values("ge", np.greater_equal, a, b, limits)


@builtin("gt", _A, _B, infer=_infer_compare, group="compare")
def gt(a: np.ndarray, b: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """1 where A > B, else 0 (broadcasting).

    Example:
        >>> gt(np.array([1.0, 2.0]), np.array(1.0)).tolist()
        [0.0, 1.0]
    """
    return compare_values("gt", np.greater, a, b, limits)


@builtin("eq", _A, _B, infer=_infer_compare, group="compare")
def eq(a: np.ndarray, b: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """1 where A == B, else 0 (broadcasting).

    Example:
        >>> eq(np.array([1.0, 2.0]), np.array(1.0)).tolist()
        [1.0, 0.0]
    """
    return compare_values("eq", np.equal, a, b, limits)


@builtin("le", _A, _B, infer=_infer_compare, group="compare")
def le(a: np.ndarray, b: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """1 where A <= B, else 0 (broadcasting).

    Example:
        >>> le(np.array([1.0, 2.0]), np.array(1.0)).tolist()
        [1.0, 0.0]
    """
    return compare_values("le", np.less_equal, a, b, limits)


@builtin("lt", _A, _B, infer=_infer_compare, group="compare")
def lt(a: np.ndarray, b: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """1 where A < B, else 0 (broadcasting).

    Example:
        >>> lt(np.array([1.0, 2.0]), np.array(2.0)).tolist()
        [1.0, 0.0]
    """
    return compare_values("lt", np.less, a, b, limits)


@builtin("ne", _A, _B, infer=_infer_compare, group="compare")
def ne(a: np.ndarray, b: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """1 where A != B, else 0 (broadcasting).

    Example:
        >>> ne(np.array([1.0, 2.0]), np.array(2.0)).tolist()
        [1.0, 0.0]
    """
    return compare_values("ne", np.not_equal, a, b, limits)
