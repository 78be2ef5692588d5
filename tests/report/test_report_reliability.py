"""Issue 10 in the report: errors are not model results, incomplete runs say so, names
are escaped in report.md, and the screenshot covers the whole page."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from report_cli import report_app
from report_fixtures import record, write_run
from screenshot import screenshot
from typer.testing import CliRunner

from closurebench.report import build_report
from closurebench.report.aggregate import accuracy, load_run


def _closure(outcome: str, i: int, **meta: Any) -> dict[str, Any]:
    return record(outcome, id=f"c{i}", suite="closure", category="reachability", level=1,
                  n=4, **meta)  # fmt: skip


def test_errors_are_left_out_of_accuracy_and_the_run_is_marked_incomplete(
    tmp_path: Path,
) -> None:
    recs = [_closure("strict_correct", i) for i in range(3)] + [_closure("wrong", 3)]
    failed = _closure("error", 4)
    failed["error"] = "ProviderError: server error (503)"
    old_style = _closure("no_answer", 5)  # how the previous version wrote a failed request
    old_style["error"] = "ProviderError: timed out"
    bad = write_run(tmp_path, "bad", [*recs, failed, old_style])
    good = write_run(tmp_path, "good", recs)
    run = load_run(bad)
    assert run.errors == 2 and len(run.records) == 4
    assert accuracy(run.records).pct == 75.0  # 3 of 4 answered, not 3 of 6
    assert run.incomplete and load_run(good).incomplete is None

    out = tmp_path / "out"
    res = CliRunner().invoke(report_app(), ["report", str(bad), str(good), "--out", str(out)])
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text()
    assert "(4 answered, 2 errors — **incomplete**: 2 instances ended in error" in md
    assert "(4 answered, 0 errors)" in md
    assert "> **Warning.** Incomplete runs: m · direct (bad)." in md
    assert "| m · direct (bad) | 75.0 [30.1, 95.4] | 75.0 [30.1, 95.4] |" in md
    page = (out / "report.html").read_text()
    assert '<span class="incomplete">incomplete</span>' in page
    assert '<p class="warning">' in page


def test_a_stopped_run_is_incomplete_even_without_error_records(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path, "stopped", [_closure("wrong", 0)])
    summary = {"complete": False, "aborted": "fatal provider error: 404",
               "counts": {"total": 1, "answered": 1, "errors": 0, "selected": 30}}  # fmt: skip
    (run_dir / "summary.json").write_text(json.dumps(summary))
    why = load_run(run_dir).incomplete
    assert why is not None
    assert "the run stopped early: fatal provider error: 404" in why
    assert "29 of 30 selected instances have no result" in why


def test_model_names_and_labels_are_not_html_in_report_md(tmp_path: Path) -> None:
    evil = '<img src=x onerror="alert(1)">*x*'
    run_dir = write_run(tmp_path, "evil", [_closure("strict_correct", 0, model=evil)])
    md_path, html_path = build_report([run_dir], tmp_path / "out")
    md = md_path.read_text()
    assert "<img" not in md and "&lt;img src=x onerror=" in md and "\\*x\\*" in md
    assert "<img src=x" not in html_path.read_text()


def test_screenshot_captures_the_whole_page_height(tmp_path: Path) -> None:
    # A stand-in for Chromium: --dump-dom prints the probed page with a measured height,
    # --screenshot records the window size it was given and writes a PNG signature.
    log = tmp_path / "calls.jsonl"
    fake = tmp_path / "chromium"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "from pathlib import Path\n"
        "from urllib.parse import unquote, urlparse\n"
        "args = sys.argv[1:]\n"
        f"with open({str(log)!r}, 'a') as fh: fh.write(json.dumps(args) + '\\n')\n"
        "page = Path(unquote(urlparse(args[-1]).path)).read_text()\n"
        "if '--dump-dom' in args:\n"
        "    assert 'data-cb-height' in page\n"
        "    print(page.replace('<html', '<html data-cb-height=\"7345\"', 1))\n"
        "else:\n"
        "    shot = next(a for a in args if a.startswith('--screenshot='))\n"
        "    Path(shot.split('=', 1)[1]).write_bytes(b'\\x89PNG\\r\\n\\x1a\\n')\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    run_dir = write_run(tmp_path, "r", [_closure("strict_correct", 0)])
    _, html_path = build_report([run_dir], tmp_path / "out")
    png = screenshot(html_path, tmp_path / "shot.png", chromium=str(fake))
    assert png.read_bytes().startswith(b"\x89PNG")
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert "--dump-dom" in calls[0] and "--window-size=1280,7345" in calls[1]
    assert calls[1][-1] == html_path.resolve().as_uri()  # the report itself, not the probe
    assert os.listdir(tmp_path / "out").count("probe.html") == 0
