"""The verifiers environment: rollouts against a loopback fake model, rewards = ours.

Skipped without ``verifiers`` (the ``verifiers`` extra, in an environment without the
``train`` extra: ``UV_PROJECT_ENVIRONMENT=.venv-verifiers uv run --extra verifiers pytest
tests/rlenv``); with ``CLOSUREBENCH_REQUIRE_VERIFIERS=1`` (``.ci/run`` sets it there) a
missing package fails instead. The reward functions themselves run without it (the last
test).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from closurebench.train.export import sft_record
from closurebench.train.rewards import GatedReward
from closurebench.train.rlenv import TaskSource, TextEpisode, plain_messages
from closurebench.train.verifiers_env import dataset_rows, reward_functions

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evaluate"))

GRIT = TaskSource("grit", split="train", seed=0, size=8, task="shortest_path")
CLOSURE = TaskSource("closure", split="train", seed=0, size=4, task="reachability")


def _vf() -> Any:
    if os.environ.get("CLOSUREBENCH_REQUIRE_VERIFIERS") == "1":
        # CI installed it: an import error fails the test.
        required = importlib.import_module("verifiers")
        version = getattr(required, "__version__", "?")
        assert hasattr(required, "MultiTurnEnv"), f"verifiers {version} lacks the classic API"
        return required
    vf = pytest.importorskip("verifiers")
    if not hasattr(vf, "MultiTurnEnv"):
        pytest.skip(f"verifiers {getattr(vf, '__version__', '?')} lacks the classic env API")
    return vf


def _rollout(env: Any, row: dict[str, Any], replies: list[str], monkeypatch: Any) -> Any:
    from fake_openai_server import FakeOpenAIServer, Reply

    vf = _vf()
    monkeypatch.setenv("CLOSUREBENCH_FAKE_KEY", "k")
    with FakeOpenAIServer() as fake:
        fake.script(*[Reply(r) for r in replies], default=lambda req: Reply("no more"))
        cfg = vf.ClientConfig(
            api_base_url=fake.base_url, api_key_var="CLOSUREBENCH_FAKE_KEY", max_retries=0
        )
        state = asyncio.run(env._run_rollout_state(row, cfg, "fake", dict(env.sampling_args)))
        bodies = [r.body for r in fake.requests]
    return state, bodies


def _ours(mode: str, completion: Any, source: TaskSource, index: int) -> float:
    truth = TextEpisode(source.record(index), mode).ground_truth
    return GatedReward(mode)(completions=[completion], ground_truth=[truth])[0]


def test_single_turn_rollouts(monkeypatch: pytest.MonkeyPatch) -> None:
    from closurebench.train.verifiers_env import load_environment

    _vf()
    env = load_environment(suite="closure", mode="direct", size=4, task="reachability")
    assert type(env).__name__ == "SingleTurnEnv" and len(env.dataset) == 4
    row = dict(env.dataset[2])
    record = CLOSURE.record(2)
    for reply in (json.dumps({"answer": record.answer}), '{"answer": "nope"}', "no json"):
        state, bodies = _rollout(env, row, [reply], monkeypatch)
        assert len(bodies) == 1 and bodies[0]["messages"] == row["prompt"]
        assert state["reward"] == _ours("direct", reply, CLOSURE, 2)
        assert state["metrics"]["closurebench_gated"] == state["reward"]


@pytest.mark.parametrize("script", ["reference", "wrong", "malformed", "untagged"])
def test_agent_rollouts(monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    from closurebench.train.verifiers_env import load_environment

    _vf()
    env = load_environment(suite="grit", mode="agent", size=8, task="shortest_path")
    row = dict(env.dataset[0])
    record = GRIT.record(0)
    reference = [
        m.content or "" for m in sft_record(record, "agent").messages if m.role == "assistant"
    ]
    replies = {
        "reference": reference,  # a correct <graph> call, then the answer
        "wrong": [reference[0], "<answer>-1</answer>"],
        "malformed": ["<graph>{oops", f"<answer>{record.answer}</answer>"],
        "untagged": [f"Answer: {record.answer}"],
    }[script]
    state, bodies = _rollout(env, row, replies, monkeypatch)
    assert len(bodies) == len(replies)
    assert bodies[0]["stop"] == ["</graph>", "</answer>"]
    completion = plain_messages(state["completion"])
    assert [m["role"] for m in completion] == ["assistant", "user"] * (len(replies) - 1) + [
        "assistant"
    ]
    assert state["reward"] == _ours("agent", completion, GRIT, 0)
    expected = {"reference": 2.0, "wrong": 1.0, "malformed": -1.0, "untagged": -1.0}[script]
    assert state["reward"] == pytest.approx(expected)
    # the tool result the model saw is the server's (same tool, same text)
    if len(replies) > 1:
        ep = TextEpisode(record, "agent")
        assert ep.step(replies[0]).text == completion[1]["content"]


def test_env_response_and_rubric_directly() -> None:
    from closurebench.train.verifiers_env import load_environment

    _vf()
    env = load_environment(suite="grit", mode="agent", size=8, task="shortest_path")
    state: dict[str, Any] = {}
    out = asyncio.run(env.env_response([{"role": "assistant", "content": "<graph>{x"}], state))
    assert "invalid_json" in plain_messages(out)[0]["content"]
    assert state["closurebench_calls"][0]["ok"] is False

    def names(rubric: Any) -> list[str]:
        subs = getattr(rubric, "rubrics", [])
        return [f.__name__ for f in rubric.funcs] + [n for r in subs for n in names(r)]

    assert names(env.rubric)[:4] == [
        "closurebench_gated",
        "closurebench_format",
        "closurebench_answer",
        "closurebench_s_inv",
    ]


def test_reward_functions_match_without_verifiers() -> None:
    row = dataset_rows(GRIT, "agent", 1)[0]
    answer = GRIT.record(0).answer
    funcs = reward_functions("agent")
    for completion in (f"<answer>{answer}</answer>", "<answer>0</answer>", "nothing"):
        want = _ours("agent", completion, GRIT, 0)
        state: dict[str, Any] = {}
        got = [f(completion=completion, info=row["info"], state=state) for f in funcs]
        assert got[0] == want
        assert got[1] == (want != -1.0)
    direct = dataset_rows(CLOSURE, "direct", 1)[0]
    assert reward_functions("direct")[0](
        completion=[{"role": "assistant", "content": "x"}], info=direct["info"]
    ) == _ours("direct", "x", CLOSURE, 0)
