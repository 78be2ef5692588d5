"""Measure evaluation-harness overhead (runner + openai client + scoring + results/cache I/O).

Run: ``uv run python benchmarks/bench_harness.py`` (``--help`` for options).

A minimal OpenAI-compatible server (raw asyncio HTTP/1.1 with keep-alive, fixed valid
chat-completions body) runs in a separate process, so it does not share the GIL with
the harness. Each row runs :func:`closurebench.evaluate.runner.run_eval` end to end
(``direct`` mode, scoring, ``results.jsonl`` + ``cache.jsonl`` writes, summary) into a
fresh run directory and reports instances per second (one request per instance).

Instances: ``generate_split("heldout", seed=0, count=--base)`` copied with unique ids
*and* a unique tag appended to the question, so that every request has its own cache
key (no cache hits; every instance goes over HTTP).

Rows:
* ``openai`` over loopback HTTP at concurrency 1, 16, 64, with fsync group-committed
  once a second (the default, ``--fsync-interval 1``) and fsync on every line
  (``--fsync-interval 0``); lines are flushed per instance either way.
* ``openai --workers N`` (N = 1, 2 by default): the same requests sent from N worker
  processes (:class:`closurebench.evaluate.providers.pool.ProcessPoolProvider`), so the
  client library's CPU time leaves the process that scores and writes.
* ``scripted`` (no HTTP): the pure harness ceiling.

Each configuration runs in one event loop with one provider, started and warmed up
(100 requests) before its first measured row.
* 20,000-instance runs in fresh child processes for peak memory (``ru_maxrss``; the
  ``tracemalloc`` peak of one): short replies, 4 KB replies (chain-of-thought sized), and
  the resume of the 4 KB run; scripted provider by default (``--mem-provider``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import resource
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from closurebench.schema import ClosureInstance

_BODY = json.dumps(
    {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 0,
        "model": "bench",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": '{"answer": 8}'},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 6, "total_tokens": 126},
    }
).encode()
_RESPONSE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
    + str(len(_BODY)).encode()
    + b"\r\nConnection: keep-alive\r\n\r\n"
    + _BODY
)


# --------------------------------------------------------------------------- server


async def _handle(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, counter: Any = None
) -> None:
    """Answer each request with the canned completion; count it in ``counter`` if given."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:].strip())
            if length:
                await reader.readexactly(length)
            if counter is not None:  # a multiprocessing.Value shared with the parent
                with counter.get_lock():
                    counter.value += 1
            writer.write(_RESPONSE)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


def _serve(sock: socket.socket, counter: Any = None) -> None:
    """Serve chat completions on ``sock`` until killed (``counter``: see :func:`_handle`)."""

    async def main() -> None:
        server = await asyncio.start_server(
            lambda r, w: _handle(r, w, counter), sock=sock, backlog=1024
        )
        async with server:
            await server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())


def start_server() -> tuple[mp.Process, str]:
    """Start the fake server in a child process; return it and its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    port = sock.getsockname()[1]
    proc = mp.get_context("fork").Process(target=_serve, args=(sock,), daemon=True)
    proc.start()
    sock.close()
    return proc, f"http://127.0.0.1:{port}/v1"


# --------------------------------------------------------------------------- data


def make_instances(base: list[ClosureInstance], count: int, tag: str) -> list[ClosureInstance]:
    """``count`` copies of ``base`` records with unique ids and unique questions."""
    out = []
    for k in range(count):
        r = base[k % len(base)]
        update = {"id": f"{r.id}-{tag}{k}", "question": f"{r.question}\n\n(ref {tag}{k})"}
        out.append(r.model_copy(update=update))
    return out


# --------------------------------------------------------------------------- runs


def _provider(kind: str, base_url: str | None, workers: int = 0, pad: int = 0) -> Any:
    from closurebench.evaluate.providers.openai_compat import OpenAICompatProvider
    from closurebench.evaluate.providers.pool import ProcessPoolProvider
    from closurebench.evaluate.providers.scripted import ScriptedProvider

    if kind == "openai":
        if workers:
            kwargs = {"base_url": str(base_url), "timeout_s": 60.0}
            return ProcessPoolProvider("openai", kwargs, workers=workers)
        return OpenAICompatProvider(base_url=str(base_url), timeout_s=60.0)

    class _Discard(list):  # the scripted provider records every call; not for 20k runs
        def append(self, _item: Any) -> None:
            pass

    reply = "Let me think. " * (pad // 14) + '{"answer": 8}'
    p = ScriptedProvider(lambda messages, settings: reply)
    p.calls = _Discard()
    return p


async def run_once(
    instances: list[dict[str, Any]],
    provider: Any,
    *,
    concurrency: int,
    sync_interval_s: float,
    progress: bool = False,
    out: Path | None = None,
) -> dict[str, Any]:
    """One full run_eval into ``out`` (default: a fresh, deleted afterwards); returns timing."""
    from closurebench.evaluate.providers import GenerationSettings
    from closurebench.evaluate.runner import RunOptions, run_eval

    settings = GenerationSettings(model="bench", max_tokens=64, timeout_s=60.0)
    opts = RunOptions(
        concurrency=concurrency, retries=0, progress=progress, sync_interval_s=sync_interval_s
    )
    keep = out is not None
    run_dir = out if out is not None else Path(tempfile.mkdtemp(prefix="bench_harness_"))
    try:
        t0 = time.perf_counter()
        stats = await run_eval(instances, provider, "direct", settings, run_dir, opts)
        wall = time.perf_counter() - t0
    finally:
        if not keep:
            shutil.rmtree(run_dir, ignore_errors=True)
    if stats.failures:
        raise SystemExit(f"{stats.failures} failures in a benchmark run: {stats.summary}")
    return {"n": len(instances), "wall": wall, "rate": len(instances) / wall, "stats": stats}


async def run_config(
    base: list[ClosureInstance],
    *,
    kind: str,
    base_url: str | None,
    workers: int,
    plan: list[tuple[int, float, int, bool]],
    tag: str,
    repeat: int = 1,
) -> list[dict[str, Any]]:
    """Run every (concurrency, fsync interval, n, progress) of ``plan`` with one provider.

    The provider (and its worker processes) is created and warmed up once, in one
    event loop, so that start-up is not charged to the first row.
    """
    provider = _provider(kind, base_url, workers)
    rows = []
    try:
        if hasattr(provider, "start"):
            await provider.start()
        await run_once(
            make_instances(base, 100, f"{tag}w"), provider, concurrency=8, sync_interval_s=1.0
        )
        for k, (c, interval, n, progress) in enumerate(plan):
            reps = [
                await run_once(
                    make_instances(base, n, f"{tag}{k}.{i}-"),
                    provider,
                    concurrency=c,
                    sync_interval_s=interval,
                    progress=progress,
                )
                for i in range(repeat)
            ]
            rates = sorted(x["rate"] for x in reps)
            r = dict(reps[0])
            r.update(
                concurrency=c,
                interval=interval,
                progress=progress,
                rate=rates[len(rates) // 2],
                rate_min=rates[0],
                rate_max=rates[-1],
            )
            rows.append(r)
            fs = "every line" if interval == 0 else f"every {interval:g} s"
            print(
                f"  {kind:8s} workers={workers} c={c:<3d} fsync {fs:10s} n={n}"
                f"{' +progress' if progress else ''}: median {r['rate']:8.1f}/s "
                f"(min {r['rate_min']:.0f}, max {r['rate_max']:.0f})",
                file=sys.stderr,
            )
    finally:
        await provider.aclose()
    return rows


def _mem_child(
    conn: Any,
    base: list[ClosureInstance],
    count: int,
    kind: str,
    base_url: str | None,
    concurrency: int,
    trace: bool,
    pad: int,
    out: Path | None,
) -> None:
    import tracemalloc

    instances = make_instances(base, count, "m")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:
        tracemalloc.start()

    async def go() -> dict[str, Any]:
        provider = _provider(kind, base_url, pad=pad)
        try:
            return await run_once(
                instances, provider, concurrency=concurrency, sync_interval_s=1.0, out=out
            )
        finally:
            await provider.aclose()

    r = asyncio.run(go())
    peak = tracemalloc.get_traced_memory()[1] if trace else None
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    conn.send(
        {
            "wall": r["wall"],
            "rate": r["rate"],
            "rss_before_kb": rss_before,
            "rss_after_kb": rss_after,
            "trace_peak": peak,
            "evaluated": r["stats"].evaluated,
        }
    )
    conn.close()


def mem_run(
    base: list[ClosureInstance],
    count: int,
    kind: str,
    base_url: str | None,
    concurrency: int,
    trace: bool,
    pad: int = 0,
    out: Path | None = None,
) -> dict[str, Any]:
    """One run (or, with an ``out`` that holds it, its resume) in a fresh child process."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(
        target=_mem_child,
        args=(child, base, count, kind, base_url, concurrency, trace, pad, out),
    )
    p.start()
    res = parent.recv()
    p.join()
    return res


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=int, default=200, help="generated records to copy from")
    ap.add_argument("--n", type=int, default=2000, help="instances per throughput run")
    ap.add_argument("--n-c1", type=int, default=500, help="instances at concurrency 1")
    ap.add_argument("--concurrency", default="1,16,64")
    ap.add_argument(
        "--workers",
        type=lambda v: [int(x) for x in v.split(",") if x],
        default=[1, 2],
        help="worker-process counts to measure for openai (comma-separated; '' for none)",
    )
    ap.add_argument("--repeat", type=int, default=3, help="runs per row (median reported)")
    ap.add_argument("--mem-count", type=int, default=20000)
    ap.add_argument(
        "--mem-reply-bytes", type=int, default=4096, help="reply size of the long-reply memory run"
    )
    ap.add_argument("--mem-provider", choices=["scripted", "openai"], default="scripted")
    ap.add_argument("--mem-concurrency", type=int, default=64)
    ap.add_argument(
        "--no-progress-row", action="store_true", help="skip the row with the rich progress bar on"
    )
    args = ap.parse_args(argv)

    import openai

    import closurebench

    t0 = time.perf_counter()
    base = closurebench.generate_split("heldout", seed=0, count=args.base)
    print(
        f"generated {len(base)} base records in {time.perf_counter() - t0:.1f}s; "
        f"python {sys.version.split()[0]}, openai {openai.__version__}, "
        f"{os.cpu_count()} CPUs",
        file=sys.stderr,
    )

    server, url = start_server()
    levels = [int(x) for x in args.concurrency.split(",")]
    table: list[tuple[str, int, str, int, float, float, float]] = []
    try:
        configs: list[tuple[str, str, int]] = [("openai", "openai (in-process)", 0)]
        configs += [("openai", f"openai --workers {w}", w) for w in args.workers]
        configs += [("scripted", "scripted (no HTTP)", 0)]
        for kind, label, workers in configs:
            plan = []
            for c in levels:
                n = args.n_c1 if c == 1 and kind == "openai" else args.n
                plan += [(c, 1.0, n, False), (c, 0.0, n, False)]
            if kind == "openai" and workers == 0 and not args.no_progress_row:
                plan.append((64, 1.0, args.n, True))
            rows = asyncio.run(
                run_config(
                    base,
                    kind=kind,
                    base_url=url,
                    workers=workers,
                    plan=plan,
                    tag=label[:3],
                    repeat=args.repeat,
                )
            )
            for r in rows:
                fs = "every line" if r["interval"] == 0 else f"every {r['interval']:g} s"
                name = label + (" + progress bar" if r["progress"] else "")
                table.append(
                    (name, r["concurrency"], fs, r["n"], r["rate"], r["rate_min"], r["rate_max"])
                )
        mem_url = url if args.mem_provider == "openai" else None
        mem_args = (base, args.mem_count, args.mem_provider, mem_url, args.mem_concurrency)
        mem = mem_run(*mem_args, trace=False)
        mem_t = mem_run(*mem_args, trace=True)
        long_dir = Path(tempfile.mkdtemp(prefix="bench_harness_long_"))
        try:
            mem_long = mem_run(*mem_args, trace=False, pad=args.mem_reply_bytes, out=long_dir)
            mem_resume = mem_run(*mem_args, trace=False, pad=args.mem_reply_bytes, out=long_dir)
            files_mb = sum(f.stat().st_size for f in long_dir.iterdir()) / 2**20
        finally:
            shutil.rmtree(long_dir, ignore_errors=True)
    finally:
        server.terminate()
        server.join()

    print(f"\n| provider | concurrency | fsync | n | req/s (median of {args.repeat}) | range |")
    print("|---|---:|---|---:|---:|---|")
    for kind, c, fs, n, rate, lo, hi in table:
        print(f"| {kind} | {c} | {fs} | {n} | {rate:.0f} | {lo:.0f}–{hi:.0f} |")
    print(
        f"\nPeak memory, {args.mem_count:,}-instance runs ({args.mem_provider} provider, "
        f"concurrency {args.mem_concurrency}, fsync every 1 s), each in a fresh process:\n"
    )
    print("| run | ru_maxrss before (imports + records) | after | growth | rate |")
    print("|---|---:|---:|---:|---:|")
    for name, m in (
        ("short replies", mem),
        (f"{args.mem_reply_bytes:,}-byte replies ({files_mb:.0f} MiB of run files)", mem_long),
        ("resume of that run (nothing left to do)", mem_resume),
    ):
        before, after = m["rss_before_kb"] / 1024, m["rss_after_kb"] / 1024
        print(
            f"| {name} | {before:.0f} MiB | {after:.0f} MiB | +{after - before:.0f} MiB | "
            f"{m['rate']:.0f} /s |"
        )
    print(f"\ntracemalloc peak during the short-reply run: {mem_t['trace_peak'] / 2**20:.0f} MiB")
    print("\nTarget: >= 500 req/s over HTTP.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
