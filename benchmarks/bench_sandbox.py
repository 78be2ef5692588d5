"""Sandbox overhead per program, at the wall and at the unsafe level.

Run: ``uv run python benchmarks/bench_sandbox.py [--repeats 30]``.
For the wall (bwrap: namespaces, minimal mounts, private tmpfs, seccomp) and the
unsafe level (none: process limits and the audit hook only), and for two programs — a
trivial ``print(1)`` and a small networkx program (import, build a 200-edge DiGraph,
transitive closure, print) — prints the median and p90 wall seconds of
:func:`closurebench.sandbox.run_python` (spawn to reaped exit, graphs captured), beside
the same program run as a plain ``python -I -c`` subprocess (no sandbox) for reference.
Also times :func:`closurebench.sandbox.run_ein` on a warm worker at each level.

Then throughput: programs per second with one and two calling threads, per level, for a
cold interpreter per program (``warm=False``) and for the warm zygote (the default), and
for Ein's warm worker.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from closurebench.sandbox import available_isolations, run_ein, run_python

PROGRAMS = {
    "print(1)": "print(1)\n",
    "bfs": (
        "import networkx as nx\n"
        "G = nx.gnm_random_graph(60, 150, seed=3)\n"
        "print(sorted(nx.single_source_shortest_path_length(G, 0).items())[:5])\n"
    ),
    "networkx": (
        "import networkx as nx\n"
        "G = nx.gnm_random_graph(100, 200, seed=7, directed=True)\n"
        "T = nx.transitive_closure(G)\n"
        "print(T.number_of_edges())\n"
    ),
}
EIN = "A = edges([[0,1],[1,2],[2,3]], 4)\n:print sum(tc(A))\n"


def _time(run: Callable[[], object], repeats: int) -> list[float]:
    run()  # warm the page cache (and, for Ein, the worker)
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        out.append(time.perf_counter() - start)
    return out


def _stats(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return statistics.median(ordered), p90


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--programs", type=int, default=200, help="programs per throughput cell")
    args = parser.parse_args()
    rows: list[tuple[str, str, float, float]] = []
    for name, code in PROGRAMS.items():
        plain = [sys.executable, "-I", "-c", code]
        rows.append(
            (
                "plain",
                name,
                *_stats(
                    _time(
                        lambda p=plain: subprocess.run(p, check=True, capture_output=True),
                        args.repeats,
                    )
                ),
            )
        )
        for level in (*available_isolations(), "none"):
            for warm in (False, True):
                samples = _time(
                    lambda c=code, lv=level, w=warm: run_python(c, isolation=lv, warm=w),
                    args.repeats,
                )
                rows.append((f"{level} {'warm' if warm else 'cold'}", name, *_stats(samples)))
    for level in (*available_isolations(), "none"):
        samples = _time(lambda lv=level: run_ein(EIN, isolation=lv), args.repeats)
        rows.append((f"ein warm {level}", "tc", *_stats(samples)))
    print(f"{'configuration':<22} {'program':<10} {'median s':>9} {'p90 s':>9}")
    for config, name, median, p90 in rows:
        print(f"{config:<22} {name:<10} {median:>9.3f} {p90:>9.3f}")
    print()
    print(f"throughput: {args.programs} programs per cell, graphs captured")
    print(f"{'level':<8} {'start':<6} {'program':<10} {'threads':>7} {'programs/s':>11}")
    for level in (*available_isolations(), "none"):
        for warm in (False, True):
            for name in (*PROGRAMS, "ein"):
                if name == "ein" and not warm:
                    continue
                for threads in (1, 2):
                    rate = _throughput(level, warm, name, threads, args.programs)
                    start = "warm" if warm else "cold"
                    print(f"{level!s:<8} {start:<6} {name:<10} {threads:>7} {rate:>11.1f}")


def _throughput(level: object, warm: bool, name: str, threads: int, count: int) -> float:
    """Programs per second with ``threads`` callers (each call is one sandboxed program)."""
    if name == "ein":

        def one(_: int) -> object:
            return run_ein(EIN, isolation=str(level))
    else:
        code = PROGRAMS[name]

        def one(_: int) -> object:
            return run_python(code, isolation=str(level), warm=warm)

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, range(2 * threads)))  # warm the zygotes / workers
        start = time.perf_counter()
        results = list(pool.map(one, range(count)))
        elapsed = time.perf_counter() - start
    assert all(getattr(r, "ok", True) for r in results), results[:1]
    return count / elapsed


if __name__ == "__main__":
    main()
