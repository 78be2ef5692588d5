"""The report and ``summary.json`` agree on every run: one function counts both.

Run folders with failed requests, a resume that retries some of them, a smaller
selection into a folder that holds more, and several modes; for each, the report's
counts, error examples and accuracies equal ``summary.json``'s.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import closurebench
from closurebench.cli import app
from closurebench.report.aggregate import accuracy, load_run
from closurebench.report.tables import run_status

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evaluate"))

from fake_openai_server import FakeOpenAIServer, Reply, Status


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    out = tmp_path_factory.mktemp("agree-data")
    closurebench.generate_split("heldout", seed=11, count=20, out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


def _eval(data: Path, fake: FakeOpenAIServer, out: Path, *extra: str) -> Any:
    args = ["eval", str(data), "--model", "fake-model", "--base-url", fake.base_url,
            "--out", str(out), "--concurrency", "2", "--retries", "0", "--backoff", "0",
            "--no-progress", "--max-consecutive-failures", "0", *extra]  # fmt: skip
    return CliRunner().invoke(app, args)


def _agree(run_dir: Path) -> dict[str, Any]:
    """Assert the report's view of ``run_dir`` equals its summary.json; return the summary."""
    summary = json.loads((run_dir / "summary.json").read_text())
    run = load_run(run_dir)
    counts = summary["counts"]
    assert len(run.records) == counts["answered"]
    assert run.errors == counts["errors"]
    assert run.error_examples == summary["error_examples"]
    strict, lenient = accuracy(run.records, strict=True), accuracy(run.records)
    assert (strict.k, lenient.k) == (summary["strict_correct"], summary["lenient_correct"])
    if counts["answered"]:
        assert strict.k / strict.n == summary["strict_accuracy"]
        assert lenient.k / lenient.n == summary["lenient_accuracy"]
    status = run_status(run)
    assert f"{counts['answered']} answered, {counts['errors']} errors" in status
    assert ("incomplete" in status) == (summary["complete"] is False)
    return summary


def test_report_and_summary_agree_on_errors_resumes_selections_and_modes(
    data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    path, records = data
    by_q = {r.question: r for r in records}
    failing = {r.question for r in records[::4]}  # 5 of 20 fail while "down"
    wrong = {r.question for r in records[1::3]}
    state = {"down": True}

    def step(body: dict[str, Any]) -> Any:
        question = body["messages"][-1]["content"]
        rec = next((r for q, r in by_q.items() if q in question), None)
        if rec is None:
            return Reply("no idea")
        if state["down"] and rec.question in failing:
            return Status(503, message=f"down for {rec.id}")
        answer = "nonsense" if rec.question in wrong else rec.answer
        return Reply(json.dumps({"answer": answer}))

    with FakeOpenAIServer() as fake:
        fake.script(default=step)
        direct = tmp_path / "direct"
        first = _eval(path, fake, direct)
        assert first.exit_code == 4, first.output  # finished, instances in error
        s = _agree(direct)
        assert s["counts"]["errors"] == 5 and s["complete"] is False
        assert len(s["error_examples"]) == 3  # three distinct messages of the five
        state["down"] = False
        again = _eval(path, fake, direct)  # the resume retries the five
        assert again.exit_code == 0, again.output
        s = _agree(direct)
        assert s["counts"]["errors"] == 0 and s["complete"] is True
        smaller = _eval(path, fake, direct, "--limit", "8")  # a smaller selection
        assert smaller.exit_code == 0, smaller.output
        s = _agree(direct)
        assert s["counts"]["answered"] == 8 and s["counts"]["outside_selection"] == 12
        cot = tmp_path / "cot"
        state["down"] = True
        assert _eval(path, fake, cot, "--mode", "cot").exit_code == 4
        s = _agree(cot)
        assert s["counts"]["errors"] == 5 and 0 < s["lenient_correct"] < 15
