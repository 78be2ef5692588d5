"""System prompts for the evaluation modes.

ClosureBench prompts are the paper's Appendix F prompts, verbatim. GRIT prompts are
their equivalents with the final answer wrapped in ``<answer>…</answer>`` (the GRIT
answer convention). The user message is always the instance's question, unchanged.

Example:
    >>> system_prompt("closure", "direct").startswith("You are a reasoning assistant.")
    True
    >>> "<answer>" in system_prompt("grit", "cot")
    True
"""

from __future__ import annotations

from closurebench.errors import ConfigError

__all__ = [
    "CLOSURE_COT",
    "CLOSURE_DIRECT",
    "GRIT_COT",
    "GRIT_DIRECT",
    "SYSTEM_PROMPTS",
    "system_prompt",
]

#: ClosureBench direct mode (paper Appendix F, verbatim).
CLOSURE_DIRECT = (
    "You are a reasoning assistant. Read the graph description carefully, reason about the "
    'structure, and provide your answer as a JSON object with an "answer" field. Do not '
    "include any explanation outside the JSON."
)

#: ClosureBench chain-of-thought mode (paper Appendix F, verbatim).
CLOSURE_COT = (
    "You are a reasoning assistant. Read the graph description carefully. Before providing "
    "your answer, think step by step about the graph structure and the computation needed. "
    'Then provide your final answer as a JSON object with an "answer" field.'
)

#: GRIT direct mode: the ClosureBench prompt with the GRIT answer tags.
GRIT_DIRECT = (
    "You are a reasoning assistant. Read the graph description carefully, reason about the "
    "structure, and provide your final answer inside <answer></answer> tags. Do not include "
    "any explanation outside the tags."
)

#: GRIT chain-of-thought mode: the ClosureBench prompt with the GRIT answer tags.
GRIT_COT = (
    "You are a reasoning assistant. Read the graph description carefully. Before providing "
    "your answer, think step by step about the graph structure and the computation needed. "
    "Then provide your final answer inside <answer></answer> tags."
)

#: (suite, mode) -> system prompt.
SYSTEM_PROMPTS: dict[tuple[str, str], str] = {
    ("closure", "direct"): CLOSURE_DIRECT,
    ("closure", "cot"): CLOSURE_COT,
    ("grit", "direct"): GRIT_DIRECT,
    ("grit", "cot"): GRIT_COT,
}


def system_prompt(suite: str, mode: str) -> str:
    """The system prompt for ``suite`` (``closure`` or ``grit``) under ``mode``.

    Args:
        suite: The record's suite.
        mode: The mode name (``direct`` or ``cot``).

    Returns:
        The system prompt text.

    Raises:
        ConfigError: if there is no prompt for that pair.
    """
    try:
        return SYSTEM_PROMPTS[(suite, mode)]
    except KeyError:
        known = ", ".join(f"{s}/{m}" for s, m in SYSTEM_PROMPTS)
        raise ConfigError(
            f"no system prompt for suite {suite!r} in mode {mode!r}; known: {known}"
        ) from None
