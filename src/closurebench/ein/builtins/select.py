"""``select``: the slice at one index along one axis.

Example:
    >>> M = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> select(M, 1, 0).tolist(), select(M, 1, 1).tolist(), float(select(M[0], 1, 0))
    ([3.0, 4.0], [2.0, 4.0], 2.0)
"""

from __future__ import annotations

import numpy as np

from closurebench.ein.abstract import Abstract, element_count, ensure_elements
from closurebench.ein.builtins.base import Param, builtin, check_axis, known_int
from closurebench.ein.errors import IndexOutOfRangeError
from closurebench.ein.limits import DEFAULT_LIMITS, Limits
from closurebench.ein.values import int_text

__all__ = ["select"]


def _check_position(i: int, d: int, size: int) -> None:
    if not 0 <= i < size:
        valid = f"0..{size - 1}" if size else "none: the axis is empty"
        raise IndexOutOfRangeError(
            f"select: index {int_text(i)} is out of range along axis {int_text(d)} of length "
            f"{size} (valid: {valid})",
            arg=1,
        )


def _infer_select(t: Abstract, i: Abstract, d: Abstract) -> Abstract:
    if t.shape is None:
        return Abstract()
    rank = len(t.shape)
    axis = known_int(d)
    if axis is None:
        if rank == 0:
            check_axis("select", 0, 0, arg=2)
        return Abstract((None,) * (rank - 1))
    check_axis("select", axis, rank, arg=2)
    pos, size = known_int(i), t.shape[axis]
    if pos is not None and size is not None:
        _check_position(pos, axis, size)
    return Abstract(t.shape[:axis] + t.shape[axis + 1 :])


@builtin(
    "select",
    Param("T", ranks=(1, 2)),
    Param("i", "index"),
    Param("d", "axis"),
    infer=_infer_select,
)
def select(t: np.ndarray, i: int, d: int, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Slice at index i along axis d: select(v,i,0) = element i; select(M,i,0) = row i;
    select(M,j,1) = column j.

    Example:
        >>> select(np.eye(2), 0, 2)
        Traceback (most recent call last):
        ...
        closurebench.ein.errors.IndexOutOfRangeError: select: axis 2 is out of range for \
a rank-2 value (valid axes: 0, 1)
    """
    check_axis("select", d, t.ndim, arg=2)
    _check_position(i, d, t.shape[d])
    shape = t.shape[:d] + t.shape[d + 1 :]
    # np.take makes one copy, astype a second.
    ensure_elements(shape, limits, "select(...)", scratch=8 * element_count(shape))
    return np.take(t, i, axis=d).astype(np.float64, copy=True)
