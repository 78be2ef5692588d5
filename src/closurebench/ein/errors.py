"""The Ein error tree: every failure carries a line, a column and a caret.

Every error the Ein interpreter raises is an :class:`EinError` (itself a
:class:`~closurebench.errors.ClosureBenchError`). Errors raised deep inside a
builtin start without a location; the evaluator or shape checker attaches the
location of the enclosing call or operator with :meth:`EinError.locate` before
the error leaves the interpreter, so a caller always sees where it happened.

Example:
    >>> err = UnknownNameError("unknown name `B`; define it before use")
    >>> _ = err.locate(2, 5, "X = B + 1")
    >>> print(err)
    line 2, column 5: unknown name `B`; define it before use
      2 | X = B + 1
        |     ^
    >>> (err.line, err.column, err.message)
    (2, 5, 'unknown name `B`; define it before use')
"""

from __future__ import annotations

from closurebench.errors import ClosureBenchError

__all__ = [
    "ArgumentError",
    "ArityError",
    "DivisionByZeroError",
    "EinBudgetError",
    "EinError",
    "EinInternalError",
    "EinOutputLimitError",
    "EinRuntimeError",
    "EinSyntaxError",
    "EinTimeoutError",
    "IndexOutOfRangeError",
    "NonIntegerIndexError",
    "ResourceLimitError",
    "ShapeError",
    "UnknownNameError",
]


_MAX_SHOWN = 120  # characters of the source line shown around the caret


class EinError(ClosureBenchError):
    """Root of every Ein failure.

    Attributes:
        message: What went wrong, naming the value and the fix.
        line: 1-based source line, or ``None`` until located.
        column: 1-based source column, or ``None`` until located.
        source_line: The text of the offending line (for the caret display).
        arg: For an error raised inside a builtin: the position of the argument to
            point at (the call's name is used when ``None``).
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        source_line: str | None = None,
        arg: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.arg = arg
        self.line = line
        self.column = column
        self.source_line = source_line

    def locate(self, line: int, column: int, source_line: str | None = None) -> EinError:
        """Attach a location unless one is already set; returns ``self`` for ``raise``."""
        if self.line is None:
            self.line = line
            self.column = column
            self.source_line = source_line
        elif self.source_line is None and self.line == line:
            self.source_line = source_line
        return self

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        col = self.column or 1
        head = f"line {self.line}, column {col}: {self.message}"
        if self.source_line is None:
            return head
        # Tabs are shown as single spaces so that the caret stays under the column.
        text = self.source_line.replace("\t", " ").rstrip("\r\n")
        # Long lines (a 50,000-edge literal) are clipped to a window around the column.
        start = 0
        if len(text) > _MAX_SHOWN:
            start = max(0, min(col - 1 - _MAX_SHOWN // 2, len(text) - _MAX_SHOWN))
            end = start + _MAX_SHOWN
            left = "..." if start > 0 else ""
            right = "..." if end < len(text) else ""
            text = left + text[start:end] + right
            start -= len(left)
        gutter = str(self.line)
        pad = " " * len(gutter)
        return f"{head}\n  {gutter} | {text}\n  {pad} | {' ' * (col - 1 - start)}^"

    def __reduce__(self) -> tuple[object, ...]:
        # Keep the location when an error crosses a process boundary (pickling).
        return (_rebuild, (type(self), self.message, self.line, self.column, self.source_line))


def _rebuild(
    cls: type[EinError], message: str, line: int | None, column: int | None, src: str | None
) -> EinError:
    return cls(message, line=line, column=column, source_line=src)


class EinSyntaxError(EinError):
    """Unexpected or unknown character, unexpected token, leftover tokens, bad structure."""


class UnknownNameError(EinError):
    """A name that was never assigned, or a call to a builtin that does not exist."""


class ArgumentError(EinError):
    """A builtin got an argument of the wrong kind (rank, list shape, value)."""


class ArityError(ArgumentError):
    """A builtin got the wrong number of arguments."""


class ShapeError(EinError):
    """Shapes or ranks do not fit together (the message names both shapes)."""


class IndexOutOfRangeError(EinError):
    """A node id, position or axis lies outside its valid range."""


class NonIntegerIndexError(EinError):
    """A node id, position, axis or size that must be an integer is not."""


class DivisionByZeroError(EinError):
    """``/`` with a divisor that is (or contains) zero."""


class ResourceLimitError(EinError):
    """A tensor, einsum or program exceeds a cap in :class:`~closurebench.ein.limits.Limits`."""


class EinBudgetError(ResourceLimitError):
    """The run's live tensors would exceed :attr:`Limits.max_live_bytes`."""


class EinOutputLimitError(ResourceLimitError):
    """The run's printed output would exceed :attr:`Limits.max_output_bytes`."""


class EinTimeoutError(ResourceLimitError):
    """The run passed its deadline, :attr:`Limits.max_seconds` after it started."""


class EinRuntimeError(EinError):
    """A numeric failure at run time, e.g. overflow to a non-finite value."""


class EinInternalError(EinError):
    """An unexpected internal failure, wrapped so that it never escapes as a crash."""
