"""End to end: CLI writes report.md / report.html; HTML self-contained; figures present."""

from __future__ import annotations

import re
from pathlib import Path

from report_cli import report_app
from typer.testing import CliRunner

PNG = b"\x89PNG\r\n\x1a\n"


def test_cli_writes_self_contained_report(synthetic_runs, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = CliRunner().invoke(report_app(), ["report", *map(str, synthetic_runs), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert res.output.split() == [str(out / "report.md"), str(out / "report.html")]
    page = (out / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert "http://" not in page and "https://" not in page
    assert "<link" not in page and "<script" not in page
    assert len(re.findall(r'<img [^>]*src="data:image/png;base64,', page)) == 4
    keys = ["closure_level", "closure_n", "closure_tokens", "closure_outcomes"]
    keys += ["closure_strict_lenient", "closure_category", "grit_task", "grit_naming", "grit_form"]
    for key in keys:
        assert f'<section id="{key}">' in page
    assert page.count("<td>gpt-x · cot</td>") >= 8
    md = (out / "report.md").read_text()
    assert "### ClosureBench: accuracy by level (Table 3)" in md
    assert "![figures/accuracy_vs_tokens.png](figures/accuracy_vs_tokens.png)" in md
    names = ["accuracy_by_level", "accuracy_vs_n", "accuracy_vs_tokens", "grit_naming_form"]
    assert sorted(p.stem for p in (out / "figures").iterdir()) == sorted(names)
    for name in names:
        png = (out / "figures" / f"{name}.png").read_bytes()
        assert png.startswith(PNG) and len(png) > 5000


def test_cli_default_out_is_first_run(synthetic_runs) -> None:
    res = CliRunner().invoke(report_app(), ["report", str(synthetic_runs[0])])
    assert res.exit_code == 0, res.output
    assert (synthetic_runs[0] / "report.html").is_file()
    assert (synthetic_runs[0] / "report.md").is_file()


def test_cli_error_names_missing_path(tmp_path: Path) -> None:
    res = CliRunner().invoke(report_app(), ["report", str(tmp_path / "nope")])
    assert res.exit_code == 1
    assert f"{tmp_path / 'nope' / 'results.jsonl'}: not found" in res.output
