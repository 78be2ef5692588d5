"""Scoring a ClosureBench response: JSON extraction, then Algorithm 1 in both modes.

The record is the typed :class:`~closurebench.schema.ClosureInstance`; its own fields
decide the judgement: ``result_type``, ``answer``, ``ambiguity`` (the lenient class the
category's task wrote at generation time; the category name plays no part), the anchor
labels (the "source" of the set tolerance) and, for the directional variant only,
``alt_answer``.

A reply is read as the paper states (App. I): a JSON object with an ``answer`` field, or
one ``{"answer": ...}`` object embedded in longer text; a bare JSON value (``3``,
``true``, a list) is a ``format_error`` (the ``answer`` field is missing); no JSON at all
is ``no_answer``. :func:`score_closure_value` scores an already-extracted value (what
``score_answer`` of :mod:`closurebench.dataset` passes), where a bare value *is* the answer.

Example:
    >>> from closurebench.schema import ClosureInstance
    >>> rec = ClosureInstance.model_construct(
    ...     result_type="integer", answer=2, alt_answer=3, ambiguity="count",
    ...     anchors={"X": 0}, labels=["a"])
    >>> score_closure(rec, '{"answer": 3}').outcome
    <Outcome.LENIENT_ONLY: 'lenient_only'>
    >>> s = score_closure(rec, '{"answer": 1}')  # Algorithm 1: |p - r| = 1, either side
    >>> s.outcome.value, s.lenient_directional
    ('lenient_only', False)
    >>> score_closure(rec, '{"answer": "2"}').outcome
    <Outcome.FORMAT_ERROR: 'format_error'>
    >>> score_closure(rec, '2').outcome, score_closure_value(rec, 2).outcome
    (<Outcome.FORMAT_ERROR: 'format_error'>, <Outcome.STRICT_CORRECT: 'strict_correct'>)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from closurebench.schema.enums import ExtractStatus, Match, Outcome, ScoringMode
from closurebench.scoring.extract import UNHOLDABLE, extract_answer, holdable
from closurebench.scoring.lenient import LENIENT_DIRECTIONAL, match_answer
from closurebench.scoring.outcome import Score, safely

if TYPE_CHECKING:  # pydantic loads only where records are built, not to score them
    from closurebench.schema.instances import ClosureInstance

__all__ = ["score_closure", "score_closure_value"]


def score_closure_value(record: ClosureInstance, value: Any) -> Score:
    """Score an already-extracted answer ``value`` (labels) against ``record``.

    Strict, lenient and directional-lenient verdicts all come from
    :func:`~closurebench.scoring.lenient.match_answer`, with the record's ``ambiguity``;
    the source of the set tolerance is one of the question's anchors (``X``, ``Y``).

    Args:
        record: The ClosureBench instance.
        value: The answer value (a JSON value: number, boolean, list, string, object).

    Returns:
        The :class:`Score` (``format_error`` when ``value`` does not have the type, or
        when :func:`~closurebench.scoring.extract.holdable` rejects it: a non-finite
        number, an integer too long to print, nesting deeper than
        :data:`~closurebench.scoring.extract.MAX_DEPTH`).
    """
    return safely(_score_value, record, value)


def _score_value(record: ClosureInstance, value: Any) -> Score:
    if not holdable(value):
        return Score.fail(Outcome.FORMAT_ERROR, None, UNHOLDABLE)
    rtype = record.result_type
    kwargs: dict[str, Any] = {
        "alt": record.alt_answer,
        "sources": {str(label).strip() for label in record.anchor_labels()},
    }

    def verdict(mode: str) -> Match:
        return match_answer(value, record.answer, rtype, record.ambiguity, mode, **kwargs)

    strict = verdict(ScoringMode.STRICT)
    if strict is Match.FORMAT_ERROR:
        return Score.fail(Outcome.FORMAT_ERROR, value, f"answer does not have the {rtype} type")
    return Score.decide(
        strict is Match.CORRECT,
        verdict(ScoringMode.LENIENT) is Match.CORRECT,
        value,
        "",
        directional=verdict(LENIENT_DIRECTIONAL) is Match.CORRECT,
    )


def score_closure(record: ClosureInstance, response_text: str | None) -> Score:
    """Score one ClosureBench response against its instance record.

    Args:
        record: The ClosureBench instance (typed; build one from a JSON object with
            ``ClosureInstance.model_validate``).
        response_text: The model's raw output (untrusted; never raises on it).

    Returns:
        The :class:`Score` (an unexpected exception is a ``format_error``:
        :func:`~closurebench.scoring.outcome.safely`).

    Example:
        >>> from closurebench.schema import ClosureInstance
        >>> rec = ClosureInstance.model_construct(
        ...     result_type="set", answer=["b"], alt_answer=["b", "x"], ambiguity="set",
        ...     anchors={"X": 0}, labels=["x", "b"])
        >>> [score_closure(rec, t).outcome.value for t in
        ...  ('{"answer": ["b"]}', '{"answer": ["x", "b"]}', '{"answer": []}', 'No.')]
        ['strict_correct', 'lenient_only', 'wrong', 'no_answer']
    """
    return safely(_score_text, record, response_text)


def _score_text(record: ClosureInstance, response_text: str | None) -> Score:
    got = extract_answer(response_text)
    if got.status is not ExtractStatus.OK:
        return Score.fail(Outcome(got.status), reason=got.reason)
    return _score_value(record, got.value)
