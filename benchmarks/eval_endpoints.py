"""Evaluation throughput over 1 vs 2 loopback endpoints (issue 25, item 2: several ``--base-url``).

Run: ``uv run python benchmarks/eval_endpoints.py`` (``--help`` for options).

Each endpoint is a loopback OpenAI-compatible server in its own process (the standard
library's threaded HTTP server, HTTP/1.1 keep-alive, ``TCP_NODELAY``, one canned
completion written in one piece) that holds
every request for a fixed latency (``--latency``, 50 ms) before answering. With
``--slots K`` a server answers at most K requests at a time (the others wait their
turn), like a GPU server whose batch is full; ``0`` is unlimited. Each row runs
:func:`closurebench.evaluate.runner.run_eval` end to end (``direct`` mode, scoring,
results and cache files, summary) over the provider ``closurebench eval`` builds from
one or two ``--base-url`` (:func:`closurebench.evaluate.providers.build_provider`: the
openai provider, behind the endpoint router with two), into a fresh run directory, and
reports instances per second (one request per instance, no cache hits) and wall time,
the median of ``--repeat`` runs (fresh servers each), with each endpoint's share of the
requests; one unmeasured run first warms up the imports and the client.

A last row runs two capacity-limited endpoints of which the second exits
(``os._exit``) after answering a quarter of the instances: the run must finish with
every result, the rest going to the first endpoint.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import platform
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

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
    + b"\r\n\r\n"
    + _BODY
)


# --------------------------------------------------------------------------- server


def _serve(sock: socket.socket, latency_s: float, slots: int, die_after: int) -> None:
    """Answer chat requests on ``sock`` after ``latency_s``, at most ``slots`` at a time."""
    gate = threading.BoundedSemaphore(slots) if slots else None
    answered = 0
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:
            nonlocal answered
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if gate is not None:
                with gate:
                    time.sleep(latency_s)
            else:
                time.sleep(latency_s)
            self.wfile.write(_RESPONSE)  # one write: no Nagle / delayed-ACK stall
            with lock:
                answered += 1
                if die_after and answered >= die_after:
                    os._exit(0)  # a crashed server: connections reset, the port closed

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 1024

        def server_bind(self) -> None:  # the socket is bound already
            self.server_address = self.socket.getsockname()

        def server_activate(self) -> None:
            pass

    server = Server(sock.getsockname(), Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = sock
    server.server_bind()
    server.serve_forever(poll_interval=0.05)


def start_server(latency_s: float, slots: int, die_after: int = 0) -> tuple[Any, str]:
    """Start one endpoint in a child process; return it and its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    port = sock.getsockname()[1]
    proc = mp.get_context("fork").Process(
        target=_serve, args=(sock, latency_s, slots, die_after), daemon=True
    )
    proc.start()
    sock.close()
    return proc, f"http://127.0.0.1:{port}/v1"


# --------------------------------------------------------------------------- runs


def make_instances(base: list[Any], count: int, tag: str) -> list[Any]:
    """``count`` copies of ``base`` records with unique ids and questions (no cache hits)."""
    out = []
    for k in range(count):
        r = base[k % len(base)]
        update = {"id": f"{r.id}-{tag}{k}", "question": f"{r.question}\n\n(ref {tag}{k})"}
        out.append(r.model_copy(update=update))
    return out


async def run_once(instances: list[Any], urls: list[str], concurrency: int) -> dict[str, Any]:
    """One run_eval over a provider built as ``eval --base-url URL...`` builds it."""
    from closurebench.evaluate.providers import GenerationSettings, ProviderOptions, build_provider
    from closurebench.evaluate.runner import RunOptions, run_eval

    settings = GenerationSettings(model="bench", max_tokens=64, timeout_s=60.0)
    opts = RunOptions(concurrency=concurrency, retries=2, backoff_base_s=0.1, progress=False)
    base_url = urls[0] if len(urls) == 1 else tuple(urls)
    provider = build_provider("openai", ProviderOptions(model="bench", base_url=base_url))
    run_dir = Path(tempfile.mkdtemp(prefix="bench_endpoints_"))
    said: list[str] = []
    try:
        t0 = time.perf_counter()
        stats = await run_eval(
            instances, provider, "direct", settings, run_dir, opts, notice=said.append
        )
        wall = time.perf_counter() - t0
    finally:
        await provider.aclose()
        shutil.rmtree(run_dir, ignore_errors=True)
    summary = stats.summary
    if stats.failures or summary["counts"]["total"] != len(instances):
        raise SystemExit(f"a benchmark run is incomplete: {summary['counts']}")
    shares = [e["ok"] for e in summary.get("endpoints", [])] or [len(instances)]
    return {"wall": wall, "rate": len(instances) / wall, "shares": shares, "notices": said}


def row(
    base: list[Any],
    *,
    endpoints: int,
    slots: int,
    concurrency: int,
    n: int,
    latency_s: float,
    repeat: int,
    die_after: int = 0,
) -> dict[str, Any]:
    """The median of ``repeat`` runs over fresh servers."""
    runs = []
    for i in range(repeat):
        servers = [
            start_server(latency_s, slots, die_after if k == 1 else 0) for k in range(endpoints)
        ]
        try:
            instances = make_instances(base, n, f"e{endpoints}s{slots}c{concurrency}r{i}-")
            runs.append(asyncio.run(run_once(instances, [u for _, u in servers], concurrency)))
        finally:
            for proc, _ in servers:
                proc.terminate()
                proc.join()
    runs.sort(key=lambda r: r["rate"])
    mid = runs[len(runs) // 2]
    out = {
        "endpoints": endpoints,
        "slots": slots,
        "concurrency": concurrency,
        "n": n,
        "rate": mid["rate"],
        "rate_min": runs[0]["rate"],
        "rate_max": runs[-1]["rate"],
        "wall": statistics.median(r["wall"] for r in runs),
        "shares": mid["shares"],
        "die_after": die_after,
        "notices": mid["notices"],
    }
    died = f", 2nd exits after {die_after}" if die_after else ""
    print(
        f"  endpoints={endpoints} slots={slots or 'inf'} c={concurrency} n={n}{died}: "
        f"{out['rate']:.1f}/s (min {out['rate_min']:.1f}, max {out['rate_max']:.1f}), wall "
        f"{out['wall']:.2f}s, shares {out['shares']}",
        file=sys.stderr,
    )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400, help="instances per run")
    ap.add_argument("--latency", type=float, default=0.05, help="seconds per request")
    ap.add_argument("--slots", default="0,4", help="requests a server answers at once (0: any)")
    ap.add_argument("--concurrency", default="8,16")
    ap.add_argument("--repeat", type=int, default=3, help="runs per row (median reported)")
    args = ap.parse_args(argv)

    import closurebench

    base = closurebench.generate_split("heldout", seed=0, count=50)
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {platform.machine()}; "
        f"latency {args.latency * 1000:g} ms per request",
        file=sys.stderr,
    )
    # warm-up (imports, the first client): not charged to the first row
    row(base, endpoints=2, slots=0, concurrency=8, n=64, latency_s=0.0, repeat=1)
    rows = []
    for slots in (int(x) for x in args.slots.split(",")):
        for c in (int(x) for x in args.concurrency.split(",")):
            for endpoints in (1, 2):
                rows.append(
                    row(
                        base,
                        endpoints=endpoints,
                        slots=slots,
                        concurrency=c,
                        n=args.n,
                        latency_s=args.latency,
                        repeat=args.repeat,
                    )
                )
    limited = max(int(x) for x in args.slots.split(","))
    top = max(int(x) for x in args.concurrency.split(","))
    rows.append(
        row(
            base,
            endpoints=2,
            slots=limited,
            concurrency=top,
            n=args.n,
            latency_s=args.latency,
            repeat=args.repeat,
            die_after=args.n // 4,
        )
    )

    print(
        f"\n| server capacity | concurrency | endpoints | n | req/s (median of {args.repeat}) "
        "| range | wall (s) | answered per endpoint |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---|")
    for r in rows:
        cap = f"{r['slots']} at a time" if r["slots"] else "unlimited"
        ends = f"{r['endpoints']}" + (
            f" (the 2nd exits after {r['die_after']})" if r["die_after"] else ""
        )
        print(
            f"| {cap} | {r['concurrency']} | {ends} | {r['n']} | {r['rate']:.0f} | "
            f"{r['rate_min']:.0f}–{r['rate_max']:.0f} | {r['wall']:.2f} | "
            f"{' / '.join(str(s) for s in r['shares'])} |"
        )
    for line in rows[-1]["notices"]:
        print(f"\nnotice: {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
