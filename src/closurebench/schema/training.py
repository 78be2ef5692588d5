"""Typed training records: SFT chat records and GRPO prompt records (``closurebench export``).

Both are one JSONL line per instance, written by :mod:`closurebench.train.export`, and
share the metadata columns of :class:`TrainingRecord` (``id``, ``suite``, ``split``,
``category``, ``task``, ``level``, ``n``, ``graph_id``, ``mode``):

* :class:`SftRecord` — ``messages``: the system and user turns exactly as the evaluation
  mode ``mode`` sends them, then the assistant target (and, for the agent targets, the tool
  results as that mode sends them back); ``tools``: the function specs the mode offers
  (``agent-tools`` only), as one JSON string;
* :class:`GrpoRecord` — ``prompt``: the mode's system and user turns; ``ground_truth``:
  the whole instance record as one canonical JSON string, so a reward function rebuilds the
  typed instance (:func:`instance_from_ground_truth`) and scores with the evaluation's own
  scorers without opening the dataset; ``answer`` and ``name_map`` as JSON strings.

Every column is a string, a number, null, or a list of messages whose fields are strings:
nested, varying JSON (tool schemas, graphs keyed by node names) is held as a JSON string,
so a file loads into an Arrow table (``datasets``) without its schema being merged across
rows. ``closurebench schema sft|grpo`` prints the JSON Schemas.

Example:
    >>> msg = ChatMessage(role="user", content="Q?")
    >>> msg.to_json()
    {'role': 'user', 'content': 'Q?'}
    >>> call = ToolCall(id="call_0", function=ToolFunction(name="graph_tool", arguments="{}"))
    >>> ChatMessage(role="assistant", content="", tool_calls=[call]).to_json()["tool_calls"]
    [{'id': 'call_0', 'type': 'function', 'function': {'name': 'graph_tool', 'arguments': '{}'}}]
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, ValidationError

from closurebench.errors import DatasetFileError
from closurebench.schema.enums import Suite
from closurebench.schema.instances import (
    ClosureInstance,
    GritInstance,
    _exact_int,
    _Record,
    describe_validation_error,
    parse_instance,
)

__all__ = [
    "SFT_TARGETS",
    "TARGETS",
    "ChatMessage",
    "GrpoRecord",
    "SftRecord",
    "Target",
    "ToolCall",
    "ToolFunction",
    "TrainingRecord",
    "instance_from_ground_truth",
    "parse_training",
    "training_schema",
]

SftTarget = Literal["answer", "cot", "ein", "python", "agent", "agent-tools"]


@dataclass(frozen=True)
class Target:
    """One SFT target: the mode whose turns it holds, and where its replies come from.

    Attributes:
        name: The ``--target`` name.
        mode: The evaluation mode (``closurebench eval --mode``) whose prompts it uses.
        reference: The reference model (``--model``) whose replies it is, or None when the
            reply is the instance's answer in the mode's form.
        help: What the assistant turns hold (one line).
    """

    name: str
    mode: str
    reference: str | None
    help: str


#: The SFT targets, by ``--target`` name (:mod:`closurebench.train.export` makes them).
TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("answer", "direct", None, "the verified answer, as the mode's reply"),
        Target(
            "cot",
            "cot",
            None,
            "one line stating the computation, then the answer in the mode's final form",
        ),
        Target("ein", "program-ein", "oracle-program", "the instance's Ein program, fenced"),
        Target(
            "python",
            "program-python",
            "oracle-program",
            "the instance's Python + NetworkX program, fenced",
        ),
        Target(
            "agent",
            "agent",
            "reader",
            "the reference agent's episode: ``<think>``/``<graph>`` turns, ``<result>`` user "
            "turns, ``<answer>``",
        ),
        Target(
            "agent-tools",
            "agent-tools",
            "reader",
            "the reference agent's episode with native ``tool_calls`` and ``tool`` turns, "
            "plus ``tools``",
        ),
    )
}

#: The SFT target names, in the order ``closurebench export sft --target`` lists them.
SFT_TARGETS: tuple[str, ...] = tuple(TARGETS)


class ToolFunction(_Record):
    """The function a tool call names, with its arguments."""

    name: str
    """The function's name (``graph_tool``)."""
    arguments: str
    """The call's arguments as one JSON text, as an OpenAI-compatible server returns them
    (a chat template that wants a dict reads it with ``json.loads``)."""


class ToolCall(_Record):
    """One native function call of an assistant turn (OpenAI ``tool_calls`` entry)."""

    id: str
    """The call's id; the ``tool`` turn that answers it names it in ``tool_call_id``."""
    type: Literal["function"] = "function"
    """Always ``function``."""
    function: ToolFunction
    """The function called and its arguments."""


class ChatMessage(_Record):
    """One chat turn, as the evaluation sends it (OpenAI chat message)."""

    role: Literal["system", "user", "assistant", "tool"]
    """``system``, ``user``, ``assistant`` or ``tool`` (a function's result)."""
    content: str | None
    """The turn's text (null only for an assistant turn that only calls functions)."""
    tool_calls: list[ToolCall] | None = None
    """The functions an assistant turn calls (``agent-tools``); absent otherwise."""
    tool_call_id: str | None = None
    """The call a ``tool`` turn answers; absent otherwise."""

    def to_json(self) -> dict[str, Any]:
        """``role`` and ``content``, plus ``tool_calls`` / ``tool_call_id`` when set."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls is not None:
            out["tool_calls"] = [c.to_json() for c in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out


class TrainingRecord(_Record):
    """The metadata columns every exported training record has.

    Attributes:
        id: The instance's id.
        suite: ``closure`` or ``grit``.
        split: The instance's split.
        category: The ClosureBench category (null for GRIT).
        task: The GRIT task (null for ClosureBench).
        level: The ClosureBench level 1-3 (null for GRIT).
        n: Number of nodes.
        graph_id: The GRIT base graph the view asks about (null for ClosureBench).
        mode: The evaluation mode whose prompts the record holds.
    """

    id: str
    """The instance's id (``closurebench show DATA ID`` prints it)."""
    suite: Suite
    """``closure`` or ``grit``."""
    split: str
    """The instance's split."""
    category: str | None
    """The ClosureBench category; null for GRIT."""
    task: str | None
    """The GRIT task; null for ClosureBench."""
    level: Annotated[Literal[1, 2, 3] | None, BeforeValidator(_exact_int)]
    """The ClosureBench level (1 atomic, 2 chain, 3 composition); null for GRIT."""
    n: int = Field(ge=1)
    """Number of nodes of the question's graph."""
    graph_id: str | None
    """The GRIT base graph (its 8 views share it); null for ClosureBench."""
    mode: str
    """The evaluation mode (``closurebench eval --mode``) whose system and user turns the
    record holds: ``direct``, ``cot``, ``program-ein``, ``program-python``, ``agent`` or
    ``agent-tools``."""

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict; messages keep only the fields they set."""
        out = self.model_dump(mode="json")
        for key in ("messages", "prompt"):
            value = getattr(self, key, None)
            if value is not None:
                out[key] = [m.to_json() for m in value]
        return out


class SftRecord(TrainingRecord):
    """One SFT example (``closurebench export sft``): a whole chat, ending in the target.

    ``messages`` starts with the system and user turns exactly as ``mode`` sends them;
    the assistant turns are the target: the instance's verified answer (``answer``,
    ``cot``), its reference program in a fenced block (``ein``, ``python``), or the
    reference agent's episode (``agent``: ``<think>``/``<graph>`` turns, each tool result
    sent back as a user turn ``<result>…</result>``; ``agent-tools``: assistant turns
    with ``tool_calls``, each answered by a ``tool`` turn, and ``tools``).
    """

    target: SftTarget
    """What the assistant turns hold: ``answer``, ``cot``, ``ein``, ``python``, ``agent``
    or ``agent-tools``."""
    messages: list[ChatMessage] = Field(min_length=3)
    """The chat: system, user, then the assistant target (and tool turns)."""
    tools: str | None
    """The function specs the mode offers, as one JSON array text (``agent-tools``: the
    graph tool, ``[{"type": "function", "function": {...}}]``); null otherwise."""


class GrpoRecord(TrainingRecord):
    """One RL prompt (``closurebench export grpo``), with what a reward needs to score it.

    A reward function called TRL's way (``completions`` plus these columns as keyword
    lists) scores completion ``i`` with ``instance_from_ground_truth(ground_truth[i])``
    and the evaluation's scorers (``closurebench.scoring``: ``score_closure`` /
    ``score_grit`` on the reply, ``score_structure`` on a submitted graph), reading
    nothing else.
    """

    prompt: list[ChatMessage] = Field(min_length=2)
    """The system and user turns exactly as ``mode`` sends them."""
    tools: str | None
    """The function specs ``mode`` offers, as one JSON array text (``agent-tools``);
    null otherwise."""
    answer: str
    """The reference answer as canonical JSON text (labels / names, as the model must
    give it)."""
    ground_truth: str
    """The whole instance record as canonical JSON text (``closurebench schema closure``
    or ``grit``): the answer and everything the scorers read — ClosureBench
    ``result_type``, ``ambiguity``, ``alt_answer``, ``anchors``, ``labels``; GRIT
    ``task``, ``solution``, ``certificate``, ``names``, ``aliases``, ``params``; the gold
    ``graph`` for the structure scores (``s_inv``)."""
    name_map: str
    """The view's names as JSON text, ``{"names": [...], "aliases": {...}}``: node ``i``
    is ``names[i]``; an alias maps to its node id (ClosureBench: its ``labels``, no
    aliases)."""


def training_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of ``sft`` or ``grpo`` records (what ``closurebench schema`` prints).

    Raises:
        ValueError: for another name.

    Example:
        >>> training_schema("grpo")["properties"]["ground_truth"]["type"]
        'string'
    """
    models: dict[str, type[TrainingRecord]] = {"sft": SftRecord, "grpo": GrpoRecord}
    if name not in models:
        raise ValueError(f"unknown training schema {name!r}; choose sft or grpo")
    schema = models[name].model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://closurebench.dev/schema/{name}.json"
    return schema


def parse_training(
    obj: Mapping[str, Any], name: str, where: str = "record"
) -> SftRecord | GrpoRecord:
    """Validate one ``sft`` or ``grpo`` object (a line of an exported file).

    Raises:
        DatasetFileError: naming ``where``, the field and the fix.

    Example:
        >>> parse_training({"id": "x"}, "sft", "f.jsonl:1")
        Traceback (most recent call last):
        ...
        closurebench.errors.DatasetFileError: f.jsonl:1: not a valid sft record: field 'suite' is missing; field 'split' is missing; field 'category' is missing; and 8 more; re-export it with `closurebench export sft`
    """  # noqa: E501
    model: type[SftRecord | GrpoRecord] = SftRecord if name == "sft" else GrpoRecord
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise DatasetFileError(
            f"{where}: not a valid {name} record: {describe_validation_error(exc)}; "
            f"re-export it with `closurebench export {name}`"
        ) from None


@lru_cache(maxsize=4096)
def instance_from_ground_truth(ground_truth: str) -> ClosureInstance | GritInstance:
    """The typed instance a GRPO record's ``ground_truth`` holds (validated; cached).

    Records are immutable, so the cache hands the same object to every caller: a reward
    called on each of a group's completions parses its row once.

    Args:
        ground_truth: The ``ground_truth`` column of a :class:`GrpoRecord`.

    Returns:
        The :class:`~closurebench.schema.ClosureInstance` or
        :class:`~closurebench.schema.GritInstance`.

    Raises:
        DatasetFileError: when the text is not JSON or not a valid instance record.

    Example:
        >>> instance_from_ground_truth("[1]")
        Traceback (most recent call last):
        ...
        closurebench.errors.DatasetFileError: ground_truth: a JSON list, not an instance record; pass the ground_truth column of `closurebench export grpo`
    """  # noqa: E501
    try:
        obj = json.loads(ground_truth)
    except (ValueError, RecursionError) as exc:
        raise DatasetFileError(
            f"ground_truth is not JSON ({exc}); pass the ground_truth column of "
            "`closurebench export grpo`"
        ) from None
    if not isinstance(obj, dict):
        kind = "string" if isinstance(obj, str) else type(obj).__name__
        raise DatasetFileError(
            f"ground_truth: a JSON {kind}, not an instance record; pass the ground_truth "
            "column of `closurebench export grpo`"
        )
    return parse_instance(obj, "ground_truth")
