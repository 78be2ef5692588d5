"""The reference models and the provider that answers as them (``--provider reference``).

A reference model is an offline provider: ``--provider reference --model NAME`` (or
``--model NAME`` alone: ``--provider auto`` picks ``reference`` for these four names).
The whole evaluation path runs offline and must reach a known score, so any miss is a
bug in the generator, the mode, the sandbox or the scorer.

* ``oracle-program`` (program modes): answers each instance with its reference program
  (:func:`~closurebench.evaluate.program.oracle_program`) in a fenced block, in the
  mode's language; must reach 100 % strict with every program executed.
* ``random`` and ``majority`` (``direct``, ``cot``, ``agent``): the chance baselines of
  :mod:`closurebench.evaluate.chance` (a valid-typed random answer; the train split's
  most common answer), in the answer form the mode asks for.
* ``reader`` (``agent`` and ``agent-tools``, both suites): reads the question with the
  independent reader (written apart from the renderer), writes the ``<graph>`` call of
  the graph it read (names as the question declares them, nodes in the order it lists
  them) and answers from the tool's results: GRIT in one call; ClosureBench by the
  category's own plan of calls (:meth:`~closurebench.tasks.closure.base.ClosureTask.plan`,
  run by :mod:`closurebench.evaluate.reference.plans`). The offline
  yardstick of the agent path (must reach 100 % strict, with every graph recovered
  exactly) and a source of expert trajectories.

Each model is one line of :data:`REFERENCE_MODELS`; the provider table's ``reference``
row (:data:`closurebench.evaluate.providers.PROVIDERS`) lists the same names (a test
checks it).

Example:
    >>> sorted(REFERENCE_MODELS)
    ['majority', 'oracle-program', 'random', 'reader']
    >>> is_reference_model("oracle-program"), is_reference_model("gpt-4.1")
    (True, False)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from closurebench.errors import ConfigError
from closurebench.evaluate.providers.base import Completion, GenerationSettings
from closurebench.evaluate.providers.scripted import ScriptedProvider

if TYPE_CHECKING:
    from closurebench.evaluate.modes.base import AnyInstance, Mode

__all__ = [
    "REFERENCE_MODELS",
    "ReferenceModel",
    "is_reference_model",
    "reader_call",
    "reference_provider",
]


@dataclass(frozen=True)
class ReferenceModel:
    """One reference model.

    Attributes:
        name: Its ``--model`` name.
        help: One line for ``--help`` and error messages.
        modes: The modes it answers in.
        suites: The suites it answers.
        answer: ``(record, mode, messages) -> reply text``.
    """

    name: str
    help: str
    modes: tuple[str, ...]
    suites: tuple[str, ...]
    answer: Callable[[AnyInstance, Mode, list[dict[str, str]]], str]


def _oracle_program(record: AnyInstance, mode: Mode, messages: list[dict[str, str]]) -> str:
    from closurebench.evaluate.program import oracle_program

    language = str(getattr(mode, "language", ""))
    program = oracle_program(record, language).rstrip("\n")
    return f"```{language}\n{program}\n```\n"


def reader_call(record: AnyInstance) -> dict[str, Any]:
    """The tool call the reference agent writes for a GRIT ``record``: the graph as read back.

    The problem type is the task's own
    (:attr:`~closurebench.tasks.grit.GritTask.tool_problem_type`); no table here lists
    the tasks.

    Raises:
        ConfigError: for a ClosureBench record (its calls follow the category's plan:
            :func:`closurebench.evaluate.reference.plans.closure_step`).
    """
    from closurebench.schema import GritInstance
    from closurebench.surface.grit.reader import read_view

    if not isinstance(record, GritInstance):
        raise ConfigError(
            f"{record.id}: reader_call builds GRIT calls; a ClosureBench question's calls "
            "come from closurebench.evaluate.reference.plans.closure_step"
        )
    view = read_view(str(record.question), str(record.task), str(record.scenario))
    s, names = view.structure, view.names
    data: dict[str, dict[str, float | int]] = {name: {} for name in names}
    for edge in s.edges:
        u, v = int(edge[0]), int(edge[1])
        data[names[u]][names[v]] = int(edge[2]) if s.weighted and len(edge) > 2 else 1
    params: dict[str, Any] = {}
    for key, value in s.params:
        if key == "source":
            params["start"] = names[int(value)]
        elif key == "target":
            params["end"] = names[int(value)]
        else:
            params[key] = value
    if view.tie_break is not None:
        params["order"] = view.tie_break
    from closurebench.tasks.grit import get

    return {
        "problem_type": get(str(record.task)).tool_problem_type,
        "graph": {
            "type": "adjacency_list",
            "data": data,
            "directed": s.directed,
            "weighted": s.weighted,
        },
        "parameters": params,
    }


def _answer_text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _native_tools(mode: Mode) -> bool:
    """Whether ``mode`` offers the graph tool as a native function (``agent-tools``)."""
    from closurebench.evaluate.modes import AgentToolsMode

    return isinstance(mode, AgentToolsMode)


def _tool_results_so_far(mode: Mode, messages: list[dict[str, Any]]) -> int:
    """How many tool results the conversation holds (``<result>`` turns or tool messages)."""
    if _native_tools(mode):
        return sum(1 for m in messages if m.get("role") == "tool")
    return sum(
        1
        for m in messages[2:]
        if m.get("role") == "user" and str(m.get("content", "")).lstrip().startswith("<result>")
    )


def _next_move(record: AnyInstance, done: int) -> tuple[dict[str, Any] | None, Any]:
    """The reference agent's next ``(call, None)`` or ``(None, answer)`` after ``done`` calls.

    GRIT: one call with the graph the reader recovered, then the tool's value. ClosureBench:
    the category's plan (:func:`closurebench.evaluate.reference.plans.closure_step`), its
    earlier calls re-run (the tool is deterministic: the same results the conversation
    holds).
    """
    from closurebench.schema import GritInstance
    from closurebench.tools import run_tool

    if isinstance(record, GritInstance):
        call = reader_call(record)
        return (call, None) if done == 0 else (None, _answer_text(run_tool(call).value))
    from closurebench.evaluate.reference.plans import closure_step

    results: list[Any] = []
    step = closure_step(record, results)
    while len(results) < done and step.call is not None:
        results.append(run_tool(step.call))
        step = closure_step(record, results)
    if step.call is not None:
        return step.call, None
    return None, json.dumps(step.answer, ensure_ascii=False)


def _reader(record: AnyInstance, mode: Mode, messages: list[dict[str, Any]]) -> Any:
    call, answer = _next_move(record, _tool_results_so_far(mode, messages))
    think = "<think>I read the graph from the question and call the graph tool.</think>"
    if call is None:
        return f"<think>The tool gave what I need.</think>\n<answer>{answer}</answer>"
    if _native_tools(mode):  # the call as a native function call
        n = _tool_results_so_far(mode, messages)
        return Completion(
            text=think,
            reasoning=None,
            prompt_tokens=None,
            completion_tokens=None,
            latency_s=0.0,
            finish_reason="tool_calls",
            tool_calls=({"id": f"call_{n}", "name": "graph_tool", "arguments": json.dumps(call)},),
        )
    return f"{think}\n<graph>{json.dumps(call, ensure_ascii=False)}</graph>"


def _random(record: AnyInstance, mode: Mode, messages: list[dict[str, str]]) -> str:
    from closurebench.evaluate.chance import random_answer

    return mode.answer_reply(record, random_answer(record))


def _majority(record: AnyInstance, mode: Mode, messages: list[dict[str, str]]) -> str:
    from closurebench.evaluate.chance import majority_answer

    return mode.answer_reply(record, majority_answer(record))


_ANSWER_MODES = ("direct", "cot", "agent")

#: The one table of reference models: ``--model`` name -> model.
REFERENCE_MODELS: dict[str, ReferenceModel] = {
    m.name: m
    for m in (
        ReferenceModel(
            "oracle-program",
            "each instance's own verified program (program-ein, program-python)",
            ("program-ein", "program-python"),
            ("closure", "grit"),
            _oracle_program,
        ),
        ReferenceModel(
            "reader",
            "the independent reader's graph through the graph tool (agent modes)",
            ("agent", "agent-tools"),
            ("closure", "grit"),
            _reader,
        ),
        ReferenceModel(
            "random",
            "a valid-typed uniform random answer (chance; direct, cot, agent)",
            _ANSWER_MODES,
            ("closure", "grit"),
            _random,
        ),
        ReferenceModel(
            "majority",
            "the train split's most common answer of the category or task (direct, cot, agent)",
            _ANSWER_MODES,
            ("closure", "grit"),
            _majority,
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
    other = sorted({str(r.suite) for r in instances} - set(ref.suites))
    if other:
        raise ConfigError(
            f"--model {model} answers {', '.join(ref.suites)} instances, not {', '.join(other)}; "
            "select other data (e.g. --tasks/--categories) or another model"
        )
    by_question: dict[str, AnyInstance] = {}
    for record in instances:
        by_question.setdefault(str(record.question), record)

    def reply(messages: list[dict[str, str]], settings: GenerationSettings) -> Any:
        # the question is the first user message (later ones carry tool results)
        question = next((m["content"] for m in messages if m.get("role") == "user"), "")
        record = by_question.get(question)
        if record is None:
            raise ConfigError(f"reference model {model!r}: no instance has the question asked")
        return ref.answer(record, mode, messages)

    return ScriptedProvider(reply, name="reference")
