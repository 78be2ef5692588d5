"""Ein values: list literals, finiteness, and rendering for people and for JSON.

Every Ein value is a float64 numpy array of rank 0, 1 or 2. Integral entries are
rendered (and converted to JSON) as integers when their magnitude is below
2**53, where a float64 holds every integer exactly; other entries keep their
shortest round-trip float text.

Example:
    >>> format_value(np.asarray(3.0)), format_value(np.asarray(1 / 3))
    ('3', '0.3333333333333333')
    >>> format_value(np.array([[0.0, 1.0], [1.0, 0.5]]))
    '[[0, 1], [1, 0.5]]'
    >>> to_json_value(np.array([2.0, 0.25]))
    [2, 0.25]
    >>> "".join(format_chunks(np.eye(2))) == format_value(np.eye(2))
    True
    >>> int_text(7), int_text(10**308), int_text(-(10**20))
    ('7', '1e+308', '-1e+20')
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import numpy as np

from closurebench.ein import ast
from closurebench.ein.errors import EinRuntimeError, ShapeError

__all__ = [
    "ensure_finite",
    "format_chunks",
    "format_value",
    "int_text",
    "literal_value",
    "rank_name",
    "to_json_value",
]

_EXACT = 2.0**53
# Integers up to this many digits are written out in messages; longer ones in e-notation.
_MAX_DIGITS = 15
# Elements formatted per piece of :func:`format_chunks` (a few hundred KB of text).
_PIECE = 1 << 14


def int_text(n: int) -> str:
    """An integer for a message: exact when short, else ``1e+308``-style (3 digits).

    Sizes and positions come from float64 numbers, so ``ones(1e308)`` asks for an
    integer of 309 digits; messages show it as ``1e+308``.
    """
    if len(str(abs(n))) <= _MAX_DIGITS:
        return str(n)
    mantissa, exponent = format(Decimal(n), ".3g").split("e")  # rounded, any size
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{exponent}"


def rank_name(rank: int) -> str:
    """``a scalar`` / ``a vector`` / ``a matrix`` / ``a rank-k tensor``."""
    return {0: "a scalar", 1: "a vector", 2: "a matrix"}.get(rank, f"a rank-{rank} tensor")


def _nested(node: ast.Number | ast.ListLiteral) -> Any:
    if isinstance(node, ast.Number):
        return node.value
    return [_nested(item) for item in node.items]


def literal_value(node: ast.ListLiteral) -> np.ndarray:
    """The float64 array of a list literal (rank 1 or 2, rectangular).

    Raises:
        ShapeError: Ragged rows, mixed numbers and lists, or more than two levels.

    Example:
        >>> from closurebench.ein.parser import parse
        >>> literal_value(parse("X = [[0,1],[1,2]]").statements[0].value).shape
        (2, 2)
    """
    array = getattr(node, "array", None)  # a long number list, read at parse time
    if array is not None:
        return np.array(array, dtype=np.float64)
    depth = 0
    probe: ast.Number | ast.ListLiteral = node
    while isinstance(probe, ast.ListLiteral):
        depth += 1
        if depth > 2:
            raise ShapeError(
                "list literals have at most two levels ([[...], ...]); values are scalars, "
                "vectors or matrices"
            )
        if not probe.items:
            break
        probe = probe.items[0]
    for i, item in enumerate(node.items):
        if isinstance(item, ast.ListLiteral) != (depth == 2):
            raise ShapeError(
                f"list literal mixes numbers and lists (item {i}); write a flat list "
                "[1, 2] or a list of rows [[1, 2], [3, 4]]"
            )
        if isinstance(item, ast.ListLiteral):
            if any(isinstance(x, ast.ListLiteral) for x in item.items):
                raise ShapeError(
                    "list literals have at most two levels ([[...], ...]); values are "
                    "scalars, vectors or matrices"
                )
            width = len(node.items[0].items)  # type: ignore[union-attr]
            if len(item.items) != width:
                raise ShapeError(
                    f"list literal is ragged: row 0 has {width} entries but row {i} has "
                    f"{len(item.items)}; every row needs the same length"
                )
    return np.asarray(_nested(node), dtype=np.float64)


def ensure_finite(value: np.ndarray, what: str) -> np.ndarray:
    """Raise :class:`EinRuntimeError` if ``value`` holds inf or NaN (numeric overflow)."""
    # A finite sum proves every entry finite (inf and NaN poison a sum) without the
    # temporary boolean array; only when the sum is not finite is the full check needed.
    with np.errstate(over="ignore", invalid="ignore"):  # a sum past 1.8e308 is inf
        total = value.sum()
    if not np.isfinite(total) and not np.isfinite(value).all():
        raise EinRuntimeError(
            f"{what} produced a non-finite value (overflow beyond float64's range 1.8e308)"
        )
    return value


def _scalar(x: float) -> int | float:
    if x.is_integer() and abs(x) < _EXACT:
        return int(x)
    return x


def _text(x: float) -> str:
    if x.is_integer() and abs(x) < _EXACT:
        return str(int(x))
    return repr(x)


def to_json_value(value: np.ndarray) -> Any:
    """A JSON-ready number, list, or list of lists (integral floats become ints).

    Example:
        >>> to_json_value(np.asarray(-0.0)), to_json_value(np.eye(2))
        (0, [[1, 0], [0, 1]])
    """
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        return _scalar(float(arr))
    if arr.ndim == 1:
        return [_scalar(x) for x in arr.tolist()]
    return [to_json_value(row) for row in arr]


def _row_chunks(row: np.ndarray) -> Iterator[str]:
    for start in range(0, len(row), _PIECE):
        piece = ", ".join(map(_text, row[start : start + _PIECE].tolist()))
        yield piece if start == 0 else ", " + piece


def format_chunks(value: np.ndarray) -> Iterator[str]:
    """:func:`format_value`'s text in pieces of a few hundred KB, for streaming output.

    The CLI writes the pieces as they come, so printing a large value never holds
    its whole text (or a Python list of all its entries) in memory.
    """
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim == 0:
        yield _text(float(arr))
        return
    if arr.ndim == 1:
        yield "["
        yield from _row_chunks(arr)
        yield "]"
        return
    yield "["
    for k, row in enumerate(arr):
        yield "[" if k == 0 else ", ["
        yield from _row_chunks(row)
        yield "]"
    yield "]"


def format_value(value: np.ndarray) -> str:
    """Human/CLI text: ``3`` for integral scalars, ``[1, 0.5]``, ``[[0, 1], [1, 0]]``.

    The text equals ``json.dumps(to_json_value(value))``.

    Example:
        >>> format_value(np.zeros((0,)))
        '[]'
        >>> format_value(np.zeros((2, 0)))
        '[[], []]'
    """
    return "".join(format_chunks(value))
