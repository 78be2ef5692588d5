"""Table 6 from several probe folders (``closurebench memorisation --table6 LABEL=DIR``)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.report.memorisation import TABLE6_JSON, TABLE6_MARKDOWN, parse_table6_args
from closurebench.schema import Table6, schema_for

runner = CliRunner()


@pytest.fixture(scope="module")
def probes(
    tmp_path_factory: pytest.TempPathFactory, seen_file: Path, seen_records: list
) -> dict[str, Path]:
    """Two probes of the same seen file: one model memorised it, one knows nothing."""
    root = tmp_path_factory.mktemp("probes")
    script = {r.question: json.dumps({"answer": r.answer}) for r in seen_records}
    out = {}
    for label, known in (("answer", script), ("ein", {})):
        path = root / f"{label}.json"
        path.write_text(json.dumps({**known, "?": '{"answer": "nobody"}'}), encoding="utf-8")
        args = [
            "memorisation", "--model", label, "--seen", str(seen_file), "--out",
            str(root / label), "--provider", "scripted", "--script", str(path), "--seeds", "3",
            "--no-progress",
        ]  # fmt: skip
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        out[label] = root / label
    return out


def test_table6_rows_follow_the_labels(tmp_path: Path, probes: dict[str, Path]) -> None:
    args = ["memorisation", "--out", str(tmp_path)]
    for label, folder in probes.items():
        args += ["--table6", f"{label}={folder}"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / TABLE6_JSON).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema_for("table6")).validate(data)
    table = Table6.model_validate(data)
    assert [r.supervision for r in table.rows] == ["answer", "ein"]
    seen = [next(s for s in r.checkpoint.sets if s.set == "seen") for r in table.rows]
    assert [s.strict.value for s in seen] == [1.0, 0.0]
    md = (tmp_path / TABLE6_MARKDOWN).read_text(encoding="utf-8")
    assert "Table 6: answer vs program supervision (strict)" in md
    assert "| answer | base | direct | 100.0 [67.6, 100.0] | 0.0 [0.0, 32.4] |" in md
    check = runner.invoke(app, ["schema", "table6", "--validate", str(tmp_path / TABLE6_JSON)])
    assert check.exit_code == 0, check.output


def test_table6_errors_are_one_line(tmp_path: Path, probes: dict[str, Path]) -> None:
    bad = [
        (["--table6", "answer"], "expected LABEL=DIR"),
        (["--table6", f"x={tmp_path}"], "memorisation.json: not found"),
        (["--table6", f"a={probes['ein']}", "--table6", f"a={probes['ein']}"], "given twice"),
        (["--table6", f"a={probes['ein']}", "--model", "m"], "--model does not go with"),
    ]
    for extra, message in bad:
        result = runner.invoke(app, ["memorisation", "--out", str(tmp_path / "t"), *extra])
        assert result.exit_code == 1, result.output
        assert result.output.startswith("error: ") and message in result.output, result.output
    missing = runner.invoke(app, ["memorisation", "--out", str(tmp_path / "t")])
    assert missing.exit_code == 1 and "--model is required" in missing.output


def test_parse_table6_args_keeps_the_order() -> None:
    assert parse_table6_args(["python=p", "answer=a"]) == [("python", "p"), ("answer", "a")]


def test_the_report_gains_the_probes_and_table6(tmp_path: Path, probes: dict[str, Path]) -> None:
    run = probes["answer"] / "runs" / "base" / "seen"  # any run folder of the harness
    args = ["report", str(run), "--out", str(tmp_path / "report")]
    for label, folder in probes.items():
        args += ["--probe", f"{label}={folder}"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Memorisation probe: answer" in md and "## Memorisation probe: ein" in md
    assert "## Table 6" in md and "| answer | base | direct | 100.0 [67.6, 100.0] |" in md
    assert "figures/memorisation-answer.png" in md
    assert (tmp_path / "report" / "figures" / "memorisation-ein.png").is_file()
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert "Table 6: answer vs program supervision (strict)" in html
    bad = runner.invoke(app, ["report", str(run), "--probe", "answer"])
    assert bad.exit_code == 1 and "--probe 'answer': expected LABEL=DIR" in bad.output
