"""Evaluation modes, registered in one table.

Adding a mode (Ein or Python program synthesis, the GRAIN agent) means writing a
:class:`Mode` subclass (its prompts and its per-instance :meth:`Mode.run` loop) and
adding one line to :data:`MODES`; the runner does not change.

Example:
    >>> sorted(MODES)
    ['agent', 'agent-tools', 'cot', 'direct', 'program-ein', 'program-python']
    >>> get_mode("direct").name
    'direct'
"""

from __future__ import annotations

from collections.abc import Callable

from closurebench.errors import ConfigError
from closurebench.evaluate.modes.agent import GRAIN_SYSTEM, AgentMode, AgentToolsMode
from closurebench.evaluate.modes.base import (
    AnyInstance,
    CompleteFn,
    Message,
    Mode,
    ModeOutput,
    score_text,
)
from closurebench.evaluate.modes.cot import CLOSURE_COT, GRIT_COT, CotMode
from closurebench.evaluate.modes.direct import CLOSURE_DIRECT, GRIT_DIRECT, DirectMode
from closurebench.evaluate.modes.program import EinProgramMode, ProgramMode, PythonProgramMode

__all__ = [
    "CLOSURE_COT",
    "CLOSURE_DIRECT",
    "GRAIN_SYSTEM",
    "GRIT_COT",
    "GRIT_DIRECT",
    "MODES",
    "AgentMode",
    "AgentToolsMode",
    "AnyInstance",
    "CompleteFn",
    "CotMode",
    "DirectMode",
    "EinProgramMode",
    "Message",
    "Mode",
    "ModeOutput",
    "ProgramMode",
    "PythonProgramMode",
    "get_mode",
    "score_text",
]

#: The one table of modes: name -> factory.
MODES: dict[str, Callable[[], Mode]] = {
    "direct": DirectMode,
    "cot": CotMode,
    "agent": AgentMode,
    "agent-tools": AgentToolsMode,
    "program-ein": EinProgramMode,
    "program-python": PythonProgramMode,
}


def get_mode(name: str) -> Mode:
    """A fresh instance of the mode called ``name``.

    Args:
        name: A key of :data:`MODES`.

    Returns:
        The mode.

    Raises:
        ConfigError: for an unknown name (lists the known ones).
    """
    try:
        factory = MODES[name]
    except KeyError:
        raise ConfigError(
            f"unknown mode {name!r}; choose one of: {', '.join(sorted(MODES))}"
        ) from None
    return factory()
