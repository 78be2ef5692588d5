"""The judgement of one response: :class:`Score`, shared by both suites' scorers.

Every response gets exactly one :class:`~closurebench.schema.enums.Outcome`:
``strict_correct``, ``lenient_only`` (correct only under lenient scoring), ``wrong``,
``format_error`` (malformed answer, missing ``"answer"`` field, wrong value type) or
``no_answer`` (nothing answer-like emitted). ``lenient`` (and so ``lenient_only``) is
Algorithm 1's lenient rule; ``lenient_directional`` records the stricter directional
variant (:data:`~closurebench.scoring.lenient.LENIENT_DIRECTIONAL`, an extra report
column; it equals ``lenient`` where a suite has no such variant). The suite scorers live in
:mod:`closurebench.scoring.closure` and :mod:`closurebench.scoring.grit`.

The scorers never raise on model output: malformed text and values are outcomes, by
construction (and fuzzed). As a last resort only, :func:`safely` (which the public
scorers run through) turns an exception that still escapes into a ``format_error`` whose
reason starts with :data:`INTERNAL_ERROR` and names the exception and where it was
raised, so an instance never leaves the denominator because of what the model wrote.
Errors of the trusted side (:class:`~closurebench.errors.ClosureBenchError`: an unknown
task, a bad mode name) still raise.

Example:
    >>> Score.decide(False, True, 3).outcome
    <Outcome.LENIENT_ONLY: 'lenient_only'>
    >>> Score.fail(Outcome.NO_ANSWER).reason
    'no answer'
    >>> Score.decide(False, True, 2, directional=False).lenient_directional
    False
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from closurebench.errors import ClosureBenchError
from closurebench.schema.enums import MODEL_OUTCOMES, Outcome

__all__ = ["INTERNAL_ERROR", "OUTCOMES", "Score", "safely"]

#: How the reason of a score that :func:`safely` made after an unexpected exception starts.
INTERNAL_ERROR = "internal scoring error"

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


def safely(scorer: Callable[..., Score], /, *args: Any, **kwargs: Any) -> Score:
    """``scorer(*args, **kwargs)``; an unexpected exception becomes a ``format_error``.

    The last-resort guard of the public scorers (see the module docstring): the scorers
    are built not to raise on model output, and this only keeps a scorer bug from turning
    an instance into an ``error`` that leaves the denominator. The reason names the
    exception and where it was raised. :class:`~closurebench.errors.ClosureBenchError`
    (a bad record or argument, not the model's doing) is raised as is.

    Example:
        >>> s = safely(lambda: 1 // 0)
        >>> s.outcome.value, s.reason.split(":")[0]
        ('format_error', 'internal scoring error')
    """
    try:
        return scorer(*args, **kwargs)
    except ClosureBenchError:
        raise
    except Exception as exc:  # last resort, in addition to the scorers' own checks
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" at {frames[-1].name}:{frames[-1].lineno}" if frames else ""
        return Score.fail(
            Outcome.FORMAT_ERROR,
            None,
            f"{INTERNAL_ERROR}: {type(exc).__name__}{where} (a bug in the scorer, not in the "
            "reply; the reply is counted as a format error)",
        )
