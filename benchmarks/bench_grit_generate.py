"""Time GRIT generation per split: instances/s and seconds per stage.

Usage::

    uv run python benchmarks/bench_grit_generate.py [--splits test,large] [--count K]
        [--seed 0] [--workers 1]

For each split it generates ``count`` base graphs (default: the full split) in memory and
prints a Markdown table with wall time, questions per second and the time spent in each
stage (sample, solve, verify, render, certify; summed over graphs, so with ``workers > 1``
the stage sum exceeds the wall time), plus per-task solve+verify times and resamples.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from closurebench.generate.grit import SPLITS, STAGES, GritConfig, generate_records


def bench(split: str, count: int | None, seed: int, workers: int) -> dict:
    """Generate one split and return its timing summary."""
    config = GritConfig(split=split, seed=seed, count=count, workers=workers)
    t0 = time.perf_counter()
    records, results = generate_records(config)
    wall = time.perf_counter() - t0
    stages = {s: sum(r.timings.get(s, 0.0) for r in results) for s in STAGES}
    per_task: dict[str, list[float]] = defaultdict(list)
    tasks = config.task_names
    for r in results:
        per_task[tasks[r.index % len(tasks)]].append(r.timings["solve"] + r.timings["verify"])
    return {
        "split": split,
        "graphs": len(results),
        "records": len(records),
        "wall": wall,
        "rate": len(records) / wall if wall else float("inf"),
        "stages": stages,
        "per_task": {t: (sum(v), max(v)) for t, v in per_task.items()},
        "resamples": sum(r.attempts - 1 for r in results),
    }


def main() -> None:
    """Parse arguments, run the benchmark and print Markdown tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", default="test,large")
    ap.add_argument("--count", type=int, default=None, help="graphs per split (default: full)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    rows = []
    for split in args.splits.split(","):
        if split not in SPLITS:
            ap.error(f"split {split!r} is unknown; choose from {list(SPLITS)}")
        rows.append(bench(split, args.count, args.seed, args.workers))
    print(f"workers={args.workers}, seed={args.seed}\n")
    head = ["split", "graphs", "questions", "wall s", "questions/s", *STAGES, "resamples"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [r["split"], r["graphs"], r["records"], f"{r['wall']:.1f}", f"{r['rate']:.1f}"]
        cells += [f"{r['stages'][s]:.2f}" for s in STAGES] + [r["resamples"]]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    print("\nsolve+verify seconds per task (total / worst graph):\n")
    print("| split | " + " | ".join(rows[0]["per_task"]) + " |")
    print("|" + "---|" * (1 + len(rows[0]["per_task"])))
    for r in rows:
        cells = [f"{tot:.2f} / {mx:.2f}" for tot, mx in r["per_task"].values()]
        print(f"| {r['split']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
