"""The evaluation modes' names and one-line summaries, light to import (CLI help).

The mode table itself (:data:`closurebench.evaluate.modes.MODES`) imports every mode's
machinery (the scorers, the sandbox, the graph tool); the CLI's ``--help`` needs only
the names and what each mode asks for. The two tables hold the same names in the same
order (a test checks it).

Example:
    >>> list(MODE_SUMMARIES)[:2]
    ['direct', 'cot']
    >>> modes_help().split(";")[0]
    'direct (the answer alone)'
"""

from __future__ import annotations

__all__ = ["MODE_SUMMARIES", "modes_help"]

#: Mode name -> what the model is asked for, in :data:`~closurebench.evaluate.modes.MODES` order.
MODE_SUMMARIES: dict[str, str] = {
    "direct": "the answer alone",
    "cot": "step-by-step reasoning, then the answer",
    "agent": "GRAIN's tool protocol in text: <graph> calls, <result> turns, <answer>",
    "agent-tools": "the graph tool as native function calls (tools / tool_calls)",
    "program-ein": "an Ein program, run in the sandbox",
    "program-python": "a Python + NetworkX program, run in the sandbox",
}


def modes_help() -> str:
    """``name (summary); ...`` for every mode, for ``--mode`` help texts."""
    return "; ".join(f"{name} ({summary})" for name, summary in MODE_SUMMARIES.items())
