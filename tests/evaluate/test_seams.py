"""The harness seams: a new mode or a new provider fits without touching the runner or CLI."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import FakeOpenAIServer
from typed_records import closure_instance
from typer.testing import CliRunner

from closurebench.evaluate.modes import AnyInstance, CompleteFn, Mode, ModeOutput
from closurebench.evaluate.providers import (
    PROVIDERS,
    Completion,
    GenerationSettings,
    ProviderSpec,
    ScriptedProvider,
    providers_help,
)
from closurebench.evaluate.providers.scripted import last_user_message
from closurebench.evaluate.records import iter_result_records
from closurebench.evaluate.runner import RunOptions, run_eval
from closurebench.jsonl import canonical_json
from closurebench.schema import Outcome, Suite


class NoteThenAnswerMode(Mode):
    """A toy agent: ask for a note, then send the note back and ask for the answer."""

    name: ClassVar[str] = "note-then-answer"
    system_prompts: ClassVar[Mapping[Suite, str]] = {Suite.CLOSURE: "Take a note first."}

    async def run(self, record: AnyInstance, complete: CompleteFn) -> ModeOutput:
        first = await complete(self.messages(record))
        follow_up = [
            *self.messages(record),
            {"role": "assistant", "content": first.text},
            {"role": "user", "content": f"Your note: {first.text}. Answer as JSON now."},
        ]
        second = await complete(follow_up)
        return ModeOutput(
            score=self.score(record, second),
            response=second.text,
            prompt_tokens=(first.prompt_tokens or 0) + (second.prompt_tokens or 0),
            completion_tokens=(first.completion_tokens or 0) + (second.completion_tokens or 0),
            latency_s=first.latency_s + second.latency_s,
            finish_reason=second.finish_reason,
            requests=2,
            extra={"note": first.text, "rounds": 2},
        )


def test_a_multi_step_mode_runs_without_runner_changes(tmp_path: Path) -> None:
    records = [closure_instance(f"m{k}", f"question {k}", k) for k in range(5)]

    def reply(messages: list[dict[str, str]], settings: GenerationSettings) -> str:
        text = last_user_message(messages)
        if text.startswith("Your note: note-"):  # the second request quotes the first reply
            return json.dumps({"answer": int(text.split("note-")[1].split(".")[0])})
        return f"note-{text.split()[-1]}"

    provider = ScriptedProvider(reply)
    stats = asyncio.run(
        run_eval(records, provider, NoteThenAnswerMode(), GenerationSettings(model="m"),
                 tmp_path, RunOptions(progress=False, concurrency=2))
    )  # fmt: skip
    assert stats.evaluated == 5 and stats.requests == 10 and stats.failures == 0
    results = {r.id: r for r in iter_result_records(tmp_path / "results.jsonl")}
    for k in range(5):
        res = results[f"m{k}"]
        assert res.outcome is Outcome.STRICT_CORRECT and res.mode == "note-then-answer"
        assert res.requests == 2 and res.extra == {"note": f"note-{k}", "rounds": 2}
    assert len(provider.calls) == 10
    assert stats.summary.strict_correct == 5


class ToyProvider:
    """A provider of a few lines: always the same reply."""

    name = "toy"

    def __init__(self, reply: str) -> None:
        self.reply = reply

    async def complete(
        self, messages: list[dict[str, str]], settings: GenerationSettings
    ) -> Completion:
        return Completion(self.reply, None, 3, 1, 0.0, "stop")

    async def aclose(self) -> None:
        return None


def test_a_new_provider_is_one_table_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = ProviderSpec(
        "toy", ToyProvider, "always answers 1", lambda o: {"reply": '{"answer": 1}'}, ("--model",)
    )
    monkeypatch.setitem(PROVIDERS, "toy", spec)
    assert "toy (--model): always answers 1" in providers_help()
    data = tmp_path / "data.jsonl"
    records = [closure_instance(f"t{k}", f"q{k}", 1) for k in range(3)]
    data.write_text("".join(canonical_json(r.to_json()) + "\n" for r in records))
    out = tmp_path / "run"
    res = CliRunner().invoke(
        EVAL_APP,
        [str(data), "--model", "m", "--provider", "toy", "--out", str(out), "--no-progress"],
    )
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["total"] == 3 and summary["strict_correct"] == 3
    assert json.loads((out / "run.json").read_text())["provider"] == "toy"


def test_unknown_provider_lists_the_table(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        EVAL_APP, [str(tmp_path / "x.jsonl"), "--model", "m", "--provider", "nope", "--out", "o"]
    )
    assert res.exit_code == 1
    assert "choose one of: openai, reference, scripted, transformers" in res.output


def _reset(port: int, payload: bytes) -> None:
    """Connect, send ``payload``, then abort the connection with a TCP reset."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(payload)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def test_fake_server_is_quiet_when_clients_reset(capfd: pytest.CaptureFixture[str]) -> None:
    with FakeOpenAIServer() as fake:
        _reset(fake.port, b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 99\r\n\r\n{")
        _reset(fake.port, b"GET /v1/models HTTP/1.1\r\n\r\n")
        # A request after the resets is served: the handler threads have run.
        with socket.create_connection(("127.0.0.1", fake.port)) as sock:
            sock.sendall(b"GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n")
            assert sock.recv(12).startswith(b"HTTP/1.")
        while fake.connections_done < 3:  # every handler thread has finished
            time.sleep(0.01)
    assert "Traceback" not in capfd.readouterr().err


def test_fake_server_reports_a_failing_step() -> None:
    def broken(body: dict[str, Any]) -> Any:
        raise KeyError("nope")

    with FakeOpenAIServer() as fake:
        fake.script(default=broken)
        req = urllib.request.Request(
            fake.base_url + "/chat/completions",
            data=json.dumps({"model": "m", "messages": []}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req)
        assert info.value.code == 500
        assert "scripted step raised KeyError" in info.value.read().decode()
        assert [type(e) for e in fake.errors] == [KeyError]
