"""The ``closurebench`` command-line interface.

Each subcommand lives in its own module under :mod:`closurebench.cli` and is
registered here in one table, so adding a command touches its module and one line.
"""

from __future__ import annotations

import typer

from closurebench import __version__
from closurebench.cli import ein as ein_cmd
from closurebench.cli import eval as eval_cmd
from closurebench.cli import generate as generate_cmd
from closurebench.cli import quickstart as quickstart_cmd
from closurebench.cli import report as report_cmd
from closurebench.cli import show as show_cmd

app = typer.Typer(
    name="closurebench",
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


# The one table of subcommands.
app.add_typer(ein_cmd.app, name="ein")
app.add_typer(generate_cmd.app, name="generate")
app.command("quickstart")(quickstart_cmd.quickstart)
app.command("show")(show_cmd.show)
app.command("eval")(eval_cmd.eval_cmd)
app.command("report")(report_cmd.report_cmd)


def main() -> None:
    """Entry point of the ``closurebench`` console script."""
    app()
