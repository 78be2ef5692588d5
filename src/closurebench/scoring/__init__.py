"""Scoring (pure): answer extraction, Algorithm 1 matching, and per-response outcomes.

Shared with the RL rewards. See :mod:`~closurebench.scoring.extract`,
:mod:`~closurebench.scoring.compare`, :mod:`~closurebench.scoring.lenient`,
:mod:`~closurebench.scoring.outcome`, :mod:`~closurebench.scoring.closure` and
:mod:`~closurebench.scoring.grit`.
"""

from closurebench.scoring.closure import score_closure
from closurebench.scoring.compare import compare, infer_result_type
from closurebench.scoring.extract import Extracted, extract_answer, parse_block
from closurebench.scoring.grit import resolve_name, score_grit
from closurebench.scoring.lenient import COUNT_AMBIG, SET_AMBIG, match_answer, type_ok
from closurebench.scoring.outcome import OUTCOMES, Score

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
