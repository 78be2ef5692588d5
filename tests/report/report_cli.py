"""``closurebench report`` for the report tests, as a subcommand of a small app."""

from __future__ import annotations

import typer

from closurebench.cli import handle_errors
from closurebench.cli.report import report_cmd


def report_app() -> typer.Typer:
    """``closurebench report`` as a subcommand of a small app, for typer's CliRunner."""
    app = typer.Typer()
    app.command("report")(handle_errors(report_cmd))

    @app.command("noop")
    def _noop() -> None:  # a second command keeps "report" as a subcommand
        pass

    return app
