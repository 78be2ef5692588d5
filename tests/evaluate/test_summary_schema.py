"""``summary.json`` through its one typed definition: written, read and published by it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner

import closurebench
from closurebench.cli import app
from closurebench.evaluate.records import write_summary
from closurebench.report.aggregate import ReportError, load_run
from closurebench.schema import RunSummary, parse_summary, schema_for


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A reference-model agent run (figures, agent facts) on 8 GRIT instances."""
    root = tmp_path_factory.mktemp("summary-run")
    ds = closurebench.create_dataset("grit:bfs", seed=4, size=8)
    data = root / "grit.jsonl"
    data.write_text("".join(json.dumps(ds.record(i).to_json()) + "\n" for i in range(len(ds))))
    out = root / "run"
    res = CliRunner().invoke(
        app, ["eval", str(data), "--model", "reader", "--mode", "agent", "--out", str(out),
              "--no-progress"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return out


def test_a_runs_summary_validates_and_is_written_unchanged(run_dir: Path, tmp_path: Path) -> None:
    text = (run_dir / "summary.json").read_text()
    obj: dict[str, Any] = json.loads(text)
    jsonschema.validate(obj, schema_for("summary"))  # the published schema
    summary = parse_summary(obj, "summary.json")
    assert summary.counts.answered == 8 and summary.strict_accuracy == 1.0
    assert summary.model_extra is not None and "agent" in summary.model_extra  # a mode's facts
    assert summary.figures is not None and summary.figures.grit is not None
    # Writing through the model keeps every key and value: the same bytes.
    again = write_summary(tmp_path / "summary.json", RunSummary.model_validate(obj))
    assert again.read_text() == text
    res = CliRunner().invoke(
        app, ["schema", "summary", "--validate", str(run_dir / "summary.json")]
    )
    assert res.exit_code == 0 and "1 summary records, all valid" in res.output, res.output


def test_a_summary_of_the_wrong_shape_is_refused_on_write_and_read(
    run_dir: Path, tmp_path: Path
) -> None:
    obj = json.loads((run_dir / "summary.json").read_text())
    bad = RunSummary.model_validate(obj)
    bad.counts.answered = "eight"  # type: ignore[assignment]  # a bug in the runner
    with pytest.raises(ValueError, match="answered"):
        write_summary(tmp_path / "summary.json", bad)
    assert not (tmp_path / "summary.json").exists()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.jsonl").write_text((run_dir / "results.jsonl").read_text())
    wrong = {**obj, "counts": {**obj["counts"], "answered": "eight"}}
    (broken / "summary.json").write_text(json.dumps(wrong))
    with pytest.raises(
        ReportError, match=r"summary\.json: not a summary\.json record: field 'counts\.answered'"
    ):
        load_run(broken)
    res = CliRunner().invoke(app, ["report", str(broken), "--out", str(tmp_path / "r")])
    assert res.exit_code == 1 and "counts.answered" in res.stderr, res.output


def test_an_older_summary_with_fewer_keys_still_loads(run_dir: Path, tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    (old / "results.jsonl").write_text((run_dir / "results.jsonl").read_text())
    (old / "summary.json").write_text(json.dumps({"counts": {"total": 8}, "complete": True}))
    run = load_run(old)
    assert run.summary is not None
    assert run.summary.to_json() == {"counts": {"total": 8}, "complete": True}  # nothing invented
    assert run.summary.counts.answered == 0  # the default
