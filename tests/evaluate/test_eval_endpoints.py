"""Several endpoints without Ray (issue 25, item 2): ``eval --base-url A --base-url B``.

The router (:class:`~closurebench.evaluate.providers.endpoints.EndpointRouter`) is
tested twice: in process, over fake providers whose replies the test releases (least
in flight, turns, failover, marking down, cool-downs on a fake clock, refusals), and
through ``closurebench eval`` over two fake OpenAI servers on loopback ports, one of
which dies mid-run (:class:`~fake_openai_server.Die`: no reply, connections reset, new
ones refused). Nothing here measures time: what happened is read from the servers'
request logs, the results file and ``summary.json``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import zlib
from collections import deque
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import Die, FakeOpenAIServer, Reply, Status
from typer.testing import CliRunner

from closurebench.cli import EXIT_INFRASTRUCTURE, app
from closurebench.errors import ConfigError
from closurebench.evaluate.options import RunStats
from closurebench.evaluate.providers import (
    Completion,
    GenerationSettings,
    ProviderError,
    ProviderOptions,
    build_provider,
)
from closurebench.evaluate.providers.endpoints import EndpointRouter

S = GenerationSettings(model="fake-model", timeout_s=10.0)
MSGS = [{"role": "user", "content": "q"}]


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


# ----------------------------------------------------------------- in process


class FakeEndpoint:
    """A provider that answers from ``outcomes`` (then "ok"), optionally held by the test.

    Attributes:
        calls: Requests received.
        held: While set, every request waits for :meth:`release`.
    """

    name = "openai"

    def __init__(self, *outcomes: str | ProviderError, held: bool = False) -> None:
        self.outcomes: deque[str | ProviderError] = deque(outcomes)
        self.calls = 0
        self.held = held
        self._gates: deque[asyncio.Event] = deque()

    @property
    def waiting(self) -> int:
        return len(self._gates)

    def release(self) -> None:
        """Let the oldest held request answer."""
        self._gates.popleft().set()

    async def complete(self, messages: Any, settings: GenerationSettings) -> Completion:
        self.calls += 1
        if self.held:
            gate = asyncio.Event()
            self._gates.append(gate)
            await gate.wait()
        outcome = self.outcomes.popleft() if self.outcomes else "ok"
        if isinstance(outcome, ProviderError):
            raise outcome
        return Completion(outcome, None, None, None, 0.0, "stop")

    async def aclose(self) -> None:
        pass


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _router(*providers: FakeEndpoint, **kw: Any) -> tuple[EndpointRouter, list[str]]:
    said: list[str] = []
    urls = [f"http://e{i}/v1" for i in range(len(providers))]
    return EndpointRouter(list(providers), urls, notice=said.append, **kw), said


def _down() -> ProviderError:
    return ProviderError("could not reach it", retryable=True)


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_each_request_goes_to_the_endpoint_with_fewest_in_flight() -> None:
    a, b = FakeEndpoint(held=True), FakeEndpoint(held=True)
    router, _ = _router(a, b)

    async def go() -> list[int]:
        tasks = [asyncio.create_task(router.complete(MSGS, S)) for _ in range(3)]
        await asyncio.sleep(0)
        seen = [a.waiting, b.waiting]  # 2 and 1: the third went to the first in turn
        a.release()
        a.release()  # a has none in flight now, b one: the next goes to a (fewest in
        await asyncio.gather(tasks[0], tasks[2])  # flight), the one after to b (a tie, its turn)
        more = [asyncio.create_task(router.complete(MSGS, S)) for _ in range(2)]
        await asyncio.sleep(0)
        seen += [a.waiting, b.waiting]
        while a.waiting or b.waiting:
            for p in (a, b):
                if p.waiting:
                    p.release()
            await asyncio.sleep(0)
        await asyncio.gather(*tasks, *more)
        return seen

    assert _run(go()) == [2, 1, 1, 2]
    assert [e["requests"] for e in router.report] == [3, 2]


def test_at_concurrency_one_the_endpoints_take_turns() -> None:
    providers = [FakeEndpoint() for _ in range(3)]
    router, _ = _router(*providers)

    async def go() -> None:
        for _ in range(7):
            await router.complete(MSGS, S)

    _run(go())
    assert [p.calls for p in providers] == [3, 2, 2]


def test_a_failing_endpoint_fails_over_then_is_marked_down_and_probed_after_cooldown() -> None:
    clock = Clock()
    a, b = FakeEndpoint(*[_down()] * 5), FakeEndpoint()
    router, said = _router(a, b, clock=clock, cooldown_s=30, max_cooldown_s=100)

    async def go(n: int) -> list[str]:
        return [(await router.complete(MSGS, S)).text for _ in range(n)]

    # turns: a, b, a, b, a... each failure on a goes on to b at once, in the same call
    assert _run(go(6)) == ["ok"] * 6
    assert a.calls == 3 and b.calls == 6  # a failed 3 times in a row: marked down
    assert len(said) == 1 and said[0].startswith("endpoint http://e0/v1 marked down for 30s")
    assert "after 3 failed requests in a row" in said[0] and "could not reach it" in said[0]
    assert router.report[0] | {"last_error": None} == {
        "url": "http://e0/v1", "requests": 3, "ok": 0, "failed": 3, "marked_down": 1,
        "state": "down", "last_error": None,
    }  # fmt: skip
    _run(go(4))
    assert a.calls == 3  # still cooling down: nothing sent to it
    clock.now = 31  # past the cool-down: one probe, which fails (a's 4th failure)
    _run(go(2))
    assert a.calls == 4 and router.report[0]["state"] == "down" and len(said) == 1
    clock.now = 31 + 59  # the second cool-down is twice as long (60 s): not yet
    _run(go(2))
    assert a.calls == 4
    clock.now = 31 + 61  # a's 5th failure: down for 100 s (max_cooldown_s), not 120
    _run(go(2))
    assert a.calls == 5
    clock.now = 31 + 61 + 101  # the probe is answered: a is up again
    _run(go(1))
    assert a.calls == 6 and router.report[0]["state"] == "up"
    assert said[-1] == "endpoint http://e0/v1 answers again; it takes requests again"
    assert router.report[0]["ok"] == 1 and router.report[0]["failed"] == 5


def test_a_probe_is_sent_one_at_a_time() -> None:
    clock = Clock()
    a, b = FakeEndpoint(*[_down()] * 3), FakeEndpoint()
    router, _ = _router(a, b, clock=clock)

    async def go() -> int:
        for _ in range(6):
            await router.complete(MSGS, S)
        clock.now = 1000
        a.held = True
        tasks = [asyncio.create_task(router.complete(MSGS, S)) for _ in range(4)]
        await asyncio.sleep(0)
        probes = a.waiting
        a.release()
        await asyncio.gather(*tasks)
        return probes

    assert _run(go()) == 1
    assert router.report[0]["state"] == "up"


def test_a_busy_endpoint_passes_the_request_on_without_being_marked_down() -> None:
    busy = ProviderError("rate limited", retryable=True, status=429, retry_after_s=5)
    a, b = FakeEndpoint(*[busy] * 4), FakeEndpoint()
    router, said = _router(a, b)

    async def go() -> None:
        for _ in range(8):
            await router.complete(MSGS, S)

    _run(go())  # a's turns: 1-4 busy (each passed on to b), 5 and 7 answered
    assert said == [] and router.report[0]["state"] == "up"
    assert (router.report[0]["failed"], router.report[0]["ok"], router.report[1]["ok"]) == (4, 2, 6)


def test_a_request_error_is_raised_as_is_without_trying_another_endpoint() -> None:
    bad = ProviderError("prompt too long", status=400, fatal=False)
    a, b = FakeEndpoint(bad), FakeEndpoint()
    router, said = _router(a, b)
    with pytest.raises(ProviderError) as info:
        _run(router.complete(MSGS, S))
    assert info.value is bad and b.calls == 0 and said == []


def test_a_404_on_one_endpoint_sets_it_aside_and_on_every_one_is_fatal() -> None:
    def not_served(i: int) -> ProviderError:
        return ProviderError(f"model 'm' not served at http://e{i}/v1 (404)", status=404)

    a, b = FakeEndpoint(not_served(0)), FakeEndpoint()
    router, said = _router(a, b)

    async def go(n: int) -> None:
        for _ in range(n):
            await router.complete(MSGS, S)

    _run(go(4))
    assert a.calls == 1 and b.calls == 4  # set aside for the run: never asked again
    assert said == [
        "endpoint http://e0/v1 is set aside for the rest of the run (model 'm' not served "
        "at http://e0/v1 (404)); its requests go to the other endpoints"
    ]
    assert router.report[0]["state"] == "refused"

    a, b = FakeEndpoint(not_served(0)), FakeEndpoint(not_served(1))
    router, said = _router(a, b)
    with pytest.raises(ProviderError) as info:
        _run(go(1))
    assert info.value.fatal and info.value.status == 404
    assert "every --base-url refused" in str(info.value) and a.calls == b.calls == 1


def test_when_every_endpoint_is_down_requests_fail_as_with_one_dead_server() -> None:
    clock = Clock()
    a, b = FakeEndpoint(*[_down()] * 9), FakeEndpoint(*[_down()] * 9)
    router, said = _router(a, b, clock=clock, down_after=1)
    errors = []
    for _ in range(3):
        with pytest.raises(ProviderError) as info:
            _run(router.complete(MSGS, S))
        errors.append(info.value)
    assert all(e.retryable and not e.fatal for e in errors)
    assert "every endpoint is down (http://e0/v1, http://e1/v1)" in str(errors[-1])
    assert "every endpoint is now down" in said[-1]
    # while all are down, each request goes to the one whose cool-down ends first
    assert a.calls + b.calls == 2 + 2 and a.calls == 2
    a.outcomes.clear()
    _run(router.complete(MSGS, S))  # both end at 60 s now: the first, a, is probed
    assert [e["state"] for e in router.report] == ["up", "down"]
    assert said[-1] == "endpoint http://e0/v1 answers again; it takes requests again"


def test_bind_run_puts_the_live_report_in_the_runs_counters() -> None:
    router, _ = _router(FakeEndpoint(), FakeEndpoint())
    stats = RunStats()
    stats.run_info = {"sandbox": "x"}
    router.bind_run(stats, None)
    _run(router.complete(MSGS, S))
    assert stats.run_info["sandbox"] == "x"
    assert [e["ok"] for e in stats.run_info["endpoints"]] == [1, 0]
    second = RunStats()
    router.bind_run(second, None)  # a second run counts anew
    assert [e["ok"] for e in second.run_info["endpoints"]] == [0, 0]


def test_several_urls_are_refused_by_providers_without_a_server() -> None:
    two = ("http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1")
    with pytest.raises(ConfigError, match="--provider scripted talks to no server"):
        build_provider("scripted", ProviderOptions(model="m", base_url=two))
    with pytest.raises(ConfigError, match="is given twice"):
        build_provider("openai", ProviderOptions(model="m", base_url=(two[0], two[0] + "/")))


# ----------------------------------------------------------------- over HTTP


def _answers(records: list[Any]) -> Any:
    """A step answering a question right or wrong by its hash: the same on every server."""
    by_q = {r.question: r for r in records}

    def step(body: dict[str, Any]) -> Reply:
        question = body["messages"][-1]["content"]
        right = zlib.crc32(question.encode()) % 3 != 0
        return Reply(json.dumps({"answer": by_q[question].answer}) if right else "no idea")

    return step


def _args(data: Path, out: Path, *urls: str, extra: tuple[str, ...] = ()) -> list[str]:
    base = [a for url in urls for a in ("--base-url", url)]
    return [
        str(data), "--model", "fake-model", *base, "--out", str(out), "--concurrency", "4",
        "--retries", "1", "--backoff", "0", "--no-progress", *extra,
    ]  # fmt: skip


#: One request at a time: the endpoints take turns, so the counts below are exact.
ONE = ("--concurrency", "1")


def _invoke(args: list[str]) -> Any:
    return CliRunner().invoke(EVAL_APP, args)


def _results(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("latency_s")
    return sorted(rows, key=lambda r: r["id"])


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_one_of_two_servers_dies_mid_run_and_every_result_is_written_once(
    data: Any, tmp_path: Path
) -> None:
    path, records = data
    answer = _answers(records)
    with FakeOpenAIServer() as alone:
        alone.script(default=answer)
        single = _invoke(_args(path, tmp_path / "one", alone.base_url))
    assert single.exit_code == 0, single.output

    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        a.script(default=answer)
        b.script(*[answer] * 5, Die(), default=answer)  # answers 5, then dies
        res = _invoke(_args(path, tmp_path / "two", a.base_url, b.base_url))
        to_a, to_b = len(a.chat_requests), len(b.chat_requests)
        assert b.killed
    assert res.exit_code == 0, res.output
    out = tmp_path / "two"
    results = _results(out)
    assert [r["id"] for r in results] == sorted(str(r.id) for r in records)  # each once
    assert results == _results(tmp_path / "one")  # the same file as with one server
    assert to_b >= 6 and to_a == 30 - 5  # b answered 5; every other instance went to a
    down = [line for line in res.stderr.splitlines() if "marked down" in line]
    assert len(down) == 1 and down[0].startswith(f"warning: endpoint {b.base_url} marked down")
    assert "could not reach" in down[0] and "its requests go to the other endpoints" in down[0]
    summary = _summary(out)
    assert summary["complete"] is True and summary["run"]["requests"] == 30
    ep_a, ep_b = summary["endpoints"]
    assert (ep_a["url"], ep_a["ok"], ep_a["failed"], ep_a["state"]) == (a.base_url, 25, 0, "up")
    assert (ep_b["url"], ep_b["ok"], ep_b["marked_down"], ep_b["state"]) == (
        b.base_url, 5, 1, "down",
    )  # fmt: skip
    assert ep_b["failed"] >= 3 and "could not reach" in ep_b["last_error"]
    assert "endpoints" not in json.loads((out / "run.json").read_text())


def test_two_healthy_servers_take_turns_and_the_run_resumes_with_another_list(
    data: Any, tmp_path: Path
) -> None:
    path, records = data
    out = tmp_path / "run"
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        a.script(default=_answers(records))
        b.script(default=_answers(records))
        first = _invoke(_args(path, out, a.base_url, extra=("--limit", "10")))
        assert first.exit_code == 0, first.output
        again = _invoke(_args(path, out, a.base_url, b.base_url, extra=("--concurrency", "1")))
        assert again.exit_code == 0, again.output
        assert "evaluated 20, resumed 10" in again.stdout
        assert (len(a.chat_requests), len(b.chat_requests)) == (10 + 10, 10)
    assert [r["id"] for r in _results(out)] == sorted(str(r.id) for r in records)
    assert [e["requests"] for e in _summary(out)["endpoints"]] == [10, 10]
    assert "marked down" not in again.stderr


def test_a_server_down_at_the_start_is_marked_down_and_the_run_goes_on(
    data: Any, tmp_path: Path
) -> None:
    path, records = data
    dead = _closed_port_url()
    with FakeOpenAIServer() as a:
        a.script(default=_answers(records))
        res = _invoke(_args(path, tmp_path / "run", dead, a.base_url))
    assert res.exit_code == 0, res.output
    assert f"warning: endpoint {dead} marked down for 30s (cannot reach" in res.stderr
    ep_dead, ep_a = _summary(tmp_path / "run")["endpoints"]
    assert (ep_dead["requests"], ep_dead["marked_down"], ep_dead["state"]) == (0, 1, "down")
    assert ep_a["ok"] == 30

    res = _invoke(_args(path, tmp_path / "none", dead, _closed_port_url()))
    assert res.exit_code == EXIT_INFRASTRUCTURE
    assert "cannot reach any of the 2 servers" in res.stderr


def test_both_servers_dying_stops_the_run_as_one_dead_server_does(
    data: Any, tmp_path: Path
) -> None:
    path, records = data
    out = tmp_path / "run"
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        for fake in (a, b):
            fake.script(*[_answers(records)] * 4, Die())
        res = _invoke(
            _args(path, out, a.base_url, b.base_url, extra=("--max-consecutive-failures", "2"))
        )
    assert res.exit_code == EXIT_INFRASTRUCTURE, res.output
    assert "instances in a row ended in error" in res.stderr
    assert "every endpoint is down" in res.stderr
    assert "every endpoint is now down" in res.stderr
    ids = [r["id"] for r in _results(out)]
    assert len(ids) == len(set(ids)) and len(ids) < 30
    summary = _summary(out)
    assert summary["complete"] is False and "in a row" in summary["aborted"]
    assert [e["state"] for e in summary["endpoints"]] == ["down", "down"]
    assert sum(e["ok"] for e in summary["endpoints"]) == 8


def test_a_server_that_does_not_serve_the_model_is_set_aside(data: Any, tmp_path: Path) -> None:
    path, records = data
    with (
        FakeOpenAIServer() as a,
        FakeOpenAIServer(strict_models=True, served_models=["other"]) as b,
    ):
        a.script(default=_answers(records))
        res = _invoke(_args(path, tmp_path / "run", a.base_url, b.base_url, extra=ONE))
        assert len(b.chat_requests) == 1  # refused once, never asked again
    assert res.exit_code == 0, res.output
    assert f"warning: endpoint {b.base_url} is set aside for the rest of the run" in res.stderr
    assert "does not exist" in res.stderr
    assert [e["state"] for e in _summary(tmp_path / "run")["endpoints"]] == ["up", "refused"]

    with (
        FakeOpenAIServer(strict_models=True, served_models=["other"]) as a,
        FakeOpenAIServer(strict_models=True, served_models=["other"]) as b,
    ):
        res = _invoke(_args(path, tmp_path / "none", a.base_url, b.base_url, extra=ONE))
    assert res.exit_code == EXIT_INFRASTRUCTURE
    assert "stopped at once" in res.stderr and "every --base-url refused" in res.stderr
    assert "set aside" in res.stderr  # the first refusal; the last one is the run's error


def test_a_500_storm_on_one_server_goes_to_the_other(data: Any, tmp_path: Path) -> None:
    path, records = data
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        a.script(default=_answers(records))
        b.script(default=Status(500))
        res = _invoke(_args(path, tmp_path / "run", a.base_url, b.base_url, extra=ONE))
        assert len(b.chat_requests) == 3  # three 500s in a row: marked down
    assert res.exit_code == 0, res.output
    assert "marked down for 30s after 3 failed requests in a row" in res.stderr
    assert "500: internal server error" in res.stderr
    assert _summary(tmp_path / "run")["run"]["retries"] == 0  # failed over, not retried


def test_workers_run_per_endpoint(data: Any, tmp_path: Path) -> None:
    path, records = data
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        for fake in (a, b):
            fake.script(default=_answers(records))
        extra = ("--workers", "1", "--concurrency", "1", "--limit", "6")
        res = _invoke(_args(path, tmp_path / "run", a.base_url, b.base_url, extra=extra))
        assert (len(a.chat_requests), len(b.chat_requests)) == (3, 3)
    assert res.exit_code == 0, res.output


def test_the_cli_refuses_several_urls_without_a_server(data: Any, tmp_path: Path) -> None:
    path, _ = data
    script = tmp_path / "script.json"
    script.write_text('["yes"]')
    two = ("--base-url", "http://127.0.0.1:1/v1", "--base-url", "http://127.0.0.1:2/v1")
    args = [str(path), "--model", "m", "--provider", "scripted", "--script", str(script)]
    res = _invoke([*args, *two, "--out", str(tmp_path / "run")])
    assert res.exit_code == 1
    assert "--base-url is given 2 times, but --provider scripted talks to no server" in res.stderr
    mem = ["memorisation", "--model", "m", "--seen", str(path), "--out", str(tmp_path / "m")]
    res = CliRunner().invoke(app, [*mem, "--provider", "scripted", "--script", str(script), *two])
    assert res.exit_code == 1
    assert "--provider scripted talks to no server" in res.output


def test_memorisation_spreads_over_several_servers(data: Any, tmp_path: Path) -> None:
    path, _ = data
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        a.script(default="no idea")
        b.script(default="no idea")
        args = [
            "memorisation", "--model", "fake-model", "--seen", str(path), "--out",
            str(tmp_path / "probe"), "--base-url", a.base_url, "--base-url", b.base_url,
            "--seeds", "1", "--fresh-count", "4", "--no-progress",
        ]  # fmt: skip
        res = CliRunner().invoke(app, args)
        sent = len(a.chat_requests), len(b.chat_requests)
    assert res.exit_code == 0, res.output
    assert min(sent) > 0


def test_memorisation_takes_eval_s_generation_options(data: Any, tmp_path: Path) -> None:
    """The provider and generation flags are one definition for both commands: the
    sampling and server options given to memorisation reach the server as eval sends them."""
    path, _ = data
    with FakeOpenAIServer() as server:
        server.script(default="no idea")
        args = [
            "memorisation", "--model", "fake-model", "--seen", str(path), "--out",
            str(tmp_path / "probe"), "--base-url", server.base_url, "--seeds", "1",
            "--fresh-count", "2", "--no-progress", "--top-p", "0.5", "--request-seed", "7",
            "--extra-body", '{"chat_template_kwargs": {"enable_thinking": false}}',
            "--backoff", "0.1", "--backoff-max", "1",
        ]  # fmt: skip
        res = CliRunner().invoke(app, args)
        bodies = [r.body for r in server.chat_requests]
    assert res.exit_code == 0, res.output
    assert bodies and all(b["top_p"] == 0.5 and b["seed"] == 7 for b in bodies)
    assert all(b["chat_template_kwargs"] == {"enable_thinking": False} for b in bodies)


def test_eval_and_memorisation_declare_the_same_provider_flags() -> None:
    import inspect
    import typing

    from closurebench.cli import provider_flags
    from closurebench.cli.eval import eval_cmd
    from closurebench.cli.memorisation import memorisation_cmd

    shared = {
        "provider", "provider_arg", "device", "base_url", "api_key_env", "script",
        "concurrency", "workers", "timeout", "retries", "temperature", "max_tokens",
        "max_completion_tokens", "top_p", "extra_body", "request_seed", "backoff",
        "backoff_max",
    }  # fmt: skip
    aliases = {getattr(provider_flags, n) for n in provider_flags.__all__}
    assert len(aliases) == len(shared)  # one alias per shared flag

    def declared(command: typing.Any) -> dict[str, tuple[typing.Any, typing.Any]]:
        hints = typing.get_type_hints(command, include_extras=True)
        params = inspect.signature(command).parameters
        return {n: (hints[n], params[n].default) for n in params if n in shared}

    ev, mem = declared(eval_cmd), declared(memorisation_cmd)
    assert set(ev) == set(mem) == shared
    assert ev == mem  # the same alias (flag, help, type) and default
    assert {hint for hint, _ in ev.values()} == aliases
