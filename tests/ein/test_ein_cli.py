"""The ``closurebench ein`` command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.ein import syntax_card
from closurebench.ein.examples import MULTI_QUERY, TRIANGLE_COUNT

runner = CliRunner()


def _write(tmp_path: Path, text: str, name: str = "prog.ein") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_run_prints_name_value_lines(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ein", "run", _write(tmp_path, MULTI_QUERY)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["Reachable = 1", "Degree = 1"]


def test_run_without_prints_shows_last_assignment(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ein", "run", _write(tmp_path, TRIANGLE_COUNT)])
    assert result.exit_code == 0
    assert result.stdout.strip() == "Result = 1"


def test_run_json(tmp_path: Path) -> None:
    prog = "A = edges([[0,1],[1,2]])\n:print tc(A)\n"
    result = runner.invoke(app, ["ein", "run", "--json", _write(tmp_path, prog)])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    result = runner.invoke(app, ["ein", "run", "--json", _write(tmp_path, "x = 1 / 4")])
    assert json.loads(result.stdout) == 0.25


def test_run_error_exit_code_and_caret(tmp_path: Path) -> None:
    path = _write(tmp_path, "A = edges([[0,1]])\n:print reach(A, 7)\n")
    result = runner.invoke(app, ["ein", "run", path])
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{path}: line 2, column 17: reach: node 7 is out of range")
    assert lines[1] == "  2 | :print reach(A, 7)"
    assert lines[2] == "    |                 ^"


def test_run_missing_file(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ein", "run", str(tmp_path / "nope.ein")])
    assert result.exit_code == 1
    assert "cannot read" in result.stderr


def test_check_good_and_bad(tmp_path: Path) -> None:
    good = runner.invoke(app, ["ein", "check", _write(tmp_path, TRIANGLE_COUNT)])
    assert good.exit_code == 0 and good.stdout.strip().endswith(": ok")
    bad = runner.invoke(app, ["ein", "check", _write(tmp_path, "X = [1,2] + [1,2,3]\n")])
    assert bad.exit_code == 1
    assert "line 1, column 11" in bad.stderr and "^" in bad.stderr


def test_card() -> None:
    result = runner.invoke(app, ["ein", "card"])
    assert result.exit_code == 0
    assert result.stdout == syntax_card()
