"""``closurebench export sft|grpo``: training data from a dataset file.

::

    closurebench export sft DATA.jsonl --target answer|cot|ein|python|agent|agent-tools
        --out FILE [--format jsonl|hf] [--verify-programs [--sandbox bwrap]]
        [--ein-card ours|paper] [--no-progress]
    closurebench export grpo DATA.jsonl --out FILE [--mode direct|cot|...]
        [--format jsonl|hf] [--ein-card ours|paper] [--no-progress]

``sft`` writes one chat per instance: the system and user turns exactly as the target's
evaluation mode sends them, then the target (:mod:`closurebench.train.export`). ``grpo``
writes one prompt per instance with the columns a reward needs (``ground_truth``,
``answer``, ``name_map``; ``--mode`` defaults to ``direct`` for ClosureBench and
``agent`` for GRIT). ``--format jsonl`` (default) writes canonical JSONL, the same
bytes for the same input, and beside it the records' JSON Schema
(``sft-record.schema.json`` / ``grpo-record.schema.json``); ``--format hf`` writes a
Hugging Face dataset folder (``datasets.Dataset.save_to_disk``; needs the ``datasets``
package). A progress bar
shows on stderr when it is a terminal (``--no-progress`` hides it).

Bad input — a missing file, a results file or an exported file instead of a dataset, a
target or mode that does not apply to a suite of the file, ``--format hf`` without
``datasets`` — prints one line naming the value and the fix and exits with code 2;
nothing is written. A target that does not score strictly correct in its own mode (a
damaged record) exits with code 1, nothing written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from closurebench.errors import ConfigError, DatasetFileError

__all__ = ["app"]

app = typer.Typer(
    help="Training data from a dataset file: SFT chats and GRPO prompts.",
    no_args_is_help=True,
)

_FORMAT_HELP = (
    "jsonl (default): canonical JSONL, the same bytes for the same input; hf: a Hugging "
    "Face datasets.Dataset folder (save_to_disk; needs the `datasets` package)."
)
_EIN_CARD_HELP = (
    "program-ein prompts: the Ein syntax card of the system prompt, ours (default) or paper, "
    "as `closurebench eval --ein-card` sends it."
)


@app.callback()
def _group() -> None:
    """Training data from a dataset file: SFT chats and GRPO prompts."""


@contextmanager
def _bar(label: str, show: bool) -> Iterator[tuple[Callable[[int], None], Callable[[int], None]]]:
    """``(total, advance)`` callbacks driving a transient progress bar on stderr."""
    from rich.console import Console

    console = Console(stderr=True)
    if not show or not console.is_terminal:  # a bar only where someone watches
        yield (lambda _n: None), (lambda _n: None)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        job = bar.add_task(label, total=None)
        yield (lambda n: bar.update(job, total=n)), (lambda n: bar.advance(job, n))


def _run(job: Callable[[], tuple[Path, int]]) -> tuple[Path, int]:
    """Run an export; bad input becomes one ``error:`` line and exit code 2."""
    try:
        return job()
    except (ConfigError, DatasetFileError) as exc:
        from closurebench.cli import error_line

        typer.echo(f"error: {error_line(exc)}", err=True)
        raise typer.Exit(2) from None


def _say_schema(path: Path, kind: str, fmt: str) -> None:
    if fmt == "jsonl":
        from closurebench.train.export import schema_file_name

        typer.echo(f"schema: {path.with_name(schema_file_name(kind))}")


@app.command("sft")
def sft_cmd(
    data: Annotated[Path, typer.Argument(help="The dataset JSONL file (closure or grit).")],
    target: Annotated[
        str,
        typer.Option(
            "--target",
            help="What the assistant turns hold: answer, cot, ein (ClosureBench), python, "
            "agent or agent-tools.",
        ),
    ],
    out: Annotated[Path, typer.Option("--out", help="The file (or, for hf, folder) to write.")],
    fmt: Annotated[str, typer.Option("--format", help=_FORMAT_HELP)] = "jsonl",
    verify_programs: Annotated[
        bool,
        typer.Option(
            "--verify-programs",
            help="ein/python: run every program through its mode's sandbox and scorer, "
            "and write nothing unless all are correct.",
        ),
    ] = False,
    sandbox: Annotated[
        str | None,
        typer.Option("--sandbox", help="--verify-programs: the wall (default: the strongest)."),
    ] = None,
    ein_card: Annotated[str | None, typer.Option("--ein-card", help=_EIN_CARD_HELP)] = None,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bar on stderr.")
    ] = True,
) -> None:
    """SFT chats: the evaluation mode's own prompts, then the instance's verified target."""
    from closurebench.train.export import TARGETS, export_sft

    with _bar(f"export sft {target}", progress) as (total, advance):

        def job() -> tuple[Path, int]:
            return export_sft(
                data,
                target,
                out,
                fmt=fmt,
                progress=advance,
                total=total,
                verify_programs=verify_programs,
                sandbox=sandbox,
                ein_card=ein_card,
            )

        path, count = _run(job)
    mode = TARGETS[target].mode
    typer.echo(f"wrote {count} sft records (target {target}, mode {mode}) to {path}")
    _say_schema(path, "sft", fmt)


@app.command("grpo")
def grpo_cmd(
    data: Annotated[Path, typer.Argument(help="The dataset JSONL file (closure or grit).")],
    out: Annotated[Path, typer.Option("--out", help="The file (or, for hf, folder) to write.")],
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode",
            help="The evaluation mode whose system and user turns make the prompt "
            "(default: direct for ClosureBench, agent for GRIT).",
        ),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help=_FORMAT_HELP)] = "jsonl",
    ein_card: Annotated[str | None, typer.Option("--ein-card", help=_EIN_CARD_HELP)] = None,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bar on stderr.")
    ] = True,
) -> None:
    """GRPO prompts, with the ground truth, answer and name map a reward scores with."""
    from closurebench.train.export import export_grpo

    with _bar("export grpo", progress) as (total, advance):

        def job() -> tuple[Path, int]:
            return export_grpo(
                data,
                out,
                mode=mode,
                fmt=fmt,
                progress=advance,
                total=total,
                ein_card=ein_card,
            )

        path, count = _run(job)
    typer.echo(f"wrote {count} grpo records to {path}")
    _say_schema(path, "grpo", fmt)
