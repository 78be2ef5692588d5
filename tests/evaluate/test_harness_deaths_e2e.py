"""A reply that kills the harness is not replayed for ever: SIGKILL mid-instance, resume twice.

``closurebench eval --mode program-python`` runs in a child process against the fake
OpenAI server. One instance's reply is a program that sleeps; the test SIGKILLs the
harness while that program runs (the crash journal says its reply is being handled),
as a program that kills its parent would. The first resume handles that reply again,
alone and from the cache, and is killed the same way; the second resume records the
instance as ``wrong`` without running it, finishes the run, and every other instance
is handled exactly once. No step waits on a clock: each kill waits for a state.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from eval_cli import EVAL_APP, EVAL_LAUNCH
from fake_openai_server import Reply
from typer.testing import CliRunner

from closurebench.evaluate.journal import JOURNAL_FILE, read_deaths
from closurebench.jsonl import scan
from closurebench.report.aggregate import accuracy, load_run
from closurebench.report.tables import run_status

N = 6  # instances in the run
POISONED = 2  # the index of the instance whose program "kills the harness"
#: A hang guard only (the test fails instead of waiting for ever); nothing is timed.
GUARD_S = 120.0


class _Server:
    """Correct programs for every instance but one, whose program sleeps (in the sandbox).

    Once the poisoned reply has gone out, later requests are held until
    :attr:`released` is set: at the kill, the other worker waits on the network, so
    nothing but the poisoned reply is being handled, whatever the machine's speed.
    """

    def __init__(self, records: list[Any]) -> None:
        self.by_q = {r.question: r for r in records}
        self.poisoned = records[POISONED]
        self.asked: Counter[str] = Counter()
        self.held = 0
        self.lock = threading.Lock()
        self.released = threading.Event()
        self.poison_sent = False

    def __call__(self, body: dict[str, Any]) -> Any:
        rec = self.by_q[body["messages"][-1]["content"]]
        with self.lock:
            self.asked[rec.id] += 1
            hold = self.poison_sent and rec.id != self.poisoned.id and not self.released.is_set()
            if hold:
                self.held += 1
            if rec.id == self.poisoned.id:
                self.poison_sent = True
        if hold:
            self.released.wait()
        answer = json.dumps({"answer": rec.answer})
        program = f"print({answer!r})\n"
        if rec.id == self.poisoned.id:  # runs long enough to be killed while it runs
            program = "import time\ntime.sleep(8)\n" + program
        return Reply(f"```python\n{program}```", prompt_tokens=40, completion_tokens=20)


def _args(data: Path, base_url: str, out: Path) -> list[str]:
    return [
        str(data), "--model", "fake-model", "--base-url", base_url, "--mode", "program-python",
        "--out", str(out), "--limit", str(N), "--concurrency", "2", "--timeout", "3600",
        "--retries", "0", "--no-progress",
    ]  # fmt: skip


def _events(out: Path) -> list[dict[str, Any]]:
    return [line.obj for line in scan(out / JOURNAL_FILE) if line.obj is not None]


def _handles(out: Path, rid: str) -> list[str]:
    """The sessions that started handling ``rid``'s reply."""
    return [e["session"] for e in _events(out) if e.get("event") == "handle" and e["id"] == rid]


def _result_lines(out: Path) -> list[dict[str, Any]]:
    path = out / "results.jsonl"
    if not path.exists():
        return []
    return [line.obj for line in scan(path) if line.obj is not None]


def _kill_when(proc: subprocess.Popen[bytes], ready: Any) -> str:
    """SIGKILL ``proc`` as soon as ``ready()`` holds; return its stderr."""
    deadline = time.monotonic() + GUARD_S
    while not ready():
        if proc.poll() is not None:
            raise AssertionError(proc.communicate()[1].decode())
        assert time.monotonic() < deadline, "the harness never reached the state"
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    return err.decode()


def test_a_reply_that_kills_the_harness_is_recorded_wrong_after_two_deaths(
    fake_openai: Any, data: Any, tmp_path: Path
) -> None:
    path, records = data
    server = _Server(records)
    fake_openai.script(default=server)
    poisoned = server.poisoned.id
    others = [r.id for r in records[:N] if r.id != poisoned]
    out = tmp_path / "run"
    # The sandbox's per-program folders of a killed harness stay behind: keep them here.
    child_tmp = tmp_path / "child-tmp"
    child_tmp.mkdir()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": str(child_tmp)}
    launch = [sys.executable, "-c", EVAL_LAUNCH, *_args(path, fake_openai.base_url, out)]

    # 1. Killed while the poisoned program runs, the other worker waiting on a held
    #    request (so handling nothing).
    proc = subprocess.Popen(launch, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _kill_when(
        proc,
        lambda: (
            out.joinpath(JOURNAL_FILE).exists()
            and len(_handles(out, poisoned)) == 1
            and server.held == 1
        ),
    )
    server.released.set()
    assert read_deaths(out / JOURNAL_FILE) == {poisoned: 1}  # no bystander charged
    done_before = {r["id"] for r in _result_lines(out)}
    assert poisoned not in done_before and done_before >= {r.id for r in records[:POISONED]}

    # 2. The first resume handles the poisoned reply again, first and alone, from the
    #    cache - and is killed the same way.
    proc = subprocess.Popen(launch, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = _kill_when(proc, lambda: len(_handles(out, poisoned)) == 2)
    assert "handled once more, alone" in err and poisoned in err
    assert read_deaths(out / JOURNAL_FILE) == {poisoned: 2}
    assert {r["id"] for r in _result_lines(out)} == done_before  # nothing ran beside it
    first, second = _handles(out, poisoned)
    assert first != second  # two processes died on it

    # 3. The second resume gives up on it and finishes the run.
    res = CliRunner().invoke(EVAL_APP, _args(path, fake_openai.base_url, out))
    assert res.exit_code == 0, res.output
    assert f"{poisoned}: the harness died 2 times" in res.output
    lines = _result_lines(out)
    ids = [r["id"] for r in lines]
    assert sorted(ids) == sorted(r.id for r in records[:N])  # each exactly once
    results = {r["id"]: r for r in lines}
    bad = results[poisoned]
    assert (bad["outcome"], bad["strict"], bad["lenient"], bad["error"]) == (
        "wrong",
        False,
        False,
        None,
    )
    assert bad["harness_deaths"] == {"count": 2, "gave_up": True}
    assert "the harness died 2 times while handling this reply" in bad["reason"]
    assert len(_handles(out, poisoned)) == 2  # not run a third time
    for rid in others:
        assert results[rid]["outcome"] == "strict_correct", results[rid]["reason"]
        assert "harness_deaths" not in results[rid]
        assert len(_handles(out, rid)) == 1  # every other reply handled exactly once
    assert server.asked[poisoned] == 1  # the retry used the cached reply
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is True
    assert summary["counts"] == {"total": N, "answered": N, "errors": 0, "selected": N}
    assert summary["strict_accuracy"] == (N - 1) / N  # the poisoned one is in the denominator
    assert summary["harness_deaths"]["recorded_wrong"] == 1
    assert summary["harness_deaths"]["examples"] == [poisoned]
    assert summary["run"]["harness_gave_up"] == 1
    # the report keeps it, as a wrong answer and as a failed execution
    run = load_run(out)
    assert accuracy(run.records).n == N and run.harness_gave_up == 1
    assert "1 recorded wrong" in run_status(run)
