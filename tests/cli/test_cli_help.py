"""Help screens and the package surface: flags show no value type, dir() lists the API."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

import closurebench
from closurebench.cli import COMMANDS, EXIT_CODES, app

runner = CliRunner()


def _commands() -> list[list[str]]:
    """Every command path: the root, each command, and each group's subcommands."""
    paths: list[list[str]] = [[]]
    group = typer.main.get_command(app)
    for name in COMMANDS:
        paths.append([name])
        command = group.get_command(None, name)  # type: ignore[attr-defined]
        for sub in getattr(command, "commands", {}):
            paths.append([name, sub])
    return paths


@pytest.mark.parametrize("path", _commands(), ids=lambda p: " ".join(p) or "root")
def test_help_shows_no_type_for_flags(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "--help" in result.output
    assert "<bool>" not in result.output
    # A flag's row goes straight from its name(s) to its help text.
    row = next(line for line in result.output.splitlines() if "--help" in line)
    assert re.search(r"--help\s+Show this message and exit", row), row
    # Help is read in a terminal: no reStructuredText / Sphinx markup from docstrings.
    markup = re.findall(r"``|:(?:func|class|data|mod|meth|attr):`", result.output)
    assert not markup, result.output


def test_options_with_values_keep_their_type() -> None:
    result = runner.invoke(app, ["quickstart", "--help"], env={"COLUMNS": "200"})
    assert "<int>" in result.output and "<path>" in result.output


def test_root_help_lists_debug_and_the_exit_codes() -> None:
    result = runner.invoke(app, ["--help"], env={"COLUMNS": "200"})
    assert "--debug" in result.output
    assert "Exit codes" in result.output
    assert set(EXIT_CODES) >= {0, 1, 2, 3, 4, 5, 70, 130}


def test_dir_lists_the_lazy_public_api() -> None:
    names = dir(closurebench)
    for name in closurebench.__all__:
        assert name in names


def test_the_root_help_lists_every_command_without_importing_one() -> None:
    """``closurebench --help`` reads the summaries of :data:`COMMANDS`; no command module
    (nor matplotlib, the harness, the generators) is imported for it."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from closurebench.cli import app\n"
        "try:\n"
        "    app(['--help'], prog_name='closurebench')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in sys.modules if m.startswith(('closurebench.cli.', 'matplotlib',\n"
        "         'closurebench.evaluate', 'closurebench.generate', 'closurebench.report'))]\n"
        "print(json.dumps(heavy), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert json.loads(done.stderr.strip().splitlines()[-1]) == [], done.stderr
    for name, entry in COMMANDS.items():
        assert f"{name} " in done.stdout and entry.summary[:60] in done.stdout, name


def test_a_loaded_command_has_its_summary_as_short_help() -> None:
    group = typer.main.get_command(app)
    for name, entry in COMMANDS.items():
        command = group.get_command(None, name)  # type: ignore[attr-defined]
        assert command.short_help == entry.summary
        assert command.help  # the long help stays the command's own
