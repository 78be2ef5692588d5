"""The command-line entry points: version, ``python -m``, quickstart."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from closurebench import __version__
from closurebench.cli import app
from closurebench.report.screenshot import CHROMIUM, screenshot

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


def test_quickstart_agrees_on_every_route(tmp_path: Path) -> None:
    for seed in (0, 1):
        out = str(tmp_path / f"seed{seed}")
        result = runner.invoke(app, ["quickstart", "--seed", str(seed), "--programs", "--out", out])
        assert result.exit_code == 0, result.stdout
        assert "NO" not in result.stdout
        assert result.stdout.count("yes") == 9
        assert "Transitive closure of a 5,000-node digraph" in result.stdout
        # the reference programs (in the sandbox) and the reference agent scored 100 %
        for run in ("closure-oracle-program-program-ein", "closure-oracle-program-program-python",
                    "grit-oracle-program-program-python", "grit-reader-agent",
                    "closure-reader-agent"):  # fmt: skip
            summary = json.loads(
                (tmp_path / f"seed{seed}" / "runs" / run / "summary.json").read_text()
            )
            assert summary["strict_accuracy"] == 1.0, (run, summary["outcomes"])
        assert "--base-url" in result.stdout and "report.html" in result.stdout
        if Path(CHROMIUM).exists():  # the quickstart's HTML report renders in a browser
            html = tmp_path / f"seed{seed}" / "report" / "report.html"
            png = screenshot(html, tmp_path / f"seed{seed}.png")
            assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_quickstart_is_deterministic(tmp_path: Path) -> None:
    out = str(tmp_path / "quickstart")
    first = runner.invoke(app, ["quickstart", "--seed", "3", "--out", out]).stdout
    second = runner.invoke(app, ["quickstart", "--seed", "3", "--out", out]).stdout
    # Only the timing line may differ between runs.
    strip = [line for line in first.splitlines() if " ms " not in line and "ms (" not in line]
    strip2 = [line for line in second.splitlines() if " ms " not in line and "ms (" not in line]
    assert strip == strip2


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
