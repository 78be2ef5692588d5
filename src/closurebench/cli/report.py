"""``closurebench report RUN_DIR ... [--out DIR] [--dataset FILE ...] [--probe LABEL=DIR ...]``.

The report of one or more runs side by side; with ``--probe LABEL=DIR`` (a ``closurebench
memorisation`` output, repeatable) it gains each probe's table and Figure 2, and with two
or more probes Table 6 (answer vs program supervision: ``--probe answer=DIR_A --probe
ein=DIR_E``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from closurebench.report import build_report


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
    probe: Annotated[
        list[str] | None,
        typer.Option(
            "--probe",
            metavar="<label=dir>",
            help="A memorisation probe folder as LABEL=DIR (repeatable): adds its table and "
            "Figure 2; two or more add Table 6 (e.g. answer=DIR_A ein=DIR_E).",
        ),
    ] = None,
) -> None:
    """Write report.md and report.html (tables, figures) for one or more runs side by side."""
    from closurebench.report.memorisation import parse_table6_args

    probes = parse_table6_args(probe or [], option="--probe")
    md_path, html_path = build_report(run_dirs, out, dataset or (), probes)
    typer.echo(str(md_path))
    typer.echo(str(html_path))
