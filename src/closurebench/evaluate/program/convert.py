"""A program's output as an answer of the instance's result type.

Python programs print the answer themselves (names, numbers, booleans): the printed
value is converted to the record's result type where the conversion is unambiguous
(a Python set or tuple becomes a list, ``1``/``0`` a boolean for a yes/no question, an
integral float an integer, a one-element list of a name a name). Ein programs compute
over node indices, in the order in which the question lists the entities (node ``i`` is
``record.labels[i]``), so their printed values are mapped to labels: a 0/1 vector is the
set of its 1-entries, an index (or a one-hot vector) one label, a number a count or a
mean, 1/0 yes/no; a compound answer (``multi_query``) is read from the printed values
by their labels (``:print Reachable`` → ``reachable``), else in the order of the
category's keys. What cannot be converted is returned unchanged, with the reason, and
the scorer records a ``format_error``.

Example:
    >>> from types import SimpleNamespace as R
    >>> rec = R(result_type="set", labels=["a", "b", "c"], category="negative_reach")
    >>> ein_answer(rec, [1.0, 0.0, 1.0], ())
    (['a', 'c'], '')
    >>> ein_answer(R(result_type="string", labels=["a", "b"], category="max_degree"), 1.0, ())
    ('b', '')
    >>> python_answer(R(result_type="boolean"), 1)
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from closurebench.schema import ResultType
from closurebench.scoring.extract import holdable
from closurebench.tasks.closure import CLOSURE_TASKS

__all__ = ["ein_answer", "python_answer"]


def _number(value: Any) -> float | None:
    """A number as a float; ``None`` for a non-number, a non-finite float, or an integer
    past the float range (no ``OverflowError``: such an integer is no index, no 0/1).

    Example:
        >>> _number(True), _number(3), _number(float("inf")), _number(10**400), _number("1")
        (1.0, 3.0, None, None, None)
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int):
        return float(value) if value.bit_length() <= _FLOAT_BITS else None
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


#: Integers of at most this many bits convert to a float (``2**1024`` overflows).
_FLOAT_BITS = 1023


def _one_hot(values: list[Any]) -> int | None:
    """The index of the only 1 of a 0/1 vector with exactly one 1, else ``None``.

    Example:
        >>> _one_hot([0, 1.0, 0]), _one_hot([1, 1]), _one_hot(["a", 1]), _one_hot([0, 10**400])
        (1, None, None, None)
    """
    entries = [_number(v) for v in values]
    if any(x not in (0.0, 1.0) for x in entries) or entries.count(1.0) != 1:
        return None
    return entries.index(1.0)


def _typed(rtype: str, value: Any) -> Any:
    """Convert ``value`` to ``rtype`` where unambiguous (else unchanged)."""
    if rtype == ResultType.BOOLEAN:
        if isinstance(value, int | float) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return value
    if rtype == ResultType.INTEGER:  # an int stays as is (exact, any size)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value
    if rtype == ResultType.SET and isinstance(value, str):
        return [value]
    if rtype == ResultType.STRING and isinstance(value, list) and len(value) == 1:
        return value[0]
    return value


def python_answer(record: Any, value: Any) -> Any:
    """The printed ``value`` of a Python program, converted to ``record``'s result type."""
    rtype = str(record.result_type)
    if rtype == ResultType.COMPOUND and isinstance(value, dict):
        keys = _compound_keys(record)
        return {k: _typed(str(keys.get(k, "")), v) for k, v in value.items()}
    return _typed(rtype, value)


def _compound_keys(record: Any) -> dict[str, ResultType]:
    task = CLOSURE_TASKS.get(str(getattr(record, "category", "")))
    return dict(task.compound_keys or {}) if task is not None else {}


def _show(value: Any) -> str:
    """``repr(value)`` cut to 200 characters (``value`` is :func:`holdable`: no error)."""
    text = repr(value)
    return text if len(text) <= 200 else text[:199] + "…"


def _ein_value(rtype: str, value: Any, labels: Sequence[str]) -> tuple[Any, str]:
    n = len(labels)
    if not holdable(value):  # nothing below may walk or print it
        return value, "the value holds a number that is not finite or too long, or nests too deep"
    if rtype == ResultType.SET:
        if not isinstance(value, list) or any(isinstance(v, list) for v in value):
            shown = _show(value)
            return value, f"a set answer is a 0/1 vector over the {n} entities, not {shown}"
        if len(value) != n:
            return value, f"the vector has {len(value)} entries; the question lists {n} entities"
        if any(_number(v) not in (0.0, 1.0) for v in value):
            return value, "a set answer is a 0/1 vector; this one has other entries"
        return [labels[i] for i, v in enumerate(value) if v == 1], ""
    if rtype == ResultType.STRING:
        hot = _one_hot(value) if isinstance(value, list) and len(value) == n else None
        if hot is not None:
            return labels[hot], ""
        x = _number(value)
        if x is not None and x == int(x) and 0 <= int(x) < n:
            return labels[int(x)], ""
        shown = _show(value)
        return value, f"one entity is its index 0..{n - 1} (or a one-hot vector), not {shown}"
    if isinstance(value, list):
        return value, f"a {rtype} answer is one number, not a vector or matrix"
    return _typed(rtype, value), ""


def ein_answer(record: Any, value: Any, printed: Sequence[tuple[str, Any]]) -> tuple[Any, str]:
    """The answer an Ein program gave: its last printed ``value`` (or, for a compound
    answer, all ``printed`` values), mapped to ``record``'s labels.

    Returns:
        ``(answer, reason)``: ``reason`` is empty when the conversion succeeded.
    """
    rtype = str(record.result_type)
    labels = list(record.labels)
    if rtype != ResultType.COMPOUND:
        return _ein_value(rtype, value, labels)
    keys = _compound_keys(record)
    out: dict[str, Any] = {}
    unmatched: list[Any] = []
    for label, v in printed:
        key = next(
            (k for k in keys if k.lower() in label.lower() or label.lower() in k.lower()), None
        )
        if key is not None and key not in out:
            out[key] = _ein_value(str(keys[key]), v, labels)[0]
        else:
            unmatched.append(v)
    for key in keys:  # values printed under other names fill the remaining keys in order
        if key not in out and unmatched:
            out[key] = _ein_value(str(keys[key]), unmatched.pop(0), labels)[0]
    if set(out) != set(keys):
        return out, f"print one value per part of the answer ({', '.join(keys)})"
    return out, ""
