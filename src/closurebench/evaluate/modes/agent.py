"""The GRAIN tool agent (paper §4.2, Table 12): think, call the graph tool, answer.

The model writes ``<think>…</think>``, then ``<graph>{json}</graph>`` to call the graph
tool (:mod:`closurebench.tools`); the runtime runs the call and sends back
``<result>…</result>``; the model may call again or give its final answer. The system
prompt is Table 12's, verbatim.

One episode, per instance:

1. each model call is sent with the stop sequences ``</graph>`` and ``</answer>`` (a
   server that refuses ``stop`` gets none: the reply is then cut here, at the first
   closing tag, and what followed it is dropped and flagged) and a token limit of the
   episode's remaining budget (so no call overshoots it);
2. a reply that ends inside ``<graph>`` (the server stopped at ``</graph>``) is a tool
   call: the tool's answer goes back as the next user message, ``<result>…</result>``
   (the chat form of the paper's in-place continuation, which every chat server
   accepts), and the model is called again;
3. any other reply ends the episode, read by :func:`read_turn` (the one rule of what a
   final answer is): an ``<answer>`` block (an unclosed one, cut at ``</answer>`` or by
   the token limit, is read too), else — the paper's own final turns, Table 14's
   ``<think>…</think> Answer: 16`` — a ``\\boxed{…}`` or a final ``Answer: …`` line;
   ``strict_protocol`` (``--strict-protocol``) accepts the tag only. A reply with none
   ends the episode without an answer (``truncated`` when the token limit cut it);
4. limits (:class:`AgentBudget`, CLI ``--agent-max-calls``, ``--agent-max-tokens``,
   ``--agent-max-result-chars``): :data:`MAX_ROUNDS` model calls and
   :data:`MAX_COMPLETION_TOKENS` generated tokens per episode (the paper's 12,000-token
   response length, Table 9); reaching one ends the episode (``max_rounds``,
   ``token_limit``).

The answer is scored like any answer of the suite: GRIT by the task checkers,
ClosureBench by Algorithm 1 (the answer's value, or the ``answer`` field of a JSON
object in it), in a worker thread (off the event loop). Reading a turn
(:func:`split_turn`, the ``<graph>`` payload) is one pass over its text. Every result
records the full trajectory, the rounds, the tool calls (problem type, outcome,
seconds), the final answer's form (``answer_form``: ``"tag"``, ``"boxed"``,
``"answer_line"`` or null) and the structure scores of the last graph the model built
(:func:`closurebench.scoring.structure.score_structure`).

Example:
    >>> "<graph>" in GRAIN_SYSTEM and GRAIN_SYSTEM.startswith("You are a helpful assistant")
    True
    >>> split_turn("<think>x</think><graph>{}</graph><result>fake</result>")
    ('<think>x</think><graph>{}</graph>', 'graph', True)
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Literal

from closurebench.errors import ConfigError
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
    "MAX_RESULT_CHARS",
    "MAX_ROUNDS",
    "STOP",
    "AgentBudget",
    "AgentMode",
    "AgentToolsMode",
    "AnswerForm",
    "Turn",
    "graph_tool_spec",
    "read_turn",
    "score_final_answer",
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
#: Model calls per episode (default of ``--agent-max-calls``; the paper sets none).
MAX_ROUNDS = 6
#: Generated tokens per episode, over all its calls (default of ``--agent-max-tokens``):
#: the paper's max response length, 12,000 tokens (GRAIN Table 9).
MAX_COMPLETION_TOKENS = 12_000
#: Characters of a ``<result>`` sent back (a longer tool answer is cut, and says so;
#: default of ``--agent-max-result-chars``).
MAX_RESULT_CHARS = 8_000
#: Characters counted as one token toward the budget for a reply whose server reports
#: no usage (a rough, generous estimate: the budget still ends the episode).
CHARS_PER_TOKEN = 4

#: How a final answer was written: ``<answer>`` tag, bare ``\\boxed{}``, ``Answer:`` line.
AnswerForm = Literal["tag", "boxed", "answer_line"]

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


_THINK_OPEN = re.compile(r"<think>", re.I)
_THINK_CLOSE = re.compile(r"</think>", re.I)
_GRAPH_OPEN = re.compile(r"<graph\b", re.I)
_BOXED_OPEN = re.compile(r"\\boxed\s*\{")
#: A final answer line: ``Answer: …`` or ``Final Answer: …`` at a line's start (Markdown
#: emphasis, a heading or a quote mark before it allowed).
_ANSWER_LINE = re.compile(r"^[ \t>*#_]*(?:final[ \t]+)?answer[ \t*_]*[:\uff1a](.*)$", re.I | re.M)


@dataclass(frozen=True)
class Turn:
    """One model turn as the agent protocol reads it (:func:`read_turn`).

    Attributes:
        text: The turn as kept in the trajectory (cut after the first closing tag).
        kind: ``"graph"`` (a tool call), ``"answer"`` (a final answer) or None (neither).
        form: The final answer's form (``"tag"``, ``"boxed"``, ``"answer_line"``), or None.
        answer: The text the scorer reads (``<answer>…</answer>`` or ``\\boxed{…}``), or
            None when the turn gives no final answer.
        cut: Text after the first closing tag was dropped.
        refused: Under ``strict``, the untagged form the turn had and that was not
            accepted (None otherwise).
    """

    text: str
    kind: Literal["graph", "answer"] | None
    form: AnswerForm | None = None
    answer: str | None = None
    cut: bool = False
    refused: AnswerForm | None = None


def _visible(text: str) -> str:
    """``text`` outside its reasoning: after the last ``</think>``, before an open ``<think>``."""
    closes = list(_THINK_CLOSE.finditer(text))
    tail = text[closes[-1].end() :] if closes else text
    opened = _THINK_OPEN.search(tail)
    return tail[: opened.start()] if opened else tail


def _untagged(turn: str) -> tuple[AnswerForm, str] | None:
    """The untagged final answer of a turn without tags: ``\\boxed{}``, else ``Answer:``."""
    visible = _visible(turn)
    boxes = list(_BOXED_OPEN.finditer(visible))
    if boxes:
        return "boxed", visible[boxes[-1].start() :].strip()
    for line in reversed(list(_ANSWER_LINE.finditer(visible))):
        value = line.group(1).strip().strip("*_").strip()
        if value.endswith(".") and not value.endswith(".."):
            value = value[:-1].rstrip()
        if value:
            return "answer_line", f"<answer>{value}</answer>"
    return None


def read_turn(text: str, *, stopped: bool = False, strict: bool = False) -> Turn:
    """Read one model turn: a tool call, a final answer (and its form), or neither.

    The one rule of the agent protocol's final answer (the agent modes end episodes by
    it; a reward's format gate should call it too). Precedence:

    1. The first closing tag decides (:func:`split_turn`): a turn that ends in a
       ``<graph>`` call (closed, or left open by a server that stopped at
       ``</graph>``) is a **tool call**, whatever ``Answer:`` or ``\\boxed{}`` text
       comes before it; an ``<answer>`` block that closes first (or an unclosed one
       opened last) is the final answer, form ``"tag"`` (a ``\\boxed{}`` inside it is
       read by the scorer).
    2. A turn without either block but with ``<graph>`` in it (a call cut by the token
       limit) is **neither**: never read for an untagged answer.
    3. Otherwise, unless ``strict``, the paper's untagged final turns (Table 14:
       ``<think>…</think> Answer: 16``), read outside ``<think>…</think>``: the last
       ``\\boxed{…}`` (form ``"boxed"``), else the last line starting ``Answer:`` or
       ``Final Answer:`` (form ``"answer_line"``; a trailing full stop dropped).
    4. Else neither (the episode ends without an answer). Under ``strict`` the
       untagged form found is reported in :attr:`Turn.refused`.

    Args:
        text: The reply (the server may have cut it at a stop sequence, not included).
        stopped: The server stopped at a stop sequence (``finish_reason`` ``"stop"``).
        strict: Accept the ``<answer>`` tag only (``--strict-protocol``).

    Returns:
        The :class:`Turn`.

    Example:
        >>> t = read_turn("<think>Tool call successful.</think> Answer: 16")
        >>> t.kind, t.form, t.answer
        ('answer', 'answer_line', '<answer>16</answer>')
        >>> read_turn("So \\\\boxed{8}").form, read_turn("<answer>\\\\boxed{8}</answer>").form
        ('boxed', 'tag')
        >>> read_turn("Answer: 3 <graph>{}", stopped=True).kind
        'graph'
        >>> t = read_turn("<think>x</think> Answer: 16", strict=True)
        >>> t.kind, t.answer, t.refused
        (None, None, 'answer_line')
    """
    turn, kind, cut = split_turn(text, stopped=stopped)
    if kind == "graph":
        return Turn(turn, "graph", cut=cut)
    if kind == "answer":
        return Turn(turn, "answer", "tag", turn, cut)
    if _GRAPH_OPEN.search(turn):
        return Turn(turn, None, cut=cut)
    found = _untagged(turn)
    if found is None:
        return Turn(turn, None, cut=cut)
    form, answer = found
    if strict:
        return Turn(turn, None, cut=cut, refused=form)
    return Turn(turn, "answer", form, answer, cut)


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
    budget_used: int = 0
    form: AnswerForm | None = None
    refused: AnswerForm | None = None


def _count(ep: _Episode, completion: Completion) -> None:
    """Add one model call's usage to the episode (and to its token budget)."""
    ep.rounds += 1
    ep.prompt_tokens += completion.prompt_tokens or 0
    ep.completion_tokens += completion.completion_tokens or 0
    if completion.completion_tokens is not None:
        ep.budget_used += completion.completion_tokens
    else:  # no usage reported: estimate, so that the budget still ends the episode
        text = (completion.text or "") + (completion.reasoning or "")
        ep.budget_used += math.ceil(len(text) / CHARS_PER_TOKEN)
    if completion.reasoning_tokens is not None:
        ep.reasoning_tokens = (ep.reasoning_tokens or 0) + completion.reasoning_tokens
    if completion.reasoning:
        ep.reasoning.append(completion.reasoning)
    ep.latency_s += completion.latency_s
    ep.finish_reason = completion.finish_reason


async def _call_tool(ep: _Episode, payload: str, max_chars: int = MAX_RESULT_CHARS) -> str:
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
    return text if len(text) <= max_chars else text[:max_chars] + "\n[... cut ...]"


@dataclass(frozen=True)
class AgentBudget:
    """The limits of one agent episode (``run.json``'s ``agent`` section records them).

    Attributes:
        max_calls: Model calls per episode (``--agent-max-calls``).
        max_tokens: Generated tokens per episode, over all its calls, as the server
            reports them (``--agent-max-tokens``; the paper's 12,000).
        max_result_chars: Characters of a ``<result>`` sent back
            (``--agent-max-result-chars``).
        call_max_tokens: Most tokens of one call (an explicit ``--max-tokens`` or
            ``--max-completion-tokens``); None: each call may use the whole remaining
            episode budget.

    Example:
        >>> b = AgentBudget(max_tokens=1000, call_max_tokens=300)
        >>> b.call_limit(used=0), b.call_limit(used=800), b.call_limit(used=1000)
        (300, 200, 0)
    """

    max_calls: int = MAX_ROUNDS
    max_tokens: int = MAX_COMPLETION_TOKENS
    max_result_chars: int = MAX_RESULT_CHARS
    call_max_tokens: int | None = None

    def call_limit(self, used: int) -> int:
        """The token limit of the next call after ``used`` tokens: never past the budget."""
        left = max(0, self.max_tokens - used)
        return left if self.call_max_tokens is None else min(left, self.call_max_tokens)


class AgentMode(Mode):
    """``agent``: the GRAIN think / ``<graph>`` / ``<result>`` / ``<answer>`` loop (both suites)."""

    takes_fewshot: ClassVar[bool] = False
    answer_in_tags: ClassVar[bool] = True

    name: ClassVar[str] = "agent"
    system_prompts: ClassVar[Mapping[Suite, str]] = {
        Suite.CLOSURE: GRAIN_SYSTEM,
        Suite.GRIT: GRAIN_SYSTEM,
    }

    def __init__(self) -> None:
        """A mode with the default budget (:class:`AgentBudget`) and the lenient reading."""
        self.budget = AgentBudget()
        self.strict_protocol = False

    @property
    def max_rounds(self) -> int:
        """Model calls per episode."""
        return self.budget.max_calls

    @property
    def max_completion_tokens(self) -> int:
        """Generated tokens per episode."""
        return self.budget.max_tokens

    def configure(
        self,
        *,
        max_calls: int | None = None,
        max_tokens: int | None = None,
        max_result_chars: int | None = None,
        call_max_tokens: int | None = None,
        strict_protocol: bool = False,
    ) -> AgentBudget:
        """Set the episode's limits and the protocol reading (from the CLI, before any request).

        Args:
            max_calls: ``--agent-max-calls`` (None: :data:`MAX_ROUNDS`).
            max_tokens: ``--agent-max-tokens`` (None: :data:`MAX_COMPLETION_TOKENS`).
            max_result_chars: ``--agent-max-result-chars`` (None: :data:`MAX_RESULT_CHARS`).
            call_max_tokens: An explicit per-call limit (``--max-tokens`` or
                ``--max-completion-tokens``); None: the remaining episode budget.
            strict_protocol: ``--strict-protocol``: only ``<answer>`` tags end an episode
                with an answer (:func:`read_turn`).

        Returns:
            The budget now in force.

        Raises:
            ConfigError: a limit below 1 (names the flag, the value and the fix).
        """
        checks = (
            ("--agent-max-calls", max_calls, "1 allows one call and no tool result"),
            ("--agent-max-tokens", max_tokens, f"the paper's is {MAX_COMPLETION_TOKENS:,}"),
            ("--agent-max-result-chars", max_result_chars, f"default {MAX_RESULT_CHARS:,}"),
            ("--max-tokens", call_max_tokens, "or leave it out: each agent call then gets "
             "the episode's remaining budget"),
        )  # fmt: skip
        for flag, value, hint in checks:
            if value is not None and (isinstance(value, bool) or value < 1):
                raise ConfigError(f"{flag} must be a whole number >= 1, got {value} ({hint})")
        self.budget = AgentBudget(
            max_calls=MAX_ROUNDS if max_calls is None else max_calls,
            max_tokens=MAX_COMPLETION_TOKENS if max_tokens is None else max_tokens,
            max_result_chars=MAX_RESULT_CHARS if max_result_chars is None else max_result_chars,
            call_max_tokens=call_max_tokens,
        )
        self.strict_protocol = bool(strict_protocol)
        return self.budget

    def identity_options(self) -> dict[str, Any]:
        """The episode budget and the protocol reading (``--max-rounds`` ...)."""
        b = self.budget
        return {
            "max_rounds": b.max_calls,
            "max_completion_tokens": b.max_tokens,
            "max_result_chars": b.max_result_chars,
            "call_max_tokens": b.call_max_tokens,
            "strict_protocol": self.strict_protocol,
        }

    def run_info(self) -> dict[str, Any]:
        """The episode limits, the protocol reading and the tool's limits (``run.json``)."""
        from closurebench.tools import ToolLimits

        b = self.budget
        return {
            "agent": {
                "max_rounds": b.max_calls,
                "max_completion_tokens": b.max_tokens,
                "max_result_chars": b.max_result_chars,
                "call_max_tokens": b.call_max_tokens,
                "call_limit": "remaining episode budget"
                if b.call_max_tokens is None
                else f"min(remaining episode budget, {b.call_max_tokens})",
                "strict_protocol": self.strict_protocol,
                "answer_forms": ["tag"]
                if self.strict_protocol
                else ["tag", "boxed", "answer_line"],
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
            if ep.rounds >= self.budget.max_calls:
                end: tuple[str, str | None] | None = ("max_rounds", None)
            elif self.budget.call_limit(ep.budget_used) < 1:
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
        limit = self.budget.call_limit(ep.budget_used)
        completion = await complete(messages, stop=STOP, max_tokens=limit)
        _count(ep, completion)
        read = read_turn(
            completion.text or "",
            stopped=completion.finish_reason == "stop",
            strict=self.strict_protocol,
        )
        ep.cut += read.cut
        ep.trajectory.append({"role": "assistant", "text": read.text})
        messages = [*messages, {"role": "assistant", "content": read.text}]
        if read.kind != "graph":
            return messages, self._end(ep, read, completion)
        result = await _call_tool(ep, _graph_payload(read.text), self.budget.max_result_chars)
        text = f"<result>\n{result}\n</result>"
        ep.trajectory.append({"role": "tool", "text": text})
        return [*messages, {"role": "user", "content": text}], None

    @staticmethod
    def _end(ep: _Episode, read: Turn, completion: Completion) -> tuple[str, str | None]:
        """How an episode ends on a turn that is no tool call: ``(outcome, answer)``."""
        ep.form, ep.refused = read.form, read.refused
        if read.kind == "answer":
            return "answered", read.answer
        return ("truncated" if completion.finish_reason == "length" else "no_answer"), None

    def _output(
        self, record: AnyInstance, ep: _Episode, outcome: str, answer: str | None
    ) -> ModeOutput:
        return ModeOutput(
            score=self._score(record, answer) if ep.refused is None else _refused(ep.refused),
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

    def _score(self, record: AnyInstance, answer: str | None) -> Score:
        return score_final_answer(record, answer)

    def _extra(self, record: AnyInstance, ep: _Episode, outcome: str) -> dict[str, Any]:
        from closurebench.scoring.structure import score_structure

        structure = score_structure(record, ep.last_graph).to_json() if ep.any_call else None
        return {
            "agent_outcome": outcome,
            "answer_form": ep.form,
            "rounds": ep.rounds,
            "budget_tokens": ep.budget_used,
            "tool_calls": len(ep.calls),
            "invalid_calls": sum(1 for c in ep.calls if not c["ok"]),
            "calls": ep.calls,
            "cut_after_stop": ep.cut,
            "structure": structure,
            "s_inv": structure["s_inv"] if structure else None,
            "trajectory": ep.trajectory,
        }


def score_final_answer(record: AnyInstance, answer: str | None) -> Score:
    """Score an episode's final answer (:attr:`Turn.answer`) as the agent modes do.

    GRIT by the task checkers, ClosureBench by Algorithm 1 (the answer's value, or the
    ``answer`` field of a JSON object in it); the rewards score episodes through it.

    Args:
        record: A typed instance record.
        answer: The final answer text, or None when the episode gave none.

    Returns:
        The :class:`~closurebench.scoring.outcome.Score`.
    """
    if answer is None:
        return Score.fail(Outcome.NO_ANSWER, None, "the episode ended without a final answer")
    got = extract_answer(answer, grit=True)
    if got.status is not ExtractStatus.OK:
        return Score.fail(Outcome(got.status), got.value, got.reason or "")
    value = got.value
    if isinstance(value, dict) and "answer" in value and len(value) == 1:
        value = value["answer"]
    if isinstance(record, GritInstance):
        return score_grit_value(record, value)
    assert isinstance(record, ClosureInstance)
    return score_closure_value(record, value)


def _refused(form: AnswerForm) -> Score:
    """The score of an episode whose untagged final answer ``--strict-protocol`` refused."""
    return Score.fail(
        Outcome.NO_ANSWER,
        None,
        f"the episode ended without <answer> (its last turn has an untagged {form} answer; "
        "--strict-protocol accepts <answer> tags only)",
    )


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
        limit = self.budget.call_limit(ep.budget_used)
        completion = await complete(messages, tools=[graph_tool_spec()], max_tokens=limit)
        _count(ep, completion)
        text = completion.text or ""
        calls = list(completion.tool_calls)
        if not calls:
            read = read_turn(text, strict=self.strict_protocol)
            ep.cut += read.cut
            ep.trajectory.append({"role": "assistant", "text": read.text})
            if read.kind == "graph":  # a text call is not run here: no answer
                read = Turn(read.text, None, cut=read.cut)
            return messages, self._end(ep, read, completion)
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
                result_text = await _call_tool(ep, c["arguments"], self.budget.max_result_chars)
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
