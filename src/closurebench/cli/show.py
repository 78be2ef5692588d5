"""``closurebench show FILE --index K``: pretty-print one instance with its programs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table

from closurebench.errors import ConfigError
from closurebench.generate.io import iter_instances
from closurebench.schema import ClosureInstance

_META = (
    "id", "suite", "split", "category", "task", "level", "result_type", "n", "density",
    "domain", "style", "encoding", "label_pool", "scenario", "view", "ambiguity",
)  # fmt: skip


def show(
    file: Annotated[Path, typer.Argument(help="A JSONL dataset file.")],
    index: Annotated[int, typer.Option("--index", "-k", help="0-based record index.")] = 0,
) -> None:
    """Pretty-print record K of a dataset file: metadata, question, answer, programs."""
    console = Console()
    record = None
    count = 0
    for k, rec in enumerate(iter_instances(file)):
        count = k + 1
        if k == index:
            record = rec
            break
    if record is None or index < 0:
        raise ConfigError(
            f"--index {index} is out of range; {file} has {count} records (valid: 0..{count - 1})"
        )
    meta = Table(show_header=False, box=None)
    fields = type(record).model_fields
    for key in _META:
        value = getattr(record, key, None) if key in fields else None
        if value is not None:
            meta.add_row(f"[bold]{key}[/]", str(value))
    console.print(meta)
    console.print(Panel(record.question, title="question"))
    answer = {k: getattr(record, k) for k in ("answer", "answer_ids", "alt_answer") if k in fields}
    console.print(Panel(json.dumps(answer, ensure_ascii=False), title="answer"))
    programs = record.programs if isinstance(record, ClosureInstance) else {}
    for name, source in programs.items():
        lexer = "python" if name == "python" else "text"
        console.print(Panel(Syntax(source, lexer), title=f"{name} program"))
