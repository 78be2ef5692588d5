"""``closurebench report RUN_DIR [RUN_DIR ...] [--out DIR] [--dataset FILE ...]``: the report."""

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
    dataset: Annotated[
        list[Path] | None,
        typer.Option(
            "--dataset",
            "-d",
            help="Dataset file the runs were made from (repeatable): adds split, density "
            "and the directional lenient column where the results lack them.",
        ),
    ] = None,
) -> None:
    """Write report.md and report.html (tables, figures) for one or more runs side by side."""
    try:
        md_path, html_path = build_report(run_dirs, out, dataset or ())
    except ReportError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(str(md_path))
    typer.echo(str(html_path))
