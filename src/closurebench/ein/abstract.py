"""Abstract values for the static shape checker, and shape helpers shared with the evaluator.

An :class:`Abstract` describes what the checker knows about a value before the
program runs: its shape (each dimension an ``int`` or ``None`` when unknown, or
the whole shape ``None`` when even the rank is unknown) and, for literals and
simple constant arithmetic, the value itself.

Example:
    >>> a = Abstract((3, None))
    >>> a.rank, a.describe()
    (2, 'shape (3, ?)')
    >>> broadcast_shapes((3,), (None, 3))
    (None, 3)
    >>> Abstract.scalar(2.0).int_value()
    2
    >>> element_count((1000, 1000))
    1000000
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np

from closurebench.ein.budget import charge
from closurebench.ein.errors import ResourceLimitError, ShapeError
from closurebench.ein.limits import Limits
from closurebench.ein.values import int_text

__all__ = [
    "Abstract",
    "Dim",
    "Shape",
    "broadcast_shapes",
    "describe_shape",
    "element_count",
    "ensure_elements",
]

Dim = int | None
Shape = tuple[Dim, ...]

# Literal values larger than this are not carried through the checker.
_MAX_KNOWN = 10_000


def describe_shape(shape: Shape | None) -> str:
    """Render a (possibly partly unknown) shape for messages.

    Example:
        >>> describe_shape(()), describe_shape((2, 3)), describe_shape(None)
        ('a scalar', 'shape (2, 3)', 'unknown shape')
    """
    if shape is None:
        return "unknown shape"
    if len(shape) == 0:
        return "a scalar"
    dims = ", ".join("?" if d is None else int_text(d) for d in shape)
    return f"shape ({dims},)" if len(shape) == 1 else f"shape ({dims})"


@dataclass(frozen=True)
class Abstract:
    """What is statically known about a value.

    Attributes:
        shape: Dimensions (``None`` entries unknown), or ``None`` when the rank is unknown.
        value: The value itself when known (literals and constant arithmetic).
    """

    shape: Shape | None = None
    value: np.ndarray | None = None

    @property
    def rank(self) -> int | None:
        """Number of axes, or ``None`` when unknown."""
        return None if self.shape is None else len(self.shape)

    @staticmethod
    def scalar(value: float | None = None) -> Abstract:
        """A rank-0 value, optionally with its known value."""
        return Abstract((), None if value is None else np.asarray(float(value)))

    @staticmethod
    def known(value: np.ndarray) -> Abstract:
        """A value known exactly (only small values keep their contents)."""
        kept = value if value.size <= _MAX_KNOWN else None
        return Abstract(tuple(int(d) for d in value.shape), kept)

    def int_value(self) -> int | None:
        """The known integral scalar value, else ``None``."""
        if self.value is None or self.value.ndim != 0:
            return None
        x = float(self.value)
        return int(x) if x.is_integer() else None

    def describe(self) -> str:
        """Render the shape for messages."""
        return describe_shape(self.shape)


def element_count(shape: tuple[int, ...]) -> int:
    """Number of elements of a concrete shape (exact Python integer arithmetic)."""
    return prod(int(d) for d in shape)


def ensure_elements(shape: tuple[int, ...], limits: Limits, what: str, *, scratch: int = 0) -> None:
    """Check a coming float64 tensor of ``shape`` against the caps, before allocating it.

    Raises :class:`ResourceLimitError` if it would exceed the element cap (or have an
    axis longer than it: an empty ``(10**16, 0)`` would take ages to print), and, while
    a program runs, :class:`~closurebench.ein.errors.EinBudgetError` if its bytes
    plus ``scratch`` (temporary bytes the operation needs besides its result) do not
    fit the run's live-bytes budget (see :mod:`closurebench.ein.budget`).

    Example:
        >>> ensure_elements((10, 10), Limits(max_elements=50), "ones(10, 10)")
        Traceback (most recent call last):
        ...
        closurebench.ein.errors.ResourceLimitError: ones(10, 10) would have shape (10, 10) = 100 \
elements; the limit is 50 (Limits.max_elements)
    """
    n = element_count(shape)
    cap = limits.max_elements
    if n > cap:
        raise ResourceLimitError(
            f"{what} would have {describe_shape(tuple(shape))} = {int_text(n)} elements; "
            f"the limit is {cap} (Limits.max_elements)"
        )
    if any(int(d) > cap for d in shape):
        raise ResourceLimitError(
            f"{what} would have {describe_shape(tuple(shape))}, an axis longer than the "
            f"element cap {cap} (Limits.max_elements)"
        )
    charge(8 * n + scratch, what)


def broadcast_shapes(a: Shape | None, b: Shape | None) -> Shape | None:
    """numpy broadcasting on partly known shapes; raises :class:`ShapeError` on a sure clash."""
    if a is None or b is None:
        return None
    out: list[Dim] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x is None or y is None:
            known = x if y is None else y
            out.append(known if known is not None and known != 1 else None)
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ShapeError(
                f"cannot broadcast {describe_shape(a)} with {describe_shape(b)}: "
                f"axis sizes {x} and {y} differ and neither is 1"
            )
    return tuple(reversed(out))
