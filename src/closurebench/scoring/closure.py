"""Scoring a ClosureBench response: JSON extraction, then Algorithm 1 in both modes.

Example:
    >>> rec = {"category": "reach_then_count", "result_type": "integer", "answer": 2,
    ...        "alt_answer": 3, "ambiguity": "count", "anchors": {"X": 0}, "labels": ["a"]}
    >>> score_closure(rec, '{"answer": 3}').outcome
    <Outcome.LENIENT_ONLY: 'lenient_only'>
    >>> score_closure(rec, '{"answer": "2"}').outcome
    <Outcome.FORMAT_ERROR: 'format_error'>
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from closurebench.schema.enums import ExtractStatus, Outcome
from closurebench.scoring.extract import extract_answer
from closurebench.scoring.lenient import match_answer
from closurebench.scoring.outcome import Score

__all__ = ["score_closure"]


def _set_sources(record: Mapping[str, Any]) -> set[str]:
    alt, ref = record.get("alt_answer"), record.get("answer")
    if isinstance(alt, list) and isinstance(ref, list):
        return {str(v).strip() for v in alt} ^ {str(v).strip() for v in ref}
    labels = record.get("labels") or []
    anchors = record.get("anchors") or {}
    out = set()
    for key in ("X", "Y"):
        node = anchors.get(key)
        if isinstance(node, int) and 0 <= node < len(labels):
            out.add(str(labels[node]).strip())
    return out


def score_closure(record: Mapping[str, Any], response_text: str | None) -> Score:
    """Score one ClosureBench response against its instance record.

    Args:
        record: A ClosureBench instance (``result_type``, ``answer``, ``alt_answer``,
            ``category``, ``anchors``, ``labels``).
        response_text: The model's raw output (untrusted; never raises on it).

    Returns:
        The :class:`Score`.

    Example:
        >>> rec = {"category": "sibling", "result_type": "set", "answer": ["b"],
        ...        "alt_answer": ["b", "x"], "ambiguity": "set", "anchors": {"X": 0},
        ...        "labels": ["x", "b"]}
        >>> [score_closure(rec, t).outcome.value for t in
        ...  ('{"answer": ["b"]}', '{"answer": ["x", "b"]}', '{"answer": []}', 'No.')]
        ['strict_correct', 'lenient_only', 'wrong', 'no_answer']
    """
    got = extract_answer(response_text)
    if got.status is not ExtractStatus.OK:
        return Score.fail(Outcome(got.status))
    rtype, category = record["result_type"], record.get("category", "")
    kwargs = {"alt": record.get("alt_answer"), "sources": _set_sources(record)}
    strict = match_answer(got.value, record["answer"], rtype, category, "strict", **kwargs)
    if strict == "format_error":
        return Score.fail(Outcome.FORMAT_ERROR, got.value, f"answer does not have the {rtype} type")
    lenient = match_answer(got.value, record["answer"], rtype, category, "lenient", **kwargs)
    return Score.decide(strict == "correct", lenient == "correct", got.value, "")
