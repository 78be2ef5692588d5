"""closurebench as inspect_ai tasks: ``inspect eval closurebench/closure`` (and ``/grit``).

Installed with the ``inspect`` extra (``pip install 'closurebench[inspect]'``), the
package registers this module through inspect's entry point, so::

    inspect eval closurebench/closure --model openai/gpt-4o-mini -T mode=cot -T size=100
    inspect eval closurebench/grit --model vllm/Qwen/Qwen3-4B -T mode=agent -T tasks=bfs,tsp
    inspect eval closurebench/closure -T data=runs/closure-heldout.jsonl --epochs 3

Task parameters (``-T key=value``): ``data`` (an existing dataset file, checked against
its manifest; otherwise instances are generated), ``split``, ``seed``, ``size``,
``categories`` (ClosureBench) or ``tasks`` (GRIT) as comma-separated names, ``mode``
(every mode of ``closurebench eval``: ``direct``, ``cot``, ``program-ein``,
``program-python``, ``agent``, ``agent-tools``) and, for the program modes, ``sandbox``
(a wall level; none is run without one).

Nothing is re-implemented: a sample's input is the mode's own messages; the solver runs
the mode's own episode (:meth:`~closurebench.evaluate.modes.base.Mode.run`: one request
for direct and CoT; the model's program run in the sandbox for the program modes; the
``<graph>`` tool loop, or native function calls, for the agent modes) with inspect's
model as the request function, so each model call is one inspect model event; and the
scorer reports the harness's own :class:`~closurebench.scoring.outcome.Score`:
``strict`` and ``lenient`` (Algorithm 1) as values, the outcome class, the extracted
answer and the reason in the score's metadata, and the mode's details (program output,
trajectory, tool calls) in the sample's store. Metrics: accuracy and its standard error
for both rules, and accuracy grouped by level and category (ClosureBench) or task,
naming and form (GRIT). A failed request is a sample error in inspect, as it is an
``error`` result (out of the denominator) in the harness; ``closurebench report`` reads
the log (``report LOG.eval``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Target,
    Value,
    accuracy,
    grouped,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import Tool, ToolCall, ToolDef, ToolInfo, ToolParams

from closurebench.errors import ConfigError
from closurebench.evaluate.modes import AgentMode, ProgramMode, get_mode
from closurebench.evaluate.modes.base import Mode, ModeOutput
from closurebench.evaluate.providers.base import Completion
from closurebench.schema import META_FIELDS, ClosureInstance, GritInstance, parse_instance

__all__ = [
    "closure",
    "closurebench_scorer",
    "closurebench_solver",
    "graph_tool",
    "grit",
    "samples_of",
]

AnyInstance = ClosureInstance | GritInstance

#: The sample-store key of the mode's output (score, response, details).
STORE_KEY = "closurebench"


def _names(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    names = [v.strip() for v in items if v.strip()]
    return names or None


def _instances(
    suite: str,
    data: str | None,
    split: str,
    seed: int,
    size: int,
    names: list[str] | None,
) -> list[AnyInstance]:
    """The task's instances: read from ``data``, or generated."""
    if data is not None:
        from closurebench.generate.io import check_manifest, load_instances

        records = load_instances(data)
        check_manifest(data, len(records))
        wrong = [r.id for r in records if r.suite != suite]
        if wrong:
            raise ConfigError(
                f"data={data}: {wrong[0]} is a {'GRIT' if suite == 'closure' else 'ClosureBench'} "
                f"record; use closurebench/{'grit' if suite == 'closure' else 'closure'}"
            )
        key = "category" if suite == "closure" else "task"
        if names is not None:
            records = [r for r in records if getattr(r, key) in names]
        return [r for r in records if isinstance(r, ClosureInstance | GritInstance)]
    from closurebench.dataset import create_dataset

    if suite == "closure":
        if names is None or len(names) == 1:
            ds = create_dataset(names[0] if names else "closure", seed=seed, size=size, split=split)
        else:
            return [r for name in names for r in _instances(suite, None, split, seed, size, [name])]
    elif names is None:
        ds = create_dataset("grit", seed=seed, size=size, split=split)
    else:
        ds = create_dataset("grit", seed=seed, size=size, split=split, tasks=tuple(names))
    return [ds.record(i) for i in range(len(ds))]


def _chat(messages: Sequence[Mapping[str, Any]]) -> list[ChatMessage]:
    """Our chat messages (OpenAI's shape) as inspect's."""
    out: list[ChatMessage] = []
    for m in messages:
        role, content = m.get("role"), m.get("content") or ""
        if role == "system":
            out.append(ChatMessageSystem(content=content))
        elif role == "user":
            out.append(ChatMessageUser(content=content))
        elif role == "assistant":
            calls = [
                ToolCall(
                    id=str(c["id"]),
                    function=str(c["function"]["name"]),
                    arguments=_arguments(c["function"].get("arguments")),
                )
                for c in m.get("tool_calls") or ()
            ]
            out.append(ChatMessageAssistant(content=content, tool_calls=calls or None))
        elif role == "tool":
            out.append(ChatMessageTool(content=content, tool_call_id=m.get("tool_call_id")))
        else:
            raise ValueError(f"unknown message role {role!r}")
    return out


def _arguments(text: Any) -> dict[str, Any]:
    """A tool call's arguments as a dict (inspect's form); unreadable text kept raw."""
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except json.JSONDecodeError:
        value = None
    return value if isinstance(value, dict) else {"__raw__": text}


def _tool_info(spec: Mapping[str, Any]) -> ToolInfo:
    fn = spec["function"]
    return ToolInfo(
        name=fn["name"],
        description=fn.get("description", ""),
        parameters=ToolParams.model_validate(fn.get("parameters") or {}),
    )


def _completion(output: ModelOutput) -> Completion:
    """inspect's model output as the harness's :class:`Completion`."""
    usage = output.usage
    message = output.message if output.choices else None
    reasoning = None
    if message is not None and not isinstance(message.content, str):
        parts = [getattr(c, "reasoning", None) for c in message.content if c.type == "reasoning"]
        reasoning = "\n".join(p for p in parts if p) or None
    calls = tuple(
        {
            "id": c.id,
            "name": c.function,
            "arguments": c.arguments["__raw__"]
            if set(c.arguments) == {"__raw__"}
            else json.dumps(c.arguments),
        }
        for c in (message.tool_calls or () if message is not None else ())
    )
    stop = output.stop_reason
    return Completion(
        text=output.completion or "",
        reasoning=reasoning,
        prompt_tokens=usage.input_tokens if usage else None,
        completion_tokens=usage.output_tokens if usage else None,
        latency_s=float(output.time or 0.0),
        finish_reason="length" if stop == "max_tokens" else stop,
        reasoning_tokens=usage.reasoning_tokens if usage else None,
        tool_calls=calls,
    )


def _instance_of(state: TaskState) -> AnyInstance:
    record = parse_instance(state.metadata["instance"], f"sample {state.sample_id}")
    assert isinstance(record, ClosureInstance | GritInstance)
    return record


@solver
def closurebench_solver(mode: str = "direct", sandbox: str | None = None) -> Solver:
    """Run the harness's own episode of ``mode`` with inspect's model.

    Args:
        mode: A ``closurebench eval`` mode.
        sandbox: For the program modes, the wall level (default: the strongest found;
            no program runs without one).
    """
    the_mode = _configured_mode(mode, sandbox)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()

        async def complete(
            messages: list[Any],
            *,
            stop: Sequence[str] | None = None,
            tools: Sequence[Mapping[str, Any]] | None = None,
            max_tokens: int | None = None,
        ) -> Completion:
            output = await model.generate(
                _chat(messages),
                tools=[_tool_info(t) for t in tools or ()],
                config=GenerateConfig(
                    stop_seqs=list(stop) if stop else None, max_tokens=max_tokens
                ),
            )
            return _completion(output)

        result: ModeOutput = await the_mode.run(_instance_of(state), complete)
        state.output = ModelOutput.from_content(str(model), result.response)
        state.messages.append(ChatMessageAssistant(content=result.response))
        score = result.score
        state.store.set(
            STORE_KEY,
            {
                "outcome": str(score.outcome),
                "strict": score.strict,
                "lenient": score.lenient,
                "lenient_directional": score.lenient_directional,
                "extracted": score.extracted,
                "reason": score.reason,
                "requests": result.requests,
                "extra": json.loads(json.dumps(result.extra, default=repr)),
                "mode": the_mode.name,
            },
        )
        return state

    return solve


def graph_tool() -> Tool:
    """The GRAIN graph tool as an inspect tool, for an inspect agent of your own.

    The same tool the ``agent-tools`` mode offers (its name, description and JSON Schema:
    :func:`~closurebench.evaluate.modes.agent.graph_tool_spec`), answered by the same
    solver (:func:`closurebench.tools.run_tool`, run off the event loop): the result is
    the ``<result>`` text, an error result (never an exception) for a malformed call::

        from inspect_ai.agent import react
        agent = react(tools=[graph_tool()])
    """
    from closurebench.evaluate.modes.agent import graph_tool_spec
    from closurebench.tools import run_tool

    spec = graph_tool_spec()["function"]

    async def execute(**arguments: Any) -> str:
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(None, run_tool, dict(arguments))
        return result.text

    params = ToolParams.model_validate(spec["parameters"])
    for name, prop in params.properties.items():  # inspect wants every one described
        prop.description = prop.description or _PARAM_DESCRIPTIONS.get(name, name)
    return ToolDef(
        execute, name=spec["name"], description=spec["description"], parameters=params
    ).as_tool()


#: Descriptions for the tool schema's top-level properties that carry none.
_PARAM_DESCRIPTIONS = {
    "problem_type": "The problem to solve (one of the enum's names, or a common synonym).",
    "graph": "The graph: data (an adjacency list or edge list), directed, weighted.",
    "parameters": "The problem's parameters, e.g. start and end nodes.",
}


def _configured_mode(name: str, sandbox: str | None) -> Mode:
    the_mode = get_mode(name)
    if isinstance(the_mode, ProgramMode):
        the_mode.use_sandbox(sandbox, unsafe=False)
    elif sandbox is not None:
        raise ConfigError(
            f"sandbox={sandbox} applies to the program modes only; mode={name} runs no program"
        )
    if isinstance(the_mode, AgentMode):
        the_mode.configure()
    return the_mode


def _grouped(key: str) -> Metric:
    return grouped(accuracy(), key, all=False, name_template="{group_name}")


@metric
def by_level() -> Metric:
    """Accuracy per ClosureBench level (``level=1`` ... ``level=3``)."""
    return _grouped("level")


@metric
def by_category() -> Metric:
    """Accuracy per ClosureBench category."""
    return _grouped("category")


@metric
def by_task() -> Metric:
    """Accuracy per GRIT task."""
    return _grouped("task")


@metric
def by_naming() -> Metric:
    """Accuracy per GRIT naming scheme."""
    return _grouped("naming")


@metric
def by_form() -> Metric:
    """Accuracy per GRIT form (standard, realistic)."""
    return _grouped("form")


@metric
def outcomes() -> Metric:
    """The share of each outcome class (the mutually exclusive outcomes of the harness)."""

    def compute(scores: list[SampleScore]) -> Value:
        counts: dict[str, int] = {}
        for s in scores:
            outcome = str((s.score.metadata or {}).get("outcome"))
            counts[outcome] = counts.get(outcome, 0) + 1
        total = sum(counts.values()) or 1
        return {k: v / total for k, v in sorted(counts.items())}

    return compute


#: The grouped metrics per suite.
_GROUP_METRICS: Mapping[str, tuple[Any, ...]] = {
    "closure": (by_level, by_category),
    "grit": (by_task, by_naming, by_form),
}


def _metrics(suite: str) -> list[Metric | dict[str, list[Metric]]]:
    groups = [make() for make in _GROUP_METRICS[suite]]
    return [
        {
            "strict": [accuracy(), stderr(), *groups, outcomes()],
            "lenient": [accuracy(), stderr(), *[make() for make in _GROUP_METRICS[suite]]],
        }
    ]


@scorer(metrics=[{"strict": [accuracy(), stderr()], "lenient": [accuracy(), stderr()]}])
def closurebench_scorer() -> Any:
    """The harness's verdict (computed by the solver's episode) as an inspect score."""

    async def score(state: TaskState, target: Target) -> Score:
        found = state.store.get(STORE_KEY)
        if not isinstance(found, dict):  # another solver: score its final text
            from closurebench.evaluate.modes.base import score_text

            s = score_text(_instance_of(state), state.output.completion)
            found = {
                "outcome": str(s.outcome),
                "strict": s.strict,
                "lenient": s.lenient,
                "lenient_directional": s.lenient_directional,
                "extracted": s.extracted,
                "reason": s.reason,
            }
        return Score(
            value={"strict": float(found["strict"]), "lenient": float(found["lenient"])},
            answer=json.dumps(found["extracted"], ensure_ascii=False),
            explanation=str(found["reason"]),
            metadata={
                k: found.get(k) for k in ("outcome", "lenient_directional", "mode", "requests")
            },
        )

    return score


def samples_of(records: Sequence[AnyInstance], mode: Mode) -> list[Sample]:
    """Inspect samples of typed records: the mode's messages, the reference as target.

    The metadata holds the instance's grouping fields (level, category, task, naming,
    form, ...) and the whole record (``instance``), which the solver and scorer read.
    """
    out = []
    for r in records:
        meta = {k: getattr(r, k) for k in META_FIELDS if getattr(r, k, None) is not None}
        meta["instance"] = r.to_json()
        out.append(
            Sample(
                input=_chat(mode.messages(r)),
                target=json.dumps(r.answer, ensure_ascii=False, sort_keys=True),
                id=str(r.id),
                metadata=meta,
            )
        )
    return out


def _task(
    suite: str,
    data: str | None,
    split: str,
    seed: int,
    size: int,
    names: str | Sequence[str] | None,
    mode: str,
    sandbox: str | None,
) -> Task:
    records = _instances(suite, data, split, seed, size, _names(names))
    if not records:
        raise ConfigError(f"closurebench/{suite}: no instances selected; check data= and filters")
    the_mode = _configured_mode(mode, sandbox)
    the_mode.check_instances(records)
    return Task(
        dataset=MemoryDataset(samples_of(records, the_mode), name=f"closurebench-{suite}"),
        solver=closurebench_solver(mode=mode, sandbox=sandbox),
        scorer=closurebench_scorer(),
        metrics=_metrics(suite),
        config=GenerateConfig(temperature=0.0),
        name=f"closurebench_{suite}",
    )


@task
def closure(
    data: str | None = None,
    split: str = "heldout",
    seed: int = 0,
    size: int = 260,
    categories: str | list[str] | None = None,
    mode: str = "direct",
    sandbox: str | None = None,
) -> Task:
    """ClosureBench: 26 categories at three levels (temperature 0, as the paper decodes).

    Args:
        data: A ``closurebench generate closure`` file; otherwise generated from
            ``split``, ``seed`` and ``size`` (per category when ``categories`` names several).
        split: The split to generate (``heldout`` or ``train``).
        seed: The master seed.
        size: Instances to generate.
        categories: Comma-separated categories to keep (default: all).
        mode: A ``closurebench eval`` mode.
        sandbox: The wall level for the program modes.
    """
    return _task("closure", data, split, seed, size, categories, mode, sandbox)


@task
def grit(
    data: str | None = None,
    split: str = "test",
    seed: int = 0,
    size: int = 240,
    tasks: str | list[str] | None = None,
    mode: str = "direct",
    sandbox: str | None = None,
) -> Task:
    """GRIT: six graph tasks in real-world scenarios, 2 forms x 4 namings per graph.

    Args:
        data: A ``closurebench generate grit`` file; otherwise generated.
        split: The split to generate (``train``, ``test``, ``large``, ``ood``).
        seed: The master seed.
        size: Instances to generate (8 views per graph).
        tasks: Comma-separated GRIT tasks to keep (default: all six).
        mode: A ``closurebench eval`` mode (``agent`` is GRAIN's ``<graph>`` protocol).
        sandbox: The wall level for the program modes.
    """
    return _task("grit", data, split, seed, size, tasks, mode, sandbox)
