"""The GRAIN tool agent (paper §4.2, Table 12): think, call the graph tool, answer.

The model writes ``<think>…</think>``, then ``<graph>{json}</graph>`` to call the graph
tool (:mod:`closurebench.tools`); the runtime runs the call and sends back
``<result>…</result>``; the model may call again or end with ``<answer>…</answer>`` (a
``\\boxed{}`` inside accepted). The system prompt is Table 12's, verbatim.

One episode, per instance:

1. each model call is sent with the stop sequences ``</graph>`` and ``</answer>`` (a
   server that refuses ``stop`` gets none: the reply is then cut here, at the first
   closing tag, and what followed it is dropped and flagged);
2. a reply that ends inside ``<graph>`` (the server stopped at ``</graph>``) is a tool
   call: the tool's answer goes back as the next user message, ``<result>…</result>``
   (the chat form of the paper's in-place continuation, which every chat server
   accepts), and the model is called again;
3. a reply holding an ``<answer>`` block ends the episode (an unclosed final block, cut
   at ``</answer>`` or by the token limit, is read too); a reply with neither ends it
   without an answer;
4. limits: :data:`MAX_ROUNDS` model calls and :data:`MAX_COMPLETION_TOKENS` generated
   tokens per episode; reaching one ends the episode (its outcome says which).

The answer is scored like any answer of the suite: GRIT by the task checkers,
ClosureBench by Algorithm 1 (the ``<answer>`` block's value, or the ``answer`` field of
a JSON object in it), in a worker thread (off the event loop). Reading a turn
(:func:`split_turn`, the ``<graph>`` payload) is one pass over its text. Every result
records the full trajectory, the rounds, the tool calls (problem type, outcome,
seconds) and the structure scores of the last graph the model built
(:func:`closurebench.scoring.structure.score_structure`).

Example:
    >>> "<graph>" in GRAIN_SYSTEM and GRAIN_SYSTEM.startswith("You are a helpful assistant")
    True
    >>> split_turn("<think>x</think><graph>{}</graph><result>fake</result>")
    ('<think>x</think><graph>{}</graph>', 'graph', True)
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from closurebench.evaluate.modes.base import AnyInstance, CompleteFn, Message, Mode, ModeOutput
from closurebench.evaluate.providers.base import Completion
from closurebench.schema import ClosureInstance, ExtractStatus, GritInstance, Outcome, Suite
from closurebench.scoring import extract_answer, score_closure_value, score_grit_value
from closurebench.scoring.outcome import Score

__all__ = [
    "GRAIN_SYSTEM",
    "GRAIN_TOOLS_SYSTEM",
    "GRAPH_TOOL_NAME",
    "MAX_COMPLETION_TOKENS",
    "MAX_ROUNDS",
    "STOP",
    "AgentMode",
    "AgentToolsMode",
    "graph_tool_spec",
    "split_turn",
]

#: Table 12's JSON schema block, as the paper prints it.
_SCHEMA = """{
  "problem_type": "problem_type_here",
  "graph": {
    "type": "adjacency_list",
    "data": {
      "node1": {"neighbor1": weight1, "neighbor2": weight2},
      "node2": {"neighbor3": weight3, "neighbor4": weight4}
    },
    "directed": true_or_false,
    "weighted": true_or_false
  },
  "parameters": {
    "parameter1": "parameter1_value",
    "parameter2": "parameter2_value",
    "algorithm": "algorithm_name"
  }
}"""

#: The GRAIN system prompt (paper Table 12: role, protocol and tags, tool schema), verbatim.
GRAIN_SYSTEM = (
    "You are a helpful assistant that specializes in solving graph theory problems using a "
    "graph theory tool. Given a question, you need to first think about the reasoning "
    "process in your mind and then provide the answer. During thinking, you can invoke the "
    "graph theory tool to compute shortest paths, minimum spanning trees, topological "
    "sorting, or other graph algorithms if needed.\n\n"
    "The reasoning process and answer must be enclosed within specific XML tags. Follow "
    "these guidelines strictly:\n"
    "1. Thinking: Start with <think> and explain your step-by-step reasoning process. End "
    "with </think>.\n"
    "2. Tool Call: When you need to use the graph theory tool, output <graph> followed by a "
    "JSON-formatted query, then </graph>.\n"
    "3. Tool Result: After the tool call, output <result> followed by the tool's output, "
    "then </result>.\n"
    "4. Final Answer: Finally, output <answer> followed by the final answer, then the final "
    "answer is \\boxed{answer here}</answer>.\n\n"
    "The JSON query inside <graph> tags must follow this exact structure:\n"
    + _SCHEMA
    + "\nEnsure that problem_type, graph structure, and algorithm parameters are correctly "
    "populated based on the user query."
)

#: The function name of the graph tool in ``agent-tools`` mode.
GRAPH_TOOL_NAME = "graph_tool"

#: ``agent-tools``: Table 12's role and tags, the tool offered as a native function.
GRAIN_TOOLS_SYSTEM = (
    "You are a helpful assistant that specializes in solving graph theory problems using a "
    "graph theory tool. Given a question, you need to first think about the reasoning "
    "process in your mind and then provide the answer. During thinking, you can invoke the "
    "graph theory tool to compute shortest paths, minimum spanning trees, topological "
    "sorting, or other graph algorithms if needed.\n\n"
    "Follow these guidelines strictly:\n"
    "1. Thinking: Start with <think> and explain your step-by-step reasoning process. End "
    "with </think>.\n"
    f"2. Tool Call: When you need the graph theory tool, call the function {GRAPH_TOOL_NAME} "
    "with a JSON query of this exact structure:\n"
    + _SCHEMA
    + "\n3. Tool Result: The tool's output comes back as the function's result.\n"
    "4. Final Answer: Finally, output <answer> followed by the final answer, then the final "
    "answer is \\boxed{answer here}</answer>."
)

#: Stop sequences of every model call.
STOP: tuple[str, ...] = ("</graph>", "</answer>")
#: Model calls per episode.
MAX_ROUNDS = 6
#: Generated tokens per episode (over all its calls).
MAX_COMPLETION_TOKENS = 16_384
#: Characters of a ``<result>`` sent back (a longer tool answer is cut, and says so).
MAX_RESULT_CHARS = 8_000

_OPEN = {"graph": re.compile(r"<graph>", re.I), "answer": re.compile(r"<answer>", re.I)}
_CLOSE = re.compile(r"</(graph|answer)>", re.I)
_GRAPH_BLOCK = re.compile(r"<graph>(.*?)(?:</graph>|\Z)", re.I | re.S)


def split_turn(text: str, stopped: bool = False) -> tuple[str, str | None, bool]:
    """One model turn: its text up to the first closing tag, what it ends with, and a cut flag.

    Args:
        text: The reply (the server may already have cut it at a stop sequence, which
            is then not included).
        stopped: The server reports it stopped at a stop sequence (``finish_reason``
            ``"stop"``): a last ``<graph>``/``<answer>`` left open is closed here.

    Returns:
        ``(turn, kind, cut)``: ``turn`` ends with ``</graph>`` or ``</answer>`` when
        ``kind`` is ``"graph"`` or ``"answer"``; ``kind`` is None when the turn holds
        neither; ``cut`` is True when text after the first closing tag was dropped.

    Example:
        >>> split_turn('<graph>{"a": 1}', stopped=True)
        ('<graph>{"a": 1}</graph>', 'graph', False)
        >>> split_turn("<answer>16", stopped=True)
        ('<answer>16</answer>', 'answer', False)
        >>> split_turn("Just text.")
        ('Just text.', None, False)
    """
    close = _CLOSE.search(text)
    if close is not None:
        end = close.end()
        return text[:end], close.group(1).lower(), bool(text[end:].strip())
    opened = [(m.start(), kind) for kind, rx in _OPEN.items() for m in rx.finditer(text)]
    if opened:
        _, kind = max(opened)
        if stopped or kind == "answer":  # an unclosed final answer block is read as is
            return text + f"</{kind}>", kind, False
    return text, None, False


def _graph_payload(turn: str) -> str:
    blocks = _GRAPH_BLOCK.findall(turn)
    return blocks[-1] if blocks else ""


@dataclass
class _Episode:
    """What one episode produced, for the record."""

    trajectory: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int | None = None
    latency_s: float = 0.0
    rounds: int = 0
    finish_reason: str | None = None
    reasoning: list[str] = field(default_factory=list)
    cut: int = 0
    last_graph: Any = None
    any_call: bool = False


def _count(ep: _Episode, completion: Completion) -> None:
    """Add one model call's usage to the episode."""
    ep.rounds += 1
    ep.prompt_tokens += completion.prompt_tokens or 0
    ep.completion_tokens += completion.completion_tokens or 0
    if completion.reasoning_tokens is not None:
        ep.reasoning_tokens = (ep.reasoning_tokens or 0) + completion.reasoning_tokens
    if completion.reasoning:
        ep.reasoning.append(completion.reasoning)
    ep.latency_s += completion.latency_s
    ep.finish_reason = completion.finish_reason


async def _call_tool(ep: _Episode, payload: str) -> str:
    """Run one tool call off the event loop, record it, and return its ``<result>`` text."""
    from closurebench.tools import run_tool

    result = await asyncio.get_running_loop().run_in_executor(None, run_tool, payload)
    ep.any_call = True
    if result.graph is not None:
        ep.last_graph = result.graph
    elif result.kind in ("invalid_json", "schema"):
        ep.last_graph = None  # the last call did not give a graph
    ep.calls.append(
        {
            "problem_type": result.problem_type,
            "kind": result.kind,
            "ok": result.ok,
            "seconds": round(result.seconds, 4),
        }
    )
    text = result.text
    return text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + "\n[... cut ...]"


class AgentMode(Mode):
    """``agent``: the GRAIN think / ``<graph>`` / ``<result>`` / ``<answer>`` loop (both suites)."""

    name: ClassVar[str] = "agent"
    system_prompts: ClassVar[Mapping[Suite, str]] = {
        Suite.CLOSURE: GRAIN_SYSTEM,
        Suite.GRIT: GRAIN_SYSTEM,
    }
    max_rounds: ClassVar[int] = MAX_ROUNDS
    max_completion_tokens: ClassVar[int] = MAX_COMPLETION_TOKENS

    def run_info(self) -> dict[str, Any]:
        """The episode limits and the tool's limits, recorded in ``run.json``."""
        from dataclasses import asdict

        from closurebench.tools import ToolLimits

        return {
            "agent": {
                "max_rounds": self.max_rounds,
                "max_completion_tokens": self.max_completion_tokens,
                "stop": list(STOP),
                "tool_limits": asdict(ToolLimits()),
            }
        }

    async def run(self, record: AnyInstance, complete: CompleteFn) -> ModeOutput:
        """Run one episode and score its answer.

        Args:
            record: A typed instance record.
            complete: The runner's request function.

        Returns:
            The output; ``response`` is the whole trajectory as one text, ``extra`` holds
            the trajectory, rounds, tool calls, ``agent_outcome`` and ``structure``.
        """
        messages: list[Message] = self.messages(record)
        ep = _Episode()
        while True:
            if ep.rounds >= self.max_rounds:
                end: tuple[str, str | None] | None = ("max_rounds", None)
            elif ep.completion_tokens >= self.max_completion_tokens:
                end = ("token_limit", None)
            else:
                messages, end = await self._turn(ep, messages, complete)
            if end is not None:
                # scoring the answer and the graph is CPU work on untrusted text: in a
                # worker thread, off the event loop
                return await asyncio.to_thread(self._output, record, ep, *end)

    async def _turn(
        self, ep: _Episode, messages: list[Message], complete: CompleteFn
    ) -> tuple[list[Message], tuple[str, str | None] | None]:
        """One model call and what follows it: the messages to go on with, or the end.

        Returns:
            ``(messages, None)`` to call the model again, or ``(messages, (outcome,
            answer turn or None))`` when the episode ends.
        """
        completion = await complete(messages, stop=STOP)
        _count(ep, completion)
        turn, kind, cut = split_turn(
            completion.text or "", stopped=completion.finish_reason == "stop"
        )
        ep.cut += cut
        ep.trajectory.append({"role": "assistant", "text": turn})
        messages = [*messages, {"role": "assistant", "content": turn}]
        if kind == "answer":
            return messages, ("answered", turn)
        if kind != "graph":
            return messages, (
                "truncated" if completion.finish_reason == "length" else "no_answer",
                None,
            )
        text = f"<result>\n{await _call_tool(ep, _graph_payload(turn))}\n</result>"
        ep.trajectory.append({"role": "tool", "text": text})
        return [*messages, {"role": "user", "content": text}], None

    def _output(
        self, record: AnyInstance, ep: _Episode, outcome: str, answer_turn: str | None
    ) -> ModeOutput:
        return ModeOutput(
            score=self._score(record, answer_turn),
            response="\n".join(step["text"] for step in ep.trajectory),
            reasoning="\n\n".join(ep.reasoning) or None,
            prompt_tokens=ep.prompt_tokens,
            completion_tokens=ep.completion_tokens,
            reasoning_tokens=ep.reasoning_tokens,
            latency_s=ep.latency_s,
            finish_reason=ep.finish_reason,
            requests=ep.rounds,
            extra=self._extra(record, ep, outcome),
        )

    def _score(self, record: AnyInstance, turn: str | None) -> Score:
        if turn is None:
            return Score.fail(Outcome.NO_ANSWER, None, "the episode ended without <answer>")
        got = extract_answer(turn, grit=True)
        if got.status is not ExtractStatus.OK:
            return Score.fail(Outcome(got.status), got.value, got.reason or "")
        value = got.value
        if isinstance(value, dict) and "answer" in value and len(value) == 1:
            value = value["answer"]
        if isinstance(record, GritInstance):
            return score_grit_value(record, value)
        assert isinstance(record, ClosureInstance)
        return score_closure_value(record, value)

    def _extra(self, record: AnyInstance, ep: _Episode, outcome: str) -> dict[str, Any]:
        from closurebench.scoring.structure import score_structure

        structure = score_structure(record, ep.last_graph).to_json() if ep.any_call else None
        return {
            "agent_outcome": outcome,
            "rounds": ep.rounds,
            "tool_calls": len(ep.calls),
            "invalid_calls": sum(1 for c in ep.calls if not c["ok"]),
            "calls": ep.calls,
            "cut_after_stop": ep.cut,
            "structure": structure,
            "s_inv": structure["s_inv"] if structure else None,
            "trajectory": ep.trajectory,
        }


def graph_tool_spec() -> dict[str, Any]:
    """The graph tool as an OpenAI function-calling ``tools`` entry.

    Example:
        >>> spec = graph_tool_spec()
        >>> spec["function"]["name"], spec["function"]["parameters"]["type"]
        ('graph_tool', 'object')
    """
    from closurebench.tools import tool_json_schema

    schema = {k: v for k, v in tool_json_schema().items() if k != "$schema"}
    return {
        "type": "function",
        "function": {
            "name": GRAPH_TOOL_NAME,
            "description": "Solve a graph problem exactly: give the problem type, the graph as "
            "an adjacency list, and the parameters (e.g. start and end nodes).",
            "parameters": schema,
        },
    }


class AgentToolsMode(AgentMode):
    """``agent-tools``: the GRAIN loop with the tool as a native function (OpenAI ``tools``).

    Each model call offers :func:`graph_tool_spec`; every call in the reply's
    ``tool_calls`` is run and answered by a ``tool`` message with its ``<result>`` text
    (a call to another function name gets an error result); a reply without calls ends
    the episode, read for ``<answer>`` as in ``agent``. For servers with native function
    calling (vLLM with a tool parser, hosted APIs).
    """

    name: ClassVar[str] = "agent-tools"
    system_prompts: ClassVar[Mapping[Suite, str]] = {
        Suite.CLOSURE: GRAIN_TOOLS_SYSTEM,
        Suite.GRIT: GRAIN_TOOLS_SYSTEM,
    }

    async def _turn(
        self, ep: _Episode, messages: list[Message], complete: CompleteFn
    ) -> tuple[list[Message], tuple[str, str | None] | None]:
        """One model call offering the tool; run every function call it makes."""
        completion = await complete(messages, tools=[graph_tool_spec()])
        _count(ep, completion)
        text = completion.text or ""
        calls = list(completion.tool_calls)
        if not calls:
            turn, kind, cut = split_turn(text)
            ep.cut += cut
            ep.trajectory.append({"role": "assistant", "text": turn})
            if kind == "answer":
                return messages, ("answered", turn)
            return messages, (
                "truncated" if completion.finish_reason == "length" else "no_answer",
                None,
            )
        ep.trajectory.append({"role": "assistant", "text": text, "tool_calls": calls})
        asked = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for c in calls
        ]
        messages = [*messages, {"role": "assistant", "content": text or None, "tool_calls": asked}]
        for c in calls:
            if c["name"] == GRAPH_TOOL_NAME:
                result_text = await _call_tool(ep, c["arguments"])
            else:
                result_text = (
                    f"Error (unknown_function): there is no function {c['name']!r}; call "
                    f"{GRAPH_TOOL_NAME}"
                )
                ep.calls.append(
                    {"problem_type": None, "kind": "unknown_function", "ok": False, "seconds": 0.0}
                )
            ep.trajectory.append({"role": "tool", "text": f"<result>\n{result_text}\n</result>"})
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": result_text})
        return messages, None
