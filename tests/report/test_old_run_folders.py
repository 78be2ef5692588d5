"""Run folders written by closurebench 0.2.0 still load: report, viewer, resume.

``tests/data/run-v0.2.0/`` holds two folders that version 0.2.0 (commit 5fa55b7, the
first at that version) wrote with the scripted provider over its own quickstart sets:
``closure-direct`` (26 ClosureBench instances, ``direct``) and ``grit-cot`` (48 GRIT
views, ``cot``), each reply right, missing, wrong or right after some reasoning in turn
(strict 0.5 on both). Today's readers must take them as they are.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.jsonl import read_json
from closurebench.report.aggregate import load_runs
from closurebench.report.build import build_report
from closurebench.report.run import LoadedResult
from closurebench.report.view import load_view_runs, view_payload
from closurebench.schema import RunSummary

OLD = Path(__file__).resolve().parents[1] / "data" / "run-v0.2.0"
FOLDERS = (OLD / "closure-direct", OLD / "grit-cot")


def test_the_report_reads_0_2_0_folders(tmp_path: Path) -> None:
    runs = load_runs(FOLDERS)
    assert [(r.model, r.mode) for r in runs] == [
        ("scripted-v020", "direct"),
        ("scripted-v020", "cot"),
    ]
    for run, folder in zip(runs, FOLDERS, strict=True):
        written = read_json(folder / "summary.json")
        assert isinstance(run.summary, RunSummary)
        assert all(isinstance(r, LoadedResult) for r in run.records)
        assert len(run.records) == written["counts"]["total"]
        strict = sum(r.strict for r in run.records) / len(run.records)
        assert strict == written["strict_accuracy"] == 0.5
        assert run.summary.outcomes == written["outcomes"]
    md, html = build_report(FOLDERS, tmp_path / "report")
    text = md.read_text(encoding="utf-8")
    assert "scripted-v020 · direct" in text and "scripted-v020 · cot" in text
    assert html.stat().st_size > 0


def test_the_viewer_reads_0_2_0_folders() -> None:
    runs, datasets = load_view_runs(FOLDERS, data=[OLD / "closure-heldout.jsonl"])
    payload = view_payload(runs, datasets)
    assert [len(r.records) for r in runs] == [26, 48]
    assert len(payload["records"]) == 74
    # the ClosureBench questions are joined from the dataset file given
    closure = [r for r in payload["records"] if str(r.get("id", "")).startswith("closure-")]
    assert len(closure) == 26


def test_a_0_2_0_folder_resumes(tmp_path: Path) -> None:
    run = tmp_path / "closure-direct"
    shutil.copytree(OLD / "closure-direct", run)
    data = tmp_path / "closure-heldout.jsonl"
    shutil.copy(OLD / "closure-heldout.jsonl", data)
    # the same replies as 0.2.0 got; none is asked for again
    script = tmp_path / "script.json"
    script.write_text(json.dumps({}), encoding="utf-8")
    before = (run / "results.jsonl").read_bytes()
    result = CliRunner().invoke(
        app,
        [
            "eval",
            str(data),
            "--provider",
            "scripted",
            "--script",
            str(script),
            "--model",
            "scripted-v020",
            "--mode",
            "direct",
            "--out",
            str(run),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "resumed 26" in " ".join(result.output.split())
    assert (run / "results.jsonl").read_bytes() == before
    summary = read_json(run / "summary.json")
    assert summary["counts"]["total"] == 26 and summary["strict_accuracy"] == 0.5
