"""Time ClosureBench generation: instances/s and seconds per stage.

Usage::

    uv run python benchmarks/bench_closure_generate.py [--count K] [--train-count N]
        [--skip-train] [--seed 0] [--workers 2,4]

Generates the heldout split (1,300 instances by default, every check on: all three
solving routes and the reader run for every emitted instance) and a train-size run of
10,000 instances, in memory, and prints a Markdown table with wall time, instances per
second and the seconds spent in each stage (sample, solve, ein, python, render,
certify; measured through the ``timings`` hook of
:func:`closurebench.generate.closure.generate_records`). With ``--workers``, the heldout
split is also generated with that many processes (wall time only; the records digest must
equal the one-process run's).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

from closurebench.generate.closure import STAGES, ClosureConfig, generate_records


def bench(config: ClosureConfig) -> dict:
    """Generate ``config`` once and return its timing summary (stages: one process only)."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    records = generate_records(config, timings=timings if config.workers == 1 else None)
    wall = time.perf_counter() - t0
    digest = hashlib.sha256()
    for r in records:
        digest.update(json.dumps(r.to_json(), sort_keys=True).encode())
    return {
        "split": config.split + (f" ({config.workers} workers)" if config.workers > 1 else ""),
        "count": len(records),
        "wall": wall,
        "rate": len(records) / wall if wall else float("inf"),
        "stages": {s: timings.get(s, 0.0) for s in STAGES},
        "digest": digest.hexdigest()[:12],
    }


def main() -> None:
    """Parse arguments, run the benchmark and print a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=None, help="heldout instances (default 1300)")
    ap.add_argument("--train-count", type=int, default=10_000)
    ap.add_argument("--skip-train", action="store_true", help="only the heldout run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--workers",
        type=lambda v: [int(x) for x in v.split(",") if x],
        default=[],
        help="also time the heldout split with these process counts, e.g. 2,4",
    )
    args = ap.parse_args()
    configs = [ClosureConfig(split="heldout", seed=args.seed, count=args.count)]
    configs += [
        ClosureConfig(split="heldout", seed=args.seed, count=args.count, workers=w)
        for w in args.workers
    ]
    if not args.skip_train:
        configs.append(ClosureConfig(split="train", seed=args.seed, count=args.train_count))
    rows = [bench(c) for c in configs]
    head = ["split", "instances", "wall s", "instances/s", *(f"{s} s" for s in STAGES)]
    head += ["other s", "records sha256[:12]"]
    print(f"seed={args.seed}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        other = r["wall"] - sum(r["stages"].values())
        cells = [r["split"], r["count"], f"{r['wall']:.2f}", f"{r['rate']:.0f}"]
        if any(r["stages"].values()):
            cells += [f"{r['stages'][s]:.2f}" for s in STAGES] + [f"{other:.2f}"]
        else:
            cells += ["-"] * (len(STAGES) + 1)
        cells.append(r["digest"])
        print("| " + " | ".join(str(c) for c in cells) + " |")


if __name__ == "__main__":
    main()
