"""What can go wrong with a tool call, as one exception with a machine-readable ``kind``.

Every problem the tool finds in a call is a :class:`ToolError`: its ``kind`` is one of
:data:`ERROR_KINDS`, and its message says where (the path to the field, e.g.
``graph.data["A"]["B"]``), what was expected, what was found, and how to fix it. The
runtime turns it into the ``<result>`` text ``Error (<kind>): <message>``; the model
never sees a traceback.

Example:
    >>> err = ToolError("schema", "graph.directed must be true or false",
    ...                 path="graph.directed", expected="true or false", got='"yes" (a string)',
    ...                 fix='write "directed": true or "directed": false, without quotes')
    >>> print(err.text())
    Error (schema): graph.directed must be true or false: expected true or false,
    got "yes" (a string). Fix: write "directed": true or "directed": false, without quotes.
    >>> err.as_dict()["path"]
    'graph.directed'
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from closurebench.errors import ClosureBenchError

__all__ = ["ERROR_KINDS", "ToolError", "describe", "quote"]

#: Every error kind, with what it means.
ERROR_KINDS: dict[str, str] = {
    "invalid_json": "the call is not parseable JSON (or is empty)",
    "schema": "a field is missing, has the wrong type, or the graph is malformed",
    "unknown_problem_type": "problem_type names no problem the tool solves",
    "bad_parameter": "a parameter is missing, unknown to the graph, ambiguous or invalid",
    "unsupported": "the graph does not meet the problem's requirements (e.g. not complete)",
    "too_large": "the call exceeds a size limit (characters, nodes, edges, name or weight size)",
    "timeout": "an exact solver could not prove its answer within the time limit",
    "internal": "the tool itself failed (a bug); the call may be fine",
}

#: Most characters of a name or string quoted in a message.
QUOTE_LIMIT = 60


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a JSON string literal, cut in the middle when longer than ``limit``.

    Example:
        >>> quote("Knights Market")
        '"Knights Market"'
        >>> quote("x" * 100, 20)
        '"xxxxxxxxxxxxxxx…xxxxx"'
    """
    if len(text) > limit:
        tail = max(limit // 4, 1)
        text = text[: limit - tail] + "…" + text[len(text) - tail :]
    return json.dumps(text, ensure_ascii=False)


def describe(value: object) -> str:
    """A short, bounded description of any JSON-like value, for a message's "got" part.

    Never recurses into containers and never fails (huge integers, NaN, deep nesting).

    Example:
        >>> describe("yes"), describe(None), describe(True), describe([1, 2])
        ('"yes" (a string)', 'null', 'true', 'a list of 2 items')
        >>> describe({"a": 1}), describe(float("nan")), describe(10 ** 500)
        ('an object with 1 key', 'NaN', 'an integer with 501 digits')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 90:
            digits = len(str(abs(value))) if value.bit_length() < 14000 else None
            if digits is None:
                return "an integer with more than 4000 digits"
            return f"an integer with {digits} digits"
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return repr(value)
    if isinstance(value, str):
        return f"{quote(value)} (a string)"
    if isinstance(value, Mapping):
        k = len(value)
        return "an empty object" if k == 0 else f"an object with {k} key{'s' * (k != 1)}"
    if isinstance(value, list | tuple):
        k = len(value)
        return "an empty list" if k == 0 else f"a list of {k} item{'s' * (k != 1)}"
    return f"a value of Python type {type(value).__name__}"


class ToolError(ClosureBenchError, ValueError):
    """A tool call that cannot be answered, and why.

    Args:
        kind: One of :data:`ERROR_KINDS`.
        message: What is wrong, naming the field (``graph.data["A"]["B"] is not a number``).
        path: The field's path in the call (``""`` when the call as a whole is at fault).
        expected: What the field should hold.
        got: What it holds (see :func:`describe`).
        fix: How to correct the call.

    Attributes:
        kind, path, expected, got, fix: As given.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        path: str = "",
        expected: str = "",
        got: str = "",
        fix: str = "",
    ) -> None:
        if kind not in ERROR_KINDS:
            raise ValueError(f"unknown tool error kind {kind!r}; use one of {list(ERROR_KINDS)}")
        self.kind = kind
        self.path = path
        self.expected = expected
        self.got = got
        self.fix = fix
        super().__init__(message)

    @property
    def message(self) -> str:
        """The full one-line explanation (problem, expected vs got, fix)."""
        text = str(self.args[0])
        if self.expected or self.got:
            parts = []
            if self.expected:
                parts.append(f"expected {self.expected}")
            if self.got:
                parts.append(f"got {self.got}")
            text += ": " + ", ".join(parts)
        text = text.rstrip(".") + "."
        if self.fix:
            text += f" Fix: {self.fix.rstrip('.')}."
        return text

    def text(self) -> str:
        """The ``<result>`` body: ``Error (<kind>): <message>``."""
        return f"Error ({self.kind}): {self.message}"

    def as_dict(self) -> dict[str, Any]:
        """The error as JSON-able details."""
        return {
            "error": self.kind,
            "message": self.message,
            "path": self.path,
            "expected": self.expected,
            "got": self.got,
            "fix": self.fix,
        }
