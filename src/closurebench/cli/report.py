"""``closurebench report RUN_DIR [RUN_DIR ...] [--out DIR]``: Markdown + HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from closurebench.report import ReportError, build_report


def report_cmd(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with results.jsonl).")
    ],
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output directory (default: the first run directory)."),
    ] = None,
) -> None:
    """Write report.md and report.html (tables, figures) for one or more runs side by side."""
    try:
        md_path, html_path = build_report(run_dirs, out)
    except ReportError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(str(md_path))
    typer.echo(str(html_path))
