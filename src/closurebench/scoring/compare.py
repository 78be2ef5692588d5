"""Strict correctness as a yes/no: a thin alias of Algorithm 1 in strict mode.

There is one comparator, :func:`~closurebench.scoring.lenient.match_answer`; :func:`compare`
is ``match_answer(..., ambiguity=None, mode="strict") is Match.CORRECT`` for callers that
want a bool. Result types follow ``docs/categories.md``: ``boolean``, ``integer``,
``float`` (matched within ``1e-2``), ``set`` (order-free, of labels), ``string`` (one
label, trimmed), ``compound`` (an object holding the reference's keys, compared key by
key with the type each reference value has; extra keys are ignored, as Algorithm 1
iterates over the reference's keys). A value of the wrong type is simply not equal —
never an exception. Values must have their JSON type: ``"3"`` is not the integer 3 and
``"true"`` is not a boolean.

Example:
    >>> compare("set", ["b", "a"], ["a", "b"]), compare("float", 2.615, 2.62)
    (True, True)
    >>> compare("integer", 3.0, 3), compare("integer", "3", 3), compare("boolean", "true", True)
    (True, False, False)
    >>> compare("compound", {"reachable": True, "degree": 1}, {"degree": 1, "reachable": True})
    True
"""

from __future__ import annotations

from typing import Any

from closurebench.schema.enums import Match, ScoringMode
from closurebench.scoring.lenient import FLOAT_TOLERANCE, infer_result_type, match_answer

__all__ = ["FLOAT_TOLERANCE", "compare", "infer_result_type"]


def compare(result_type: str, predicted: Any, reference: Any) -> bool:
    """True iff ``predicted`` is strictly correct for ``reference`` under ``result_type``.

    Example:
        >>> compare("string", " Bob ", "Bob"), compare("string", ["Bob"], "Bob")
        (True, False)
    """
    got = match_answer(predicted, reference, result_type, None, ScoringMode.STRICT)
    return got is Match.CORRECT
