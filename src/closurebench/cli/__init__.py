"""The ``closurebench`` command-line interface.

Each subcommand lives in its own module under :mod:`closurebench.cli` and is
registered here in one table (:data:`COMMANDS`), so adding a command touches its
module and one line. Subcommand modules are imported only when their command runs
(or when ``--help`` lists them), so ``closurebench ein run`` does not pay for
importing the generators, the harness and matplotlib.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from typer.core import TyperGroup

from closurebench import __version__

# The one table of subcommands: name -> "module:attribute" (a Typer app or a function).
COMMANDS: dict[str, str] = {
    "quickstart": "closurebench.cli.quickstart:quickstart",
    "show": "closurebench.cli.show:show",
    "eval": "closurebench.cli.eval:eval_cmd",
    "report": "closurebench.cli.report:report_cmd",
    "ein": "closurebench.cli.ein:app",
    "generate": "closurebench.cli.generate:app",
    "schema": "closurebench.cli.schema:schema_cmd",
}


def _load(name: str) -> Any:
    module, attr = COMMANDS[name].split(":")
    obj: Any = getattr(importlib.import_module(module), attr)
    if isinstance(obj, typer.Typer):
        command = typer.main.get_command(obj)
    else:
        single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        single.command(name)(obj)
        command = typer.main.get_command(single)
    command.name = name
    return command


class _LazyGroup(TyperGroup):
    """A Typer group whose subcommands are imported on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        return _load(cmd_name)


app = typer.Typer(
    name="closurebench",
    cls=_LazyGroup,
    help="Graph-reasoning benchmarks with proven answers (ClosureBench, GRIT) and Ein.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"closurebench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_version_callback,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """closurebench command-line tool."""


def main() -> None:
    """Entry point of the ``closurebench`` console script."""
    app()
