"""``closurebench categories``: the 26 ClosureBench categories and the sizes they work at.

::

    closurebench categories           # a table: level, result type, ambiguity, n, question
    closurebench categories --json    # the same facts, one JSON object per category

Every fact comes from the task registry (:data:`closurebench.tasks.closure.CLOSURE_TASKS`):
the category's class holds its level, result type, lenient-scoring ambiguity class and
smallest ``n`` (:attr:`~closurebench.tasks.closure.base.ClosureTask.min_n`); the summary
is the first line of its docstring. Every category generates at any ``n`` from its
``min_n`` up to :data:`~closurebench.tasks.closure.base.TESTED_MAX_N` (a test generates
one instance of each there); larger graphs work too until the Ein reference program
outgrows Ein's source limit (see :func:`size_notes`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

__all__ = ["categories_cmd", "category_rows", "size_notes"]


def category_rows() -> list[dict[str, Any]]:
    """One dict of facts per category, in the registry's (the spec's) order.

    Example:
        >>> rows = category_rows()
        >>> len(rows), rows[0]["category"], rows[0]["min_n"], rows[0]["max_n_tested"]
        (26, 'triangle_count', 4, 100)
    """
    from closurebench.tasks.closure import CLOSURE_TASKS
    from closurebench.tasks.closure.base import TESTED_MAX_N

    rows = []
    for name, task in CLOSURE_TASKS.items():
        doc = (type(task).__doc__ or "").strip().splitlines()
        rows.append(
            {
                "category": name,
                "level": task.level,
                "result_type": str(task.result_type),
                "ambiguity": str(task.ambiguity) if task.ambiguity is not None else None,
                "min_n": task.min_n,
                "max_n_tested": TESTED_MAX_N,
                "kinship": task.kinship,
                "two_graphs": task.two_graphs,
                "summary": doc[0] if doc else "",
            }
        )
    return rows


def size_notes() -> list[str]:
    """What bounds ``n``, in words (printed under the table).

    Example:
        >>> any("source limit" in note for note in size_notes())
        True
    """
    from closurebench.ein import DEFAULT_LIMITS
    from closurebench.tasks.closure.base import TESTED_MAX_N

    return [
        f"Every category generates at any n from its min n up to n = {TESTED_MAX_N} at the "
        "default densities (ρ 0.1..0.5); a test generates one instance of each at that size.",
        "Above n = 10, where G(n, ρ) is almost surely strongly connected, the categories "
        "that need unreachable pairs plant an order of blocks in the graph (no edge points "
        "back), so their questions stay well posed. Up to n = 10 graphs stay plain G(n, ρ) "
        "(datasets regenerate byte for byte); near ρ = 1 those categories may find no "
        "well-posed draw there: lower --density-max if generation asks to widen the ranges.",
        "Much larger graphs work until the Ein reference program, which spells out every "
        f"edge, outgrows Ein's source limit ({DEFAULT_LIMITS.max_source_chars:,} characters: "
        "at ρ = 0.5 about n = 210, and n = 160 for graph_comparison's two graphs; the sparse "
        "kinship graphs go further); lower --density-max or n. Questions grow the same way.",
    ]


def categories_cmd(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per category instead.")
    ] = False,
) -> None:
    """List the ClosureBench categories: level, result type, ambiguity, workable n, question."""
    rows = category_rows()
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row, ensure_ascii=False))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"ClosureBench: {len(rows)} categories")
    for col in ("category", "level", "result", "ambiguity", "n", "what it asks"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(
            row["category"],
            str(row["level"]),
            row["result_type"],
            row["ambiguity"] or "—",
            f"{row['min_n']}..{row['max_n_tested']}+",
            row["summary"],
        )
    console = Console()
    console.print(table)
    for note in size_notes():
        console.print(f"• {note}", highlight=False)
