"""Direct mode: answer immediately as JSON (ClosureBench) or in ``<answer>`` tags (GRIT).

The ClosureBench prompt is the paper's Appendix F direct prompt, verbatim; the GRIT
prompt is its equivalent with the final answer wrapped in ``<answer>…</answer>`` (the
GRIT answer convention). The user message is always the instance's question, unchanged.

Example:
    >>> CLOSURE_DIRECT.startswith("You are a reasoning assistant.")
    True
    >>> DirectMode.system_prompts["grit"] == GRIT_DIRECT
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from closurebench.evaluate.modes.base import Mode
from closurebench.schema import Suite

__all__ = ["CLOSURE_DIRECT", "GRIT_DIRECT", "DirectMode"]

#: ClosureBench direct mode (paper Appendix F, verbatim).
CLOSURE_DIRECT = (
    "You are a reasoning assistant. Read the graph description carefully, reason about the "
    'structure, and provide your answer as a JSON object with an "answer" field. Do not '
    "include any explanation outside the JSON."
)

#: GRIT direct mode: the ClosureBench prompt with the GRIT answer tags.
GRIT_DIRECT = (
    "You are a reasoning assistant. Read the graph description carefully, reason about the "
    "structure, and provide your final answer inside <answer></answer> tags. Do not include "
    "any explanation outside the tags."
)


class DirectMode(Mode):
    """The paper's direct baseline (Appendix F)."""

    name: ClassVar[str] = "direct"
    system_prompts: ClassVar[Mapping[Suite, str]] = {
        Suite.CLOSURE: CLOSURE_DIRECT,
        Suite.GRIT: GRIT_DIRECT,
    }
