"""The judgement of one response: :class:`Score`, shared by both suites' scorers.

Every response gets exactly one :class:`~closurebench.schema.enums.Outcome`:
``strict_correct``, ``lenient_only`` (correct only under lenient scoring), ``wrong``,
``format_error`` (malformed answer, missing ``"answer"`` field, wrong value type) or
``no_answer`` (nothing answer-like emitted). The suite scorers live in
:mod:`closurebench.scoring.closure` and :mod:`closurebench.scoring.grit`.

Example:
    >>> Score.decide(False, True, 3).outcome
    <Outcome.LENIENT_ONLY: 'lenient_only'>
    >>> Score.fail(Outcome.NO_ANSWER).reason
    'no answer'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from closurebench.schema.enums import MODEL_OUTCOMES, Outcome

__all__ = ["OUTCOMES", "Score"]

#: The names of the outcomes a scorer gives (the model's; ``error`` is the harness's), in
#: report order.
OUTCOMES: tuple[str, ...] = tuple(o.value for o in MODEL_OUTCOMES)


@dataclass(frozen=True)
class Score:
    """The judgement of one response.

    Attributes:
        outcome: The :class:`~closurebench.schema.enums.Outcome`.
        strict: Correct under strict scoring.
        lenient: Correct under lenient scoring (``strict`` implies ``lenient``).
        extracted: The extracted answer value (``None`` when none was usable).
        reason: A short human-readable explanation.
    """

    outcome: Outcome
    strict: bool
    lenient: bool
    extracted: Any = None
    reason: str = ""

    @classmethod
    def fail(cls, outcome: Outcome, value: Any = None, reason: str = "") -> Score:
        """A response that is neither strictly nor leniently correct, before matching."""
        return cls(outcome, False, False, value, reason or outcome.value.replace("_", " "))

    @classmethod
    def decide(cls, strict: bool, lenient: bool, value: Any, reason: str = "") -> Score:
        """The score of a well-typed answer from its strict and lenient verdicts."""
        if strict:
            return cls(Outcome.STRICT_CORRECT, True, True, value, "")
        if lenient:
            return cls(
                Outcome.LENIENT_ONLY, False, True, value, reason or "correct only under lenient"
            )
        return cls(Outcome.WRONG, False, False, value, reason or "wrong answer")
