"""The closed vocabularies of records and scoring, each defined once.

Every member is a :class:`~enum.StrEnum`, so a member *is* its string: files keep the
strings they always had (``"strict_correct"``, ``"format_error"``…) and old code that
compares with a bare string still works, while new code names the member.

Example:
    >>> Outcome.STRICT_CORRECT == "strict_correct", str(Outcome.NO_ANSWER)
    (True, 'no_answer')
    >>> Outcome.from_match(Match.CORRECT, Match.CORRECT), Outcome.from_match(
    ...     Match.WRONG, Match.CORRECT)
    (<Outcome.STRICT_CORRECT: 'strict_correct'>, <Outcome.LENIENT_ONLY: 'lenient_only'>)
    >>> [m.value for m in ResultType]
    ['boolean', 'integer', 'float', 'set', 'string', 'compound']
    >>> Outcome.ERROR.is_model, Outcome.NO_ANSWER.is_model, len(MODEL_OUTCOMES)
    (False, True, 5)
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "MODEL_OUTCOMES",
    "Ambiguity",
    "ExtractStatus",
    "Match",
    "Outcome",
    "ResultType",
    "ScoringMode",
    "Suite",
]


class Suite(StrEnum):
    """The two benchmark families."""

    CLOSURE = "closure"
    GRIT = "grit"


class ResultType(StrEnum):
    """The JSON value type of a ClosureBench answer."""

    BOOLEAN = "boolean"
    INTEGER = "integer"
    FLOAT = "float"
    SET = "set"
    STRING = "string"
    COMPOUND = "compound"


class Ambiguity(StrEnum):
    """The lenient-scoring class of a category (Algorithm 1's ``C_count`` / ``C_set``)."""

    COUNT = "count"
    SET = "set"


class ScoringMode(StrEnum):
    """Algorithm 1's mode argument."""

    STRICT = "strict"
    LENIENT = "lenient"


class ExtractStatus(StrEnum):
    """What answer extraction found in a reply."""

    OK = "ok"
    NO_ANSWER = "no_answer"
    FORMAT_ERROR = "format_error"


class Match(StrEnum):
    """Algorithm 1's verdict on one extracted answer in one mode."""

    CORRECT = "correct"
    WRONG = "wrong"
    FORMAT_ERROR = "format_error"


class Outcome(StrEnum):
    """What became of one instance: five model outcomes, and ``error``.

    The first five are the mutually exclusive per-response outcomes of the paper
    (Appendix J, Table 11): they judge what the model answered. ``error`` is not a
    model outcome: the instance got no response at all, because the request failed
    after its retries (a dead or overloaded server, a timeout, a malformed reply) or
    the harness failed. Such a result is an infrastructure failure, so it is left
    out of every accuracy (which are over *answered* instances), counted separately,
    marks its run incomplete, and is re-run when the run is resumed. A reply on which
    the harness itself died (killed, crashed, hung and stopped) as many times as the
    run allows is not handled again and is recorded as ``wrong`` with
    ``harness_deaths``, never as ``error``: it is the reply's doing, and it stays in
    the denominator.
    """

    STRICT_CORRECT = "strict_correct"
    LENIENT_ONLY = "lenient_only"
    WRONG = "wrong"
    FORMAT_ERROR = "format_error"
    NO_ANSWER = "no_answer"
    ERROR = "error"

    @property
    def is_model(self) -> bool:
        """Whether this outcome judges a model response (every outcome but ``error``)."""
        return self is not Outcome.ERROR

    @classmethod
    def from_match(cls, strict: Match, lenient: Match) -> Outcome:
        """The outcome of a strict and a lenient :class:`Match` of the same answer."""
        if strict is Match.CORRECT:
            return cls.STRICT_CORRECT
        if lenient is Match.CORRECT:
            return cls.LENIENT_ONLY
        if strict is Match.FORMAT_ERROR:
            return cls.FORMAT_ERROR
        return cls.WRONG


#: The outcomes that judge a model response, in report order (all but ``error``).
MODEL_OUTCOMES: tuple[Outcome, ...] = tuple(o for o in Outcome if o.is_model)
