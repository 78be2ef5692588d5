"""Issue 10, points 1-3, through ``closurebench eval`` as a user runs it, over real HTTP.

Every test drives the CLI (typer's CliRunner, or a subprocess) against the fake
OpenAI-compatible server on a loopback port. Nothing here measures time: "stops at
once" is shown by how many requests reached the server, "does not stall" by a run
that finishes although the server asked for a 28-hour wait.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP, EVAL_LAUNCH
from fake_openai_server import FakeOpenAIServer, Reply, Status
from typer.testing import CliRunner

from closurebench.cli import EXIT_INCOMPLETE, EXIT_INFRASTRUCTURE
from closurebench.report import build_report


def _answers(records: list[Any]) -> Any:
    """A step answering every question correctly."""
    by_q = {r.question: r for r in records}
    return lambda body: Reply(json.dumps({"answer": by_q[body["messages"][-1]["content"]].answer}))


def _args(
    data: Path, fake: FakeOpenAIServer, out: Path, *extra: str, model: str = "fake-model"
) -> list[str]:
    return [
        str(data), "--model", model, "--base-url", fake.base_url, "--out", str(out),
        "--concurrency", "2", "--retries", "0", "--backoff", "0", "--no-progress", *extra,
    ]  # fmt: skip


def _invoke(args: list[str], **env: str) -> Any:
    return CliRunner().invoke(EVAL_APP, args, env=env or None)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


# ----------------------------------------------------------- 1. failures are not results


def test_unknown_model_404_stops_at_once_with_the_servers_message(
    data: Any, tmp_path: Path
) -> None:
    path, _ = data
    with FakeOpenAIServer(strict_models=True) as fake:
        out = tmp_path / "run"
        # four retries with a 1 s backoff would take minutes over 30 instances; the
        # options given later win (click keeps the last value of an option)
        res = _invoke(_args(path, fake, out, "--retries", "4", "--backoff", "1", model="nope"))
        sent = len(fake.chat_requests)
    assert res.exit_code == EXIT_INFRASTRUCTURE, res.output
    assert "The model `nope` does not exist" in res.stderr and "404" in res.stderr
    assert "Traceback" not in res.output
    assert sent <= 2  # one request per worker at most: no retry, no further instance
    assert _lines(out / "results.jsonl") == []  # nothing was scored as the model's
    summary = _summary(out)
    assert summary["complete"] is False and "fatal" in summary["aborted"]
    assert summary["counts"]["total"] == 0 and summary["strict_accuracy"] is None


def test_bad_api_key_401_stops_at_once(data: Any, tmp_path: Path) -> None:
    path, _ = data
    with FakeOpenAIServer(api_key="the-right-key") as fake:
        out = tmp_path / "run"
        res = _invoke(_args(path, fake, out, "--retries", "3"), OPENAI_API_KEY="a-wrong-key")
        sent = len(fake.chat_requests)
    assert res.exit_code == EXIT_INFRASTRUCTURE, res.output
    assert "authentication failed" in res.stderr and "Incorrect API key" in res.stderr
    assert "a-wrong-key" not in res.output
    assert sent <= 2 and _lines(out / "results.jsonl") == []


def test_always_500_trips_the_circuit_breaker(data: Any, tmp_path: Path) -> None:
    path, _ = data
    with FakeOpenAIServer() as fake:
        fake.script(default=Status(500))
        out = tmp_path / "run"
        args = _args(path, fake, out, "--retries", "1", "--max-consecutive-failures", "3")
        res = _invoke([*args, "--concurrency", "1"])
        sent = len(fake.chat_requests)
    assert res.exit_code == EXIT_INFRASTRUCTURE, res.output
    assert "3 instances in a row ended in error" in res.stderr
    assert "500: internal server error" in res.stderr and "--max-consecutive-failures" in res.stderr
    results = _lines(out / "results.jsonl")
    assert [r["outcome"] for r in results] == ["error"] * 3
    assert sent == 3 * 2  # three instances, each tried twice, then the run stopped
    assert "3 of 30 results" in res.stdout and "3 errors" in res.stdout
    summary = _summary(out)
    assert summary["complete"] is False and summary["aborted"].startswith("3 instances")


def test_errors_are_shown_left_out_of_accuracy_and_retried_on_resume(
    data: Any, tmp_path: Path
) -> None:
    path, records = data
    failing = {r.question for r in records[::5]}  # 6 of 30 instances
    answer = _answers(records)
    down = True

    def step(body: dict[str, Any]) -> Any:
        if down and body["messages"][-1]["content"] in failing:
            return Status(503)
        return answer(body)

    with FakeOpenAIServer() as fake:
        fake.script(default=step)
        out = tmp_path / "run"
        args = _args(path, fake, out, "--max-consecutive-failures", "0")
        first = _invoke(args)
        assert first.exit_code == EXIT_INCOMPLETE, first.output
        assert "30 results" in first.stdout and "6 errors" in first.stdout
        assert "strict 1.000, lenient 1.000 over 24 answered" in first.stdout
        assert "incomplete: 6 instance(s) ended in error" in first.stderr
        summary = _summary(out)
        assert summary["counts"] == {"total": 30, "answered": 24, "errors": 6, "selected": 30}
        assert summary["strict_accuracy"] == 1.0 and summary["complete"] is False
        assert summary["outcomes"]["error"] == 6 and summary["outcomes"]["no_answer"] == 0
        md, _ = build_report([out], tmp_path / "report")
        assert "(24 answered, 6 errors — **incomplete**: 6 instances ended in error" in (
            md.read_text()
        )

        down = False
        before = len(fake.chat_requests)
        second = _invoke(args)
        assert second.exit_code == 0, second.output
        assert len(fake.chat_requests) - before == 6  # only the errored ones ran again
    assert "evaluated 6, resumed 24" in second.stdout and "0 errors" in second.stdout
    summary = _summary(out)
    assert summary["complete"] is True and summary["strict_correct"] == 30
    ids = [r["id"] for r in _lines(out / "results.jsonl")]
    assert sorted(ids) == sorted(r.id for r in records)


def test_old_results_and_run_files_still_load(data: Any, tmp_path: Path) -> None:
    # Files of the previous version: a failed request was "no_answer" with an error,
    # and run.json held only mode, settings and provider.
    path, records = data
    with FakeOpenAIServer() as fake:
        fake.script(default=_answers(records))
        out = tmp_path / "run"
        args = _args(path, fake, out, "--limit", "4")
        assert _invoke(args).exit_code == 0
        rows = _lines(out / "results.jsonl")
        rows[1].update(outcome="no_answer", error="ProviderError: 503", strict=False)
        (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        run = json.loads((out / "run.json").read_text())
        old = {k: run[k] for k in ("mode", "provider")}
        old["settings"] = run["settings"]
        (out / "run.json").write_text(json.dumps(old))
        res = _invoke(args)
    assert res.exit_code == 0, res.output
    assert "written by an older version" in res.stderr
    assert "evaluated 1, resumed 3" in res.stdout
    assert json.loads((out / "run.json").read_text())["dataset"]["sha256"]


def test_nonsensical_options_are_refused_before_any_request(data: Any, tmp_path: Path) -> None:
    path, _ = data
    with FakeOpenAIServer() as fake:
        cases = {
            ("--timeout", "-5"): "--timeout must be a positive number of seconds, got -5",
            ("--max-tokens", "0"): "--max-tokens must be >= 1",
            ("--backoff-max", "-1"): "--backoff-max must be >= 0",
            ("--max-consecutive-failures", "-2"): "--max-consecutive-failures must be >= 0",
            ("--concurrency", "0"): "--concurrency must be >= 1",
        }
        for (flag, value), needle in cases.items():
            res = _invoke(_args(path, fake, tmp_path / "run", flag, value))
            assert res.exit_code == 1, (flag, res.output)
            assert needle in res.stderr and "Traceback" not in res.output
        assert fake.chat_requests == []
    assert not (tmp_path / "run").exists()


# -------------------------------------------------------------- 2. runs cannot mix


def test_changed_dataset_or_model_refuses_to_resume_and_force_new_starts_over(
    data: Any, tmp_path: Path
) -> None:
    path, records = data
    own = tmp_path / "data.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    own.write_text("".join(lines))
    with FakeOpenAIServer() as fake:
        fake.script(default=_answers(records))
        out = tmp_path / "run"
        assert _invoke(_args(own, fake, out, "--limit", "3")).exit_code == 0

        own.write_text("".join(reversed(lines)))  # regenerated into the same path
        res = _invoke(_args(own, fake, out, "--limit", "3"))
        assert res.exit_code == 1, res.output
        assert "holds another run (dataset sha256" in res.stderr
        assert "--force-new" in res.stderr and "Traceback" not in res.output

        own.write_text("".join(lines))
        res = _invoke(_args(own, fake, out, "--limit", "3", model="other-model"))
        assert res.exit_code == 1
        assert "model 'fake-model' -> 'other-model'" in res.stderr
        res = _invoke([*_args(own, fake, out, "--limit", "3"), "--temperature", "0.7"])
        assert res.exit_code == 1 and "setting temperature 0.0 -> 0.7" in res.stderr

        before = len(fake.chat_requests)
        own.write_text("".join(reversed(lines)))
        res = _invoke(_args(own, fake, out, "--limit", "2", "--force-new"))
        assert res.exit_code == 0, res.output
        assert "evaluated 2, resumed 0" in res.stdout
        assert len(fake.chat_requests) - before == 2  # the cache was cleared too
    ids = sorted(r["id"] for r in _lines(out / "results.jsonl"))  # completion order varies
    assert ids == sorted([records[-1].id, records[-2].id])
    assert _summary(out)["counts"]["total"] == 2


def test_a_second_eval_on_the_same_out_refuses_at_once(data: Any, tmp_path: Path) -> None:
    path, records = data
    answer = _answers(records)
    held = threading.Event()
    release = threading.Event()

    def step(body: dict[str, Any]) -> Any:
        held.set()
        release.wait()
        return answer(body)

    with FakeOpenAIServer() as fake:
        fake.script(default=step)
        out = tmp_path / "run"
        args = _args(path, fake, out, "--limit", "4", "--timeout", "3600")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-c", EVAL_LAUNCH, *args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            # The first run holds the lock from before its first request until it ends.
            while not held.wait(0.05):
                assert proc.poll() is None, proc.communicate()
            second = _invoke(args)
            assert second.exit_code == 1, second.output
            assert "another `closurebench eval` (pid " in second.stderr
            assert f"pid {proc.pid})" in second.stderr and "another --out" in second.stderr
        finally:
            release.set()
            stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "4 results" in stdout
    ids = [r["id"] for r in _lines(out / "results.jsonl")]
    assert len(ids) == len(set(ids)) == 4  # the refused run wrote nothing


def test_out_that_is_a_file_is_one_line(data: Any, tmp_path: Path) -> None:
    path, _ = data
    with FakeOpenAIServer() as fake:
        taken = tmp_path / "a-file"
        taken.write_text("x")
        res = _invoke(_args(path, fake, taken))
    assert res.exit_code == 1 and "it is a file, not a folder" in res.stderr
    assert "Traceback" not in res.output and taken.read_text() == "x"


# -------------------------------------------------------------- 3. Retry-After caps


@pytest.mark.parametrize("code", [429, 503])
def test_retry_after_100000_is_capped_and_said_once(data: Any, tmp_path: Path, code: int) -> None:
    path, records = data
    with FakeOpenAIServer() as fake:
        fake.script(
            Status(code, retry_after=100000),
            Status(code, retry_after=100000),
            default=_answers(records),
        )
        out = tmp_path / "run"
        args = _args(path, fake, out, "--limit", "3", "--retries", "2", "--backoff-max", "0.05")
        res = _invoke(args)
    assert res.exit_code == 0, res.output
    notice = "the server asked to wait 100000s before retrying (Retry-After); waiting at most "
    assert res.stderr.count(notice + "0.05s (--backoff-max) instead") == 1
    summary = _summary(out)
    assert summary["run"]["retry_after_capped"] == 2 and summary["complete"] is True
