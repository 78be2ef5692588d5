"""Rewards for RL on closurebench, over the harness's own scorers (TRL's signature).

Every reward is a small picklable object whose call has TRL's reward-function signature:
``reward(prompts=..., completions=..., completion_ids=..., ground_truth=[...], **columns)``
returns one float per completion. ``completions`` are plain strings or conversational
message lists (``[{"role": "assistant", "content": ...}, ...]``, with ``tool_calls`` and
``tool`` turns when the model called a native tool); ``ground_truth`` is the column of
``closurebench export grpo`` (the instance record as JSON). Nothing here needs TRL or
torch: the same objects score hand-written completions (and the tests call them so).

What each reward reads (all through the evaluation's own code, so a reward and an
evaluation of the same text agree):

* :class:`AnswerReward` (``r_ans``): 1.0 when the completion's answer is correct in its
  ``mode`` (strict by default, ``lenient=True`` for Algorithm 1), else 0.0. Single-turn
  modes score the text as the mode scores a reply; program modes run the program through
  the sandbox (:class:`ProgramReward`); agent modes read the episode (below).
* :class:`FormatReward`: 1.0 for a valid completion, else 0.0 (see *validity*).
* :class:`ProgramReward`: 1.0 when the completion's program runs to its end in the
  sandbox, else 0.0. The sandbox is the program modes' (bubblewrap, seccomp): no wall,
  no run — building the reward raises
  :class:`~closurebench.errors.SandboxUnavailableError` where none works, unless
  ``unsafe=True`` is passed explicitly.
* :class:`StructureReward` (``s_inv``): the Jaccard index of the last graph the episode
  submitted against the true graph, names aligned through the view's name map
  (:func:`~closurebench.scoring.structure.score_structure`); 0.0 when no graph was
  submitted or it did not parse.
* :class:`GatedReward` (GRAIN Eq. 3): ``rho_err`` for an invalid trajectory, else
  ``r_ans + lambda_inv * s_inv`` (defaults ``lambda_inv`` 1.0, ``rho_err`` -1.0). When TRL
  passes ``log_metric`` / ``log_extra`` it logs the parts (``closurebench/valid``,
  ``closurebench/r_ans``, ``closurebench/s_inv`` means; ``closurebench_reason`` per
  completion).

Validity (the gate). Single-turn modes: the reply holds a readable answer (not a format
error, not "no answer"). Program modes: the reply holds a program. Agent modes (an
episode): every turn before the last is a tool call whose graph parses (a ``<graph>`` block
in text; a ``graph_tool`` or typed-function call in ``tool_calls``), and the last turn is a
final answer read by :func:`~closurebench.evaluate.modes.agent.read_turn`, the agent modes'
one rule, with ``strict_protocol`` (default ``True``: the paper's episodes end at
``</answer>``, and its gate penalises missing tags; ``False`` also accepts the paper's
untagged ``Answer:`` line and ``\\boxed{}``, as evaluation does by default). A text
completion with injected ``<result>…</result>`` segments is split into turns at them.

Example:
    >>> from closurebench.generate.grit import GritConfig, generate_records
    >>> from closurebench.generate.io import canonical_json
    >>> rec = generate_records(GritConfig(split="test", seed=0, count=1, n_max=10))[0][0]
    >>> truth = canonical_json(rec.to_json())
    >>> gated = GatedReward()
    >>> gated(completions=[f"<answer>{rec.answer}</answer>", "no tags"], ground_truth=[truth] * 2)
    [1.0, -1.0]
"""

from __future__ import annotations

import inspect
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from closurebench.errors import ClosureBenchError, ConfigError
from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.modes.agent import AgentMode, read_turn, score_final_answer
from closurebench.evaluate.modes.base import AnyInstance, Mode
from closurebench.evaluate.modes.program import ProgramMode
from closurebench.evaluate.program.extract import extract_program
from closurebench.evaluate.providers.base import Completion
from closurebench.schema import Outcome
from closurebench.schema.training import instance_from_ground_truth
from closurebench.scoring.outcome import Score, safely

__all__ = [
    "AnswerReward",
    "Episode",
    "FormatReward",
    "GatedReward",
    "ProgramReward",
    "RewardParts",
    "StructureReward",
    "completion_turns",
    "read_episode",
    "score_completion",
]

_RESULT = re.compile(r"<result>.*?</result>", re.DOTALL)
_GRAPH_BODY = re.compile(r"<graph>(.*?)(?:</graph>|$)", re.DOTALL)
_UNREADABLE = (Outcome.FORMAT_ERROR, Outcome.NO_ANSWER)
#: Modes whose completions are episodes (turns with tool calls).
_AGENT_MODES = ("agent", "agent-tools")


@dataclass(frozen=True)
class RewardParts:
    """The parts of one completion's reward.

    Attributes:
        valid: The completion passes the gate (see the module docstring).
        correct: Its answer is correct (strict, or lenient when asked).
        s_inv: Structure similarity of the last submitted graph (agent modes; 0.0
            without one), None for modes that submit no graph.
        executed: The program ran to its end (program modes), else None.
        outcome: The evaluation outcome of the answer.
        reason: Why it is invalid or wrong ("" when valid and correct).
    """

    valid: bool
    correct: bool
    s_inv: float | None
    executed: bool | None
    outcome: str
    reason: str

    def gated(self, lambda_inv: float = 1.0, rho_err: float = -1.0) -> float:
        """GRAIN's gated reward: ``rho_err`` if invalid, else ``r_ans + lambda_inv * s_inv``.

        Example:
            >>> RewardParts(True, True, 0.5, None, "strict_correct", "").gated()
            1.5
            >>> RewardParts(False, False, None, None, "format_error", "x").gated(rho_err=-2)
            -2.0
        """
        if not self.valid:
            return float(rho_err)
        return float(self.correct) + lambda_inv * (self.s_inv or 0.0)


@dataclass(frozen=True)
class Episode:
    """An agent completion read as the agent modes read it.

    Attributes:
        turns: Assistant turns in order (text; a native call's turn is its text).
        calls: Tool calls in order, each the call object (dict) or the raw text as written.
        final: The last assistant turn's text.
        answer: The text the scorer reads, or None without a final answer.
        form: The final answer's form (``tag``, ``boxed``, ``answer_line``), or None.
        problem: Why the episode is invalid ("" when it is valid).
    """

    turns: tuple[str, ...]
    calls: tuple[Any, ...]
    final: str
    answer: str | None
    form: str | None
    problem: str


def _content(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks: [{"type": "text", "text": ...}]
        return "".join(
            str(b.get("text", "")) for b in content if isinstance(b, Mapping) and "text" in b
        )
    return ""


def completion_turns(completion: Any) -> list[dict[str, Any]]:
    """The assistant turns of a completion: ``[{"text": str, "tool_calls": [...]}, ...]``.

    A string is split at its injected ``<result>…</result>`` segments (the text protocol's
    tool results); a message list keeps its assistant messages (``tool`` and ``user``
    turns are the environment's, not the model's).

    Raises:
        ConfigError: when ``completion`` is neither a string nor a list of messages.

    Example:
        >>> [t["text"] for t in completion_turns("<graph>{}</graph><result>r</result> ok")]
        ['<graph>{}</graph>', ' ok']
        >>> completion_turns([{"role": "assistant", "content": "hi"}])
        [{'text': 'hi', 'tool_calls': []}]
    """
    if isinstance(completion, str):
        return [{"text": part, "tool_calls": []} for part in _RESULT.split(completion)]
    if isinstance(completion, Sequence) and all(isinstance(m, Mapping) for m in completion):
        return [
            {"text": _content(m), "tool_calls": list(m.get("tool_calls") or [])}
            for m in completion
            if m.get("role") == "assistant"
        ]
    raise ConfigError(
        f"a completion is a {type(completion).__name__}; pass a string or a list of chat "
        "messages (TRL's plain or conversational completions)"
    )


def _native_call(call: Mapping[str, Any]) -> tuple[Any, str]:
    """The graph-tool call a native ``tool_calls`` entry makes, or ``(None, why)``."""
    from closurebench.evaluate.modes.agent import GRAPH_TOOL_NAME
    from closurebench.tools import FUNCTIONS

    fn = call.get("function", call)
    name = fn.get("name") if isinstance(fn, Mapping) else None
    args: Any = fn.get("arguments") if isinstance(fn, Mapping) else None
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError as exc:
            return None, f"the arguments of {name!r} are not JSON ({exc})"
    if name == GRAPH_TOOL_NAME:
        return args, ""
    if name in FUNCTIONS and isinstance(args, Mapping):
        params = dict(inspect.signature(FUNCTIONS[name]).parameters)
        given = dict(args)
        graph = given.pop("graph", None)
        flags = {
            k: given.pop(k, params[k].default if k in params else False)
            for k in ("directed", "weighted")
        }
        return {
            "problem_type": name,
            "graph": {"type": "adjacency_list", "data": graph, **flags},
            "parameters": given,
        }, ""
    return None, f"there is no function {name!r}; call {GRAPH_TOOL_NAME}"


def read_episode(completion: Any, *, strict_protocol: bool = True) -> Episode:
    """Read an agent completion: its tool calls, final answer and whether it is valid.

    Args:
        completion: A string (turns joined by injected ``<result>`` segments) or a
            conversational message list.
        strict_protocol: Accept the ``<answer>`` tag only as the final answer.

    Returns:
        The :class:`Episode`; ``problem`` names the first protocol violation.

    Example:
        >>> ep = read_episode("<think>t</think><graph>{}</graph><result>r</result>"
        ...                   "<answer>3</answer>")
        >>> ep.answer, ep.form, len(ep.calls)
        ('<answer>3</answer>', 'tag', 1)
        >>> read_episode("Answer: 3").problem
        'the last turn has an untagged answer_line answer; the protocol needs <answer> tags'
    """
    turns = completion_turns(completion)
    if not turns:
        return Episode((), (), "", None, None, "the completion has no assistant turn")
    texts = tuple(t["text"] for t in turns)
    calls: list[Any] = []
    problem = ""
    for i, turn in enumerate(turns):
        last = i == len(turns) - 1
        if turn["tool_calls"]:
            for c in turn["tool_calls"]:
                call, why = _native_call(c) if isinstance(c, Mapping) else (None, "bad call")
                calls.append(call)
                problem = problem or why
            if last:
                problem = problem or "the episode ends on a tool call, without a final answer"
            continue
        read = read_turn(turn["text"], stopped=True, strict=strict_protocol)
        if read.kind == "graph":
            body = _GRAPH_BODY.search(read.text)
            calls.append(body.group(1).strip() if body else "")
            if last:
                problem = problem or "the episode ends on a tool call, without a final answer"
            continue
        if not last:
            problem = problem or f"turn {i + 1} is neither a tool call nor the last turn"
            continue
        if read.kind != "answer":
            problem = problem or (
                f"the last turn has an untagged {read.refused} answer; the protocol needs "
                "<answer> tags"
                if read.refused
                else "the last turn gives no final answer (no <answer> tags)"
            )
            return Episode(texts, tuple(calls), read.text, None, None, problem)
        return Episode(texts, tuple(calls), read.text, read.answer, read.form, problem)
    return Episode(texts, tuple(calls), texts[-1], None, None, problem)


def _parsed_graph(call: Any) -> tuple[Any, str]:
    """The graph a call submits, parsed by the tool's own parser (not solved)."""
    from closurebench.tools.calls import parse_call

    if call is None:
        return None, "a tool call could not be read"
    try:
        return parse_call(call).graph, ""
    except ClosureBenchError as exc:
        return None, f"a tool call's graph does not parse ({str(exc).splitlines()[0]})"
    except (ValueError, TypeError, RecursionError) as exc:
        return None, f"a tool call's graph does not parse ({exc})"


def _agent_parts(
    record: AnyInstance, completion: Any, strict_protocol: bool, lenient: bool
) -> RewardParts:
    from closurebench.scoring.structure import score_structure

    ep = read_episode(completion, strict_protocol=strict_protocol)
    problem = ep.problem
    graph = None
    for call in ep.calls:
        graph, why = _parsed_graph(call)
        problem = problem or why
    s_inv = score_structure(record, graph).s_inv if graph is not None else 0.0
    if ep.answer is None:
        return RewardParts(False, False, s_inv, None, Outcome.NO_ANSWER.value, problem)
    score = safely(score_final_answer, record, ep.answer)
    correct = score.lenient if lenient else score.strict
    valid = not problem and score.outcome not in _UNREADABLE
    reason = problem or ("" if correct else score.reason)
    return RewardParts(valid, correct, s_inv, None, score.outcome.value, reason)


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    turns = completion_turns(completion)
    return turns[-1]["text"] if turns else ""


def _single_parts(mode: Mode, record: AnyInstance, completion: Any, lenient: bool) -> RewardParts:
    text = _text(completion)
    reply = Completion(text, None, None, None, 0.0, "stop")
    score: Score = safely(mode.score, record, reply)
    correct = score.lenient if lenient else score.strict
    valid = score.outcome not in _UNREADABLE
    return RewardParts(
        valid, correct, None, None, score.outcome.value, "" if correct else score.reason
    )


def _program_parts(
    mode: ProgramMode, record: AnyInstance, completion: Any, lenient: bool
) -> RewardParts:
    program = extract_program(_text(completion), mode.fences)
    if not program.strip():
        return RewardParts(
            False, False, None, False, Outcome.NO_ANSWER.value, "the reply holds no program"
        )
    done = mode.execute(record, program)
    score = done.score
    correct = score.lenient if lenient else score.strict
    reason = "" if correct else (done.detail or score.reason)
    return RewardParts(True, correct, None, not done.exec_error, score.outcome.value, reason)


def score_completion(
    record: AnyInstance,
    completion: Any,
    *,
    mode: str | Mode = "agent",
    strict_protocol: bool = True,
    lenient: bool = False,
) -> RewardParts:
    """Score one completion of ``record`` in ``mode``: the parts every reward reads.

    Args:
        record: The typed instance.
        completion: A plain or conversational completion.
        mode: An evaluation mode's name or instance (a program mode must have its sandbox
            chosen: :class:`ProgramReward` does that).
        strict_protocol: Agent modes: accept ``<answer>`` tags only.
        lenient: Count Algorithm 1's lenient matches as correct.

    Returns:
        The :class:`RewardParts`; malformed completions are parts, never exceptions.
    """
    m = get_mode(mode) if isinstance(mode, str) else mode
    if isinstance(m, AgentMode):
        return _agent_parts(record, completion, strict_protocol, lenient)
    if isinstance(m, ProgramMode):
        return _program_parts(m, record, completion, lenient)
    return _single_parts(m, record, completion, lenient)


class _Reward(ABC):
    """Shared call: one :class:`RewardParts` per completion, mapped to a float."""

    #: TRL logs each reward under its ``__name__``.
    __name__ = "closurebench_reward"

    def __init__(
        self,
        mode: str = "agent",
        *,
        strict_protocol: bool = True,
        lenient: bool = False,
        sandbox: str | None = None,
        unsafe: bool = False,
    ) -> None:
        self.mode_name = mode
        self.strict_protocol = strict_protocol
        self.lenient = lenient
        self._mode = get_mode(mode)  # an unknown name is a ConfigError here, not per call
        if isinstance(self._mode, ProgramMode):
            self._mode.use_sandbox(sandbox, unsafe=unsafe)  # no wall, no run

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_isolation"] = getattr(self._mode, "isolation", None)
        state.pop("_mode")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        isolation = state.pop("_isolation")
        self.__dict__.update(state)
        self._mode = get_mode(self.mode_name)
        if isinstance(self._mode, ProgramMode):
            self._mode.isolation = isolation

    def parts(self, completions: Sequence[Any], ground_truth: Sequence[str]) -> list[RewardParts]:
        """Score every completion against its row's ``ground_truth``.

        Raises:
            ConfigError: when the two lists differ in length.
            DatasetFileError: when a ``ground_truth`` is not an instance record.
        """
        if len(completions) != len(ground_truth):
            raise ConfigError(
                f"{len(completions)} completions but {len(ground_truth)} ground_truth values; "
                "pass the ground_truth column of `closurebench export grpo` (one per completion)"
            )
        return [
            score_completion(
                instance_from_ground_truth(truth),
                completion,
                mode=self._mode,
                strict_protocol=self.strict_protocol,
                lenient=self.lenient,
            )
            for completion, truth in zip(completions, ground_truth, strict=True)
        ]

    @abstractmethod
    def value(self, parts: RewardParts) -> float:
        """The reward of one completion's parts."""

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        *,
        ground_truth: Sequence[str] | None = None,
        log_metric: Callable[[str, float], None] | None = None,
        log_extra: Callable[[str, list[Any]], None] | None = None,
        **columns: Any,
    ) -> list[float]:
        """TRL's reward signature: one float per completion.

        Raises:
            ConfigError: without ``completions`` or ``ground_truth``.
        """
        del prompts, completion_ids, columns
        if completions is None or ground_truth is None:
            raise ConfigError(
                f"{self.__name__} needs completions and the ground_truth column; train on "
                "a file written by `closurebench export grpo`"
            )
        parts = self.parts(completions, ground_truth)
        self.log(parts, log_metric, log_extra)
        return [self.value(p) for p in parts]

    def log(
        self,
        parts: Sequence[RewardParts],
        log_metric: Callable[[str, float], None] | None,
        log_extra: Callable[[str, list[Any]], None] | None,
    ) -> None:
        """Log the parts' means and reasons through TRL's hooks (no-op without them)."""
        del parts, log_metric, log_extra


class AnswerReward(_Reward):
    """``r_ans``: 1.0 for a correct answer, else 0.0.

    Example:
        >>> AnswerReward("direct").value(RewardParts(True, True, None, None, "x", ""))
        1.0
    """

    __name__ = "closurebench_answer"

    def value(self, parts: RewardParts) -> float:
        """1.0 when correct."""
        return float(parts.correct)


class FormatReward(_Reward):
    """1.0 for a valid completion (the gate's test), else 0.0."""

    __name__ = "closurebench_format"

    def value(self, parts: RewardParts) -> float:
        """1.0 when valid."""
        return float(parts.valid)


class StructureReward(_Reward):
    """``s_inv`` of the last submitted graph (0.0 without one); agent modes only."""

    __name__ = "closurebench_s_inv"

    def __init__(self, mode: str = "agent", **kwargs: Any) -> None:
        if mode not in _AGENT_MODES:
            raise ConfigError(
                f"StructureReward scores the graph an agent submits; mode {mode!r} submits "
                f"none: use one of {', '.join(_AGENT_MODES)}"
            )
        super().__init__(mode, **kwargs)

    def value(self, parts: RewardParts) -> float:
        """The structure similarity."""
        return float(parts.s_inv or 0.0)


class ProgramReward(_Reward):
    """1.0 when the completion's program runs to its end in the sandbox, else 0.0."""

    __name__ = "closurebench_program_runs"

    def __init__(self, mode: str = "program-python", **kwargs: Any) -> None:
        if not mode.startswith("program-"):
            raise ConfigError(
                f"ProgramReward runs programs; mode {mode!r} writes none: use program-ein or "
                "program-python"
            )
        super().__init__(mode, **kwargs)

    def value(self, parts: RewardParts) -> float:
        """1.0 when the program ran."""
        return float(bool(parts.executed))


class GatedReward(_Reward):
    """GRAIN's gated reward (Eq. 3): ``rho_err`` if invalid, else ``r_ans + lambda_inv * s_inv``.

    Args:
        mode: The evaluation mode the completions answer (default ``agent``).
        lambda_inv: Weight of the structure term (the paper's 1.0).
        rho_err: Reward of an invalid completion (default -1.0).
        **kwargs: ``strict_protocol``, ``lenient``, ``sandbox``, ``unsafe``.
    """

    __name__ = "closurebench_gated"

    def __init__(
        self, mode: str = "agent", *, lambda_inv: float = 1.0, rho_err: float = -1.0, **kwargs: Any
    ) -> None:
        for name, v in (("lambda_inv", lambda_inv), ("rho_err", rho_err)):
            if isinstance(v, bool) or not isinstance(v, int | float) or v != v:
                raise ConfigError(f"{name}={v!r} must be a number")
        super().__init__(mode, **kwargs)
        self.lambda_inv = float(lambda_inv)
        self.rho_err = float(rho_err)

    def value(self, parts: RewardParts) -> float:
        """The gated reward of one completion."""
        return parts.gated(self.lambda_inv, self.rho_err)

    def log(
        self,
        parts: Sequence[RewardParts],
        log_metric: Callable[[str, float], None] | None,
        log_extra: Callable[[str, list[Any]], None] | None,
    ) -> None:
        """Log ``valid``, ``r_ans`` and ``s_inv`` means, and each completion's reason."""
        if not parts:
            return
        if log_metric is not None:
            n = len(parts)
            log_metric("closurebench/valid", sum(p.valid for p in parts) / n)
            log_metric("closurebench/r_ans", sum(p.correct for p in parts) / n)
            log_metric("closurebench/s_inv", sum(p.s_inv or 0.0 for p in parts) / n)
        if log_extra is not None:
            log_extra("closurebench_reason", [p.reason for p in parts])
