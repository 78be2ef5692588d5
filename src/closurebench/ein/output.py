"""The output budget of one Ein run: printed bytes against :attr:`Limits.max_output_bytes`.

A run's *output* is one line ``label = value`` per ``:print`` (the CLI's text; the
value's text is also its JSON, see :func:`~closurebench.ein.values.format_value`), or,
when the program prints nothing, that line for its result (the last assignment), which
the CLI and the sandbox worker print instead. Its size is known before any text is
made:

* from the **shape** alone, every entry takes 1 to 24 characters (``0`` to
  ``-2.2250738585072014e-308``) and the brackets and ``, `` separators are fixed, so
  :func:`line_bounds` gives a lower and an upper bound without touching the data;
* from the **data**, :func:`line_bytes` counts an integral entry's digits exactly and
  charges any other entry the 24-character bound, in chunks of 64 Ki entries (a few
  hundred KB of scratch memory), without formatting anything.

:class:`OutputMeter` refuses a value whose smallest possible text does not fit at once,
from its shape; any other value's entries are counted (about 20 ms per million entries,
and a value that fits the default limit has at most 5.6 million), so the count stays
exact for integral output instead of charging every entry the 24-character bound.
The static checker charges the lower bound of every printed value whose shape it knows,
so ``:print ones(3000, 3000)`` under a 1 MiB limit fails before anything runs.

Example:
    >>> line_bounds("v", (3,))
    (14, 83)
    >>> len("v = [1, 20, -3]\\n"), line_bytes("v", np.array([1.0, 20.0, -3.0]))
    (16, 16)
    >>> meter = OutputMeter(Limits(max_output_bytes=100))
    >>> meter.charge("v", np.zeros(10))
    >>> meter.printed
    35
    >>> meter.charge("ones(50)", np.ones(50))
    Traceback (most recent call last):
    ...
    closurebench.ein.errors.EinOutputLimitError: `:print ones(50)` would print at least \
162 B (shape (50,)) after 35 B already printed, 197 B in all; the output limit is 100 B \
(Limits.max_output_bytes): print a smaller value (a count with sum(...), one row with \
select(...)) or raise Limits.max_output_bytes (closurebench ein run --max-output-bytes)
"""

from __future__ import annotations

import numpy as np

from closurebench.ein.abstract import describe_shape
from closurebench.ein.budget import format_bytes
from closurebench.ein.errors import EinOutputLimitError
from closurebench.ein.limits import Limits

__all__ = ["MAX_ENTRY_CHARS", "OutputMeter", "line_bounds", "line_bytes"]

#: The longest text of one float64 entry: ``-2.2250738585072014e-308`` (24 characters).
MAX_ENTRY_CHARS = 24
_EXACT = 2.0**53
# 10, 100, ..., 1e15: an integral |x| < 2**53 has 1 + (thresholds <= |x|) digits.
_POW10 = 10.0 ** np.arange(1, 16)
_CHUNK = 1 << 16


def _layout(label: str, shape: tuple[int, ...]) -> tuple[int, int]:
    """(bytes of everything but the entries, number of entries) of ``label = value\\n``."""
    fixed = len(label.encode("utf-8", "replace")) + len(" = \n")
    if len(shape) == 0:
        return fixed, 1
    rows, cols = (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])
    row = 2 + 2 * max(cols - 1, 0)  # "[" "]" and the ", " between entries
    if len(shape) == 1:
        return fixed + row, cols
    return fixed + 2 + 2 * max(rows - 1, 0) + rows * row, rows * cols


def line_bounds(label: str, shape: tuple[int, ...]) -> tuple[int, int]:
    """The fewest and most bytes ``label = value`` (plus newline) can take for ``shape``.

    Example:
        >>> line_bounds("s", ()), line_bounds("M", (2, 0))
        ((6, 29), (13, 13))
    """
    fixed, entries = _layout(label, tuple(int(d) for d in shape))
    return fixed + entries, fixed + MAX_ENTRY_CHARS * entries


def _entry_chars(values: np.ndarray) -> int:
    """Characters of the entries' texts: exact for integral ones, 24 for any other.

    Entries all in ``[0, 10)`` (0/1 matrices, small counts) take one character each when
    integral: two reductions and one comparison instead of the digit count.
    """
    if values.size and values.min() >= 0.0 and values.max() < 10.0:  # NaN fails both
        integral = int(np.count_nonzero(values.astype(np.uint8) == values))
        return integral + MAX_ENTRY_CHARS * (values.size - integral)
    mag = np.abs(values)
    integral = (values == np.floor(values)) & (mag < _EXACT)
    digits = 1 + np.searchsorted(_POW10, mag, side="right") + (values < 0)
    return int(np.where(integral, digits, MAX_ENTRY_CHARS).sum())


def line_bytes(label: str, value: np.ndarray) -> int:
    """An upper bound of the bytes of ``label = value`` (plus newline), without formatting.

    Exact when every entry is integral (``0``/``1`` matrices, counts, node ids); any
    other entry counts as 24 characters, the longest a float64 can take.

    Example:
        >>> from closurebench.ein.values import format_value
        >>> M = np.array([[0.0, 1.0], [-10.0, 123456.0]])
        >>> line_bytes("M", M) == len(f"M = {format_value(M)}\\n")
        True
    """
    fixed, _ = _layout(label, tuple(value.shape))
    flat = value.flat
    total = fixed
    for start in range(0, value.size, _CHUNK):
        total += _entry_chars(np.asarray(flat[start : start + _CHUNK], dtype=np.float64))
    return total


class OutputMeter:
    """Counts a run's printed bytes and refuses the print that would pass the limit.

    Args:
        limits: The caps; :attr:`Limits.max_output_bytes` is the one used.

    Attributes:
        printed: Bytes counted so far (an upper bound of the output's size).
    """

    def __init__(self, limits: Limits) -> None:
        self.limit = limits.max_output_bytes
        self.printed = 0

    def charge(self, label: str, value: np.ndarray, *, result: bool = False) -> None:
        """Count ``label = value`` before it is printed.

        Args:
            label: The print's label (or the result's name).
            value: The value to be printed.
            result: True for the result of a program that prints nothing.

        Raises:
            EinOutputLimitError: The text would pass the limit (nothing is counted).
        """
        shape = tuple(value.shape)
        low, high = line_bounds(label, shape)
        left = self.limit - self.printed
        if low > left:
            raise self._error(label, shape, low, exact=False, result=result)
        need = high if value.size <= 1 else line_bytes(label, value)
        if need > left:
            raise self._error(label, shape, need, exact=True, result=result)
        self.printed += need

    def charge_static(self, label: str, shape: tuple[int, ...], *, result: bool = False) -> None:
        """Count the least ``label = value`` of a known ``shape`` can take (static check)."""
        low, _ = line_bounds(label, shape)
        if low > self.limit - self.printed:
            raise self._error(label, shape, low, exact=False, result=result)
        self.printed += low

    def _error(
        self, label: str, shape: tuple[int, ...], need: int, *, exact: bool, result: bool
    ) -> EinOutputLimitError:
        what = f"the result `{label}`" if result else f"`:print {label}`"
        if result:
            what += " (the program prints nothing, so its last value is its output)"
        amount = ("" if exact else "at least ") + format_bytes(need)
        done = format_bytes(self.printed)
        return EinOutputLimitError(
            f"{what} would print {amount} ({describe_shape(shape)}) after {done} "
            f"already printed, {format_bytes(self.printed + need)} in all; the output limit "
            f"is {format_bytes(self.limit)} (Limits.max_output_bytes): print a smaller value "
            "(a count with sum(...), one row with select(...)) or raise "
            "Limits.max_output_bytes (closurebench ein run --max-output-bytes)"
        )
