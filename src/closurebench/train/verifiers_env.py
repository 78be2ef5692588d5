"""A ``verifiers`` environment of the benchmarks (the optional ``verifiers`` package).

``load_environment(suite=..., mode=..., split=..., seed=..., size=...)`` (what
``vf.load_environment("closurebench.train.verifiers_env", ...)`` and ``vf-eval`` call)
returns

* ``mode="direct"`` or ``"cot"``: a ``vf.SingleTurnEnv`` whose prompts are the mode's
  own system and user turns (:func:`closurebench.train.export.grpo_record`);
* ``mode="agent"``: a ``vf.MultiTurnEnv`` of the GRAIN ``<graph>`` text protocol
  (:class:`GraphProtocolEnv`): its ``env_response`` answers the model's ``<graph>`` call
  with the graph tool's ``<result>\\n…\\n</result>`` as the agent mode sends it back
  (:func:`closurebench.train.rlenv.tool_reply`), and the rollout stops at the first turn
  that is no tool call (read by :func:`~closurebench.evaluate.modes.agent.read_turn`),
  after ``max_calls`` model turns, or at ``max_tokens`` completion tokens; the model is
  sampled with the stop sequences ``</graph>`` and ``</answer>``.

The rubric (:func:`rubric`) scores with closurebench's own rewards, nothing
re-implemented: ``closurebench_gated`` (weight 1: GRAIN's gated reward,
:class:`~closurebench.train.rewards.GatedReward` with the structure term in agent mode),
and the metrics ``closurebench_format`` (the gate), ``closurebench_answer`` (``r_ans``)
and, in agent mode, ``closurebench_s_inv`` — each from one
:meth:`~closurebench.train.rewards.GatedReward.parts` call per rollout (cached in the
state). Dataset rows: ``prompt`` (messages), ``answer`` (the reference as canonical
JSON), ``info`` (``ground_truth``: the instance record as JSON, ``record_id``, ``suite``,
``task_name``, ``n``, ``mode``; verifiers reserves ``info.task``).

Program modes are not offered (:func:`closurebench.train.rlenv.check_mode`).

Versions: the classic API (``SingleTurnEnv``, ``MultiTurnEnv``, ``Rubric``) of
``verifiers>=0.1.14,<0.2``, the ``verifiers`` extra (``uv sync --extra verifiers``).
verifiers 0.1 caps ``datasets`` below 4.7 and trl (the ``train`` extra) needs 4.7 or
later, so the two extras are declared conflicting and live in separate environments.
``verifiers`` 0.4 is the ``verifiers.v1`` rewrite (tasksets, harnesses) without these
classes; :func:`require_verifiers` says so in one line.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
from collections.abc import Mapping
from typing import Any

from closurebench.errors import ConfigError
from closurebench.train.rlenv import (
    SINGLE_TURN,
    EpisodeLimits,
    RewardSettings,
    TaskSource,
    check_mode,
    plain_messages,
    reward_breakdown,
    tool_reply,
)

__all__ = [
    "STOP",
    "VERIFIERS_SPEC",
    "dataset_rows",
    "load_environment",
    "require_verifiers",
    "reward_functions",
    "rubric",
]

#: The verifiers versions this module is written against.
VERIFIERS_SPEC = "verifiers>=0.1.14,<0.2"
#: Stop sequences of every agent model call (the agent mode's).
STOP = ["</graph>", "</answer>"]
_STATE_KEY = "closurebench_parts"


def require_verifiers() -> Any:
    """The ``verifiers`` module, with the classic environment API.

    Raises:
        ConfigError: one line naming what is missing and the install command.
    """
    hint = (
        "install it with `uv sync --extra verifiers` (an environment without the train "
        f"extra: verifiers 0.1 needs datasets<4.7, trl needs >=4.7) or `uv pip install "
        f"'{VERIFIERS_SPEC}'`"
    )
    if importlib.util.find_spec("verifiers") is None:
        raise ConfigError(f"the verifiers environment needs the `verifiers` package; {hint}")
    vf = importlib.import_module("verifiers")
    missing = [n for n in ("SingleTurnEnv", "MultiTurnEnv", "Rubric") if not hasattr(vf, n)]
    if missing:
        version = getattr(vf, "__version__", "?")
        raise ConfigError(
            f"verifiers {version} has no {', '.join(missing)} (the v1 rewrite); {hint}"
        )
    return vf


def dataset_rows(source: TaskSource, mode: str, count: int | None = None) -> list[dict[str, Any]]:
    """The dataset rows of ``source`` in ``mode``: ``prompt``, ``answer``, ``info``.

    Example:
        >>> row = dataset_rows(TaskSource("grit", size=8, task="bfs"), "direct", 1)[0]
        >>> [m["role"] for m in row["prompt"]], sorted(row["info"])
        (['system', 'user'], ['ground_truth', 'mode', 'n', 'record_id', 'suite', 'task_name'])
    """
    from closurebench.train.export import grpo_record

    rows = []
    for i in range(source.size if count is None else min(count, source.size)):
        rec = grpo_record(source.record(i), check_mode(mode))
        rows.append(
            {
                "prompt": [{"role": m.role, "content": m.content} for m in rec.prompt],
                "answer": rec.answer,
                "info": {
                    "ground_truth": rec.ground_truth,
                    "record_id": rec.id,
                    "suite": rec.suite,
                    "task_name": rec.task or rec.category,
                    "n": rec.n,
                    "mode": mode,
                },
            }
        )
    return rows


def _truth(info: Any) -> str:
    if isinstance(info, str):
        import json

        info = json.loads(info)
    if not isinstance(info, Mapping) or not isinstance(info.get("ground_truth"), str):
        raise ConfigError("a closurebench rollout needs info.ground_truth (the instance JSON)")
    return str(info["ground_truth"])


def reward_functions(mode: str, settings: RewardSettings | None = None) -> list[Any]:
    """The rubric's functions: gated reward, then the metrics (see the module docstring).

    Each takes ``completion``, ``info`` and (optionally) ``state``, as ``vf.Rubric``
    passes them, and returns a float; they also run without verifiers.

    Example:
        >>> [f.__name__ for f in reward_functions("agent")]
        ['closurebench_gated', 'closurebench_format', 'closurebench_answer', 'closurebench_s_inv']
    """
    reward = (settings or RewardSettings()).reward(check_mode(mode))

    def parts(completion: Any, info: Any, state: Any) -> dict[str, Any]:
        cached = state.get(_STATE_KEY) if isinstance(state, Mapping) else None
        if cached is not None:
            return dict(cached)
        plain: Any = plain_messages(completion) if not isinstance(completion, str) else completion
        got = reward_breakdown(reward, plain, _truth(info))
        if state is not None:
            with contextlib.suppress(TypeError):  # a read-only state: no cache
                state[_STATE_KEY] = got
        return got

    def closurebench_gated(completion: Any, info: Any, state: Any = None, **_: Any) -> float:
        return float(parts(completion, info, state)["reward"])

    def closurebench_format(completion: Any, info: Any, state: Any = None, **_: Any) -> float:
        return float(parts(completion, info, state)["valid"])

    def closurebench_answer(completion: Any, info: Any, state: Any = None, **_: Any) -> float:
        return float(parts(completion, info, state)["correct"])

    def closurebench_s_inv(completion: Any, info: Any, state: Any = None, **_: Any) -> float:
        return float(parts(completion, info, state)["s_inv"] or 0.0)

    funcs: list[Any] = [closurebench_gated, closurebench_format, closurebench_answer]
    if mode not in SINGLE_TURN:
        funcs.append(closurebench_s_inv)
    return funcs


def rubric(mode: str, settings: RewardSettings | None = None) -> Any:
    """A ``vf.Rubric``: the gated reward (weight 1) and the metrics (weight 0)."""
    vf = require_verifiers()
    funcs = reward_functions(mode, settings)
    return vf.Rubric(funcs=funcs, weights=[1.0] + [0.0] * (len(funcs) - 1))


def _text(message: Any) -> str:
    plain = plain_messages([message])[0]
    content = plain.get("content")
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, Mapping))
    return content if isinstance(content, str) else ""


def _last_assistant(messages: Any) -> str:
    for m in reversed(list(messages or [])):
        role = m.get("role") if isinstance(m, Mapping) else getattr(m, "role", None)
        if role == "assistant":
            return _text(m)
    return ""


def _agent_env_class(vf: Any) -> type:
    """:class:`GraphProtocolEnv` over the installed ``vf.MultiTurnEnv``."""

    class GraphProtocolEnv(vf.MultiTurnEnv):
        """The GRAIN ``<graph>`` text protocol: tool results as user turns, answer ends."""

        def __init__(
            self, *, limits: EpisodeLimits, strict_protocol: bool = True, **kwargs: Any
        ) -> None:
            super().__init__(max_turns=limits.max_calls, **kwargs)
            self.limits = limits
            self.strict_protocol = strict_protocol
            self.set_max_total_completion_tokens(limits.max_tokens)

        def is_tool_call(self, text: str) -> bool:
            """The turn is a ``<graph>`` call (the agent modes' rule)."""
            from closurebench.evaluate.modes.agent import read_turn

            return read_turn(text, stopped=True, strict=self.strict_protocol).kind == "graph"

        @vf.stop
        async def protocol_ended(self, state: Any) -> bool:
            """The last model turn is no tool call: the episode is over."""
            trajectory = state.get("trajectory") or []
            if not trajectory:
                return False
            return not self.is_tool_call(_last_assistant(trajectory[-1]["completion"]))

        async def env_response(self, messages: Any, state: Any, **kwargs: Any) -> Any:
            """Answer the last turn's ``<graph>`` call with the tool's ``<result>``."""
            reply, call = tool_reply(_last_assistant(messages), self.limits.max_result_chars)
            state.setdefault("closurebench_calls", []).append(call)
            user = getattr(vf, "UserMessage", None)
            return [user(content=reply) if user else {"role": "user", "content": reply}]

    return GraphProtocolEnv


def load_environment(
    suite: str = "grit",
    mode: str = "agent",
    split: str = "train",
    seed: int = 0,
    size: int = 64,
    *,
    task: str | None = None,
    eval_split: str | None = None,
    eval_size: int | None = None,
    max_calls: int | None = None,
    max_tokens: int | None = None,
    max_result_chars: int | None = None,
    lambda_inv: float = 1.0,
    rho_err: float = -1.0,
    strict_protocol: bool = True,
    lenient: bool = False,
    **config: Any,
) -> Any:
    """The closurebench ``verifiers`` environment (see the module docstring).

    Args:
        suite: ``grit`` or ``closure``.
        mode: ``direct``, ``cot`` (single turn) or ``agent`` (the ``<graph>`` protocol).
        split: The training split.
        seed: The dataset's master seed.
        size: Training rows.
        task: One GRIT task or ClosureBench category (None: all of the suite's).
        eval_split: A split for ``eval_dataset`` (None: none).
        eval_size: Its rows (default ``size``).
        max_calls: Agent: model turns per rollout (default 6).
        max_tokens: Agent: completion tokens per rollout (default 12,000).
        max_result_chars: Agent: characters of a ``<result>`` (default 8,000).
        lambda_inv: Weight of ``s_inv`` in the gated reward.
        rho_err: Reward of an invalid completion.
        strict_protocol: Agent: only ``<answer>`` tags end with an answer.
        lenient: Count lenient matches as correct.
        **config: More generator fields (``n_max``, ...).

    Raises:
        ConfigError: verifiers missing or too new, a mode not offered, a bad config.
    """
    vf = require_verifiers()
    datasets = importlib.import_module("datasets")
    check_mode(mode)
    settings = RewardSettings(lambda_inv, rho_err, strict_protocol, lenient)
    source = TaskSource(suite, split=split, seed=seed, size=size, task=task, **config)
    kwargs: dict[str, Any] = {
        "dataset": datasets.Dataset.from_list(dataset_rows(source, mode)),
        "rubric": rubric(mode, settings),
    }
    if eval_split is not None:
        held = TaskSource(
            suite, split=eval_split, seed=seed, size=eval_size or size, task=task, **config
        )
        kwargs["eval_dataset"] = datasets.Dataset.from_list(dataset_rows(held, mode))
    if mode in SINGLE_TURN:
        return vf.SingleTurnEnv(**kwargs)
    base = EpisodeLimits()
    limits = EpisodeLimits(
        max_calls=max_calls or base.max_calls,
        max_tokens=max_tokens or base.max_tokens,
        max_result_chars=max_result_chars or base.max_result_chars,
    )
    env_cls = _agent_env_class(vf)
    return env_cls(
        limits=limits,
        strict_protocol=strict_protocol,
        sampling_args={"stop": list(STOP)},
        **kwargs,
    )
