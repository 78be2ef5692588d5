"""``closurebench check-overlap A.jsonl [B.jsonl ...]``: structures repeated in or across splits.

Two records share a structure when they ask the same thing of the same graph
(:attr:`~closurebench.schema.Envelope.structure_key`): ClosureBench's (category, graph,
graph2, anchors), GRIT's (task, graph, params); only the surface (labels, frame, wording)
may differ. For every pair of files, each shared structure and each shared question text
is one line on stdout; for every file, each structure it holds more than once is a
``repeat`` line::

    structure  A.jsonl:closure-train-sibling-0007  B.jsonl:closure-heldout-sibling-0031  sibling
    question   A.jsonl:closure-train-...  B.jsonl:closure-heldout-...  reachability
    repeat     A.jsonl:closure-train-triangle_count-0017  A.jsonl:closure-train-...-0039  ...

naming the first record of each file (or, for a repeat, the first and the repeating record)
that holds it and the category or task. GRIT's OOD split also promises identifiers no other
split draws (its scenarios' own name pools; held-out formats for random IDs and mixed
identifiers), so for every pair of files each identifier (a display name or alias, ignoring
case; the canonical naming ``0..n-1`` is shared by design and left out) that an OOD record
of one file and a non-OOD record of the other both use is an ``identifier`` line::

    identifier A.jsonl:grit-ood-00003-standard-random  B.jsonl:grit-train-00112-...  7342

One file alone is checked for repeats only. Exit
code 0 when nothing is found (one line saying so), 1 when anything is (a count on stderr)
or a file cannot be read. The records of one item are not repeats of each other: a GRIT
graph's 8 views (one ``graph_id``) and the ``-nl`` / ``-json`` / ``-matrix`` renderings of
one ClosureBench structure in the encoding study.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Annotated

import typer

from closurebench.cli import EXIT_ERROR
from closurebench.generate.io import iter_instances
from closurebench.schema import ClosureInstance, GritInstance
from closurebench.surface.closure import ENCODINGS


@dataclass
class _Index:
    """What one file holds: first ``(id, stratum)`` per structure and question, repeats."""

    structures: dict[str, tuple[str, str]] = field(default_factory=dict)
    questions: dict[str, tuple[str, str]] = field(default_factory=dict)
    repeats: list[tuple[str, str, str]] = field(default_factory=list)
    #: GRIT identifiers (casefolded) → first record using it, for OOD and other records.
    held_out: dict[str, str] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)


def _item(record: ClosureInstance | GritInstance) -> str:
    """The item a record renders: its GRIT graph, or its ClosureBench id less an encoding."""
    if isinstance(record, GritInstance):
        return record.graph_id
    head, _, tail = record.id.rpartition("-")
    return head if tail in ENCODINGS and head else record.id


def _index(path: Path) -> _Index:
    """Index one file (see :class:`_Index`)."""
    index = _Index()
    item_of: dict[str, str] = {}
    reported: set[str] = set()
    for record in iter_instances(path):
        key, item = record.structure_key, _item(record)
        first = item_of.setdefault(key, item)
        if first != item and item not in reported:
            reported.add(item)
            index.repeats.append((index.structures[key][0], record.id, record.stratum))
        index.structures.setdefault(key, (record.id, record.stratum))
        index.questions.setdefault(record.question, (record.id, record.stratum))
        if isinstance(record, GritInstance) and record.naming != "canonical":
            side = index.held_out if record.split == "ood" else index.seen
            for name in (*record.names, *record.aliases):
                side.setdefault(name.casefold(), record.id)
    return index


def overlap_lines(files: list[Path]) -> list[str]:
    """One line per repeat within a file, then per structure or question two files share.

    Raises:
        DatasetFileError: when a file is missing or not a valid dataset file.
    """
    indexed = [(path, _index(path)) for path in files]
    lines: list[str] = []
    for path, index in indexed:
        for id_a, id_b, stratum in index.repeats:
            lines.append(f"repeat     {path}:{id_a}  {path}:{id_b}  {stratum}")
    for (pa, ia), (pb, ib) in combinations(indexed, 2):
        pairs = (
            ("structure", ia.structures, ib.structures),
            ("question ", ia.questions, ib.questions),
        )
        for kind, a, b in pairs:
            for key, (id_a, stratum) in a.items():
                if key in b:
                    lines.append(f"{kind}  {pa}:{id_a}  {pb}:{b[key][0]}  {stratum}")
        for (p_ood, ood), (p_other, other) in (((pa, ia), (pb, ib)), ((pb, ib), (pa, ia))):
            for name, id_ood in ood.held_out.items():
                if name in other.seen:
                    lines.append(
                        f"identifier {p_ood}:{id_ood}  {p_other}:{other.seen[name]}  {name}"
                    )
    return lines


def check_overlap(
    files: Annotated[
        list[Path],
        typer.Argument(help="One or more JSONL dataset files (ClosureBench or GRIT)."),
    ],
) -> None:
    """List structures a file repeats, and structures (category/task, graph, anchors/params),
    questions and OOD identifiers files share."""
    lines = overlap_lines(files)
    for line in lines:
        typer.echo(line)
    if lines:
        counts = {
            kind: sum(line.startswith(kind) for line in lines)
            for kind in ("repeat", "structure", "question", "identifier")
        }
        typer.echo(
            f"{counts['repeat']} repeated structure(s) within a file, {counts['structure']} "
            f"shared structure(s), {counts['question']} shared question(s), "
            f"{counts['identifier']} OOD identifier(s) used outside OOD",
            err=True,
        )
        raise typer.Exit(EXIT_ERROR)
    if len(files) == 1:
        typer.echo(f"no repeated structures in {files[0]}")
    else:
        typer.echo(f"no shared structures, questions or OOD identifiers among {len(files)} files")
