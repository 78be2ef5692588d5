"""Time the certified exact solvers at n = 20, 40, 60 and print a Markdown table.

Run: ``uv run python benchmarks/bench_exact.py`` (``--help`` for options).

Instances follow the GRIT spec: Erdős–Rényi graphs with p drawn from [0.1, 0.3] (the
paper's range), rejection-sampled for connectivity, integer weights 1-10; colouring and
vertex cover also at density 0.5 (the spec's hard case); TSP on points of a 100 x 100 grid
with rounded Euclidean weights. Every cell is the median and the max wall-clock seconds
over ``--graphs`` instances (default 20). Second methods (the ILPs, and the SAT method for
colouring at every n) run on the same instances and must agree with the first; a call
that cannot prove optimality within ``--time-limit`` counts as a timeout (and as
``time_limit`` seconds in the statistics).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from closurebench.graphs.exact import (
    ColouringResult,
    SolverTimeout,
    VertexCoverResult,
    bfs_order,
    centrality,
    chromatic_number,
    shortest_path,
    tsp,
    vertex_cover,
)
from closurebench.seeding import rng

Edges = list[tuple[int, int, int]]


def connected(n: int, edges: Edges) -> bool:
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v, _ in edges:
        adj[u].append(v)
        adj[v].append(u)
    seen, stack = {0}, [0]
    while stack:
        for v in adj[stack.pop()]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return len(seen) == n


def er_graph(n: int, density: str, k: int) -> Edges:
    """Connected G(n, p) with weights 1-10; p ~ U[0.1, 0.3] for "grit", else float(density)."""
    for attempt in range(1000):
        g = rng(0, "bench-exact", n, density, k, attempt)
        p = float(g.uniform(0.1, 0.3)) if density == "grit" else float(density)
        iu, ju = np.triu_indices(n, 1)
        keep = g.random(len(iu)) < p
        w = g.integers(1, 11, size=len(iu))
        edges = [
            (int(a), int(b), int(c)) for a, b, c in zip(iu[keep], ju[keep], w[keep], strict=True)
        ]
        if connected(n, edges):
            return edges
    raise RuntimeError(f"no connected G({n}, {density}) in 1000 attempts")


def grid_tsp(n: int, k: int) -> np.ndarray:
    g = rng(0, "bench-exact", "tsp", n, k)
    pts = g.choice(101 * 101, size=n, replace=False)
    xy = np.stack([pts // 101, pts % 101], axis=1)
    return np.rint(np.sqrt(((xy[:, None] - xy[None]) ** 2).sum(-1))).astype(int)


class Cell:
    """Timings of one solver on one (density, n) cell."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.timeouts = 0

    def run(self, fn: Callable[[], object], time_limit: float) -> object | None:
        start = time.perf_counter()
        try:
            out = fn()
        except SolverTimeout:
            self.timeouts += 1
            self.times.append(time_limit)
            return None
        self.times.append(time.perf_counter() - start)
        return out

    def fmt(self) -> str:
        if not self.times:
            return "–"
        med, mx = statistics.median(self.times), max(self.times)
        text = f"{med:.3f} / {mx:.3f}"
        return text + (f" ({self.timeouts} t/o)" if self.timeouts else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", type=int, default=20, help="instances per cell (default 20)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[20, 40, 60])
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds per solver call")
    ap.add_argument(
        "--ilp-max-n",
        type=int,
        default=40,
        help="largest n at which the colouring ILP (second method) is timed (default 40)",
    )
    ap.add_argument("--colouring-only", action="store_true", help="time only the colouring methods")
    ap.add_argument(
        "--densities",
        nargs="+",
        default=["grit", "0.5"],
        help=(
            "colouring-only: edge probabilities to sweep ('grit' = p ~ U[0.1, 0.3]; "
            "default: grit 0.5)"
        ),
    )
    ap.add_argument(
        "--colouring-methods",
        nargs="+",
        default=["dsatur", "sat", "ilp"],
        choices=["dsatur", "sat", "ilp", "auto"],
        help=(
            "colouring methods to time (default dsatur sat ilp; the first one given is the "
            "reference; auto = the default, DSATUR or SAT by size and density)"
        ),
    )
    args = ap.parse_args(argv)
    tl = args.time_limit
    rows: dict[tuple[str, str, str], dict[int, Cell]] = {}

    def cell(task: str, solver: str, density: str, n: int) -> Cell:
        return rows.setdefault((task, solver, density), {}).setdefault(n, Cell())

    mismatches: list[str] = []

    solver_names = {
        "dsatur": "DSATUR B&B",
        "sat": "SAT (CaDiCaL, cube and conquer, child processes)",
        "ilp": "HiGHS assignment ILP",
        "auto": "auto (the default)",
    }

    def colouring(n: int, e: Edges, label: str, k: int) -> None:
        methods = [m for m in args.colouring_methods if m != "ilp" or n <= args.ilp_max_n]
        first: ColouringResult | None = None
        for i, method in enumerate(methods):
            c = cell("colouring", solver_names[method], label, n)
            r = c.run(partial(chromatic_number, n, e, time_limit=tl, method=method), tl)
            print(
                f"  colouring n={n} p={label} #{k} {method}: {c.times[-1]:.3f} s", file=sys.stderr
            )
            if i == 0:
                first = r if isinstance(r, ColouringResult) else None
            elif isinstance(r, ColouringResult) and first is not None and r.value != first.value:
                mismatches.append(f"colouring ({method}) n={n} {label} #{k}")

    for n in args.sizes:
        names = [str(i) for i in range(n)]  # "alphabetical by name": 10 before 2
        for k in range(args.graphs):
            edges = er_graph(n, "grit", k)
            if args.colouring_only:
                for density in args.densities:
                    label = "0.1–0.3" if density == "grit" else density
                    e = edges if density == "grit" else er_graph(n, density, k)
                    colouring(n, e, label, k)
                print(f"n={n} graph {k + 1}/{args.graphs} done", file=sys.stderr, flush=True)
                continue
            g = rng(0, "bench-exact", "query", n, k)
            s, t = (int(x) for x in g.choice(n, size=2, replace=False))
            cell("shortest path", "Dijkstra (heap)", "0.1–0.3", n).run(
                partial(shortest_path, n, edges, s, t, directed=False), tl
            )
            cell("BFS", "queue, ranked neighbours", "0.1–0.3", n).run(
                partial(bfs_order, n, edges, s, neighbour_key=names), tl
            )
            for kind in ("degree", "closeness", "betweenness"):
                cell(f"centrality ({kind})", "exact rational", "0.1–0.3", n).run(
                    partial(centrality, n, edges, kind), tl
                )
            cell("TSP", "HiGHS + DFJ + rc-fixing", "complete", n).run(
                partial(tsp, grid_tsp(n, k), time_limit=tl), tl
            )
            for density, label in (("grit", "0.1–0.3"), ("0.5", "0.5")):
                e = edges if density == "grit" else er_graph(n, density, k)
                a = cell("vertex cover", "max-clique B&B", label, n).run(
                    partial(vertex_cover, n, e, time_limit=tl), tl
                )
                b = cell("vertex cover", "HiGHS ILP", label, n).run(
                    partial(vertex_cover, n, e, time_limit=tl, method="ilp"), tl
                )
                both = isinstance(a, VertexCoverResult) and isinstance(b, VertexCoverResult)
                if both and a.size != b.size:  # type: ignore[union-attr]
                    mismatches.append(f"vertex cover n={n} {label} #{k}")
                colouring(n, e, label, k)
            print(f"n={n} graph {k + 1}/{args.graphs} done", file=sys.stderr, flush=True)

    sizes = args.sizes
    print(
        f"Exact solvers, wall-clock seconds, median / max over {args.graphs} graphs per cell "
        f"(time limit {tl:g} s; 't/o' = not proven in time)\n"
    )
    print("| task | solver | density | " + " | ".join(f"n = {n}" for n in sizes) + " |")
    print("|---|---|---|" + "---|" * len(sizes))
    order = ["shortest path", "BFS", "centrality", "TSP", "vertex cover", "colouring"]
    keys = sorted(rows, key=lambda r: next(i for i, p in enumerate(order) if r[0].startswith(p)))
    for task, solver, density in keys:
        by_n = rows[(task, solver, density)]
        cells = " | ".join(by_n[n].fmt() if n in by_n else "–" for n in sizes)
        print(f"| {task} | {solver} | {density} | {cells} |")
    if mismatches:
        print("\nMISMATCH between methods: " + ", ".join(mismatches))
        return 1
    print("\nBoth methods agreed on every instance where both proved optimality.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
