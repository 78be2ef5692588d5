"""``closurebench import nlgraph|g-real|grapharena PATH --out DIR``: a peer benchmark as GRIT.

Reads a copy of a peer benchmark the GRAIN paper compares with (NLGraph's ``<task>/
test.json`` files; G-REAL's ``graph_<k>.json`` records; GraphArena's ``{Task}_{easy|hard}
.pkl`` files, unpickled safely), re-verifies every reference answer with our exact
solvers, and writes a GRIT dataset (split ``nlgraph`` / ``g-real`` / ``grapharena``,
the peer's own questions, our proven answers) that ``closurebench eval`` and ``report``
take like any other, plus an import report and the disagreements
(:mod:`closurebench.generate.peers`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from closurebench.cli.generate import _write_with_progress

if TYPE_CHECKING:
    from closurebench.generate.peers import PeerImport

_BENCHMARKS = ("nlgraph", "g-real", "grapharena")


def import_cmd(
    benchmark: Annotated[
        str,
        typer.Argument(
            help="The peer benchmark: nlgraph (NLGraph: shortest_path imported; "
            "connectivity, cycle, topology, hamilton skipped and counted), g-real "
            "(G-REAL: coloring, tsp, vertex_cover) or grapharena (GraphArena's .pkl files, "
            "unpickled safely: TSP, MVC, Distance imported; its other tasks skipped and "
            "counted)."
        ),
    ],
    path: Annotated[
        Path, typer.Argument(help="Your copy of the benchmark's files: one file or a folder.")
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Folder to write BENCHMARK.jsonl, its manifest, BENCHMARK.import-report.json "
            "and BENCHMARK.disagreements.jsonl into.",
        ),
    ],
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit", help="Seconds per exact solve; a graph not proven in time is skipped."
        ),
    ] = 60.0,
    fail_on_disagreement: Annotated[
        bool,
        typer.Option(
            "--fail-on-disagreement",
            help="Exit 1 when a peer reference disagrees with our solver (after writing).",
        ),
    ] = False,
) -> None:
    """Import a peer benchmark (NLGraph, G-REAL, GraphArena) as GRIT records, re-verified."""
    from closurebench.errors import ConfigError
    from closurebench.generate.peers import PEERS, import_peer, read_peer, write_import

    if benchmark not in PEERS:
        raise ConfigError(
            f"unknown peer benchmark {benchmark!r}; choose one of: {', '.join(_BENCHMARKS)}"
        )
    _, read = read_peer(benchmark, path)

    def work(
        advance: Callable[[Any], None], status: Callable[[str], None]
    ) -> tuple[Path, Path, tuple[dict[str, Path], PeerImport]]:
        result = import_peer(benchmark, path, time_limit=time_limit, advance=advance, read=read)
        paths = write_import(result, out)
        return paths["dataset"], paths["manifest"], (paths, result)

    _, _, (paths, result) = _write_with_progress(f"import {benchmark}", len(read.items), work)
    report = result.report()
    typer.echo(
        f"imported {report['records']} {benchmark} records: {report['agree']} references "
        f"confirmed, {report['disagreements']} disagree; skipped "
        f"{sum(report['skipped'].values())} ({_kinds(report['skipped'])})"
    )
    width = max(len(t) for t in report["by_peer_task"]) if report["by_peer_task"] else 4
    typer.echo(f"  {'peer task':<{width}}  grit task       imported  agree  disagree  skipped")
    for task, row in report["by_peer_task"].items():
        typer.echo(
            f"  {task:<{width}}  {row['grit_task'] or '(none)':<14}  {row['imported']:>8}  "
            f"{row['agree']:>5}  {row['disagree']:>8}  {row['skipped']:>7}"
        )
    for d in result.disagreements[:10]:
        typer.echo(f"  disagreement {d.id} ({d.origin}): {d.reason}")
    if len(result.disagreements) > 10:
        typer.echo(f"  ... and {len(result.disagreements) - 10} more in {paths['disagreements']}")
    typer.echo(f"dataset: {paths['dataset']}")
    typer.echo(f"manifest: {paths['manifest']}")
    typer.echo(f"import report: {paths['report']}")
    typer.echo(f"disagreements: {paths['disagreements']}")
    if fail_on_disagreement and result.disagreements:
        raise ConfigError(
            f"{len(result.disagreements)} {benchmark} references disagree with our exact "
            f"solver (listed in {paths['disagreements']})"
        )


def _kinds(counts: dict[str, int]) -> str:
    """``{"duplicate": 2}`` as ``duplicate 2`` (``none`` when empty)."""
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"
