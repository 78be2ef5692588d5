"""A report computes its tables once and shows the same ones in Markdown and HTML."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import pytest

from closurebench.report import build, tables
from closurebench.report.build import build_report


def test_the_tables_are_computed_once_per_report(
    synthetic_runs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = tables.all_tables

    def counting(runs: Any) -> Any:
        calls.append(len(runs))
        return real(runs)

    monkeypatch.setattr(build, "all_tables", counting)
    monkeypatch.setattr(tables, "all_tables", counting)
    md, html = build_report(synthetic_runs, tmp_path / "out")
    assert calls == [len(synthetic_runs)]
    # Every table title of the Markdown is in the HTML too: the same tables.
    titles = [line[4:] for line in md.read_text().splitlines() if line.startswith("### ")]
    page = html.read_text()
    assert titles and all(escape(t, quote=False) in page for t in titles), titles
