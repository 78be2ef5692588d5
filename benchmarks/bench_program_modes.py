"""Program modes end to end: reference programs through prompt, sandbox and scoring.

Run: ``uv run python benchmarks/bench_program_modes.py [--count 1300] [--grit 60]``
(``--modes program-ein,program-python`` by default).

Generates a ClosureBench heldout split (``--count`` instances, seed 0) and, for each
mode, evaluates it with ``--model oracle-program`` (each instance's own verified program,
served by the offline reference provider) at the harness's default concurrency. Prints,
per mode: instances, wall seconds, programs per second, strict accuracy, execution rate,
the sandbox's per-program wall time (median, p90) and the isolation level used. With
``--grit N`` it also runs ``program-python`` on a GRIT test split of N base graphs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import closurebench
from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.providers import GenerationSettings
from closurebench.evaluate.records import iter_results
from closurebench.evaluate.reference import reference_provider
from closurebench.evaluate.runner import RunOptions, run_eval
from closurebench.generate.grit import GritConfig, write_split
from closurebench.sandbox import describe_isolation


def _p90(xs: list[float]) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def _run(data: Path, mode_name: str, out: Path, concurrency: int) -> str:
    records = closurebench.load_instances(data)
    mode = get_mode(mode_name)
    provider = reference_provider("oracle-program", records, mode)
    settings = GenerationSettings(model="oracle-program")
    options = RunOptions(concurrency=concurrency, progress=False, use_cache=False)
    start = time.perf_counter()
    stats = asyncio.run(run_eval(records, provider, mode, settings, out, options, notice=None))
    wall = time.perf_counter() - start
    results = list(iter_results(out / "results.jsonl"))
    secs = [float(r["extra"]["exec_seconds"]) for r in results]
    executed = sum(1 for r in results if r["extra"]["exec_outcome"] == "ok")
    isolation = sorted({str(r["extra"]["isolation"]) for r in results})
    return (
        f"| {data.stem} | {mode_name} | {len(results)} | {wall:.1f} | {len(results) / wall:.1f} "
        f"| {stats.summary['strict_accuracy']:.3f} | {executed}/{len(results)} "
        f"| {statistics.median(secs):.3f} / {_p90(secs):.3f} | {', '.join(isolation)} |"
    )


def main() -> None:
    """Generate, evaluate, print a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1300)
    ap.add_argument("--modes", default="program-ein,program-python")
    ap.add_argument("--grit", type=int, default=0, help="GRIT test base graphs (0: none)")
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()
    print(f"<!-- {os.cpu_count()} CPUs; sandbox: {describe_isolation()['isolation']} -->")
    print("| data | mode | N | wall s | programs/s | strict | executed | exec s median / p90 "
          "| isolation |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        closurebench.generate_split("heldout", seed=0, count=args.count, out=root / "c")
        data = root / "c" / "closure-heldout.jsonl"
        for mode in args.modes.split(","):
            print(_run(data, mode, root / mode, args.concurrency), flush=True)
        if args.grit:
            cfg = GritConfig(split="test", seed=0, count=args.grit)
            gpath, _, _ = write_split(cfg, root / "g")
            print(_run(gpath, "program-python", root / "grit", args.concurrency), flush=True)


if __name__ == "__main__":
    main()
