"""No wall, no run: ``closurebench eval`` in a program mode on a machine without bubblewrap.

The CLI runs (in this process: the import is already paid) with a ``PATH`` that holds
no ``bwrap``, for it and every process it starts, and the walls probed afresh (as on a
machine where bubblewrap is not installed): it refuses before sending any request, with
one line that says how to install bubblewrap; ``--unsafe-no-sandbox`` runs, and the run
folder, the summary and the report say the run had no wall.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Reply

import closurebench
from closurebench.report.build import build_report


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    out = tmp_path_factory.mktemp("refusal-data")
    closurebench.generate_split("heldout", seed=5, count=3, out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


@dataclass(frozen=True)
class _Ran:
    returncode: int
    stderr: str


@pytest.fixture
def no_wall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``bwrap`` on ``PATH`` (for the CLI and every process it starts), walls re-probed."""
    from closurebench.sandbox import isolation

    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.delenv("CLOSUREBENCH_SANDBOX_ISOLATION", raising=False)
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(isolation, "_PROBED", {})  # probed again, under this PATH


def _eval(data: Path, out: Path, url: str, *extra: str) -> _Ran:
    from typer.testing import CliRunner

    from closurebench.cli import app

    argv = [
        "eval", str(data), "--out", str(out),
        "--mode", "program-python", "--model", "m", "--base-url", url, "--no-progress",
        *extra,
    ]  # fmt: skip
    res = CliRunner().invoke(app, argv)
    return _Ran(res.exit_code, res.stderr)


@pytest.mark.usefixtures("no_wall")
def test_program_mode_refuses_without_a_wall(small: tuple[Path, list[Any]], tmp_path: Path) -> None:
    data, records = small
    with FakeOpenAIServer() as fake:
        fake.script(default=lambda body: Reply("```python\nprint(1)\n```"))
        refused = _eval(data, tmp_path / "refused", fake.base_url)
        assert refused.returncode == 1, refused.stderr
        lines = [line for line in refused.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, refused.stderr
        assert "apt-get install bubblewrap" in lines[0] and "--unsafe-no-sandbox" in lines[0]
        assert fake.requests == []  # refused before any request
        named = _eval(data, tmp_path / "named", fake.base_url, "--sandbox", "bwrap")
        assert named.returncode == 1 and "bubblewrap" in named.stderr
        both = _eval(
            data, tmp_path / "both", fake.base_url, "--sandbox", "bwrap", "--unsafe-no-sandbox"
        )
        assert both.returncode == 1 and "contradict" in both.stderr

        out = tmp_path / "unsafe"
        unsafe = _eval(data, out, fake.base_url, "--unsafe-no-sandbox")
    assert unsafe.returncode == 0, unsafe.stderr
    assert "unsafe:" in unsafe.stderr
    run = json.loads((out / "run.json").read_text())
    assert run["sandbox"]["isolation"] == "none" and run["sandbox"]["unsafe"] is True
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sandbox"]["unsafe"] is True and summary["counts"]["total"] == len(records)
    md, html = build_report([out], tmp_path / "report")
    assert "Unsafe runs" in md.read_text() and "Unsafe runs" in html.read_text()


def test_sandbox_flags_belong_to_program_modes(
    small: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    data, _ = small
    from typer.testing import CliRunner

    from closurebench.cli import app

    argv = [
        "eval", str(data), "--out", str(tmp_path / "r"),
        "--mode", "direct", "--model", "random", "--unsafe-no-sandbox", "--no-progress",
    ]  # fmt: skip
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 1 and "program modes" in res.stderr


@pytest.mark.usefixtures("no_wall")
def test_quickstart_works_without_a_wall(tmp_path: Path) -> None:
    """The README's first command on a machine without bubblewrap: the reference programs
    (ours, not a model's) run unwalled, and the output and the report say so."""
    from typer.testing import CliRunner

    from closurebench.cli import app
    from closurebench.sandbox import isolation

    out = tmp_path / "qs"
    res = CliRunner().invoke(app, ["quickstart", "--out", str(out)])
    assert res.exit_code == 0, res.stderr[-2000:] + res.stdout[-2000:]
    assert isolation.available_isolations() == ()  # the quickstart saw no wall
    text = " ".join((res.stdout + res.stderr).split())
    assert "no sandbox wall here" in text and "apt-get install bubblewrap" in text
    assert "Unsafe runs" in (out / "report" / "report.md").read_text()


def test_the_environment_variable_alone_is_not_consent(
    small: tuple[Path, list[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``CLOSUREBENCH_SANDBOX_ISOLATION=none`` without the flag: one line, no request."""
    data, _ = small
    monkeypatch.setenv("CLOSUREBENCH_SANDBOX_ISOLATION", "none")
    with FakeOpenAIServer() as fake:
        fake.script(default=lambda body: Reply("```python\nprint(1)\n```"))
        refused = _eval(data, tmp_path / "refused", fake.base_url)
        assert refused.returncode == 1, refused.stderr
        lines = [line for line in refused.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "--unsafe-no-sandbox" in lines[0], refused.stderr
        assert "not consent" in lines[0]
        assert fake.requests == []
        assert not (tmp_path / "refused" / "results.jsonl").exists()
