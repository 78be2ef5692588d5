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
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from closurebench import ein
from closurebench.ein import parser


def _time(fn: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    out = fn()
    xs = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        xs.append((time.perf_counter() - t) * 1e3)
    return statistics.median(xs), min(xs), out


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


if __name__ == "__main__":
    main()
