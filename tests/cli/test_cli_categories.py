"""``closurebench categories``: every category's facts, from the task registry."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import TESTED_MAX_N

runner = CliRunner()


def test_categories_json_has_every_category_with_its_facts() -> None:
    result = runner.invoke(app, ["categories", "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["category"] for r in rows] == list(CLOSURE_TASKS)
    for row in rows:
        task = CLOSURE_TASKS[row["category"]]
        assert row["level"] == task.level
        assert row["result_type"] == task.result_type
        assert row["ambiguity"] == (task.ambiguity and str(task.ambiguity))
        assert row["min_n"] == task.min_n
        assert row["max_n_tested"] == TESTED_MAX_N
        assert row["summary"]


def test_categories_table() -> None:
    result = runner.invoke(app, ["categories"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    for name in CLOSURE_TASKS:
        assert name in result.stdout
    assert f"4..{TESTED_MAX_N}+" in result.stdout
    assert "source limit" in result.stdout
