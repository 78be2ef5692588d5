"""``closurebench export sft|grpo|hf|lm-eval``: training data and portable exports.

::

    closurebench export sft DATA.jsonl --target answer|cot|ein|python|agent|agent-tools
        --out FILE [--format jsonl|hf] [--verify-programs [--sandbox bwrap]]
        [--ein-card ours|paper] [--no-progress]
    closurebench export grpo DATA.jsonl --out FILE [--mode direct|cot|...]
        [--format jsonl|hf] [--ein-card ours|paper] [--no-progress]
    closurebench export hf DATA.jsonl... --out DIR
    closurebench export lm-eval --out DIR [DATA.jsonl...] [--mode direct|cot]

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

``hf`` writes a Hugging Face dataset folder: typed parquet, one config per suite and one
split per instance split, and a dataset card (:mod:`closurebench.generate.hf`;
``datasets.load_dataset(DIR, "closure")`` loads it, every record field round-trips).
``lm-eval`` writes an lm-evaluation-harness task folder whose hooks prompt and score with
closurebench's own code, the data beside it (:mod:`closurebench.evaluate.lm_eval_tasks`;
without DATA files, the default ``heldout`` and ``test`` splits are generated). Both
need the ``datasets`` package (the ``hf`` / ``lm-eval`` extras); without it they print one
line naming the extra, exit code 1. An ``--out`` folder holding other files is refused; an
earlier export of the same kind is replaced whole.

Bad input — a missing file, a results file or an exported file instead of a dataset, a
target or mode that does not apply to a suite of the file, ``--format hf`` without
``datasets`` — prints one line naming the value and the fix and exits with code 1;
nothing is written. So does a target that does not score strictly correct in its own
mode (a damaged record; the line says which).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

if TYPE_CHECKING:
    from closurebench.evaluate.lm_eval_tasks import LmEvalExport
    from closurebench.generate.hf import HfExport, SplitFile
    from closurebench.schema import ClosureInstance, GritInstance

__all__ = ["app"]

T = TypeVar("T")

app = typer.Typer(
    help="Exports of dataset files: SFT chats, GRPO prompts, Hugging Face datasets, "
    "lm-evaluation-harness tasks.",
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
    """Exports of dataset files: SFT chats, GRPO prompts, Hugging Face datasets, lm-eval tasks."""


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

        path, count = job()
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

        path, count = job()
    typer.echo(f"wrote {count} grpo records to {path}")
    _say_schema(path, "grpo", fmt)


def _load_all(files: Sequence[Path]) -> list[ClosureInstance | GritInstance]:
    """The typed records of ``files``, in order (each checked to be a dataset file)."""
    from closurebench.train.export import load_dataset_file

    records: list[ClosureInstance | GritInstance] = []
    for path in files:
        records += load_dataset_file(path)
    return records


def _split_counts(splits: Sequence[SplitFile]) -> str:
    return ", ".join(f"{s.suite} {s.split} {s.rows}" for s in splits)


@app.command("hf")
def hf_cmd(
    data: Annotated[list[Path], typer.Argument(help="Dataset JSONL files (closure and/or grit).")],
    out: Annotated[Path, typer.Option("--out", help="The dataset folder to write.")],
) -> None:
    """A Hugging Face dataset folder: typed parquet per suite and split, and a dataset card."""
    from closurebench.generate.hf import require_datasets, write_hf_dataset

    def job() -> HfExport:
        require_datasets()  # before reading anything
        return write_hf_dataset(_load_all(data), out)

    done = job()
    typer.echo(f"wrote {done.rows} records ({_split_counts(done.splits)}) to {done.out}")
    suites = ", ".join(dict.fromkeys(repr(s.suite) for s in done.splits))
    typer.echo(f"load with: datasets.load_dataset({str(done.out)!r}, NAME)  (NAME: {suites})")


@app.command("lm-eval")
def lm_eval_cmd(
    out: Annotated[Path, typer.Option("--out", help="The task folder to write.")],
    data: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Dataset JSONL files (default: generate ClosureBench heldout and GRIT "
            "test, seed 0)."
        ),
    ] = None,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="The evaluation mode whose prompts and scorer the tasks use: direct "
            "(default) or cot.",
        ),
    ] = "direct",
) -> None:
    """lm-evaluation-harness tasks (generate_until) prompted and scored by closurebench."""
    from closurebench.evaluate.lm_eval_tasks import (
        LM_EVAL_HINT,
        default_records,
        write_lm_eval_tasks,
    )
    from closurebench.generate.hf import require_datasets

    def job() -> LmEvalExport:
        require_datasets(LM_EVAL_HINT)
        if data:
            records = _load_all(data)
        else:
            typer.echo("no dataset files given: generating the default evaluation splits", err=True)
            records = default_records(lambda msg: typer.echo(msg, err=True))
        return write_lm_eval_tasks(records, out, mode=mode)

    done = job()
    typer.echo(
        f"wrote {len(done.tasks)} lm-eval tasks in {len(done.groups)} groups "
        f"({_split_counts(done.data.splits)}) to {done.out}"
    )
    typer.echo(
        f"run with: lm_eval --model local-chat-completions --model_args base_url=URL,model=M "
        f"--apply_chat_template --tasks {done.groups[0]} --include_path {done.out}"
    )
