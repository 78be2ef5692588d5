"""Scoring (pure): answer extraction, Algorithm 1 matching, and per-response outcomes.

Shared with the RL rewards. See :mod:`~closurebench.scoring.extract`,
:mod:`~closurebench.scoring.lenient` (Algorithm 1, the one comparator, strict and
lenient, plus the directional lenient variant; the ambiguity class comes from the record),
:mod:`~closurebench.scoring.compare` (its strict yes/no alias),
:mod:`~closurebench.scoring.outcome`, :mod:`~closurebench.scoring.closure` and
:mod:`~closurebench.scoring.grit`.
"""

from closurebench.scoring.closure import score_closure, score_closure_value
from closurebench.scoring.compare import compare
from closurebench.scoring.extract import (
    MAX_DEPTH,
    MAX_REPLY_CHARS,
    Extracted,
    extract_answer,
    holdable,
    parse_block,
)
from closurebench.scoring.grit import resolve_name, score_grit, score_grit_value
from closurebench.scoring.lenient import (
    FLOAT_TOLERANCE,
    LENIENT_DIRECTIONAL,
    MODES,
    infer_result_type,
    match_answer,
    type_ok,
)
from closurebench.scoring.outcome import OUTCOMES, Score

__all__ = [
    "FLOAT_TOLERANCE",
    "LENIENT_DIRECTIONAL",
    "MAX_DEPTH",
    "MAX_REPLY_CHARS",
    "MODES",
    "OUTCOMES",
    "Extracted",
    "Score",
    "compare",
    "extract_answer",
    "holdable",
    "infer_result_type",
    "match_answer",
    "parse_block",
    "resolve_name",
    "score_closure",
    "score_closure_value",
    "score_grit",
    "score_grit_value",
    "type_ok",
]
