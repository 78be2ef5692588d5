"""``closurebench ein`` subcommands: run, check and describe Ein programs.

* ``closurebench ein run FILE [--json]`` prints ``Name = value`` for every
  ``:print`` (or, when nothing is printed, for the last assignment); with
  ``--json`` it prints only the final value as JSON (a number, a list, or a list
  of lists; integral values as integers).
* ``closurebench ein check FILE`` parses and shape-checks without running.
* ``closurebench ein card`` prints the syntax card used in prompts.

Errors go to stderr with the line, column and a caret; the exit code is 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from closurebench.ein import EinError, check, format_value, run, syntax_card, to_json_value

app = typer.Typer(help="Run and check Ein programs.", no_args_is_help=True)


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        typer.echo(f"error: cannot read {file}: {exc}", err=True)
        raise typer.Exit(1) from None


@app.command("run")
def run_cmd(
    file: Annotated[Path, typer.Argument(help="The .ein program to run.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the final value as JSON.")] = False,
) -> None:
    """Run an Ein program and print each `:print` as `Name = value`."""
    source = _read(file)
    try:
        result = run(source)
    except EinError as err:
        typer.echo(f"{file}: {err}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(to_json_value(result.value)))
        return
    shown = result.printed or [(result.label, result.value)]
    for label, value in shown:
        typer.echo(f"{label} = {format_value(value)}")


@app.command("check")
def check_cmd(
    file: Annotated[Path, typer.Argument(help="The .ein program to check.")],
) -> None:
    """Parse and shape-check an Ein program without running it."""
    source = _read(file)
    try:
        check(source)
    except EinError as err:
        typer.echo(f"{file}: {err}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{file}: ok")


@app.command("card")
def card_cmd() -> None:
    """Print the Ein syntax card (the reference appended to program-synthesis prompts)."""
    typer.echo(syntax_card(), nl=False)
