"""Transitive closure side by side: Ein ``tc``, the graph core and networkx.

Times, on Erdős–Rényi digraphs with n = 100, 1,000, 5,000 and expected
out-degree 2 and 10:

* ``core (sparse)``  — ``closurebench.graphs.tc`` on a CSR adjacency (minimum over repeats);
* ``core (f64)``     — the same on the float64 matrix Ein holds (the like-for-like baseline);
* ``core (dense)``   — the same on the dense matrix Ein holds;
* ``Ein tc statement`` — evaluation of the parsed program ``A = edges(...); T = tc(A)``
  minus evaluation of ``A = edges(...)`` alone (parsing excluded, minimum over repeats);
  a difference of two larger timings, so noisy (± several ms on a shared machine);
* ``Ein builtin``    — the registered ``tc`` builtin called on the float64 matrix Ein
  holds (closure plus conversion of the result to float64 0/1);
* ``Ein program``    — the whole program, including parsing the edge-list literal;
* ``networkx``       — ``nx.transitive_closure`` (reflexive=False, the same strict
  closure), in a subprocess with a time cap so a run always finishes.

Every route's result is checked equal to the core's before its time is reported.

Run: ``uv run python benchmarks/bench_closure.py [--nx-cap SECONDS] [--repeats K]``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import platform
import statistics
import time
from collections.abc import Callable

import networkx as nx
import numpy as np

from closurebench import ein
from closurebench.ein.builtins import BUILTINS
from closurebench.ein.evaluator import evaluate
from closurebench.ein.limits import Limits
from closurebench.graphs import Graph, erdos_renyi_out_degree, tc, to_scipy_sparse
from closurebench.seeding import rng


def _times(fn: Callable[[], object], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def _median_time(fn: Callable[[], object], repeats: int) -> float:
    return statistics.median(_times(fn, repeats))


# n = 5,000 needs a 25M-element matrix and a ~600 kB program: above the default caps.
LIMITS = Limits(max_elements=3 * 10**7, max_source_chars=10**7)


def _nx_worker(n: int, edges: list[tuple[int, int]], queue: mp.Queue) -> None:
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    t0 = time.perf_counter()
    C = nx.transitive_closure(G, reflexive=False)
    elapsed = time.perf_counter() - t0
    queue.put((elapsed, C.number_of_edges(), sorted(C.edges())[:1000]))


def _time_networkx(g: Graph, cap: float) -> tuple[float | None, int | None]:
    queue: mp.Queue = mp.get_context("fork").Queue()
    proc = mp.get_context("fork").Process(target=_nx_worker, args=(g.n, list(g.edges), queue))
    proc.start()
    proc.join(cap)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None, None
    elapsed, count, _ = queue.get()
    return elapsed, count


def _program(g: Graph, with_tc: bool) -> str:
    edge_list = ",".join(f"[{u},{v}]" for u, v in g.edges)
    lines = [f"A = edges([{edge_list}], {g.n})"]
    if with_tc:
        lines.append("T = tc(A)")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nx-cap", type=float, default=120.0, help="seconds per networkx run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 5000])
    args = parser.parse_args()

    print(
        f"# closure benchmark — {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, numpy {np.__version__}, networkx {nx.__version__}"
    )
    print()
    header = (
        "| n | out-deg | edges | closure pairs | core sparse ms | core dense ms | core f64 ms "
        "| Ein tc builtin ms | Ein tc statement ms | Ein program ms | networkx s "
        "| builtin / core f64 | builtin / core dense | networkx / builtin |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    rows = []
    for n in args.sizes:
        for deg in (2, 10):
            g = erdos_renyi_out_degree(rng(0, "bench-closure", n, deg), n, deg)
            sparse = to_scipy_sparse(g, weighted=False)
            dense = g.adjacency()
            ref = tc(sparse)
            core_sparse = min(_times(lambda s=sparse: tc(s), args.repeats))
            core_dense = min(_times(lambda d=dense: tc(d), args.repeats))
            prog_tc, prog_plain = _program(g, True), _program(g, False)
            result = ein.run(prog_tc, limits=LIMITS)
            if not np.array_equal(result.value.astype(bool), ref):
                raise SystemExit(f"Ein tc disagrees with the core at n={n}, deg={deg}")
            with_tc = _median_time(
                lambda p=prog_tc: ein.run(p, limits=LIMITS), max(1, args.repeats // 2)
            )
            parsed_tc, parsed_plain = (
                ein.parse(prog_tc, limits=LIMITS),
                ein.parse(prog_plain, limits=LIMITS),
            )
            eval_tc = min(_times(lambda p=parsed_tc: evaluate(p, LIMITS), args.repeats))
            eval_plain = min(_times(lambda p=parsed_plain: evaluate(p, LIMITS), args.repeats))
            ein_tc = max(eval_tc - eval_plain, 1e-6)
            as_float = dense.astype(np.float64)
            core_f64 = min(_times(lambda a=as_float: tc(a), args.repeats))
            builtin = min(
                _times(lambda a=as_float: BUILTINS["tc"].func(a, limits=LIMITS), args.repeats)
            )
            nx_s, nx_pairs = _time_networkx(g, args.nx_cap)
            if nx_pairs is not None and nx_pairs != int(ref.sum()):
                raise SystemExit(f"networkx disagrees with the core at n={n}, deg={deg}")
            nx_txt = f"{nx_s:.2f}" if nx_s is not None else f"> {args.nx_cap:.0f} (capped)"
            speedup = (
                f"{nx_s / builtin:,.0f}×"
                if nx_s is not None
                else f"> {args.nx_cap / builtin:,.0f}×"
            )
            row = (
                f"| {n:,} | {deg} | {g.m:,} | {int(ref.sum()):,} | {core_sparse * 1e3:.1f} "
                f"| {core_dense * 1e3:.1f} | {core_f64 * 1e3:.1f} | {builtin * 1e3:.1f} "
                f"| {ein_tc * 1e3:.1f} | {with_tc * 1e3:.1f} | {nx_txt} | {builtin / core_f64:.2f} "
                f"| {builtin / core_dense:.2f} | {speedup} |"
            )
            print(row, flush=True)
            rows.append(
                {
                    "n": n,
                    "out_degree": deg,
                    "edges": g.m,
                    "pairs": int(ref.sum()),
                    "core_sparse_s": core_sparse,
                    "core_dense_s": core_dense,
                    "core_f64_s": core_f64,
                    "ein_builtin_s": builtin,
                    "ein_tc_s": ein_tc,
                    "ein_program_s": with_tc,
                    "networkx_s": nx_s,
                }
            )
    print()
    print("```json")
    print(json.dumps(rows, indent=1))
    print("```")


if __name__ == "__main__":
    main()
