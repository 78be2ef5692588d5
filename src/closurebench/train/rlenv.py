"""Episodes for remote RL stacks: the evaluation's prompts, the ``<graph>`` protocol, our rewards.

What :mod:`closurebench.train.openenv_server` (``closurebench serve-env``) and
:mod:`closurebench.train.verifiers_env` share, so an episode driven over HTTP, through a
``verifiers`` environment or by TRL gets the same prompt, the same tool answers and the
same reward:

* :class:`TaskSource` — the rows: item ``i`` of :func:`closurebench.dataset.create_dataset`
  (``suite`` ``grit`` or ``closure``, optionally one task or category) as the GRPO record
  of the chosen mode (:func:`closurebench.train.export.grpo_record`: the mode's own
  system and user turns, ``ground_truth``);
* :class:`TextEpisode` — one episode, one model turn per :meth:`TextEpisode.step`.
  Single-turn modes (``direct``, ``cot``) end at the first turn. ``agent`` is the GRAIN
  text protocol as :class:`~closurebench.evaluate.modes.agent.AgentMode` runs it: a turn
  is read by :func:`~closurebench.evaluate.modes.agent.read_turn` (the agent modes' one
  rule); a ``<graph>`` call is answered by the graph tool
  (:func:`closurebench.tools.run_tool`) as ``<result>\\n…\\n</result>`` (cut at
  ``max_result_chars``); any other turn ends the episode, and so do the limits
  (:class:`EpisodeLimits`: model turns, and the token budget estimated from characters);
* the reward — when the episode ends its completion (the assistant turns and the
  ``<result>`` user turns) is scored by :class:`closurebench.train.rewards.GatedReward`
  in the mode (GRAIN Eq. 3: ``rho_err`` if invalid, else ``r_ans + lambda_inv * s_inv``),
  and the parts are reported (:func:`reward_breakdown`). Nothing is scored here.

Program modes (``program-ein``, ``program-python``) are not offered (:data:`SERVED_MODES`):
their reward runs model-written programs, which this project runs only in its sandbox,
and a reward server is not the place to provision one; train program modes with
:class:`~closurebench.train.rewards.ProgramReward` in-process, where the sandbox is
checked at start. ``agent-tools`` (native ``tool_calls``) is not offered either: the
actions here are text.

Example:
    >>> src = TaskSource("grit", split="train", seed=0, size=8, task="shortest_path")
    >>> ep = TextEpisode(src.record(0), "agent")
    >>> [m["role"] for m in ep.prompt]
    ['system', 'user']
    >>> out = ep.step(f"<answer>{ep.record.answer}</answer>")
    >>> out.done, out.reward, out.breakdown["correct"], out.breakdown["end"]
    (True, 1.0, True, 'answered')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from closurebench.errors import ConfigError
from closurebench.evaluate.modes.agent import (
    CHARS_PER_TOKEN,
    MAX_COMPLETION_TOKENS,
    MAX_RESULT_CHARS,
    MAX_ROUNDS,
    read_turn,
)
from closurebench.evaluate.modes.base import AnyInstance
from closurebench.jsonl import canonical_json

__all__ = [
    "SERVED_MODES",
    "SINGLE_TURN",
    "SUITES",
    "EpisodeLimits",
    "RewardSettings",
    "StepOutcome",
    "TaskSource",
    "TextEpisode",
    "check_mode",
    "plain_messages",
    "records_json",
    "reward_breakdown",
    "tool_reply",
]

#: Suites a source draws from.
SUITES = ("grit", "closure")
#: Modes offered to remote stacks (see the module docstring for the others).
SERVED_MODES = ("direct", "cot", "agent")
#: Modes whose episode is one turn.
SINGLE_TURN = ("direct", "cot")


def check_mode(mode: str) -> str:
    """``mode`` if it is offered here, else a :class:`~closurebench.errors.ConfigError`.

    Example:
        >>> check_mode("agent")
        'agent'
        >>> check_mode("program-python")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: mode 'program-python' is not offered to remote RL stacks: its reward runs model-written programs, which run only in closurebench's sandbox; train it in-process with ProgramReward (modes offered: direct, cot, agent)
    """  # noqa: E501
    if mode in SERVED_MODES:
        return mode
    if mode.startswith("program-"):
        why = (
            "its reward runs model-written programs, which run only in closurebench's "
            "sandbox; train it in-process with ProgramReward"
        )
    elif mode == "agent-tools":
        why = "its actions are native tool calls; use agent, the <graph> text protocol"
    else:
        why = "unknown mode"
    raise ConfigError(
        f"mode {mode!r} is not offered to remote RL stacks: {why} (modes offered: "
        f"{', '.join(SERVED_MODES)})"
    )


@dataclass(frozen=True)
class EpisodeLimits:
    """The limits of one agent episode (the agent mode's defaults).

    Attributes:
        max_calls: Model turns per episode (``--agent-max-calls``): the episode ends
            after this many, a tool call's result included.
        max_tokens: Generated tokens per episode, estimated as ``ceil(chars / 4)`` per
            turn (the agent mode's estimate for servers without usage); reaching it ends
            the episode after the turn that reached it.
        max_result_chars: Characters of a ``<result>`` sent back.
        max_turn_chars: Characters of one model turn accepted (0, the default: the
            whole token budget in characters).

    Example:
        >>> EpisodeLimits().max_turn_chars, EpisodeLimits(max_tokens=10).max_turn_chars
        (48000, 40)
    """

    max_calls: int = MAX_ROUNDS
    max_tokens: int = MAX_COMPLETION_TOKENS
    max_result_chars: int = MAX_RESULT_CHARS
    max_turn_chars: int = 0

    def __post_init__(self) -> None:
        for name in ("max_calls", "max_tokens", "max_result_chars", "max_turn_chars"):
            v = getattr(self, name)
            if v == 0 and name == "max_turn_chars":
                object.__setattr__(self, name, self.max_tokens * CHARS_PER_TOKEN)
            elif isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"{name}={v!r} must be a whole number >= 1")

    def to_json(self) -> dict[str, Any]:
        """The limits as a JSON object."""
        return asdict(self)


@dataclass(frozen=True)
class RewardSettings:
    """How an episode is rewarded (:class:`~closurebench.train.rewards.GatedReward`'s options).

    Attributes:
        lambda_inv: Weight of ``s_inv``.
        rho_err: Reward of an invalid completion.
        strict_protocol: Agent episodes: only ``<answer>`` tags end with an answer.
        lenient: Count Algorithm 1's lenient matches as correct.
    """

    lambda_inv: float = 1.0
    rho_err: float = -1.0
    strict_protocol: bool = True
    lenient: bool = False

    def reward(self, mode: str) -> Any:
        """The :class:`~closurebench.train.rewards.GatedReward` of ``mode``."""
        from closurebench.train.rewards import GatedReward

        return GatedReward(
            mode,
            lambda_inv=self.lambda_inv,
            rho_err=self.rho_err,
            strict_protocol=self.strict_protocol,
            lenient=self.lenient,
        )


def reward_breakdown(reward: Any, completion: Any, ground_truth: str) -> dict[str, Any]:
    """Score one completion with ``reward`` (a :class:`GatedReward`): the value and its parts.

    Args:
        reward: A :class:`~closurebench.train.rewards.GatedReward` (or any reward with
            ``parts`` and ``value``).
        completion: A plain or conversational completion.
        ground_truth: The instance record as JSON.

    Returns:
        ``{"reward", "valid", "correct", "s_inv", "outcome", "reason"}``.
    """
    parts = reward.parts([completion], [ground_truth])[0]
    return {
        "reward": float(reward.value(parts)),
        "valid": parts.valid,
        "correct": parts.correct,
        "s_inv": parts.s_inv,
        "outcome": parts.outcome,
        "reason": parts.reason,
    }


class TaskSource:
    """The records an environment asks about: items of a procedural dataset.

    Args:
        suite: ``grit`` or ``closure``.
        split: The split the items come from (``train``, ``test``, ...).
        seed: The dataset's master seed.
        size: Items per task.
        task: One GRIT task or ClosureBench category (None: all of the suite's).
        **config: Other fields of the suite's generator config (``n_max``, ...).

    Raises:
        ConfigError: an unknown suite, task or config field (from the generator).
    """

    def __init__(
        self,
        suite: str,
        *,
        split: str = "train",
        seed: int = 0,
        size: int = 64,
        task: str | None = None,
        **config: Any,
    ) -> None:
        if suite not in SUITES:
            raise ConfigError(f"suite {suite!r}: choose grit or closure")
        self.suite = suite
        self.split = split
        self.seed = int(seed)
        self.size = int(size)
        self.task = task
        self.config = dict(config)
        self._datasets: dict[str | None, Any] = {}
        self.dataset(task)  # a bad configuration fails here, not at the first reset

    def name(self, task: str | None) -> str:
        """The :func:`~closurebench.dataset.create_dataset` name of ``task`` (None: all)."""
        if task is None:
            return self.suite
        return f"grit:{task}" if self.suite == "grit" else task

    def dataset(self, task: str | None = None) -> Any:
        """The dataset of ``task`` (None: this source's task), made once."""
        from closurebench.dataset import create_dataset

        key = self.task if task is None else task
        if key not in self._datasets:
            self._datasets[key] = create_dataset(
                self.name(key), seed=self.seed, size=self.size, split=self.split, **self.config
            )
        return self._datasets[key]

    def record(self, index: int, task: str | None = None) -> AnyInstance:
        """The typed record of item ``index`` of ``task``'s dataset.

        Raises:
            IndexError: ``index`` is outside ``0 .. size - 1``.
        """
        record: AnyInstance = self.dataset(task).record(index)
        return record


@dataclass(frozen=True)
class StepOutcome:
    """What one model turn led to.

    Attributes:
        text: The environment's reply (``<result>…</result>`` after a tool call; ""
            when there is none).
        done: The episode has ended.
        reward: The gated reward when ``done``, else None.
        breakdown: The reward's parts and how the episode ended (``end``), when done.
        kind: How the turn was read: ``graph``, ``answer`` or None.
    """

    text: str
    done: bool
    reward: float | None
    breakdown: dict[str, Any] | None
    kind: str | None


@dataclass
class TextEpisode:
    """One episode of ``record`` in ``mode``, stepped one model turn at a time.

    Args:
        record: The instance the episode asks about.
        mode: One of :data:`SERVED_MODES`.
        limits: The agent episode's limits.
        rewards: How the episode is rewarded.
        reward: A ready :class:`~closurebench.train.rewards.GatedReward` of ``mode``
            (shared between episodes; default: made from ``rewards``).

    Attributes:
        prompt: The prompt messages (the mode's system and user turns).
        turns: The messages after the prompt: assistant turns and ``<result>`` turns.
        calls: The tool calls run (problem type, outcome kind, ok).
        budget_used: Estimated tokens generated.
        end: How the episode ended (``answered``, ``no_answer``, ``max_rounds``,
            ``token_limit``, ``single_turn``), "" while it runs.
        result: The last :class:`StepOutcome` (the reward once done).
    """

    record: AnyInstance
    mode: str
    limits: EpisodeLimits = field(default_factory=EpisodeLimits)
    rewards: RewardSettings = field(default_factory=RewardSettings)
    reward: Any = None
    prompt: list[dict[str, Any]] = field(init=False)
    turns: list[dict[str, Any]] = field(init=False, default_factory=list)
    calls: list[dict[str, Any]] = field(init=False, default_factory=list)
    budget_used: int = field(init=False, default=0)
    end: str = field(init=False, default="")
    result: StepOutcome | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        from closurebench.train.export import grpo_record

        check_mode(self.mode)
        row = grpo_record(self.record, self.mode)
        self.prompt = [{"role": m.role, "content": m.content} for m in row.prompt]
        self.ground_truth = row.ground_truth
        if self.reward is None:
            self.reward = self.rewards.reward(self.mode)

    @property
    def done(self) -> bool:
        """The episode has ended."""
        return bool(self.end)

    @property
    def rounds(self) -> int:
        """Model turns so far."""
        return sum(1 for t in self.turns if t["role"] == "assistant")

    def completion(self) -> list[dict[str, Any]]:
        """The completion so far, as the rewards read it (conversational)."""
        return [dict(t) for t in self.turns]

    def step(self, text: str) -> StepOutcome:
        """Take one model turn.

        Args:
            text: The model's reply (a server may have stopped it at ``</graph>`` or
                ``</answer>``; the stop sequence need not be included).

        Returns:
            The :class:`StepOutcome`.

        Raises:
            ConfigError: the episode has ended, or the turn is longer than
                ``limits.max_turn_chars``.
        """
        if self.done:
            raise ConfigError(f"the episode has ended ({self.end}); reset to start another")
        if len(text) > self.limits.max_turn_chars:
            raise ConfigError(
                f"the turn is {len(text):,} characters; an episode turn is at most "
                f"{self.limits.max_turn_chars:,}"
            )
        self.budget_used += math.ceil(len(text) / CHARS_PER_TOKEN)
        if self.mode in SINGLE_TURN:
            self.turns.append({"role": "assistant", "content": text})
            return self._finish("single_turn", "", None)
        read = read_turn(text, stopped=True, strict=self.rewards.strict_protocol)
        self.turns.append({"role": "assistant", "content": read.text})
        if read.kind != "graph":
            return self._finish("answered" if read.kind == "answer" else "no_answer", "", read.kind)
        reply = self._call_tool(read.text)
        self.turns.append({"role": "user", "content": reply})
        if self.rounds >= self.limits.max_calls:
            return self._finish("max_rounds", reply, "graph")
        if self.budget_used >= self.limits.max_tokens:
            return self._finish("token_limit", reply, "graph")
        self.result = StepOutcome(reply, False, None, None, "graph")
        return self.result

    def _call_tool(self, turn: str) -> str:
        """Run the turn's ``<graph>`` call; the ``<result>`` text the agent mode sends back."""
        reply, call = tool_reply(turn, self.limits.max_result_chars)
        self.calls.append(call)
        return reply

    def _finish(self, end: str, text: str, kind: str | None) -> StepOutcome:
        self.end = end
        completion: Any = self.completion()
        scores = reward_breakdown(self.reward, completion, self.ground_truth)
        scores["end"] = end
        self.result = StepOutcome(text, True, scores["reward"], scores, kind)
        return self.result

    def state(self) -> dict[str, Any]:
        """The episode's state as JSON (no ground truth)."""
        return {
            "record_id": self.record.id,
            "suite": str(self.record.suite),
            "mode": self.mode,
            "step_count": self.rounds,
            "done": self.done,
            "end": self.end or None,
            "budget_used": self.budget_used,
            "calls": list(self.calls),
            "limits": self.limits.to_json(),
            "reward": None if self.result is None else self.result.reward,
            "breakdown": None if self.result is None else self.result.breakdown,
        }


def tool_reply(turn: str, max_result_chars: int = MAX_RESULT_CHARS) -> tuple[str, dict[str, Any]]:
    """Answer a turn's ``<graph>`` call as the agent mode does: ``<result>\\n…\\n</result>``.

    Args:
        turn: The model's turn (its last ``<graph>`` block is the call; an unclosed one,
            stopped at ``</graph>``, counts).
        max_result_chars: The tool answer is cut past this many characters.

    Returns:
        ``(reply, call)``: the user turn's text and ``{"problem_type", "kind", "ok"}``.

    Example:
        >>> reply, call = tool_reply("<graph>not json")
        >>> reply.startswith("<result>"), call["ok"], call["kind"]
        (True, False, 'invalid_json')
    """
    from closurebench.evaluate.modes.agent import _graph_payload
    from closurebench.tools import run_tool

    result = run_tool(_graph_payload(turn))
    out = result.text
    if len(out) > max_result_chars:
        out = out[:max_result_chars] + "\n[... cut ...]"
    call = {"problem_type": result.problem_type, "kind": result.kind, "ok": result.ok}
    return f"<result>\n{out}\n</result>", call


def records_json(records: Sequence[AnyInstance]) -> list[str]:
    """Canonical JSON of each record (the rewards' ``ground_truth`` column)."""
    return [canonical_json(r.to_json()) for r in records]


def plain_messages(messages: Any) -> list[dict[str, Any]]:
    """Chat messages as plain dicts (``role``, ``content``, ``tool_calls``) from dicts or models.

    Example:
        >>> plain_messages([{"role": "assistant", "content": "hi", "extra": 1}])
        [{'role': 'assistant', 'content': 'hi'}]
    """
    if isinstance(messages, str):
        return [{"role": "assistant", "content": messages}]
    out: list[dict[str, Any]] = []
    for m in messages or []:
        get = m.get if isinstance(m, Mapping) else lambda k, d=None, m=m: getattr(m, k, d)
        msg: dict[str, Any] = {"role": str(get("role", "")), "content": get("content", "")}
        calls = get("tool_calls", None)
        if calls:
            msg["tool_calls"] = [c if isinstance(c, Mapping) else _dump(c) for c in calls]
        if not isinstance(msg["content"], str | list) and msg["content"] is not None:
            msg["content"] = str(msg["content"])
        out.append(msg)
    return out


def _dump(obj: Any) -> Any:
    dump = getattr(obj, "model_dump", None)
    return dump() if callable(dump) else obj
