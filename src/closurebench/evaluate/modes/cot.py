"""Chain-of-thought mode: reason step by step, then give the final answer.

The ClosureBench prompt is the paper's Appendix F chain-of-thought prompt, verbatim; the
GRIT prompt is its equivalent with the final answer wrapped in ``<answer>…</answer>``.

Example:
    >>> CLOSURE_COT.endswith('as a JSON object with an "answer" field.')
    True
    >>> "<answer>" in CotMode.system_prompts["grit"]
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from closurebench.evaluate.modes.base import Mode
from closurebench.schema import Suite

__all__ = ["CLOSURE_COT", "GRIT_COT", "CotMode"]

#: ClosureBench chain-of-thought mode (paper Appendix F, verbatim).
CLOSURE_COT = (
    "You are a reasoning assistant. Read the graph description carefully. Before providing "
    "your answer, think step by step about the graph structure and the computation needed. "
    'Then provide your final answer as a JSON object with an "answer" field.'
)

#: GRIT chain-of-thought mode: the ClosureBench prompt with the GRIT answer tags.
GRIT_COT = (
    "You are a reasoning assistant. Read the graph description carefully. Before providing "
    "your answer, think step by step about the graph structure and the computation needed. "
    "Then provide your final answer inside <answer></answer> tags."
)


class CotMode(Mode):
    """The paper's chain-of-thought baseline (Appendix F)."""

    name: ClassVar[str] = "cot"
    system_prompts: ClassVar[Mapping[Suite, str]] = {
        Suite.CLOSURE: CLOSURE_COT,
        Suite.GRIT: GRIT_COT,
    }
