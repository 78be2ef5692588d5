"""Scoring (pure): answer extraction, Algorithm 1 matching, and per-response outcomes.

Shared with the RL rewards. See :mod:`~closurebench.scoring.extract`,
:mod:`~closurebench.scoring.compare`, :mod:`~closurebench.scoring.lenient` and
:mod:`~closurebench.scoring.outcome`.
"""

from closurebench.scoring.compare import compare, infer_result_type
from closurebench.scoring.extract import Extracted, extract_answer, parse_block
from closurebench.scoring.lenient import COUNT_AMBIG, SET_AMBIG, match_answer, type_ok
from closurebench.scoring.outcome import (
    OUTCOMES,
    Score,
    resolve_name,
    score_closure,
    score_grit,
)

__all__ = [
    "COUNT_AMBIG",
    "OUTCOMES",
    "SET_AMBIG",
    "Extracted",
    "Score",
    "compare",
    "extract_answer",
    "infer_result_type",
    "match_answer",
    "parse_block",
    "resolve_name",
    "score_closure",
    "score_grit",
    "type_ok",
]
