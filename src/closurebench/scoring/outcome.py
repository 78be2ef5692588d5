"""The judgement of one response: :class:`Score`, shared by both suites' scorers.

Every response gets exactly one :class:`~closurebench.schema.enums.Outcome`:
``strict_correct``, ``lenient_only`` (correct only under lenient scoring), ``wrong``,
``format_error`` (malformed answer, missing ``"answer"`` field, wrong value type) or
``no_answer`` (nothing answer-like emitted). ``lenient`` (and so ``lenient_only``) is
Algorithm 1's lenient rule; ``lenient_directional`` records the stricter directional
variant (:data:`~closurebench.scoring.lenient.LENIENT_DIRECTIONAL`, an extra report
column; it equals ``lenient`` where a suite has no such variant). The suite scorers live in
:mod:`closurebench.scoring.closure` and :mod:`closurebench.scoring.grit`.

Example:
    >>> Score.decide(False, True, 3).outcome
    <Outcome.LENIENT_ONLY: 'lenient_only'>
    >>> Score.fail(Outcome.NO_ANSWER).reason
    'no answer'
    >>> Score.decide(False, True, 2, directional=False).lenient_directional
    False
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
        lenient_directional: Correct under the directional lenient variant (``strict``
            implies it; ``None`` means "same as ``lenient``").
    """

    outcome: Outcome
    strict: bool
    lenient: bool
    extracted: Any = None
    reason: str = ""
    lenient_directional: bool | None = None

    def __post_init__(self) -> None:
        if self.lenient_directional is None:
            object.__setattr__(self, "lenient_directional", self.lenient)

    @classmethod
    def fail(cls, outcome: Outcome, value: Any = None, reason: str = "") -> Score:
        """A response that is neither strictly nor leniently correct, before matching."""
        return cls(outcome, False, False, value, reason or outcome.value.replace("_", " "))

    @classmethod
    def decide(
        cls,
        strict: bool,
        lenient: bool,
        value: Any,
        reason: str = "",
        *,
        directional: bool | None = None,
    ) -> Score:
        """The score of a well-typed answer from its strict and lenient verdicts.

        ``directional`` is the verdict of the directional lenient variant (default: the
        same as ``lenient``); the outcome follows ``strict`` and ``lenient`` only.
        """
        if strict:
            return cls(Outcome.STRICT_CORRECT, True, True, value, "", True)
        if lenient:
            return cls(
                Outcome.LENIENT_ONLY,
                False,
                True,
                value,
                reason or "correct only under lenient",
                lenient if directional is None else directional,
            )
        return cls(Outcome.WRONG, False, False, value, reason or "wrong answer", bool(directional))
