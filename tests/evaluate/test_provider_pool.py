"""The process-pool provider (``--workers N``) over real HTTP and real worker processes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
import typer
from fake_openai_server import FakeOpenAIServer, Reply, Slow, Status
from typer.testing import CliRunner

import closurebench
from closurebench.cli import handle_errors
from closurebench.cli.eval import eval_cmd
from closurebench.errors import ConfigError
from closurebench.evaluate.providers import GenerationSettings, ProviderError
from closurebench.evaluate.providers.pool import ProcessPoolProvider

S = GenerationSettings(model="fake-model", timeout_s=10.0)


def _msgs(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def _echo(body: dict[str, Any]) -> Reply:
    return Reply("re: " + body["messages"][-1]["content"], prompt_tokens=5, completion_tokens=2)


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_pool_answers_through_two_worker_processes(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(default=lambda body: Slow(0.05, _echo(body)))
    pool = ProcessPoolProvider("openai", {"base_url": fake_openai.base_url}, workers=2)

    async def go() -> tuple[list[Any], list[int]]:
        try:
            await pool.start()
            outs = await asyncio.gather(*(pool.complete(_msgs(f"q{i}"), S) for i in range(24)))
            return list(outs), pool.pids
        finally:
            await pool.aclose()

    outs, pids = asyncio.run(go())
    assert [o.text for o in outs] == [f"re: q{i}" for i in range(24)]
    assert all(o.prompt_tokens == 5 and o.completion_tokens == 2 for o in outs)
    assert len(set(pids)) == 2 and os.getpid() not in pids
    assert len(fake_openai.chat_requests) == 24
    assert pool.pids == []  # stopped by aclose


def test_errors_keep_message_and_retryability(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(Status(429, retry_after=3), Status(401), Status(503))
    pool = ProcessPoolProvider(
        "openai", {"base_url": fake_openai.base_url, "api_key_env": "MY_KEY"}, workers=1
    )

    async def go() -> list[ProviderError]:
        errors = []
        try:
            for _ in range(3):
                with pytest.raises(ProviderError) as info:
                    await pool.complete(_msgs("x"), S)
                errors.append(info.value)
        finally:
            await pool.aclose()
        return errors

    rate, auth, unavailable = asyncio.run(go())
    assert rate.retryable and rate.status == 429 and rate.retry_after_s == 3.0
    assert "rate limited" in str(rate)
    assert not auth.retryable and auth.status == 401 and "MY_KEY" in str(auth)
    assert unavailable.retryable and unavailable.status == 503


def test_a_killed_worker_fails_its_requests_retryably_and_restarts(
    fake_openai: FakeOpenAIServer,
) -> None:
    fake_openai.script(Slow(5.0, Reply("late")), default=Reply("fine"))
    pool = ProcessPoolProvider("openai", {"base_url": fake_openai.base_url}, workers=1)

    async def go() -> tuple[ProviderError, str, int, int]:
        try:
            await pool.start()
            (first_pid,) = pool.pids
            task = asyncio.create_task(pool.complete(_msgs("slow"), S))
            while not fake_openai.chat_requests:
                await asyncio.sleep(0.02)
            os.kill(first_pid, signal.SIGKILL)
            with pytest.raises(ProviderError) as info:
                await task
            again = await pool.complete(_msgs("next"), S)
            (second_pid,) = pool.pids
            return info.value, again.text, first_pid, second_pid
        finally:
            await pool.aclose()

    err, text, first, second = asyncio.run(go())
    assert err.retryable and "worker process 0" in str(err) and "restarted" in str(err)
    assert text == "fine" and first != second


def test_bad_configurations_fail_in_the_parent() -> None:
    with pytest.raises(ConfigError, match="supported for --provider openai"):
        ProcessPoolProvider("scripted", {"script": ["a"]}, workers=2)
    with pytest.raises(ConfigError, match="--workers must be >= 1"):
        ProcessPoolProvider("openai", {"base_url": "http://127.0.0.1:1/v1"}, workers=0)
    with pytest.raises(ProviderError, match="no API key"):
        ProcessPoolProvider("openai", {"base_url": "https://api.example.com/v1"}, workers=1)


def test_closed_pool_refuses_requests(fake_openai: FakeOpenAIServer) -> None:
    pool = ProcessPoolProvider("openai", {"base_url": fake_openai.base_url}, workers=1)

    async def go() -> None:
        await pool.aclose()
        await pool.complete(_msgs("x"), S)

    with pytest.raises(ProviderError, match="closed"):
        asyncio.run(go())


def test_cli_with_workers_matches_in_process(fake_openai: FakeOpenAIServer, tmp_path: Path) -> None:
    out = tmp_path / "data"
    closurebench.generate_split("heldout", seed=3, count=12, out=out)
    path = out / "closure-heldout.jsonl"
    records = closurebench.load_instances(path)
    by_q = {r.question: r for r in records}
    malformed = {r.id for r in records[::3]}

    def answer(body: dict[str, Any]) -> Reply:
        rec = by_q[body["messages"][-1]["content"]]
        text = '{"result": 1}' if rec.id in malformed else json.dumps({"answer": rec.answer})
        return Reply(text, prompt_tokens=40, completion_tokens=3)

    fake_openai.script(default=answer)
    app = typer.Typer()
    app.command()(handle_errors(eval_cmd))
    runs = {}
    for name, extra in (("inproc", []), ("pool", ["--workers", "2"])):
        res = CliRunner().invoke(
            app,
            [str(path), "--model", "fake-model", "--base-url", fake_openai.base_url,
             "--out", str(tmp_path / name), "--concurrency", "4", "--no-progress", *extra],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        lines = (tmp_path / name / "results.jsonl").read_text().splitlines()
        runs[name] = {
            r["id"]: (r["outcome"], r["response"], r["usage"], r["error"])
            for r in map(json.loads, lines)
        }
    assert runs["pool"] == runs["inproc"]
    assert len(runs["pool"]) == len(records)
    assert {o for o, *_ in runs["pool"].values()} >= {"format_error", "strict_correct"}


def test_cli_rejects_workers_for_other_providers(tmp_path: Path) -> None:
    app = typer.Typer()
    app.command()(handle_errors(eval_cmd))
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "question": "q", "answer": 1, "result_type": "integer"}\n')
    script = tmp_path / "s.json"
    script.write_text('["1"]')
    res = CliRunner().invoke(
        app,
        [str(data), "--model", "m", "--provider", "scripted", "--script", str(script),
         "--out", str(tmp_path / "o"), "--workers", "2", "--no-progress"],
    )  # fmt: skip
    assert res.exit_code == 1
    assert "--workers is supported for --provider openai" in res.output


def test_large_messages_cross_the_process_boundary(fake_openai: FakeOpenAIServer) -> None:
    # Matrix-encoded questions at large n run to hundreds of KB; frames carry any size.
    fake_openai.script(default=lambda body: Reply(body["messages"][-1]["content"][-20:] + "é"))
    pool = ProcessPoolProvider("openai", {"base_url": fake_openai.base_url}, workers=1)
    big = "0 1 " * 150_000 + "é end"

    async def go() -> str:
        try:
            return (await pool.complete(_msgs(big), S)).text
        finally:
            await pool.aclose()

    assert asyncio.run(go()) == big[-20:] + "é"
    assert fake_openai.chat_requests[0].body["messages"][-1]["content"] == big
