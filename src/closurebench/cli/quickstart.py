"""``closurebench quickstart``: the offline main job.

Until the ClosureBench/GRIT generators and the evaluation harness land, the
quickstart exercises everything that exists end to end, offline and in seconds:

1. samples seeded graphs with the graph core;
2. computes a handful of ClosureBench-style answers three independent ways —
   the graph core, an Ein program and NetworkX — and shows that they agree;
3. runs the paper's own example Ein programs;
4. times the transitive closure of a 5,000-node graph.

It exits with status 1 if any two routes disagree.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx
import numpy as np
import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from closurebench import __version__, ein
from closurebench.ein.examples import PAPER_PROGRAMS
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
from closurebench.seeding import rng


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


def quickstart(
    seed: int = typer.Option(0, help="Master seed: the same seed gives the same run."),
    n: int = typer.Option(8, min=4, max=60, help="Nodes in the sampled graphs."),
    show_programs: bool = typer.Option(False, "--programs", help="Print each Ein program."),
) -> None:
    """Run the offline quickstart: sample, solve three ways, run the paper's Ein programs."""
    console = Console()
    console.print(
        Panel.fit(
            f"closurebench {__version__} — graph reasoning with proven answers\n"
            f"seed={seed}, n={n}; everything below runs offline",
            title="quickstart",
        )
    )
    g, u, checks = _checks(seed, n)
    console.print(f"[bold]Directed graph[/] ({g.n} nodes, {g.m} edges): {list(g.edges)}")
    console.print(f"[bold]Undirected graph[/] ({u.n} nodes, {u.m} edges): {list(u.edges)}\n")

    table = Table(title="One question, three independent routes")
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

    paper = Table(title="The paper's example Ein programs (spec/ein.md semantics)")
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
        "\nNext: `closurebench ein run FILE`, `closurebench ein card` (the prompt's syntax card). "
        "The ClosureBench/GRIT generators and the evaluation harness are in progress."
    )
    if failures:
        console.print(f"[red]{failures} check(s) disagreed[/]")
        raise typer.Exit(1)
