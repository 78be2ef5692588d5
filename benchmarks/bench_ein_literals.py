"""Ein programs with long edge-list literals: the array path against the node path, and scipy.

Run: ``uv run python benchmarks/bench_ein_literals.py [--repeats 15]``.

On an Erdős–Rényi digraph with n = 1,000 and expected out-degree 10 (~10,000 edges),
prints the median and minimum milliseconds of:

* ``A = edges(<literal>, n)`` — parse and evaluate the literal statement alone;
* the whole program ``A = edges(...); T = tc(A); :print sum(T)`` (``ein.run``);

each with the array path (the default) and with the node path forced
(``parser.LAZY_LITERAL_CHARS`` raised), and, for reference, scipy's closure by one
breadth-first search per node (``scipy.sparse.csgraph.breadth_first_order``) on the same
graph, given as a CSR matrix (no text to read). Every route's closure size is checked
equal before its time is reported.

A second table splits the whole program by stage (issue 42 item 5): ``parse``
(``parser.parse``), ``check`` (``shapes.check_program``), ``run``
(``evaluator.evaluate``) and the whole ``ein.run``, for the literal on one line and for the
same literal spread over lines (four edges a line, a ``//`` comment inside), each
divided by the scipy BFS median.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from closurebench import ein
from closurebench.ein import parser
from closurebench.ein.evaluator import evaluate
from closurebench.ein.limits import DEFAULT_LIMITS
from closurebench.ein.shapes import check_program


def _time(fn: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    out = fn()
    xs = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        xs.append((time.perf_counter() - t) * 1e3)
    return statistics.median(xs), min(xs), out


def _stage_rows(
    programs: list[tuple[str, str]], repeats: int
) -> list[tuple[str, list[tuple[float, float]], float]]:
    """``(label, [(median, min) ms of parse, check, run, whole], closure size)`` per program."""
    rows = []
    for label, src in programs:
        prog = parser.parse(src)
        stages = [
            _time(partial(parser.parse, src), repeats)[:2],
            _time(partial(check_program, prog, DEFAULT_LIMITS), repeats)[:2],
            _time(partial(evaluate, prog, DEFAULT_LIMITS), repeats)[:2],
        ]
        med, mn, res = _time(partial(ein.run, src), repeats)
        stages.append((med, mn))
        rows.append((label, stages, float(res.value)))  # type: ignore[attr-defined]
    return rows


def main() -> None:
    """Measure and print a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--degree", type=int, default=10)
    args = ap.parse_args()
    n, r = args.n, random.Random(0)
    edges = sorted(
        {(u, v) for u in range(n) for v in range(n) if u != v and r.random() < args.degree / n}
    )
    literal = "[" + ",".join(f"[{u},{v}]" for u, v in edges) + "]"
    stmt = f"A = edges({literal}, {n})\n:print sum(A)"
    program = f"A = edges({literal}, {n})\nT = tc(A)\n:print sum(T)"
    lines = [",".join(f"[{u},{v}]" for u, v in edges[k : k + 4]) for k in range(0, len(edges), 4)]
    spread = "[ // the edges, four a line\n  " + ",\n  ".join(lines) + "\n]"
    program_lines = f"A = edges({spread}, {n})\nT = tc(A)\n:print sum(T)"

    def bfs_closure() -> float:
        rows, cols = zip(*edges, strict=True)
        csr = sp.csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(n, n))
        csc = csr.tocsc()
        total = 0
        for s in range(n):
            order = breadth_first_order(csr, s, directed=True, return_predecessors=False)
            seen = np.zeros(n, dtype=bool)
            seen[order] = True
            preds = csc.indices[csc.indptr[s] : csc.indptr[s + 1]]
            total += len(order) - 1 + int(seen[preds].any())  # s on a cycle: tc[s, s] = 1
        return float(total)

    rows_out = []
    saved = parser.LAZY_LITERAL_CHARS
    for label, chars in (("array path", saved), ("node path", 10**12)):
        parser.LAZY_LITERAL_CHARS = chars
        med_s, min_s, _ = _time(lambda: ein.run(stmt), args.repeats)
        med_p, min_p, res = _time(lambda: ein.run(program), args.repeats)
        rows_out.append((label, med_s, min_s, med_p, min_p, float(res.value)))  # type: ignore[attr-defined]
    parser.LAZY_LITERAL_CHARS = saved
    med_b, min_b, bfs_total = _time(bfs_closure, max(3, args.repeats // 3))
    assert all(row[5] == bfs_total for row in rows_out), (rows_out, bfs_total)
    print(f"<!-- n={n}, {len(edges):,} edges, closure pairs {int(bfs_total):,} -->")
    print("| route | literal stmt ms median (min) | whole program ms median (min) | / scipy BFS |")
    print("|---|---:|---:|---:|")
    for label, ms, mn, mp_, mnp, _ in rows_out:
        print(
            f"| Ein, {label} | {ms:.1f} ({mn:.1f}) | {mp_:.1f} ({mnp:.1f}) | {mp_ / med_b:.2f}× |"
        )
    print(f"| scipy BFS per node (CSR given) | – | {med_b:.1f} ({min_b:.1f}) | 1.00× |")
    print()
    stage_rows = _stage_rows(
        [("literal on one line", program), ("literal over lines, a comment", program_lines)],
        args.repeats,
    )
    assert all(row[2] == bfs_total for row in stage_rows), (stage_rows, bfs_total)
    print("| Ein `tc` program | parse ms | check ms | run ms | whole ms | whole / scipy BFS |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, stages, _ in stage_rows:
        cells = " | ".join(f"{m:.1f} ({mn:.1f})" for m, mn in stages)
        print(f"| {label} | {cells} | {stages[3][0] / med_b:.2f}× |")
    print(f"| scipy BFS per node (CSR given) | – | – | – | {med_b:.1f} ({min_b:.1f}) | 1.00× |")


if __name__ == "__main__":
    main()
