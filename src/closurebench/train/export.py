"""Training data from a dataset: SFT chats and GRPO prompts, in the evaluation's own words.

``closurebench export sft DATA.jsonl --target T --out FILE`` writes one
:class:`~closurebench.schema.SftRecord` per instance, ``closurebench export grpo
DATA.jsonl --out FILE`` one :class:`~closurebench.schema.GrpoRecord`. Nothing about a
prompt is written here: the system and user turns are what the evaluation mode's own
:meth:`~closurebench.evaluate.modes.Mode.messages` returns, so a model trained on them is
evaluated on exactly what it saw; the targets are made by the evaluation's own reference
code and are checked by the evaluation's own scorers before anything is written.

SFT targets (:data:`TARGETS`; the mode whose turns the record holds, and the suites that
mode and its reference evaluate):

==============  ==============  ============  ===========================================
target          mode            suites        the assistant turns
==============  ==============  ============  ===========================================
``answer``      direct          both          the verified answer as the mode's reply
                                              (``{"answer": ...}``; GRIT ``<answer>``)
``cot``         cot             both          one line stating the computation, then the
                                              answer in the mode's final form
``ein``         program-ein     closure       the instance's Ein program in a fenced block
``python``      program-python  both          its Python + NetworkX program, fenced
``agent``       agent           both          the reference agent's episode: ``<think>`` /
                                              ``<graph>`` turns, tool results as user
                                              turns ``<result>…</result>``, ``<answer>``
``agent-tools`` agent-tools     both          the same episode with native ``tool_calls``
                                              and ``tool`` turns, plus ``tools``
==============  ==============  ============  ===========================================

Where the targets come from: ``answer`` and ``cot`` replies are written by
:func:`closurebench.evaluate.chance.chance_reply` (the form each mode's prompt asks for)
around the instance's answer, and each is scored by the mode before it is kept; ``ein``
and ``python`` are the reply of the ``oracle-program`` reference model (the programs of
:func:`closurebench.evaluate.program.oracle_program`; ``verify_programs`` runs each through
the mode's sandbox and scorer); ``agent`` and ``agent-tools`` run the mode's own episode
loop against the ``reader`` reference model, so every tool result is the graph tool's
answer as the mode sends it back, and the episode must score strictly correct.

GRPO columns (see :class:`~closurebench.schema.GrpoRecord`): ``prompt`` (the turns of
``mode``: by default ``direct`` for ClosureBench, ``agent`` for GRIT), ``ground_truth``
(the instance record as JSON; :func:`~closurebench.schema.instance_from_ground_truth`
rebuilds it for the scorers), ``answer``, ``name_map`` and the metadata columns.

Output is canonical JSONL (:func:`closurebench.jsonl.canonical_json`, written atomically:
the same input gives the same bytes), or a Hugging Face ``datasets.Dataset``
(``save_to_disk``) when ``datasets`` is installed. Every check runs before anything is
written: an input that is not a dataset, or a target or mode that does not apply to one
of its suites, raises :class:`~closurebench.errors.ConfigError` /
:class:`~closurebench.errors.DatasetFileError` and leaves the output untouched.

Example:
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> rec = generate_records(ClosureConfig(count=1, categories=("reachability",)))[0]
    >>> row = sft_record(rec, "answer")
    >>> [m.role for m in row.messages], row.mode
    (['system', 'user', 'assistant'], 'direct')
    >>> row.messages[2].content == '{"answer": %s}' % str(rec.answer).lower()
    True
    >>> targets_for("grit")
    ['answer', 'cot', 'python', 'agent', 'agent-tools']
    >>> grpo_record(rec).mode, grpo_record(rec).answer == canonical_json(rec.answer)
    ('direct', True)
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import importlib.util
import json
import re
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from closurebench.errors import ConfigError, DatasetFileError, VerificationError
from closurebench.jsonl import canonical_json, iter_objects, write_lines
from closurebench.schema import ClosureInstance, GritInstance, Suite
from closurebench.schema.training import (
    TARGETS,
    ChatMessage,
    GrpoRecord,
    SftRecord,
    Target,
    TrainingRecord,
)

if TYPE_CHECKING:
    from closurebench.evaluate.modes.base import Message, Mode
    from closurebench.evaluate.providers.base import Completion
    from closurebench.scoring.outcome import Score

__all__ = [
    "DEFAULT_GRPO_MODES",
    "FORMATS",
    "TARGETS",
    "Target",
    "check_mode",
    "check_target",
    "computation_line",
    "export_grpo",
    "export_sft",
    "grpo_record",
    "grpo_records",
    "hf_available",
    "load_dataset_file",
    "make_mode",
    "schema_file_name",
    "sft_record",
    "sft_records",
    "target_suites",
    "targets_for",
    "verify_program",
    "write_records",
]

AnyInstance = ClosureInstance | GritInstance

#: Output formats: canonical JSONL (always), a Hugging Face dataset (``datasets`` installed).
FORMATS = ("jsonl", "hf")

T = TypeVar("T")

#: The GRPO prompt mode of each suite when ``--mode`` is not given.
DEFAULT_GRPO_MODES: dict[str, str] = {"closure": "direct", "grit": "agent"}

#: The hint of the one error a missing ``datasets`` package gives.
HF_HINT = (
    "--format hf needs the `datasets` package, which is not installed: install the train "
    "extra (`uv sync --extra train`) or `pip install datasets`, or write --format jsonl"
)


def target_suites(name: str) -> tuple[str, ...]:
    """The suites target ``name`` applies to: its mode's and its reference model's.

    Raises:
        ConfigError: for an unknown target (lists the targets).

    Example:
        >>> target_suites("ein"), target_suites("agent")
        (('closure',), ('closure', 'grit'))
    """
    from closurebench.evaluate.modes import MODES
    from closurebench.evaluate.reference import REFERENCE_MODELS

    target = _target(name)
    prompts = getattr(MODES[target.mode], "system_prompts", {})
    suites = [str(s) for s in Suite if s in prompts]
    if target.reference is not None:
        suites = [s for s in suites if s in REFERENCE_MODELS[target.reference].suites]
    return tuple(suites)


def targets_for(suite: str) -> list[str]:
    """The SFT targets that apply to ``suite`` records, in :data:`TARGETS` order.

    Example:
        >>> targets_for("closure")
        ['answer', 'cot', 'ein', 'python', 'agent', 'agent-tools']
    """
    return [name for name in TARGETS if suite in target_suites(name)]


def _target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise ConfigError(
            f"unknown --target {name!r}; choose one of: {', '.join(TARGETS)}"
        ) from None


def _suites(records: Iterable[AnyInstance]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in records:
        counts[str(record.suite)] = counts.get(str(record.suite), 0) + 1
    return counts


def check_target(records: Sequence[AnyInstance], name: str) -> Target:
    """Refuse, before any work, a target that does not apply to one of the records' suites.

    Args:
        records: The instances to export.
        name: The ``--target`` name.

    Returns:
        The :class:`Target`.

    Raises:
        ConfigError: an unknown target, or one whose mode does not evaluate a suite of
            the file (names the target, the suite, how many records, the valid targets).

    Example:
        >>> from types import SimpleNamespace as NS
        >>> check_target([NS(suite="grit")], "ein")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --target ein does not apply to grit records (1 in the file): its mode program-ein evaluates closure only; valid targets for grit: answer, cot, python, agent, agent-tools
    """  # noqa: E501
    target = _target(name)
    fits = target_suites(name)
    for suite, count in _suites(records).items():
        if suite not in fits:
            raise ConfigError(
                f"--target {name} does not apply to {suite} records ({count} in the file): "
                f"its mode {target.mode} evaluates {' and '.join(fits)} only; valid targets "
                f"for {suite}: {', '.join(targets_for(suite))}"
            )
    return target


def check_mode(records: Sequence[AnyInstance], mode: str | None) -> dict[str, str]:
    """The GRPO prompt mode of each suite of ``records``; refuses a mode that does not fit.

    Args:
        records: The instances to export.
        mode: ``--mode`` (None: :data:`DEFAULT_GRPO_MODES`).

    Returns:
        ``suite -> mode`` for the suites the records have.

    Raises:
        ConfigError: an unknown mode, or one without a prompt for a suite of the file
            (names the mode, the suite and the modes that fit).

    Example:
        >>> from types import SimpleNamespace as NS
        >>> check_mode([NS(suite="grit"), NS(suite="closure")], None)
        {'grit': 'agent', 'closure': 'direct'}
    """
    from closurebench.evaluate.modes import MODES, get_mode

    chosen: dict[str, str] = {}
    if mode is not None:
        get_mode(mode)  # an unknown name fails here, with the modes listed
    for suite, count in _suites(records).items():
        name = mode if mode is not None else DEFAULT_GRPO_MODES[suite]
        if Suite(suite) not in getattr(MODES[name], "system_prompts", {}):
            fits = [n for n, f in MODES.items() if Suite(suite) in getattr(f, "system_prompts", {})]
            raise ConfigError(
                f"--mode {name} does not apply to {suite} records ({count} in the file): it "
                f"has no {suite} prompt; modes for {suite}: {', '.join(fits)}"
            )
        chosen[suite] = name
    return chosen


def make_mode(name: str, *, ein_card: str | None = None) -> Mode:
    """A fresh evaluation mode ``name``, set up as ``closurebench eval`` sets it up.

    Args:
        name: A key of :data:`closurebench.evaluate.modes.MODES`.
        ein_card: ``--ein-card`` (``ours`` or ``paper``): the Ein syntax card of
            ``program-ein``'s system prompt (None: the mode's default).

    Raises:
        ConfigError: an unknown mode or card, or a card for another mode.

    Example:
        >>> make_mode("program-ein", ein_card="paper").name
        'program-ein'
        >>> make_mode("direct", ein_card="paper")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --ein-card paper applies to program-ein prompts only (target ein, or grpo --mode program-ein); direct sends no Ein syntax card, so drop it
    """  # noqa: E501
    from closurebench.evaluate.modes import EinProgramMode, get_mode

    mode = get_mode(name)
    if ein_card is not None:
        if not isinstance(mode, EinProgramMode):
            raise ConfigError(
                f"--ein-card {ein_card} applies to program-ein prompts only (target ein, or "
                f"grpo --mode program-ein); {name} sends no Ein syntax card, so drop it"
            )
        mode.use_ein_card(ein_card)
    return mode


# --------------------------------------------------------------------------- records


def _meta(record: AnyInstance, mode: str) -> dict[str, Any]:
    """The metadata columns of :class:`~closurebench.schema.training.TrainingRecord`."""
    return {
        "id": record.id,
        "suite": str(record.suite),
        "split": record.split,
        "category": record.category if isinstance(record, ClosureInstance) else None,
        "task": record.task if isinstance(record, GritInstance) else None,
        "level": record.level if isinstance(record, ClosureInstance) else None,
        "n": record.n,
        "graph_id": record.graph_id if isinstance(record, GritInstance) else None,
        "mode": mode,
    }


def _completion(text: str) -> Completion:
    from closurebench.evaluate.providers.base import Completion

    return Completion(
        text=text,
        reasoning=None,
        prompt_tokens=None,
        completion_tokens=None,
        latency_s=0.0,
        finish_reason="stop",
    )


def _checked(record: AnyInstance, target: str, score: Score) -> None:
    if not score.strict:
        raise VerificationError(
            f"{record.id}: its {target} target does not score strictly correct in its mode "
            f"({score.outcome.value}: {score.reason or 'no reason given'}); the record or "
            "the reference is wrong: regenerate the file, and report it if it persists"
        )


_ANCHOR_WORD = re.compile(r"\b(X|Y|k)\b")
_GRIT_CUT = re.compile(r"\s*(?:[:;]|\s\().*$")
#: GRIT query parameters that hold a node id.
_NODE_PARAMS = ("source", "target")


def _first_line(doc: str | None) -> str:
    return next((line.strip() for line in (doc or "").splitlines() if line.strip()), "")


def computation_line(record: AnyInstance) -> str:
    """What the question asks, stated from its category or task (the ``cot`` target's line).

    ClosureBench: the category's one-line definition with its anchors named (``X``,
    ``Y``: the question's labels; ``k``: the number) and, for a compound answer, the
    parts it holds; GRIT: the task's definition with its parameters (source and target
    nodes by name, the centrality measure).

    Example:
        >>> from closurebench.generate.closure import ClosureConfig, generate_records
        >>> rec = generate_records(ClosureConfig(count=1, categories=("reach_then_count",)))[0]
        >>> x = rec.labels[rec.anchors["X"]]
        >>> computation_line(rec) == f"Count the nodes {x} can reach ({x} excluded)."
        True
    """
    if isinstance(record, ClosureInstance):
        from closurebench.tasks.closure import CLOSURE_TASKS

        words = {
            key: (str(record.labels[value]) if key in ("X", "Y") else str(value))
            for key, value in record.anchors.items()
        }
        task = CLOSURE_TASKS[record.category]
        line = _ANCHOR_WORD.sub(
            lambda m: words.get(m.group(1), m.group(1)), _first_line(type(task).__doc__)
        )
        if task.compound_keys:  # name the parts the answer object holds
            line = f"{line.rstrip('.')}: {', '.join(task.compound_keys)}."
        return line
    from closurebench.tasks.grit import GRIT_TASKS

    line = _GRIT_CUT.sub("", _first_line(type(GRIT_TASKS[record.task]).__doc__)).rstrip(".")
    details = []
    for key, value in sorted(record.params.items()):
        if key in _NODE_PARAMS and isinstance(value, int) and 0 <= value < len(record.names):
            details.append(f"{key} {record.names[value]}")
        else:
            details.append(f"{key} {value}")
    return line + (f" ({', '.join(details)})" if details else "") + "."


def _answer_reply(record: AnyInstance, mode: Mode) -> str:
    from closurebench.evaluate.chance import chance_reply

    return chance_reply(record, record.answer, mode.name)


def _cot_reply(record: AnyInstance, mode: Mode) -> str:
    return (
        f"Task: {computation_line(record)} Computed on the graph the question describes:\n"
        + _answer_reply(record, mode)
    )


def _reference_reply(record: AnyInstance, mode: Mode, model: str) -> str:
    """The reply of reference model ``model`` to ``record``'s first request in ``mode``."""
    from closurebench.evaluate.reference import REFERENCE_MODELS

    reply = REFERENCE_MODELS[model].answer(record, mode, mode.messages(record))
    return str(reply)


def _episode(record: AnyInstance, mode: Mode) -> tuple[list[Message], list[dict[str, Any]] | None]:
    """The reference agent's whole episode in ``mode``: the chat as the mode sent it.

    The mode's own loop (:meth:`AgentMode.run`) runs against the ``reader`` reference
    model; every request's messages are kept, and the last request's messages plus the
    final reply are the episode. The tools are those the mode offered.

    Raises:
        VerificationError: the episode does not score strictly correct.
    """
    from closurebench.evaluate.providers.base import GenerationSettings
    from closurebench.evaluate.reference import reference_provider

    provider = reference_provider("reader", [record], mode)
    sent: list[tuple[list[Message], list[dict[str, Any]] | None]] = []

    async def complete(
        messages: list[Message],
        *,
        stop: Sequence[str] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        offered = [dict(t) for t in tools] if tools else None
        sent.append((copy.deepcopy(messages), copy.deepcopy(offered)))
        settings = (
            GenerationSettings(model="reader")
            .with_stop(stop)
            .with_tools(tools)
            .with_token_limit(max_tokens)
        )
        return await provider.complete(messages, settings)

    output = _run_sync(lambda: mode.run(record, complete))
    _checked(record, mode.name, output.score)
    messages, tools = sent[-1]
    final = output.extra["trajectory"][-1]
    return [*messages, {"role": "assistant", "content": final["text"]}], tools


def _run_sync(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to its end from synchronous code, even under a running event loop.

    Under a running loop (a notebook) it runs on a fresh loop in a worker thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def _chat(record: AnyInstance, target: Target, mode: Mode) -> tuple[list[Message], Any]:
    """The messages of ``target`` for ``record`` and the tools offered (None if none)."""
    if target.reference == "reader":
        return _episode(record, mode)
    if target.reference is not None:
        reply = _reference_reply(record, mode, target.reference)
    else:
        reply = (_cot_reply if target.name == "cot" else _answer_reply)(record, mode)
        _checked(record, target.name, mode.score(record, _completion(reply)))
    return [*mode.messages(record), {"role": "assistant", "content": reply}], None


def _tools_text(tools: Sequence[Mapping[str, Any]] | None) -> str | None:
    return None if not tools else canonical_json(list(tools))


def sft_record(record: AnyInstance, target: str, *, mode: Mode | None = None) -> SftRecord:
    """The SFT record of ``record`` for ``target`` (see the module docstring).

    Args:
        record: A typed instance.
        target: A key of :data:`TARGETS`.
        mode: The target's mode instance to reuse (a fresh one when None).

    Returns:
        The :class:`~closurebench.schema.SftRecord`.

    Raises:
        ConfigError: an unknown target, or one that does not apply to the record's suite.
        VerificationError: the target does not score strictly correct (``answer``,
            ``cot``, the agent targets; see :func:`verify_program` for programs).
    """
    spec = check_target([record], target)
    mode = mode if mode is not None else make_mode(spec.mode)
    if mode.name != spec.mode:
        raise ConfigError(f"target {spec.name} needs mode {spec.mode}, not {mode.name}")
    messages, tools = _chat(record, spec, mode)
    return SftRecord.model_validate(
        {
            **_meta(record, mode.name),
            "target": spec.name,
            "messages": [ChatMessage.model_validate(m) for m in messages],
            "tools": _tools_text(tools),
        }
    )


def verify_program(record: AnyInstance, row: SftRecord, mode: Mode) -> Score:
    """Run an ``ein`` / ``python`` target as its program mode would, and score it.

    The reply's program is extracted as the mode extracts it, run by the mode in its
    sandbox (call ``mode.use_sandbox()`` first) and scored against ``record``.

    Args:
        record: The instance the row was made from.
        row: Its SFT record (target ``ein`` or ``python``).
        mode: The target's program mode (``program-ein`` / ``program-python``).

    Returns:
        The score the mode gives the reply.
    """
    from closurebench.evaluate.modes.program import ProgramMode
    from closurebench.evaluate.program import extract_program

    if not isinstance(mode, ProgramMode):
        raise ConfigError(f"verify_program takes a program mode, not {mode.name!r}")
    program = extract_program(row.messages[-1].content or "", mode.fences)
    return mode.execute(record, program).score


def grpo_record(
    record: AnyInstance, mode: str | None = None, *, modes: Mapping[str, Mode] | None = None
) -> GrpoRecord:
    """The GRPO prompt record of ``record`` (see :class:`~closurebench.schema.GrpoRecord`).

    Args:
        record: A typed instance.
        mode: The evaluation mode whose turns make the prompt (None: the suite's entry of
            :data:`DEFAULT_GRPO_MODES`).
        modes: Mode instances to reuse, by name (a fresh one is made for a missing name).

    Raises:
        ConfigError: an unknown mode, or one without a prompt for the record's suite.

    Example:
        >>> from closurebench.schema import instance_from_ground_truth
        >>> from closurebench.generate.closure import ClosureConfig, generate_records
        >>> rec = generate_records(ClosureConfig(count=1, categories=("sibling",)))[0]
        >>> row = grpo_record(rec, "cot")
        >>> instance_from_ground_truth(row.ground_truth) == rec
        True
        >>> row.prompt[1].content == rec.question, row.mode
        (True, 'cot')
    """
    from closurebench.evaluate.modes.agent import graph_tool_spec

    name = check_mode([record], mode)[str(record.suite)]
    the_mode = modes[name] if modes is not None and name in modes else make_mode(name)
    prompt = the_mode.messages(record)
    aliases = dict(record.aliases) if isinstance(record, GritInstance) else {}
    return GrpoRecord.model_validate(
        {
            **_meta(record, name),
            "prompt": [ChatMessage.model_validate(m) for m in prompt],
            "tools": _tools_text([graph_tool_spec()] if name == "agent-tools" else None),
            "answer": canonical_json(record.answer),
            "ground_truth": canonical_json(record.to_json()),
            "name_map": canonical_json({"names": record.node_names, "aliases": aliases}),
        }
    )


def sft_records(
    records: Sequence[AnyInstance],
    target: str,
    *,
    progress: Callable[[int], None] | None = None,
    verify_programs: bool = False,
    sandbox: str | None = None,
    ein_card: str | None = None,
) -> list[SftRecord]:
    """The SFT records of ``records`` for ``target``, in order.

    Args:
        records: The instances.
        target: A key of :data:`TARGETS` (checked against every suite first).
        progress: Called with 1 after each record.
        verify_programs: For ``ein`` / ``python``: run each program through its mode's
            sandbox and scorer, and refuse the export unless every one is strictly
            correct.
        sandbox: The sandbox level for ``verify_programs`` (None: the strongest wall).
        ein_card: ``--ein-card`` for target ``ein`` (see :func:`make_mode`).

    Raises:
        ConfigError: the target does not apply to a suite of ``records``; the sandbox
            is unavailable for ``verify_programs``; a card for another target.
        VerificationError: a target that does not score strictly correct.
    """
    from closurebench.evaluate.modes.program import ProgramMode

    spec = check_target(records, target)
    mode = make_mode(spec.mode, ein_card=ein_card)
    verify = verify_programs and isinstance(mode, ProgramMode)
    if verify:
        assert isinstance(mode, ProgramMode)
        mode.use_sandbox(sandbox)
    rows = []
    for record in records:
        row = sft_record(record, target, mode=mode)
        if verify:
            _checked(record, target, verify_program(record, row, mode))
        rows.append(row)
        if progress is not None:
            progress(1)
    return rows


def grpo_records(
    records: Sequence[AnyInstance],
    mode: str | None = None,
    *,
    progress: Callable[[int], None] | None = None,
    ein_card: str | None = None,
) -> list[GrpoRecord]:
    """The GRPO prompt records of ``records``, in order (the mode checked first).

    Args:
        records: The instances.
        mode: The prompt mode (None: :data:`DEFAULT_GRPO_MODES` per suite).
        progress: Called with 1 after each record.
        ein_card: ``--ein-card`` for ``mode`` ``program-ein`` (see :func:`make_mode`).

    Raises:
        ConfigError: the mode does not apply to a suite of ``records``; a card for
            another mode.
    """
    chosen = check_mode(records, mode)
    modes = {name: make_mode(name, ein_card=ein_card) for name in sorted(set(chosen.values()))}
    rows = []
    for record in records:
        rows.append(grpo_record(record, mode, modes=modes))
        if progress is not None:
            progress(1)
    return rows


# --------------------------------------------------------------------------- files


def load_dataset_file(path: str | Path) -> list[AnyInstance]:
    """The typed instances of a dataset JSONL file; refuses files that are no dataset.

    Raises:
        DatasetFileError: the file is missing or empty, is a results file or an exported
            training file, or a line is not a valid instance (names the file, the line and
            the fix).
    """
    from closurebench.generate.io import iter_instances

    p = Path(path)
    if not p.is_file():
        raise DatasetFileError(
            f"dataset file {str(p)!r} does not exist; pass a dataset JSONL file "
            "(`closurebench generate closure|grit --out DIR` writes one)"
        )
    for lineno, obj in iter_objects(p, what="dataset file"):
        if "outcome" in obj and "mode" in obj and "question" not in obj:
            raise DatasetFileError(
                f"{p}:{lineno}: this is a results file (`closurebench eval` writes one line "
                "per evaluated instance), not a dataset; pass the dataset JSONL file the run "
                "evaluated"
            )
        if ("target" in obj and "messages" in obj) or "ground_truth" in obj:
            raise DatasetFileError(
                f"{p}:{lineno}: this is an exported training file, not a dataset; pass the "
                "dataset JSONL file it was exported from"
            )
        break
    records = list(iter_instances(p))
    if not records:
        raise DatasetFileError(f"dataset file {str(p)!r} holds no records; pass a dataset file")
    return records


def hf_available() -> bool:
    """Whether the ``datasets`` package is importable (``--format hf`` needs it)."""
    return importlib.util.find_spec("datasets") is not None


def _check_out(out: Path, fmt: str) -> None:
    """Refuse an output path or format that cannot be written (before any work)."""
    if fmt not in FORMATS:
        raise ConfigError(f"--format {fmt!r} is unknown; choose one of: {', '.join(FORMATS)}")
    if fmt == "hf":
        if not hf_available():
            raise ConfigError(HF_HINT)
        if out.exists() and not out.is_dir():
            raise ConfigError(
                f"--out {str(out)!r} is a file; --format hf writes a dataset folder there: "
                "pass a folder path"
            )
    elif out.is_dir():
        raise ConfigError(f"--out {str(out)!r} is a folder; pass the JSONL file to write")


def schema_file_name(kind: str) -> str:
    """The file name of the ``sft`` / ``grpo`` record schema written beside an export.

    Example:
        >>> schema_file_name("sft")
        'sft-record.schema.json'
    """
    return f"{kind}-record.schema.json"


def _kind(rows: Sequence[TrainingRecord]) -> str | None:
    kinds = {"sft" if isinstance(r, SftRecord) else "grpo" for r in rows}
    if len(kinds) > 1:
        raise ConfigError("write_records takes sft or grpo records, not both in one file")
    return next(iter(kinds), None)


def write_records(rows: Sequence[TrainingRecord], out: str | Path, fmt: str = "jsonl") -> Path:
    """Write ``rows``: canonical JSONL (atomically) or a Hugging Face dataset folder.

    A JSONL file gets its records' JSON Schema beside it, ``<kind>-record.schema.json``
    (:func:`schema_file_name`; what ``closurebench schema sft|grpo`` prints), as a
    generated split gets its instance schema.

    Args:
        rows: The records, in order (all ``sft`` or all ``grpo``).
        out: The JSONL file, or (``hf``) the folder ``Dataset.save_to_disk`` writes.
        fmt: ``jsonl`` or ``hf``.

    Returns:
        ``out``.

    Raises:
        ConfigError: an unknown format, ``hf`` without ``datasets``, or an ``out`` of
            the wrong kind (a folder for JSONL, a file for ``hf``).
    """
    path = Path(out)
    _check_out(path, fmt)
    kind = _kind(rows)
    if fmt == "hf":
        datasets = importlib.import_module("datasets")  # the optional extra: typed as Any
        datasets.Dataset.from_list([r.to_json() for r in rows]).save_to_disk(str(path))
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines(path, (canonical_json(r.to_json()) for r in rows))
    if kind is not None:
        from closurebench.schema import schema_for

        schema = json.dumps(schema_for(kind), sort_keys=True, indent=2, ensure_ascii=False)
        path.with_name(schema_file_name(kind)).write_text(schema + "\n", encoding="utf-8")
    return path


def export_sft(
    data: str | Path,
    target: str,
    out: str | Path,
    *,
    fmt: str = "jsonl",
    progress: Callable[[int], None] | None = None,
    total: Callable[[int], None] | None = None,
    verify_programs: bool = False,
    sandbox: str | None = None,
    ein_card: str | None = None,
) -> tuple[Path, int]:
    """``closurebench export sft``: read ``data``, check everything, write the records.

    Args:
        data: The dataset JSONL file.
        target: A key of :data:`TARGETS`.
        out: The output (see :func:`write_records`).
        fmt: ``jsonl`` or ``hf``.
        progress: Called with 1 after each record is made.
        total: Called once with the number of records, before the first is made.
        verify_programs: See :func:`sft_records`.
        sandbox: See :func:`sft_records`.
        ein_card: See :func:`sft_records`.

    Returns:
        ``(out, number of records)``.

    Raises:
        DatasetFileError: ``data`` is not a dataset file.
        ConfigError: the target, the format or ``out`` does not fit.
        VerificationError: a target does not score strictly correct.
    """
    path = Path(out)
    _check_out(path, fmt)
    spec = _target(target)
    make_mode(spec.mode, ein_card=ein_card)  # a card for another target fails before reading
    if verify_programs and spec.reference != "oracle-program":
        raise ConfigError(
            f"--verify-programs applies to the program targets (ein, python), not --target "
            f"{target} (its replies are checked by its mode's scorer anyway); drop it"
        )
    if sandbox is not None and not verify_programs:
        raise ConfigError(f"--sandbox {sandbox} applies with --verify-programs only; drop it")
    records = load_dataset_file(data)
    check_target(records, target)
    if total is not None:
        total(len(records))
    rows = sft_records(
        records,
        target,
        progress=progress,
        verify_programs=verify_programs,
        sandbox=sandbox,
        ein_card=ein_card,
    )
    return write_records(rows, path, fmt), len(rows)


def export_grpo(
    data: str | Path,
    out: str | Path,
    *,
    mode: str | None = None,
    fmt: str = "jsonl",
    progress: Callable[[int], None] | None = None,
    total: Callable[[int], None] | None = None,
    ein_card: str | None = None,
) -> tuple[Path, int]:
    """``closurebench export grpo``: read ``data``, check everything, write the records.

    Args:
        data: The dataset JSONL file.
        out: The output (see :func:`write_records`).
        mode: The prompt mode (None: :data:`DEFAULT_GRPO_MODES`).
        fmt: ``jsonl`` or ``hf``.
        progress: Called with 1 after each record is made.
        total: Called once with the number of records, before the first is made.
        ein_card: See :func:`grpo_records`.

    Returns:
        ``(out, number of records)``.

    Raises:
        DatasetFileError: ``data`` is not a dataset file.
        ConfigError: the mode, the card, the format or ``out`` does not fit.
    """
    path = Path(out)
    _check_out(path, fmt)
    if ein_card is not None:
        make_mode(mode or "direct", ein_card=ein_card)  # fails before reading unless ein
    records = load_dataset_file(data)
    check_mode(records, mode)
    if total is not None:
        total(len(records))
    rows = grpo_records(records, mode, progress=progress, ein_card=ein_card)
    return write_records(rows, path, fmt), len(rows)
