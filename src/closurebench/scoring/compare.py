"""Typed comparison of an extracted answer with a reference answer (strict).

Result types follow ``spec/closurebench.md``: ``boolean``, ``integer``, ``float``
(matched within ``1e-2``), ``set`` (order-free, of labels), ``string`` (one label),
``compound`` (an object with fixed keys, compared key by key with the type each
reference value has). A value of the wrong type is simply not equal — never an
exception. Values must have their JSON type: ``"3"`` is not the integer 3 and
``"true"`` is not a boolean (the papers count a wrong value type as a format error).

Example:
    >>> compare("set", ["b", "a"], ["a", "b"]), compare("float", 2.615, 2.62)
    (True, True)
    >>> compare("integer", 3.0, 3), compare("integer", "3", 3), compare("boolean", "true", True)
    (True, False, False)
    >>> compare("compound", {"reachable": True, "degree": 1}, {"degree": 1, "reachable": True})
    True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["FLOAT_TOLERANCE", "compare", "infer_result_type"]

FLOAT_TOLERANCE = 1e-2


def _as_bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def infer_result_type(reference: Any) -> str:
    """The result type a reference value has (for compound members).

    Example:
        >>> [infer_result_type(v) for v in (True, 3, 2.5, ["a"], "a", {"k": 1})]
        ['boolean', 'integer', 'float', 'set', 'string', 'compound']
    """
    if isinstance(reference, bool):
        return "boolean"
    if isinstance(reference, int):
        return "integer"
    if isinstance(reference, float):
        return "float"
    if isinstance(reference, list | tuple):
        return "set"
    if isinstance(reference, Mapping):
        return "compound"
    return "string"


def compare(result_type: str, predicted: Any, reference: Any) -> bool:
    """True iff ``predicted`` equals ``reference`` under ``result_type`` (strict)."""
    if result_type == "boolean":
        got = _as_bool(predicted)
        return got is not None and got == bool(reference)
    if result_type == "integer":
        got = _as_number(predicted)
        return got is not None and got.is_integer() and int(got) == int(reference)
    if result_type == "float":
        got = _as_number(predicted)
        return got is not None and abs(got - float(reference)) <= FLOAT_TOLERANCE + 1e-12
    if result_type == "set":
        if not isinstance(predicted, list | tuple):
            return False
        if not all(isinstance(v, str | int) and not isinstance(v, bool) for v in predicted):
            return False
        return {str(v).strip() for v in predicted} == {str(v).strip() for v in reference}
    if result_type == "string":
        return isinstance(predicted, str | int) and str(predicted).strip() == str(reference)
    if result_type == "compound":
        if not isinstance(predicted, Mapping) or set(predicted) != set(reference):
            return False
        return all(
            compare(infer_result_type(reference[k]), predicted[k], reference[k]) for k in reference
        )
    return False
