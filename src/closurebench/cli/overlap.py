"""``closurebench check-overlap A.jsonl B.jsonl [...]``: structures and questions two splits share.

Two records share a structure when they ask the same thing of the same graph
(:attr:`~closurebench.schema.Envelope.structure_key`): ClosureBench's (category, graph,
graph2, anchors), GRIT's (task, graph, params); only the surface (labels, frame, wording)
may differ. For every pair of files, each shared structure and each shared question text
is one line on stdout::

    structure  A.jsonl:closure-train-sibling-0007  B.jsonl:closure-heldout-sibling-0031  sibling
    question   A.jsonl:closure-train-...  B.jsonl:closure-heldout-...  reachability

naming the first record of each file that holds it and the category or task. Exit code 0
when the files share nothing (one line saying so), 1 when they share anything (a count
on stderr) or a file cannot be read. Records repeating a structure inside one file (a
GRIT graph's 8 views) are not findings.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path
from typing import Annotated

import typer

from closurebench.generate.io import iter_instances


def _index(path: Path) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
    """First ``(id, stratum)`` per structure key and per question text of a file."""
    structures: dict[str, tuple[str, str]] = {}
    questions: dict[str, tuple[str, str]] = {}
    for record in iter_instances(path):
        structures.setdefault(record.structure_key, (record.id, record.stratum))
        questions.setdefault(record.question, (record.id, record.stratum))
    return structures, questions


def overlap_lines(files: list[Path]) -> list[str]:
    """One line per structure or question text shared by two of ``files``, in file order.

    Raises:
        DatasetFileError: when a file is missing or not a valid dataset file.
    """
    indexed = [(path, *_index(path)) for path in files]
    lines: list[str] = []
    for (pa, sa, qa), (pb, sb, qb) in combinations(indexed, 2):
        for kind, a, b in (("structure", sa, sb), ("question ", qa, qb)):
            for key, (id_a, stratum) in a.items():
                if key in b:
                    lines.append(f"{kind}  {pa}:{id_a}  {pb}:{b[key][0]}  {stratum}")
    return lines


def check_overlap(
    files: Annotated[
        list[Path], typer.Argument(help="Two or more JSONL dataset files (ClosureBench or GRIT).")
    ],
) -> None:
    """List structures (category/task, graph, anchors/params) and questions files share."""
    if len(files) < 2:
        typer.echo("error: give at least two dataset files to compare", err=True)
        raise typer.Exit(2)
    lines = overlap_lines(files)
    for line in lines:
        typer.echo(line)
    if lines:
        structures = sum(line.startswith("structure") for line in lines)
        typer.echo(
            f"{structures} shared structure(s), {len(lines) - structures} shared question(s)",
            err=True,
        )
        raise typer.Exit(1)
    typer.echo(f"no shared structures or questions among {len(files)} files")
