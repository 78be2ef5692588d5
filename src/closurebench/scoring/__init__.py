"""Scoring (pure): answer extraction and typed comparison, shared with the RL rewards."""

from closurebench.scoring.compare import compare, infer_result_type
from closurebench.scoring.extract import Extracted, extract_answer

__all__ = ["Extracted", "compare", "extract_answer", "infer_result_type"]
