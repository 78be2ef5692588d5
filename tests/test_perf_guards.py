"""Performance regression guards: ratios measured in one process, with generous bounds.

No wall-clock bound: each check times two things in this process (CPU seconds of this
process, best of a few runs) and bounds their ratio, so a shared, slow or busy machine
moves both sides alike. The bounds sit about 5x above the ratios measured on the
development machine (2 cores, 2026-12-01, listed beside each bound): a 5x slowdown of the
guarded path fails, machine noise does not. ``benchmarks/`` holds the real measurements.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
from scipy.sparse.csgraph import breadth_first_order

from closurebench import ein
from closurebench.generate.closure import ClosureConfig
from closurebench.generate.closure import generate_records as generate_closure
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import generate_records as generate_grit
from closurebench.graphs import erdos_renyi_out_degree, to_scipy_sparse
from closurebench.seeding import rng
from cpu_timing import best_cpu_seconds


def _cpu(fn: Callable[[], object], repeats: int = 3) -> float:
    return best_cpu_seconds(fn, repeats)


def _python_workload() -> object:
    """A fixed pure-Python workload (dict updates and a sort), ~0.1 s here."""
    counts: dict[int, int] = {}
    for i in range(600_000):
        key = i % 1009
        counts[key] = counts.get(key, 0) + i * 3 % 7
    return sorted(counts.items())


def test_ein_tc_program_stays_near_scipy_bfs_per_node() -> None:
    # Issue 14's target was within 2x of scipy's BFS from every node; issue 42 item 5's is
    # at most 1x, for the literal on one line and spread over lines with a comment (the
    # array path reads both): measured 0.20x and 0.18x at n = 400 (0.42x and 2.66x before
    # item 5; 0.23x at n = 1,000, benchmarks/bench_ein_literals.py).
    n = 400
    g = erdos_renyi_out_degree(rng(0, "perf-guard", "tc"), n, 10)
    pairs = ", ".join(f"[{u}, {v}]" for u, v in g.edges)
    spread = ",\n  ".join(f"[{u}, {v}]" for u, v in g.edges)
    matrix = to_scipy_sparse(g)

    def scipy_closure() -> np.ndarray:
        out = np.zeros((n, n), dtype=bool)
        for s in range(n):
            out[s, breadth_first_order(matrix, s, return_predecessors=False)] = True
        return out

    expected = int(scipy_closure().sum())
    for literal in (f"[{pairs}]", f"[ // the edges\n  {spread}\n]"):
        program = f"A = edges({literal}, {n})\nT = tc(A)\n:print sum(T)\n"
        assert int(ein.run(program).value) == expected  # the same closure, counted two ways
        ratio = _cpu(functools.partial(ein.run, program)) / _cpu(scipy_closure)
        assert ratio < 1.0, f"Ein tc program takes {ratio:.2f}x scipy BFS-per-node (was 0.2x)"


def test_verified_closurebench_generation_rate() -> None:
    # 60 heldout instances, every check on, vs the fixed workload: measured 2.0x.
    ref = _cpu(_python_workload)
    gen = _cpu(lambda: generate_closure(ClosureConfig(split="heldout", seed=0, count=60)))
    assert gen / ref < 11.0, f"60 verified instances took {gen / ref:.1f}x the workload"


def test_verified_grit_large_generation_rate() -> None:
    # Two large-split graphs (16 questions rendered, each read back by the reader):
    # measured 1.7x.
    ref = _cpu(_python_workload)
    gen = _cpu(lambda: generate_grit(GritConfig(split="large", seed=0, count=2, workers=1)), 2)
    assert gen / ref < 9.0, f"2 large GRIT graphs took {gen / ref:.1f}x the workload"
