"""``closurebench view`` errors: one line naming the path and the fix, exit code 1; ``--open``."""

from __future__ import annotations

import json
import shutil
import webbrowser
from pathlib import Path

import pytest
from view_helpers import Runs, cli, shared_runs


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every mode's run, made once per session."""
    return shared_runs(tmp_path_factory)


def _error(*args: str) -> str:
    """The one ``error:`` line of a failing ``closurebench view ARGS`` (exit code 1)."""
    res = cli("view", *args)
    assert res.exit_code == 1, res.output
    assert res.stdout == ""
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    return lines[0]


def test_a_missing_run_folder(tmp_path: Path) -> None:
    line = _error(str(tmp_path / "nope"))
    assert str(tmp_path / "nope") in line and "no such run folder" in line
    assert "closurebench eval --out" in line


def test_a_folder_without_results(tmp_path: Path) -> None:
    line = _error(str(tmp_path))
    assert f"{tmp_path / 'results.jsonl'}: not found" in line


def test_a_folder_of_run_folders_names_them(runs: Runs, tmp_path: Path) -> None:
    shutil.copytree(runs.dirs["direct"], tmp_path / "sample-1")
    line = _error(str(tmp_path))
    assert "it holds run folders: pass them instead" in line
    assert str(tmp_path / "sample-1") in line


def test_a_file_that_is_not_a_run(tmp_path: Path) -> None:
    other = tmp_path / "notes.txt"
    other.write_text("x", encoding="utf-8")
    line = _error(str(other))
    assert str(other) in line and "not a run folder" in line


def test_a_malformed_result_line(runs: Runs, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs.dirs["direct"], run)
    with (run / "results.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "x", "outcome": "nonsense", "mode": "direct"}) + "\n")
    line = _error(str(run))
    assert str(run / "results.jsonl") in line and "outcome" in line


@pytest.mark.parametrize("kind", ["missing", "malformed"])
def test_an_unreadable_data_file(runs: Runs, tmp_path: Path, kind: str) -> None:
    data = tmp_path / "data.jsonl"
    if kind == "malformed":
        data.write_text("{not json\n", encoding="utf-8")
    line = _error(str(runs.dirs["direct"]), "--data", str(data), "--out", str(tmp_path / "v.html"))
    why = "no such dataset file" if kind == "missing" else "cannot read the dataset"
    assert str(data) in line and why in line
    assert "pass the dataset file the run was made from" in line
    assert not (tmp_path / "v.html").exists()


def test_an_unreadable_recorded_dataset(runs: Runs, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs.dirs["direct"], run)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": 1}\n', encoding="utf-8")
    info = json.loads((run / "run.json").read_text())
    info["dataset"]["path"] = str(broken)
    (run / "run.json").write_text(json.dumps(info))
    line = _error(str(run))
    assert str(broken) in line and "pass --data FILE" in line


def test_a_malformed_summary(runs: Runs, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs.dirs["direct"], run)
    (run / "summary.json").write_text("{", encoding="utf-8")
    line = _error(str(run))
    assert str(run / "summary.json") in line and "malformed JSON" in line


def test_open_hands_the_page_to_the_browser(
    runs: Runs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []

    def fake_open(url: str, *args: object, **kwargs: object) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    out = tmp_path / "page.html"
    res = cli("view", str(runs.dirs["agent"]), "--out", str(out), "--open")
    assert res.exit_code == 0, res.output
    assert opened == [out.resolve().as_uri()]


def test_help_names_the_options() -> None:
    res = cli("view", "--help")
    assert res.exit_code == 0
    for option in ("--out", "--data", "--open"):
        assert option in res.output
