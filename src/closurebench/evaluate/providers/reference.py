"""Reference models: offline providers that answer from the instances themselves.

A reference model is picked by its ``--model`` name (no server, no ``--provider``):
the whole evaluation path runs offline and must reach a known score, so any miss is a
bug in the generator, the mode, the sandbox or the scorer.

* ``oracle-program`` (program modes): answers each instance with its reference program
  (:func:`~closurebench.evaluate.program.oracle_program`) in a fenced block, in the
  mode's language; must reach 100 % strict with every program executed.

Each model is one line of :data:`REFERENCE_MODELS`.

Example:
    >>> sorted(REFERENCE_MODELS)
    ['oracle-program']
    >>> is_reference_model("oracle-program"), is_reference_model("gpt-4.1")
    (True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from closurebench.errors import ConfigError
from closurebench.evaluate.providers.base import GenerationSettings
from closurebench.evaluate.providers.scripted import ScriptedProvider, last_user_message

if TYPE_CHECKING:
    from closurebench.evaluate.modes.base import AnyInstance, Mode

__all__ = ["REFERENCE_MODELS", "ReferenceModel", "is_reference_model", "reference_provider"]


@dataclass(frozen=True)
class ReferenceModel:
    """One reference model.

    Attributes:
        name: Its ``--model`` name.
        help: One line for ``--help`` and error messages.
        modes: The modes it answers in.
        answer: ``(record, mode) -> reply text``.
    """

    name: str
    help: str
    modes: tuple[str, ...]
    answer: Callable[[AnyInstance, Mode], str]


def _oracle_program(record: AnyInstance, mode: Mode) -> str:
    from closurebench.evaluate.program import oracle_program

    language = str(getattr(mode, "language", ""))
    program = oracle_program(record, language).rstrip("\n")
    return f"```{language}\n{program}\n```\n"


#: The one table of reference models: ``--model`` name -> model.
REFERENCE_MODELS: dict[str, ReferenceModel] = {
    m.name: m
    for m in (
        ReferenceModel(
            "oracle-program",
            "each instance's own verified program (program-ein, program-python)",
            ("program-ein", "program-python"),
            _oracle_program,
        ),
    )
}


def is_reference_model(model: str) -> bool:
    """Whether ``model`` names a reference model (answered offline, no server)."""
    return model in REFERENCE_MODELS


def reference_provider(
    model: str, instances: Sequence[AnyInstance], mode: Mode
) -> ScriptedProvider:
    """A provider answering ``instances`` as the reference model ``model`` in ``mode``.

    The reply for a request is found by its question (the last user message).

    Args:
        model: A key of :data:`REFERENCE_MODELS`.
        instances: The instances the run evaluates.
        mode: The run's mode.

    Returns:
        A :class:`ScriptedProvider` named ``"reference"``.

    Raises:
        ConfigError: for an unknown model, or a mode the model does not answer in
            (the message lists the ones it does).
    """
    try:
        ref = REFERENCE_MODELS[model]
    except KeyError:
        raise ConfigError(
            f"unknown reference model {model!r}; choose one of: {', '.join(REFERENCE_MODELS)}"
        ) from None
    if mode.name not in ref.modes:
        raise ConfigError(
            f"--model {model} answers in {', '.join(ref.modes)}, not in --mode {mode.name}; "
            f"pass --mode {ref.modes[0]}"
        )
    by_question: dict[str, AnyInstance] = {}
    for record in instances:
        by_question.setdefault(str(record.question), record)

    def reply(messages: list[dict[str, str]], settings: GenerationSettings) -> Any:
        question = last_user_message(messages)
        record = by_question.get(question)
        if record is None:
            raise ConfigError(f"reference model {model!r}: no instance has the question asked")
        return ref.answer(record, mode)

    return ScriptedProvider(reply, name="reference")
