"""``closurebench ein`` subcommands (filled in by the Ein work)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Run and check Ein programs.", no_args_is_help=True)
