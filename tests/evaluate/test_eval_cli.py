"""``closurebench eval`` CLI tests: errors, and resume after SIGKILL mid-run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from eval_cli import EVAL_APP, EVAL_LAUNCH
from fake_openai_server import Reply
from typer.testing import CliRunner


class _Gate:
    """Answers the first ``open_for`` requests, then holds every later one until released.

    With the client's requests held, a run cannot advance: the test sees a quiescent
    state (exactly ``open_for`` results written, ``concurrency`` requests waiting) that
    does not depend on how fast the machine is.
    """

    def __init__(self, records: list[Any], open_for: int, held_target: int) -> None:
        self.by_q = {r.question: r for r in records}
        self.open_for = open_for
        self.held_target = held_target
        self.served = 0
        self.held = 0
        self.lock = threading.Lock()
        self.all_held = threading.Event()
        self.released = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Any:
        rec = self.by_q[body["messages"][-1]["content"]]
        with self.lock:
            self.served += 1
            hold = self.served > self.open_for and not self.released.is_set()
            if hold:
                self.held += 1
                if self.held >= self.held_target:
                    self.all_held.set()
        if hold:
            self.released.wait()
        # every third instance answers with a format error, the rest correctly
        text = "no json here {" if rec.id[-1] in "036" else json.dumps({"answer": rec.answer})
        return Reply(text, prompt_tokens=50, completion_tokens=3)


def _args(data: Path, base_url: str, out: Path) -> list[str]:
    # A held request must never time out: the timeout is far above any wait here.
    return [
        str(data), "--model", "fake-model", "--base-url", base_url, "--mode", "direct",
        "--out", str(out), "--concurrency", "2", "--timeout", "3600", "--retries", "1",
        "--no-progress",
    ]  # fmt: skip


def test_errors_exit_1_with_a_message(data: Any, tmp_path: Path) -> None:
    path, _ = data
    runner = CliRunner()
    cases = [
        (
            [str(tmp_path / "nope.jsonl"), "--model", "m", "--out", str(tmp_path / "o")],
            "does not exist",
        ),
        (
            [str(path), "--model", "m", "--out", str(tmp_path / "o"), "--mode", "zen"],
            "unknown mode",
        ),
    ]  # a server that is not running is a provider failure (exit 3): test_eval_trips
    for args, needle in cases:
        res = runner.invoke(EVAL_APP, args)
        assert res.exit_code == 1, res.output
        assert needle in res.output
        assert "Traceback" not in res.output


def test_scripted_provider_from_cli(data: Any, tmp_path: Path) -> None:
    path, _ = data
    script = tmp_path / "script.json"
    script.write_text(json.dumps([json.dumps({"answer": 0})] * 5))
    res = CliRunner().invoke(
        EVAL_APP,
        [str(path), "--model", "m", "--provider", "scripted", "--script", str(script),
         "--out", str(tmp_path / "o"), "--limit", "5", "--concurrency", "1", "--no-progress"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["counts"]["total"] == 5


def test_resume_after_sigkill_matches_uninterrupted(
    fake_openai: Any, data: Any, tmp_path: Path
) -> None:
    path, records = data
    done_before_kill, concurrency = 6, 2
    gate = _Gate(records, open_for=done_before_kill, held_target=concurrency)
    fake_openai.script(default=gate)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}

    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-c", EVAL_LAUNCH, *_args(path, fake_openai.base_url, killed)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    results = killed / "results.jsonl"

    def lines() -> int:
        return results.read_text().count("\n") if results.exists() else 0

    # Wait for the quiescent state: every worker's request held, all earlier results
    # written. Nothing can change it, so what is killed does not depend on timing.
    while not (gate.all_held.is_set() and lines() >= done_before_kill):
        assert proc.poll() is None, proc.communicate()
        gate.all_held.wait(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.communicate()
    gate.released.set()
    assert lines() == done_before_kill
    with results.open("a") as fh:  # a half-written line, as if killed mid-write
        fh.write('{"id": "' + records[-1].id + '", "outcome": "stri')

    res = CliRunner().invoke(EVAL_APP, _args(path, fake_openai.base_url, killed))
    assert res.exit_code == 0, res.output
    resumed = [json.loads(line) for line in results.read_text().splitlines()]
    ids = [r["id"] for r in resumed]
    assert len(ids) == len(set(ids)) == len(records)

    full = tmp_path / "full"
    res = CliRunner().invoke(EVAL_APP, _args(path, fake_openai.base_url, full))
    assert res.exit_code == 0, res.output
    uninterrupted = [json.loads(line) for line in (full / "results.jsonl").read_text().splitlines()]
    assert {r["id"]: r["outcome"] for r in resumed} == {
        r["id"]: r["outcome"] for r in uninterrupted
    }
    s1 = json.loads((killed / "summary.json").read_text())
    s2 = json.loads((full / "summary.json").read_text())
    assert s1["outcomes"] == s2["outcomes"] and s1["counts"] == s2["counts"]
    assert s1["tokens"]["completion_total"] == 3 * len(records)
