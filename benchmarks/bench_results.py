"""Measure the typed results path: summary, report loading and the report tables.

Run: ``uv run python benchmarks/bench_results.py`` (``--help`` for options).

A run folder of ``--count`` results (seeded; ClosureBench and GRIT metadata, usage,
latency, a chain-of-thought sized response of ``--response-bytes`` with self-correction
markers, a program mode's ``extra`` on every fifth result) is written once. Then, each
best of ``--repeats`` (CPU seconds of this process):

* ``summarize``: :func:`closurebench.evaluate.records.summarize` over
  :func:`~closurebench.evaluate.records.iter_result_records` (every line validated as a
  :class:`~closurebench.schema.ResultRecord`), what the runner writes ``summary.json``
  with at the end of a run;
* ``load_run``: :func:`closurebench.report.aggregate.load_run` (validates every line,
  keeps each as a :class:`~closurebench.report.run.LoadedResult` without its texts, and
  summarises them with the same function);
* ``all_tables``: every report table over the loaded run.

Prints results per second and the peak ``tracemalloc`` memory of ``load_run`` (the
records a report holds).
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from closurebench.evaluate.records import iter_result_records, summarize
from closurebench.report.aggregate import load_run
from closurebench.report.tables import all_tables

_OUTCOMES = ("strict_correct", "lenient_only", "wrong", "format_error", "no_answer")
_NAMINGS = ("canonical", "random", "semantic", "mixed")


def _row(i: int, rng: random.Random, response_bytes: int) -> dict[str, Any]:
    outcome = rng.choices(_OUTCOMES, (40, 5, 40, 10, 5))[0]
    text = ("Let me think. Wait, actually the path goes through b. " * 200)[:response_bytes]
    row: dict[str, Any] = {
        "id": f"r{i}",
        "outcome": outcome,
        "strict": outcome == "strict_correct",
        "lenient": outcome in ("strict_correct", "lenient_only"),
        "response": text,
        "usage": {
            "prompt_tokens": rng.randint(200, 900),
            "completion_tokens": rng.randint(50, 900),
        },
        "latency_s": rng.uniform(0.2, 4.0),
        "settings": {"model": "bench", "temperature": 0.0},
        "mode": "cot",
    }
    if i % 2:
        row |= {"suite": "closure", "category": "reachability", "level": 1 + i % 3, "n": 4 + i % 9}
    else:
        row |= {"suite": "grit", "task": "bfs", "split": "test", "n": 10 + i % 20}
        row |= {"form": ("standard", "realistic")[i % 4 // 2], "naming": _NAMINGS[i % 4]}
    if i % 5 == 0:
        row["extra"] = {"exec_outcome": "ok", "exec_seconds": 0.1, "program": "x = 1\n" * 40}
    return row


def _best(repeats: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main(argv: list[str] | None = None) -> None:
    """Write the run folder, time the three steps, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=50_000, help="results in the run folder")
    ap.add_argument("--response-bytes", type=int, default=2_000, help="length of each response")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs per step")
    args = ap.parse_args(argv)
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        run.mkdir()
        with (run / "results.jsonl").open("w", encoding="utf-8") as fh:
            for i in range(args.count):
                fh.write(json.dumps(_row(i, rng, args.response_bytes)) + "\n")
        size_mb = (run / "results.jsonl").stat().st_size / 1e6
        steps = {
            "summarize": lambda: summarize(iter_result_records(run / "results.jsonl")),
            "load_run": lambda: load_run(run),
        }
        timings = {name: _best(args.repeats, fn) for name, fn in steps.items()}
        loaded = load_run(run)
        timings["all_tables"] = _best(args.repeats, lambda: all_tables([loaded]))
        tracemalloc.start()
        load_run(run)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    print(f"{args.count:,} results, {size_mb:.1f} MB, best of {args.repeats} (CPU seconds)")
    print("| step | seconds | results/s |")
    print("|---|---|---|")
    for name, seconds in timings.items():
        print(f"| {name} | {seconds:.2f} | {args.count / seconds:,.0f} |")
    print(f"load_run peak memory (tracemalloc): {peak / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
