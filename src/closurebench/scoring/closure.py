"""Scoring a ClosureBench response: JSON extraction, then Algorithm 1 in both modes.

The record is the typed :class:`~closurebench.schema.ClosureInstance`; its own fields
decide the judgement: ``result_type``, ``answer``, ``alt_answer``, ``ambiguity`` (the
lenient class the category's task wrote at generation time; the category name plays
no part) and the anchor labels.

Example:
    >>> from closurebench.schema import ClosureInstance
    >>> rec = ClosureInstance.model_construct(
    ...     result_type="integer", answer=2, alt_answer=3, ambiguity="count",
    ...     anchors={"X": 0}, labels=["a"])
    >>> score_closure(rec, '{"answer": 3}').outcome
    <Outcome.LENIENT_ONLY: 'lenient_only'>
    >>> score_closure(rec, '{"answer": "2"}').outcome
    <Outcome.FORMAT_ERROR: 'format_error'>
    >>> score_closure_value(rec, 2).outcome
    <Outcome.STRICT_CORRECT: 'strict_correct'>
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from closurebench.schema.enums import ExtractStatus, Match, Outcome, ScoringMode
from closurebench.scoring.extract import extract_answer
from closurebench.scoring.lenient import match_answer
from closurebench.scoring.outcome import Score

if TYPE_CHECKING:  # pydantic loads only where records are built, not to score them
    from closurebench.schema.instances import ClosureInstance

__all__ = ["score_closure", "score_closure_value"]


def _set_sources(record: ClosureInstance) -> set[str]:
    """Labels that count as "the source" for the set tolerance (see ``scoring.lenient``)."""
    alt, ref = record.alt_answer, record.answer
    if isinstance(alt, list) and isinstance(ref, list):
        return {str(v).strip() for v in alt} ^ {str(v).strip() for v in ref}
    return {str(label).strip() for label in record.anchor_labels()}


def score_closure_value(record: ClosureInstance, value: Any) -> Score:
    """Score an already-extracted answer ``value`` (labels) against ``record``.

    Strict and lenient verdicts both come from
    :func:`~closurebench.scoring.lenient.match_answer`, with the record's ``ambiguity``.

    Args:
        record: The ClosureBench instance.
        value: The answer value (a JSON value: number, boolean, list, string, object).

    Returns:
        The :class:`Score` (``format_error`` when ``value`` does not have the type).
    """
    rtype = record.result_type
    kwargs: dict[str, Any] = {"alt": record.alt_answer, "sources": _set_sources(record)}
    strict = match_answer(
        value, record.answer, rtype, record.ambiguity, ScoringMode.STRICT, **kwargs
    )
    if strict is Match.FORMAT_ERROR:
        return Score.fail(Outcome.FORMAT_ERROR, value, f"answer does not have the {rtype} type")
    lenient = match_answer(
        value, record.answer, rtype, record.ambiguity, ScoringMode.LENIENT, **kwargs
    )
    return Score.decide(strict is Match.CORRECT, lenient is Match.CORRECT, value, "")


def score_closure(record: ClosureInstance, response_text: str | None) -> Score:
    """Score one ClosureBench response against its instance record.

    Args:
        record: The ClosureBench instance (typed; build one from a JSON object with
            ``ClosureInstance.model_validate``).
        response_text: The model's raw output (untrusted; never raises on it).

    Returns:
        The :class:`Score`.

    Example:
        >>> from closurebench.schema import ClosureInstance
        >>> rec = ClosureInstance.model_construct(
        ...     result_type="set", answer=["b"], alt_answer=["b", "x"], ambiguity="set",
        ...     anchors={"X": 0}, labels=["x", "b"])
        >>> [score_closure(rec, t).outcome.value for t in
        ...  ('{"answer": ["b"]}', '{"answer": ["x", "b"]}', '{"answer": []}', 'No.')]
        ['strict_correct', 'lenient_only', 'wrong', 'no_answer']
    """
    got = extract_answer(response_text)
    if got.status is not ExtractStatus.OK:
        return Score.fail(Outcome(got.status))
    return score_closure_value(record, got.value)
