"""The paper's generator entry point: ``python -m closurebench.generator --seed N``.

Writes a fresh ClosureBench set (default: a held-out-sized split, 1,300 instances)
as canonical JSONL to stdout, or, with ``--out DIR``, runs ``closurebench generate
closure`` (the split's file and its manifest in ``DIR``). The same seed gives
byte-identical output. Errors are the CLI's (:func:`closurebench.cli.handle_errors`):
one ``error:`` line and the exit code of :data:`closurebench.cli.EXIT_CODES`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from closurebench.cli import handle_errors
from closurebench.cli.generate import closure_cmd
from closurebench.generate.closure import SPLITS, ClosureConfig, generate_records
from closurebench.generate.io import canonical_json

__all__ = ["app", "generator", "main"]

PROG = "python -m closurebench.generator"


def generator(
    seed: Annotated[int, typer.Option(help="Master seed.")],
    split: Annotated[str, typer.Option(help=f"Split: one of {', '.join(sorted(SPLITS))}.")] = (
        "heldout"
    ),
    count: Annotated[
        int | None, typer.Option(help="Instances in total (default: the split's size).")
    ] = None,
    n_min: Annotated[int, typer.Option("--n-min", help="Smallest n (>= 4).")] = 4,
    n_max: Annotated[
        int | None, typer.Option("--n-max", help="Largest n (default 10; sweep: 20).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Directory: write the split and its manifest there, as `closurebench "
            "generate closure --out DIR` does (default: JSONL to stdout).",
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="Worker processes (output unchanged).")] = 1,
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="With --out: replace a split already there."),
    ] = False,
) -> None:
    """Generate a fresh ClosureBench set with verified answers."""
    if out is not None:
        closure_cmd(
            out=out,
            split=split,
            seed=seed,
            count=count,
            n_min=n_min,
            n_max=n_max,
            workers=workers,
            overwrite=overwrite,
        )
        return
    config = ClosureConfig(
        split=split, seed=seed, count=count, n_min=n_min, n_max=n_max, workers=workers
    )
    for record in generate_records(config):
        sys.stdout.write(canonical_json(record.to_json()) + "\n")


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
app.command()(handle_errors(generator))


def main(argv: list[str] | None = None) -> None:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); exits with its code."""
    app(args=argv, prog_name=PROG)


if __name__ == "__main__":
    main()
