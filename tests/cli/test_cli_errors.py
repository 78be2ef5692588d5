"""One line and a distinct exit code for every failure, as a user runs the CLI.

Every ``ClosureBenchError``, ``OSError`` (a path that cannot be written, a full disk),
unexpected exception and Ctrl-C ends in one ``error: ...`` line on stderr (or the
"interrupted" line) and the exit code of ``closurebench.cli.EXIT_CODES``; the traceback
appears only with ``--debug`` or ``CLOSUREBENCH_DEBUG=1``.

Most cases run the CLI in this process (:func:`_run`: the same entry point and error
handler, without paying the import once more per case); a few run
``python -m closurebench`` in a real process (:func:`_cli`: a missing input, a usage
error, ``--debug``, Ctrl-C), so the path through the interpreter's own entry is covered.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from closurebench.cli import (
    EXIT_BUG,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OS,
    EXIT_USAGE,
    INTERRUPTED_LINE,
    app,
)

runner = CliRunner()


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m closurebench ARGS``, as a user runs it."""
    full_env = {k: v for k, v in os.environ.items() if k != "CLOSUREBENCH_DEBUG"}
    full_env.update({"COLUMNS": "200", **(env or {})})
    return subprocess.run(
        [sys.executable, "-m", "closurebench", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=300,
    )


@dataclass(frozen=True)
class _Ran:
    returncode: int
    stderr: str


def _run(*args: str, env: dict[str, str] | None = None) -> _Ran:
    """``closurebench ARGS`` in this process (``CLOSUREBENCH_DEBUG`` unset unless given)."""
    full_env: dict[str, str | None] = {"CLOSUREBENCH_DEBUG": None, "COLUMNS": "200"}
    full_env.update(env or {})
    res = runner.invoke(app, list(args), env=full_env)
    return _Ran(res.exit_code, res.stderr)


def _one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr, stderr
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    return lines[0]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("data")
    result = _run("generate", "closure", "--split", "heldout", "--count", "3", "--out", str(out))
    assert result.returncode == 0, result.stderr
    return out / "closure-heldout.jsonl"


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"": "no"}), encoding="utf-8")
    return path


def _eval_args(dataset: Path, script: Path, out: str) -> list[str]:
    return [
        "eval", str(dataset), "--model", "m", "--provider", "scripted",
        "--script", str(script), "--out", out, "--no-progress",
    ]  # fmt: skip


def test_eval_out_is_an_existing_file(dataset: Path, script: Path, tmp_path: Path) -> None:
    existing = tmp_path / "a-file"
    existing.write_text("keep me", encoding="utf-8")
    result = _run(*_eval_args(dataset, script, str(existing)))
    assert result.returncode not in (0, EXIT_BUG), result.stderr
    assert str(existing) in _one_error_line(result.stderr)
    assert existing.read_text(encoding="utf-8") == "keep me"


def test_eval_out_cannot_be_created(dataset: Path, script: Path) -> None:
    result = _run(*_eval_args(dataset, script, "/proc/closurebench-cannot-write/run"))
    assert result.returncode not in (0, EXIT_BUG), result.stderr
    assert "/proc/closurebench-cannot-write" in _one_error_line(result.stderr)


def test_report_out_is_an_existing_file(dataset: Path, script: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert _run(*_eval_args(dataset, script, str(run))).returncode in (0, 4)
    existing = tmp_path / "report-file"
    existing.write_text("keep me", encoding="utf-8")
    result = _run("report", str(run), "-o", str(existing))
    assert result.returncode == EXIT_OS, result.stderr
    line = _one_error_line(result.stderr)
    assert str(existing) in line and "choose another path" in line
    assert existing.read_text(encoding="utf-8") == "keep me"


def test_quickstart_out_cannot_be_created() -> None:
    result = _run("quickstart", "--out", "/proc/closurebench-cannot-write")
    assert result.returncode == EXIT_OS, result.stderr
    assert "/proc/closurebench-cannot-write" in _one_error_line(result.stderr)


def test_debug_prints_the_traceback_too(tmp_path: Path) -> None:
    for run, args, env in (
        (_cli, ("--debug", "quickstart", "--out", "/proc/closurebench-x"), None),
        (_run, ("quickstart", "--out", "/proc/closurebench-x"), {"CLOSUREBENCH_DEBUG": "1"}),
    ):
        result = run(*args, env=env)
        assert result.returncode == EXIT_OS
        assert "Traceback (most recent call last)" in result.stderr
        assert result.stderr.rstrip().splitlines()[-1].startswith("error: ")


def test_a_full_disk_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import closurebench.generate.io as io

    def full(path: Any, lines: Any) -> bytes:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(io, "write_lines", full)
    out = tmp_path / "gen"
    result = runner.invoke(app, ["quickstart", "--out", str(out)])
    assert result.exit_code == EXIT_OS, result.output
    line = _one_error_line(result.stderr)
    assert os.strerror(errno.ENOSPC) in line and "free some disk space" in line


def test_a_closurebench_error_is_exit_1(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    result = _cli("show", str(missing))
    assert result.returncode == EXIT_ERROR
    assert str(missing) in _one_error_line(result.stderr)


def test_usage_errors_are_exit_2() -> None:
    result = _cli("show")
    assert result.returncode == EXIT_USAGE
    assert "Traceback" not in result.stderr


def test_an_unexpected_exception_is_a_bug_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import closurebench.cli.show as show

    def boom(path: Any) -> Any:
        raise KeyError("surprise")

    monkeypatch.setattr(show, "iter_instances", boom)
    result = runner.invoke(app, ["show", "x.jsonl"])
    assert result.exit_code == EXIT_BUG
    line = _one_error_line(result.stderr)
    assert "internal error" in line and "--debug" in line and "surprise" in line


def test_ctrl_c_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import closurebench.cli.show as show

    def interrupted(path: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(show, "iter_instances", interrupted)
    result = runner.invoke(app, ["show", "x.jsonl"])
    assert result.exit_code == EXIT_INTERRUPTED
    assert result.stderr.strip() == INTERRUPTED_LINE


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_in_a_real_process(tmp_path: Path) -> None:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("CLOSUREBENCH_DEBUG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "closurebench", "quickstart", "--out", str(tmp_path / "q")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # A shell starts background jobs with SIGINT ignored, and a child inherits that:
        # give quickstart the default disposition, as a terminal's Ctrl-C finds it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdout is not None
    # The first panel is printed before generation starts; interrupt after it.
    assert "quickstart" in proc.stdout.readline() + proc.stdout.readline()
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == EXIT_INTERRUPTED, stderr
    assert stderr.strip().splitlines()[-1] == INTERRUPTED_LINE
    assert "Traceback" not in stderr
