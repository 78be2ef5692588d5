"""``closurebench view RUN_DIR ... [--out FILE] [--data FILE ...] [--open]``.

One self-contained HTML page (no network) to browse the results of one or more runs:
filter by outcome, run, mode, category / level or GRIT task / form / naming, execution
or episode outcome, strict correctness and text; open an entry for its question,
reply, extracted and reference answers, usage, and the program output or the agent
trajectory (:mod:`closurebench.report.view`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def view_cmd(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run directories (each with results.jsonl).")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="The page to write (default: view.html in the first run directory)."
        ),
    ] = None,
    data: Annotated[
        list[Path] | None,
        typer.Option(
            "--data",
            "-d",
            help="Dataset file to take the questions and reference answers from (repeatable; "
            "default: the dataset each run.json records).",
        ),
    ] = None,
    open_page: Annotated[
        bool, typer.Option("--open", help="Open the page in the web browser.")
    ] = False,
) -> None:
    """Write view.html: browse every result's question, reply, answers and trajectory."""
    from closurebench.report.view import build_view

    path = build_view(run_dirs, out, data or ())
    typer.echo(str(path))
    if open_page:
        import webbrowser

        webbrowser.open(path.resolve().as_uri())
