"""Does the hand-written process pool (``eval --workers N``) beat asyncio alone, or Ray?

Run: ``uv run python benchmarks/bench_provider_pool.py`` (``--help`` for options; the Ray
rows need the ``ray`` extra and are skipped without it).

Issue 25, item 3 asks to keep ``evaluate/providers/pool.py`` (worker processes with their
own event loop and provider, a length-prefixed JSON wire protocol over socket pairs) only
if it clearly beats plain asyncio or Ray. Every row is a full
:func:`~closurebench.evaluate.runner.run_eval` (``direct`` mode, scoring, results and cache
files, summary) of ``--n`` unique instances (one HTTP request each, no cache hits) against
the loopback OpenAI-compatible server of ``bench_harness.py`` (a raw asyncio HTTP/1.1
keep-alive server in its own process, > 3,000 req/s alone), so the client is the limit:

* ``asyncio``: the openai provider in the runner's own event loop (``--workers 0``);
* ``pool N``: the same provider in N worker processes (``--workers N``), scoring in the
  parent (``ProcessPoolProvider``);
* ``ray``: ``--backend ray`` (:func:`~closurebench.evaluate.ray_backend.run_eval_ray`) on a
  local cluster of ``--ray-cpus`` CPUs, started once and warmed up (its start-up, ~15-20 s
  on a small VM, is not charged): instances in batches as Ray tasks, each with its own
  provider and ``--concurrency`` requests in flight.

Each configuration is warmed up with 100 requests; a row is the median of ``--repeat``
runs (with min-max).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import multiprocessing as mp
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import closurebench
from bench_harness import _provider, make_instances, run_once, start_server


def _openai(base_url: str) -> Any:
    from closurebench.evaluate.providers.openai_compat import OpenAICompatProvider

    return OpenAICompatProvider(base_url=base_url, timeout_s=60.0)


async def _pool_rows(
    base: list[Any], url: str, workers: int, concurrency: list[int], n: int, repeat: int
) -> list[dict[str, Any]]:
    provider = _provider("openai", url, workers)
    rows = []
    try:
        if hasattr(provider, "start"):
            await provider.start()
        await run_once(make_instances(base, 100, f"w{workers}w"), provider, concurrency=8,
                       sync_interval_s=1.0)  # fmt: skip
        for c in concurrency:
            rates = []
            for i in range(repeat):
                r = await run_once(make_instances(base, n, f"w{workers}c{c}.{i}-"), provider,
                                   concurrency=c, sync_interval_s=1.0)  # fmt: skip
                rates.append(r["rate"])
            name = "asyncio (--workers 0)" if workers == 0 else f"pool (--workers {workers})"
            rows.append(_row(name, c, n, rates))
    finally:
        await provider.aclose()
    return rows


async def _ray_once(instances: list[Any], url: str, concurrency: int) -> float:
    from closurebench.evaluate.providers import GenerationSettings
    from closurebench.evaluate.ray_backend import run_eval_ray
    from closurebench.evaluate.runner import RunOptions

    settings = GenerationSettings(model="bench", max_tokens=64, timeout_s=60.0)
    opts = RunOptions(concurrency=concurrency, retries=0, progress=False, sync_interval_s=1.0)
    run_dir = Path(tempfile.mkdtemp(prefix="bench_pool_ray_"))
    try:
        t0 = time.perf_counter()
        stats = await run_eval_ray(instances, functools.partial(_openai, url), "direct",
                                   settings, run_dir, opts, provider_name="openai",
                                   notice=None)  # fmt: skip
        wall = time.perf_counter() - t0
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    if stats.failures:
        raise SystemExit(f"{stats.failures} failures in a Ray run")
    return len(instances) / wall


def _ray_rows(
    base: list[Any], url: str, cpus: int, concurrency: list[int], n: int, repeat: int
) -> list[dict[str, Any]]:
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    try:
        import ray
    except ImportError:
        print("ray not installed: Ray rows skipped", file=sys.stderr)
        return []
    t0 = time.perf_counter()
    ray.init(num_cpus=cpus, include_dashboard=False, logging_level=logging.ERROR)
    print(f"  ray.init: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    rows = []
    try:
        asyncio.run(_ray_once(make_instances(base, 100, "rw"), url, 8))
        for c in concurrency:
            rates = [
                asyncio.run(_ray_once(make_instances(base, n, f"r{c}.{i}-"), url, c))
                for i in range(repeat)
            ]
            rows.append(_row(f"ray ({cpus} CPUs, --backend ray)", c, n, rates))
    finally:
        ray.shutdown()
    return rows


def _row(name: str, c: int, n: int, rates: list[float]) -> dict[str, Any]:
    row = {"name": name, "concurrency": c, "n": n, "rate": statistics.median(rates),
           "min": min(rates), "max": max(rates)}  # fmt: skip
    print(f"  {name:34s} c={c:<3d} n={n}: median {row['rate']:7.0f}/s "
          f"({row['min']:.0f}-{row['max']:.0f})", file=sys.stderr)  # fmt: skip
    return row


def main(argv: list[str] | None = None) -> int:
    """Run the rows; print a Markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="instances per run")
    ap.add_argument("--concurrency", default="16,64", help="comma-separated")
    ap.add_argument("--workers", default="0,1,2", help="pool sizes (0: asyncio in-process)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ray-cpus", type=int, default=2, help="0: no Ray rows")
    args = ap.parse_args(argv)
    conc = [int(c) for c in args.concurrency.split(",")]
    base = closurebench.generate_split("heldout", seed=0, count=200)
    proc, url = start_server()
    t0 = time.perf_counter()
    rows: list[dict[str, Any]] = []
    try:
        for w in (int(x) for x in args.workers.split(",")):
            rows += asyncio.run(_pool_rows(base, url, w, conc, args.n, args.repeat))
        if args.ray_cpus:
            rows += _ray_rows(base, url, args.ray_cpus, conc, args.n, args.repeat)
    finally:
        proc.kill()
    print(f"\n{platform.python_version()}, {mp.cpu_count()} CPUs, "
          f"{time.perf_counter() - t0:.0f} s in all\n")  # fmt: skip
    print(f"| client | concurrency | n | req/s (median of {args.repeat}) | range |")
    print("|---|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['name']} | {r['concurrency']} | {r['n']} | {r['rate']:.0f} | "
              f"{r['min']:.0f}–{r['max']:.0f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
