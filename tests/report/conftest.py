"""Fixtures for the report tests (run directories built by ``report_fixtures``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from report_fixtures import synthetic_records, write_run


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[[str, Sequence[dict[str, Any]]], Path]:
    """Factory: ``make_run(name, records) -> run dir`` under tmp_path."""
    return lambda name, recs: write_run(tmp_path, name, recs)


@pytest.fixture
def synthetic_runs(tmp_path: Path) -> list[Path]:
    """Three seeded runs: two models, direct and CoT modes."""
    specs = [("gpt-x", "direct", 0.6, 1), ("gpt-x", "cot", 0.85, 2), ("small", "direct", 0.35, 3)]
    return [
        write_run(tmp_path / "runs", f"{m}-{mode}", synthetic_records(m, mode, s, seed))
        for m, mode, s, seed in specs
    ]
