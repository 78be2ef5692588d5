"""The OpenEnv-compatible HTTP server: episodes over loopback, rewards = closurebench's own."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from closurebench.train.export import sft_record
from closurebench.train.openenv_server import EnvServer, ResetRequest, make_http_server
from closurebench.train.rewards import GatedReward
from closurebench.train.rlenv import EpisodeLimits, TaskSource, TextEpisode

SOURCE = TaskSource("grit", split="train", seed=0, size=8, task="shortest_path")
CLOSURE = TaskSource("closure", split="train", seed=0, size=4, task="reachability")


class Client:
    """A tiny JSON client over one loopback server."""

    def __init__(self, port: int) -> None:
        self.port = port

    def call(
        self, method: str, path: str, body: Any = None, raw: bytes | None = None
    ) -> tuple[int, dict[str, Any]]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {"Content-Type": "application/json"}
        if data is not None:
            headers["Content-Length"] = str(len(data))
        conn.request(method, path, body=data, headers=headers)
        resp = conn.getresponse()
        payload = json.loads(resp.read() or b"{}")
        conn.close()
        return resp.status, payload

    def reset(self, **body: Any) -> dict[str, Any]:
        status, out = self.call("POST", "/reset", body)
        assert status == 200, out
        return out

    def step(self, episode_id: str, message: str) -> dict[str, Any]:
        status, out = self.call(
            "POST", "/step", {"episode_id": episode_id, "action": {"message": message}}
        )
        assert status == 200, out
        return out


def _serve(env: EnvServer) -> Iterator[Client]:
    server = make_http_server(env, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Client(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def agent() -> Iterator[Client]:
    yield from _serve(EnvServer(SOURCE, mode="agent", max_episodes=4))


@pytest.fixture(scope="module")
def direct() -> Iterator[Client]:
    yield from _serve(EnvServer(CLOSURE, mode="direct"))


def _truth(source: TaskSource, index: int, mode: str) -> str:
    return TextEpisode(source.record(index), mode).ground_truth


def _reference_turns(index: int) -> list[str]:
    """The reference agent's assistant turns (a correct <graph> call, then the answer)."""
    sft = sft_record(SOURCE.record(index), "agent")
    return [m.content or "" for m in sft.messages if m.role == "assistant"]


def test_a_correct_call_then_the_answer_gets_the_gated_reward(agent: Client) -> None:
    turns = _reference_turns(0)
    assert len(turns) == 2 and "<graph>" in turns[0]
    obs = agent.reset(index=0)["observation"]
    assert [m["role"] for m in obs["messages"]] == ["system", "user"]
    eid = obs["episode_id"]
    first = agent.step(eid, turns[0])
    assert first["done"] is False and first["reward"] is None
    result = first["observation"]["text"]
    assert result.startswith("<result>\n") and result.endswith("\n</result>")
    last = agent.step(eid, turns[1])
    assert last["done"] is True
    completion = [
        {"role": "assistant", "content": turns[0]},
        {"role": "user", "content": result},
        {"role": "assistant", "content": turns[1]},
    ]
    want = GatedReward("agent")(completions=[completion], ground_truth=[_truth(SOURCE, 0, "agent")])
    assert last["reward"] == want[0] == 2.0  # r_ans 1 + s_inv 1
    breakdown = last["observation"]["metadata"]["breakdown"]
    assert breakdown["valid"] and breakdown["correct"] and breakdown["s_inv"] == 1.0
    assert breakdown["end"] == "answered"
    # the text completion (results injected in place) scores the same
    joined = turns[0] + result + turns[1]
    assert GatedReward("agent")(completions=[joined], ground_truth=[_truth(SOURCE, 0, "agent")])[
        0
    ] == pytest.approx(last["reward"])


@pytest.mark.parametrize(
    ("turns", "correct"),
    [
        (["<answer>RIGHT</answer>"], True),
        (["<answer>-12345</answer>"], False),
        (["<graph>{not json</graph>", "<answer>RIGHT</answer>"], True),
        (["no tags at all"], False),
    ],
    ids=["right", "wrong", "malformed-graph", "untagged"],
)
def test_scripted_agent_episodes_match_the_rewards(
    agent: Client, turns: list[str], correct: bool
) -> None:
    record = SOURCE.record(1)
    turns = [t.replace("RIGHT", str(record.answer)) for t in turns]
    eid = agent.reset(index=1)["observation"]["episode_id"]
    completion: list[dict[str, str]] = []
    out: dict[str, Any] = {}
    for turn in turns:
        out = agent.step(eid, turn)
        completion.append({"role": "assistant", "content": turn})
        if out["observation"]["text"]:
            completion.append({"role": "user", "content": out["observation"]["text"]})
    assert out["done"] is True
    truth = _truth(SOURCE, 1, "agent")
    assert out["reward"] == GatedReward("agent")(completions=[completion], ground_truth=[truth])[0]
    assert out["observation"]["metadata"]["breakdown"]["correct"] is correct
    if "malformed" in str(turns):
        assert out["reward"] == -1.0  # the gate: a call whose graph does not parse


def test_single_turn_episodes_match_the_rewards(direct: Client) -> None:
    record = CLOSURE.record(2)
    truth = _truth(CLOSURE, 2, "direct")
    for reply in (json.dumps({"answer": record.answer}), '{"answer": "nope"}', "no json"):
        obs = direct.reset(index=2)["observation"]
        assert obs["metadata"]["mode"] == "direct"
        out = direct.step(obs["episode_id"], reply)
        assert out["done"] is True
        want = GatedReward("direct")(completions=[reply], ground_truth=[truth])
        assert out["reward"] == want[0]
    assert (
        direct.step(
            direct.reset(index=2)["observation"]["episode_id"],
            json.dumps({"answer": record.answer}),
        )["reward"]
        == 1.0
    )


def test_limits_end_the_episode() -> None:
    env = EnvServer(SOURCE, limits=EpisodeLimits(max_calls=2))
    call = _reference_turns(0)[0]
    eid = env.reset(ResetRequest(index=0))["observation"]["episode_id"]
    assert env.handle("POST", "/step", _step(eid, call))[1]["done"] is False
    status, out = env.handle("POST", "/step", _step(eid, call))
    assert status == 200 and out["done"] is True and out["reward"] == -1.0
    assert out["observation"]["metadata"]["breakdown"]["end"] == "max_rounds"
    status, out = env.handle("POST", "/step", _step(eid, "<answer>1</answer>"))
    assert status == 409 and "has ended" in out["detail"]
    tiny = EnvServer(SOURCE, limits=EpisodeLimits(max_tokens=10))
    eid = tiny.reset(ResetRequest(index=0))["observation"]["episode_id"]
    status, out = tiny.handle("POST", "/step", _step(eid, "x" * 41))
    assert status == 413 and "at most 40" in out["detail"]


def _step(eid: str, message: str, **extra: Any) -> bytes:
    return json.dumps({"episode_id": eid, "action": {"message": message}, **extra}).encode()


def test_episodes_are_bounded_in_number_and_age() -> None:
    now = [0.0]
    env = EnvServer(SOURCE, max_episodes=2, max_age_s=10.0, clock=lambda: now[0])
    ids = [env.reset(ResetRequest(index=0))["observation"]["episode_id"] for _ in range(3)]
    assert env.handle("GET", f"/state?episode_id={ids[0]}", None)[0] == 404  # dropped
    assert env.handle("GET", f"/state?episode_id={ids[2]}", None)[0] == 200
    now[0] = 11.0
    status, out = env.handle("POST", "/step", _step(ids[2], "<answer>1</answer>"))
    assert status == 404 and "POST /reset" in out["detail"]


def test_reset_picks_items_deterministically() -> None:
    env = EnvServer(SOURCE)
    by_seed = [env.reset(ResetRequest(seed=7))["observation"]["metadata"] for _ in range(2)]
    assert by_seed[0]["record_id"] == by_seed[1]["record_id"]
    dealt = [env.reset(ResetRequest())["observation"]["metadata"]["index"] for _ in range(3)]
    assert dealt == [0, 1, 2]
    out = env.reset(ResetRequest(index=3, mode="cot", episode_id="mine"))["observation"]
    assert out["episode_id"] == "mine" and out["metadata"]["mode"] == "cot"
    status, again = env.handle("POST", "/reset", b'{"episode_id": "mine"}')
    assert status == 409 and "taken" in again["detail"]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "words"),
    [
        ("POST", "/step", b"{not json", 400, "not JSON"),
        ("POST", "/step", b"[1, 2]", 422, "not an object"),
        ("POST", "/step", b'{"episode_id": "x", "action": {"message": 3}}', 422, "action.message"),
        (
            "POST",
            "/step",
            b'{"episode_id": "x", "action": {"message": "a"}, "hack": 1}',
            422,
            "hack: Extra inputs are not permitted",
        ),
        ("POST", "/step", b'{"episode_id": "x", "action": {"message": "a"}}', 404, "no episode"),
        (
            "POST",
            "/step",
            b'{"episode_id": "../etc", "action": {"message": "a"}}',
            422,
            "episode_id",
        ),
        ("POST", "/reset", b'{"seed": -1}', 422, "seed"),
        ("POST", "/reset", b'{"seed": "1"}', 422, "seed"),
        ("POST", "/reset", b'{"index": 999}', 422, "past the dataset"),
        ("POST", "/reset", b'{"mode": "program-python"}', 422, "mode"),
        ("POST", "/reset", b'{"task": "no_such_task"}', 422, "task"),
        ("POST", "/reset", b'{"extra": true}', 422, "extra"),
        ("GET", "/reset", None, 405, "takes POST"),
        ("GET", "/state?episode_id=a&x=1", None, 422, "unknown query"),
        ("GET", "/nowhere", None, 404, "no endpoint"),
    ],
)
def test_bad_requests_get_a_4xx_with_a_clear_message(
    agent: Client, method: str, path: str, body: bytes | None, status: int, words: str
) -> None:
    got, out = agent.call(method, path, raw=body)
    assert got == status, out
    assert words in out["detail"]


def test_oversize_and_transport_errors(agent: Client) -> None:
    got, out = agent.call("POST", "/step", raw=b"x" * ((1 << 20) + 1))
    assert got == 413 and "bytes" in out["detail"]
    eid = agent.reset(index=0)["observation"]["episode_id"]
    got, out = agent.call("POST", "/step", {"episode_id": eid, "action": {"message": "x" * 48_001}})
    assert got == 413 and "per turn" in out["detail"]
    conn = http.client.HTTPConnection("127.0.0.1", agent.port, timeout=30)
    conn.putrequest("POST", "/step")
    conn.endheaders()
    resp = conn.getresponse()
    assert resp.status == 411
    conn.close()


def test_health_state_schema_metadata(agent: Client) -> None:
    assert agent.call("GET", "/health") == (200, {"status": "healthy"})
    status, state = agent.call("GET", "/state")
    assert (
        status == 200 and state["suite"] == "grit" and state["modes"] == ["direct", "cot", "agent"]
    )
    eid = agent.reset(index=0)["observation"]["episode_id"]
    status, one = agent.call("GET", f"/state?episode_id={eid}")
    assert status == 200 and one["step_count"] == 0 and one["done"] is False
    assert "ground_truth" not in json.dumps(one)
    status, schema = agent.call("GET", "/schema")
    assert status == 200 and "message" in schema["action"]["properties"]
    assert agent.call("GET", "/metadata")[1]["name"] == "closurebench"


def test_program_modes_are_not_offered() -> None:
    from closurebench.errors import ConfigError

    with pytest.raises(ConfigError, match="sandbox"):
        EnvServer(SOURCE, mode="program-python")
