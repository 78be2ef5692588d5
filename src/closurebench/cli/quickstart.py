"""``closurebench quickstart``: the offline main job, end to end in seconds.

1. generates a ClosureBench set — one instance of each of the 26 categories — whose
   answers three independent routes agree on (graph core, Ein program, Python +
   NetworkX) and whose questions the independent reader parses back exactly;
2. generates a GRIT set — one graph per task, each in its 8 views (2 forms × 4
   naming schemes) — with certified exact answers;
3. writes both as canonical JSONL with manifests under ``--out``;
4. evaluates the reference models (``--provider reference``) on both sets through the
   real evaluation harness (runner, scoring, resumable results): the chance baselines
   (``random``, ``majority``) in every mode that takes an answer — the floor a model
   must beat — the reference agent (``reader``) and the reference programs
   (``oracle-program``) in the program modes, each run in the sandbox; the last two
   must score 100 %. Then it writes one report. ``closurebench eval`` points the same
   harness at a real model;
5. cross-checks a few answers on a fresh graph three ways on screen, runs the paper's
   own Ein programs, and times the transitive closure of a 5,000-node graph.

It exits with status 1 if any two routes disagree.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import networkx as nx
import numpy as np
import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from closurebench import __version__, ein
from closurebench.cli import EXIT_ERROR
from closurebench.ein.examples import PAPER_PROGRAMS
from closurebench.evaluate.mode_names import MODE_SUMMARIES
from closurebench.evaluate.modes import ProgramMode, get_mode
from closurebench.evaluate.providers import GenerationSettings, ProviderOptions, build_provider
from closurebench.evaluate.runner import RunOptions, run_eval
from closurebench.generate.closure import generate_split
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import write_split as write_grit
from closurebench.generate.io import load_instances
from closurebench.graphs import (
    Graph,
    desc,
    erdos_renyi,
    erdos_renyi_out_degree,
    has_path,
    planted_triangles,
    reach,
    reach_in,
    tc,
    to_networkx,
    to_scipy_sparse,
    triangle_count,
)
from closurebench.report.build import build_report
from closurebench.sandbox import INSTALL_HINT, available_isolations
from closurebench.schema import GritInstance
from closurebench.seeding import rng
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.grit import GRIT_TASKS


@dataclass(frozen=True)
class _Check:
    name: str
    program: str
    core: Callable[[], float]
    networkx: Callable[[], float]


def _edges_literal(g: Graph) -> str:
    return "[" + ",".join(f"[{u},{v}]" for u, v in g.edges) + "]"


def _checks(seed: int, n: int) -> tuple[Graph, Graph, list[_Check]]:
    g = erdos_renyi(rng(seed, "quickstart", "digraph"), n, 0.25)
    u = planted_triangles(rng(seed, "quickstart", "undirected"), n, 0.3, triangles=2)
    pick = rng(seed, "quickstart", "anchors")
    x, y = (int(v) for v in pick.choice(n, size=2, replace=False))
    G, U = to_networkx(g), to_networkx(u)
    A = f"A = edges({_edges_literal(g)}, {n})"
    sym = ",".join(f"[{a},{b}],[{b},{a}]" for a, b in u.edges)
    checks = [
        _Check(
            f"reach_then_count: how many nodes can {x} reach (not counting {x})",
            f"{A}\nResult = sum(desc(A, {x}))\n:print Result",
            lambda: float(desc(g, x).sum()),
            lambda: float(len(nx.descendants(G, x))),
        ),
        _Check(
            f"reachability: is there a path from {x} to {y}",
            f"{A}\nResult = has_path(A, {x}, {y})\n:print Result",
            lambda: float(has_path(g, x, y)),
            lambda: float(nx.has_path(G, x, y)),
        ),
        _Check(
            f"scc_then_count: size of {x}'s strongly connected group",
            f"{A}\nResult = sum(reach(A, {x}) * reach(transpose(A), {x}))\n:print Result",
            lambda: float((reach(g, x) & reach_in(g, x)).sum()),
            lambda: float(next(len(c) for c in nx.strongly_connected_components(G) if x in c)),
        ),
        _Check(
            "nodes on a cycle: how many nodes lie on a directed cycle",
            f"{A}\nResult = trace(tc(A))\n:print Result",
            lambda: float(np.trace(tc(g))),
            lambda: float(sum(len(c) for c in nx.strongly_connected_components(G) if len(c) > 1)),
        ),
        _Check(
            "triangle_count (undirected): groups of three all connected",
            f"A = edges([{sym}], {n})\nA2[i,k] = A[i,j] A[j,k]\nA3[i,j] = A2[i,k] A[k,j]\n"
            "Result = trace(A3) / 6.0\n:print Result",
            lambda: float(triangle_count(u)),
            lambda: float(sum(nx.triangles(U).values()) // 3),
        ),
    ]
    return g, u, checks


_DEFAULT_OUT = Path("closurebench-quickstart")


def _short(value: object, width: int = 38) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _closure_part(console: Console, seed: int, out: Path) -> None:
    records = generate_split("heldout", seed=seed, count=len(CLOSURE_TASKS), out=out / "closure")
    table = Table(title="ClosureBench: one instance per category (answers verified three ways)")
    for col in ("category", "level", "n", "type", "answer", "frame / style / encoding"):
        table.add_column(col)
    for r in records:
        table.add_row(
            r.category, str(r.level), str(r.n), str(r.result_type), _short(r.answer),
            f"{r.domain} / {r.style} / {r.encoding}",
        )  # fmt: skip
    console.print(table)
    example = next(r for r in records if r.level == 3)
    console.print(Panel(example.question, title=f"a level-3 question ({example.category})"))
    console.print(f"reference answer: {json.dumps(example.answer, ensure_ascii=False)}")
    console.print(Panel(example.programs["ein"].strip(), title="its Ein program"))


def _grit_part(console: Console, seed: int, out: Path) -> None:
    config = GritConfig(split="test", seed=seed, count=len(GRIT_TASKS), n_min=8, n_max=12)
    path, _, _ = write_grit(config, out / "grit")
    records = [r for r in load_instances(path) if isinstance(r, GritInstance)]
    table = Table(title="GRIT: one graph per task, 8 certified views each (exact answers)")
    for col in ("task", "n", "scenario", "answer (canonical view)", "certificate", "views"):
        table.add_column(col)
    for task in GRIT_TASKS:
        views = [r for r in records if r.task == task]
        canon = next(r for r in views if r.view == "standard/canonical")
        cert = canon.certificate or {}
        table.add_row(
            task, str(canon.n), canon.scenario, _short(canon.answer, 24),
            f"{cert.get('method', '—')} gap {cert.get('gap', '—')}" if cert else "—",
            str(len(views)),
        )  # fmt: skip
    console.print(table)


#: (suite, model, mode): what the quickstart evaluates, all offline: the chance
#: baselines in every mode that takes an answer, the reference agent, and the
#: reference programs run in the sandbox.
_RUNS: tuple[tuple[str, str, str], ...] = (
    *(
        (suite, model, mode)
        for suite in ("closure", "grit")
        for model in ("random", "majority")
        for mode in ("direct", "cot", "agent")
    ),
    ("closure", "reader", "agent"),
    ("grit", "reader", "agent"),
    ("closure", "oracle-program", "program-ein"),
    ("closure", "oracle-program", "program-python"),
    ("grit", "oracle-program", "program-python"),
)


_SHORT = {"strict_correct": "right", "lenient_only": "lenient", "format_error": "format"}


def _eval_part(console: Console, out: Path) -> Path:
    sets = {
        "closure": load_instances(out / "closure" / "closure-heldout.jsonl"),
        "grit": load_instances(out / "grit" / "grit-test.jsonl"),
    }
    walls = available_isolations()
    where = f"behind the {walls[0]} wall" if walls else "with no sandbox wall here"
    table = Table(
        title="Through the evaluation harness, offline: chance baselines, the reference "
        f"agent, the reference programs ({where})"
    )
    for col in ("suite", "model · mode", "N", "strict", "lenient", "outcomes"):
        table.add_column(col)
    run_dirs = []
    if not walls:
        console.print(
            "[yellow]no sandbox wall here[/yellow]: the reference programs (the instances' "
            "own verified programs, not model output) run without one, and the report says "
            f"so; a model's programs would be refused. To run them: {INSTALL_HINT}",
            highlight=False,
            soft_wrap=True,
        )
    for suite, model, mode_name in _RUNS:
        records = sets[suite]
        mode = get_mode(mode_name)
        if isinstance(mode, ProgramMode):
            mode.use_sandbox(unsafe=not walls)
        run_dir = out / "runs" / f"{suite}-{model}-{mode_name}"
        # The quickstart owns its output: a stale run (another seed) must not be resumed.
        shutil.rmtree(run_dir, ignore_errors=True)
        stats = asyncio.run(
            run_eval(
                records,
                build_provider(
                    "reference", ProviderOptions(model=model), instances=records, mode=mode
                ),
                mode,
                GenerationSettings(model=model),
                run_dir,
                RunOptions(progress=False),
            )
        )
        summary = stats.summary
        counts = ", ".join(f"{_SHORT.get(k, k)} {v}" for k, v in summary.outcomes.items() if v)
        table.add_row(
            suite, f"{model} · {mode_name}", str(len(records)),
            f"{summary.strict_accuracy or 0:.1%}",
            f"{summary.lenient_accuracy or 0:.1%}", counts,
        )  # fmt: skip
        run_dirs.append(run_dir)
    console.print(table)
    md, html = build_report(run_dirs, out / "report")
    console.print(f"report: {md} and {html}")
    return out / "closure" / "closure-heldout.jsonl"


def _check_writable(out: Path) -> None:
    """Create ``out`` and write a file there now, before minutes of generation.

    Raises:
        OSError: ``out`` cannot be created or written (the CLI names the path, exit 5).
    """
    out.mkdir(parents=True, exist_ok=True)
    probe = out / f".closurebench-write-check-{os.getpid()}"
    try:
        probe.write_bytes(b"")
    finally:
        probe.unlink(missing_ok=True)


def quickstart(
    seed: Annotated[int, typer.Option(help="Master seed: the same seed gives the same run.")] = 0,
    n: Annotated[
        int, typer.Option(min=4, max=60, help="Nodes in the on-screen cross-check graphs.")
    ] = 8,
    out: Annotated[Path, typer.Option(help="Where the generated JSONL files go.")] = _DEFAULT_OUT,
    show_programs: Annotated[
        bool, typer.Option("--programs", help="Print each Ein program.")
    ] = False,
) -> None:
    """Run the offline main job: generate verified ClosureBench and GRIT sets, cross-check."""
    console = Console()
    console.print(
        Panel.fit(
            f"closurebench {__version__} — graph reasoning with proven answers\n"
            f"seed={seed}; everything below runs offline; files go to {out}/",
            title="quickstart",
        )
    )
    _check_writable(out)
    # A failure reaches the CLI's one handler: one line, an exit code per kind.
    _closure_part(console, seed, out)
    _grit_part(console, seed, out)
    data = _eval_part(console, out)
    g, u, checks = _checks(seed, n)
    console.print(f"[bold]Directed graph[/] ({g.n} nodes, {g.m} edges): {list(g.edges)}")
    console.print(f"[bold]Undirected graph[/] ({u.n} nodes, {u.m} edges): {list(u.edges)}\n")

    table = Table(title=f"On a fresh {n}-node graph: one question, three independent routes")
    for col in ("question", "graph core", "Ein", "NetworkX", "agree"):
        table.add_column(col, justify="left" if col == "question" else "right")
    failures = 0
    for check in checks:
        ein_value = float(ein.run(check.program).value)
        core_value, nx_value = check.core(), check.networkx()
        ok = core_value == ein_value == nx_value
        failures += not ok
        table.add_row(
            check.name,
            f"{core_value:g}",
            f"{ein_value:g}",
            f"{nx_value:g}",
            "[green]yes[/]" if ok else "[red]NO[/]",
        )
        if show_programs:
            console.print(Panel(check.program, title=check.name.split(":")[0]))
    console.print(table)

    paper = Table(title="The paper's example Ein programs (docs/ein.md semantics)")
    for col in ("program", "printed", "expected", "ok"):
        paper.add_column(col)
    for name, (program, expected) in PAPER_PROGRAMS.items():
        result = ein.run(program)
        got = tuple(float(v) for _, v in result.printed) or (float(result.value),)
        ok = got == expected
        failures += not ok
        paper.add_row(
            name,
            ", ".join(f"{v:g}" for v in got),
            ", ".join(f"{v:g}" for v in expected),
            "[green]yes[/]" if ok else "[red]NO[/]",
        )
    console.print(paper)

    big = erdos_renyi_out_degree(rng(seed, "quickstart", "big"), 5000, 2)
    adj = to_scipy_sparse(big, weighted=False)
    t0 = time.perf_counter()
    closure = tc(adj)
    ms = (time.perf_counter() - t0) * 1e3
    console.print(
        f"\nTransitive closure of a 5,000-node digraph ({big.m:,} edges): "
        f"{int(closure.sum()):,} reachable pairs in {ms:.0f} ms (SCC condensation + bitsets)."
    )
    console.print(
        f"\nWrote {out}/closure/closure-heldout.jsonl and {out}/grit/grit-test.jsonl "
        "(each with its <suite>-<split>.manifest.json). Next (in a clone, prefix `uv run`): "
        "`closurebench show FILE --index K`, "
        "`closurebench generate closure --split heldout --out DIR`, "
        "`closurebench generate grit --split test --out DIR`, `closurebench ein card`."
    )
    if failures:
        console.print(f"[red]{failures} check(s) disagreed[/]")
        raise typer.Exit(EXIT_ERROR)
    console.print(
        f"\nReport: {out / 'report' / 'report.html'} (and report.md beside it).\n"
        "The same evaluation against a real model (any OpenAI-compatible server; --mode "
        f"{', '.join(MODE_SUMMARIES)}):\n"
        f"  uv run closurebench eval {data} --base-url http://localhost:8000/v1 --model MODEL "
        "--mode cot --out runs/MODEL-cot",
        soft_wrap=True,
        highlight=False,
    )
