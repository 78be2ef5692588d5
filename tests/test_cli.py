"""The command-line entry points: version, ``python -m``, quickstart."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from screenshot import CHROMIUM, screenshot
from typer.testing import CliRunner

from closurebench import __version__
from closurebench.cli import app

runner = CliRunner()


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"closurebench {__version__}"


def test_python_dash_m() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "closurebench", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == f"closurebench {__version__}"


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One quickstart run with the program modes (its folder and console output).

    Shared by the tests below: quickstart is the longest command (~40 s under load).
    """
    out = tmp_path_factory.mktemp("quickstart") / "seed0"
    result = runner.invoke(app, ["quickstart", "--seed", "0", "--programs", "--out", str(out)])
    assert result.exit_code == 0, result.stdout
    return out, result.stdout


def test_quickstart_agrees_on_every_route(quickstart: tuple[Path, str], tmp_path: Path) -> None:
    out, stdout = quickstart
    assert "NO" not in stdout
    assert stdout.count("yes") == 9
    assert "Transitive closure of a 5,000-node digraph" in stdout
    # the reference programs (in the sandbox) and the reference agent scored 100 %
    for run in ("closure-oracle-program-program-ein", "closure-oracle-program-program-python",
                "grit-oracle-program-program-python", "grit-reader-agent",
                "closure-reader-agent"):  # fmt: skip
        summary = json.loads((out / "runs" / run / "summary.json").read_text())
        assert summary["strict_accuracy"] == 1.0, (run, summary["outcomes"])
    assert "--base-url" in stdout and "report.html" in stdout
    if Path(CHROMIUM).exists():  # the quickstart's HTML report renders in a browser
        png = screenshot(out / "report" / "report.html", tmp_path / "seed0.png")
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_quickstart_is_deterministic(quickstart: tuple[Path, str]) -> None:
    """A second run over the same folder prints the same (the timing lines aside)."""
    out, first = quickstart
    second = runner.invoke(app, ["quickstart", "--seed", "0", "--programs", "--out", str(out)])
    assert second.exit_code == 0, second.stdout

    def steady(text: str) -> list[str]:
        return [line for line in text.splitlines() if " ms " not in line and "ms (" not in line]

    assert steady(first) == steady(second.stdout)


def test_version_does_not_import_the_subcommands() -> None:
    code = (
        "import sys; from closurebench.cli import app; from typer.testing import CliRunner;"
        "r = CliRunner().invoke(app, ['--version']); assert r.exit_code == 0, r.output;"
        "heavy = [m for m in ('closurebench.ein', 'closurebench.generate', 'matplotlib') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_unknown_command_is_a_clear_error() -> None:
    result = runner.invoke(app, ["nope"])
    assert result.exit_code == 2
    assert "No such command" in result.output
