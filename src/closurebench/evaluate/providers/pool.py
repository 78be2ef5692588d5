"""Spread one provider's requests over worker processes (``closurebench eval --workers N``).

An HTTP provider spends most of its CPU time inside the client library (request
building, connection handling, response parsing), all in one Python thread. Against
a fast server that thread, not the server, limits throughput. :class:`ProcessPoolProvider`
runs ``N`` worker processes, each with its own event loop and its own provider built
from the same lookup table (:func:`closurebench.evaluate.providers.make_provider`),
and hands each request to the least-busy worker. Scoring, caching, retries and the
results file stay in the parent, so a run with workers writes exactly what a run
without them writes.

Wire protocol (parent <-> worker, over a socket pair, both ends asyncio): frames of a
4-byte big-endian length and a UTF-8 JSON body. The first frame to a worker is its
configuration ``{"kind": ..., "kwargs": {...}}``; after that the parent sends
``[request_id, messages, settings]`` and the worker answers ``[request_id, "ok",
completion]`` or ``[request_id, "error", {message, retryable, status,
retry_after_s, fatal}]``. A worker that dies fails its pending requests with a retryable
:class:`ProviderError` and is restarted on the next request.

Example:
    >>> p = ProcessPoolProvider("openai", {"base_url": "http://127.0.0.1:8000/v1"}, workers=2)
    >>> p.name, p.workers
    ('openai', 2)
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import socket
import struct
import subprocess
import sys
from dataclasses import asdict
from typing import Any

from closurebench.errors import ConfigError
from closurebench.evaluate.providers.base import Completion, GenerationSettings, ProviderError

__all__ = ["ProcessPoolProvider", "worker_main"]

_HEADER = struct.Struct(">I")
_MAX_FRAME = 256 * 2**20


async def _read_frame(reader: asyncio.StreamReader) -> Any:
    (size,) = _HEADER.unpack(await reader.readexactly(_HEADER.size))
    if size > _MAX_FRAME:
        raise ValueError(f"frame of {size} bytes exceeds {_MAX_FRAME}")
    return json.loads(await reader.readexactly(size))


def _frame(obj: Any) -> bytes:
    body = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return _HEADER.pack(len(body)) + body


class _Worker:
    """One worker process and the parent's end of its socket."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.proc: subprocess.Popen[bytes] | None = None
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.reader_task: asyncio.Task[None] | None = None
        self.pending: dict[int, asyncio.Future[Completion]] = {}

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and self.writer is not None

    async def start(self, config: dict[str, Any]) -> None:
        parent_sock, child_sock = socket.socketpair()
        try:
            fd = child_sock.fileno()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "closurebench.evaluate.providers.pool", str(fd)],
                pass_fds=(fd,),
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        finally:
            child_sock.close()
        self.reader, self.writer = await asyncio.open_connection(sock=parent_sock)
        self.writer.write(_frame(config))
        self.reader_task = asyncio.get_running_loop().create_task(self._read_replies())

    async def _read_replies(self) -> None:
        assert self.reader is not None
        reason = "closed its connection"
        try:
            while True:
                rid, status, payload = await _read_frame(self.reader)
                fut = self.pending.pop(rid, None)
                if fut is None or fut.done():
                    continue  # the parent gave up on it (timeout)
                if status == "ok":
                    fut.set_result(Completion(**payload))
                else:
                    fut.set_exception(
                        ProviderError(
                            str(payload.get("message")),
                            retryable=bool(payload.get("retryable")),
                            status=payload.get("status"),
                            retry_after_s=payload.get("retry_after_s"),
                            fatal=payload.get("fatal"),
                            unsupported=payload.get("unsupported"),
                        )
                    )
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            reason = f"exited ({type(exc).__name__})"
        except (ValueError, TypeError) as exc:  # a corrupt frame: treat the worker as dead
            reason = f"sent a bad frame ({exc})"
        self._fail_pending(reason)

    def _fail_pending(self, reason: str) -> None:
        code = self.proc.poll() if self.proc is not None else None
        detail = f"worker process {self.index} {reason}" + (
            f" with exit code {code}" if code is not None else ""
        )
        for fut in self.pending.values():
            if not fut.done():
                fut.set_exception(ProviderError(f"{detail}; it is restarted", retryable=True))
        self.pending.clear()
        if self.writer is not None:
            self.writer.close()
        self.writer = None

    async def stop(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
            self.writer = None
        if self.reader_task is not None:
            self.reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.reader_task
            self.reader_task = None
        if self.proc is not None:
            try:
                await asyncio.wait_for(asyncio.to_thread(self.proc.wait), timeout=5)
            except TimeoutError:
                self.proc.kill()
                await asyncio.to_thread(self.proc.wait)
            self.proc = None
        for fut in self.pending.values():
            if not fut.done():
                fut.set_exception(ProviderError("provider closed", retryable=False))
        self.pending.clear()


class ProcessPoolProvider:
    """A provider whose requests run in ``workers`` child processes.

    Attributes:
        name: The wrapped provider's name (recorded with results).
        kind: The wrapped provider kind (a key of ``PROVIDERS``).
        workers: Number of worker processes.
    """

    def __init__(self, kind: str, kwargs: dict[str, Any], *, workers: int) -> None:
        """Check the configuration; processes start on the first request.

        Args:
            kind: Provider kind whose spec has ``supports_workers`` (its constructor
                arguments are plain JSON and its requests independent; the transformers
                provider holds one model per process, the scripted one Python callables).
            kwargs: That provider's constructor arguments (JSON-serialisable).
            workers: Number of worker processes (>= 1).

        Raises:
            ConfigError: For a kind that cannot be pooled, ``workers < 1``, or
                arguments that are not JSON.
        """
        from closurebench.evaluate.providers import (
            ProviderOptions,
            check_provider_options,
            make_provider,
        )

        check_provider_options(kind, ProviderOptions(model="", workers=1))
        if workers < 1:
            raise ConfigError(f"--workers must be >= 1 (0 runs requests in-process), got {workers}")
        try:
            json.dumps(kwargs)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"provider arguments must be JSON for --workers ({exc})") from None
        # Build one provider here so that bad arguments (no API key, ...) fail now, in
        # the parent, with the provider's own message.
        probe = make_provider(kind, **kwargs)
        self.name = str(getattr(probe, "name", kind))
        self.kind = kind
        self.workers = workers
        self._config = {"kind": kind, "kwargs": kwargs}
        self._pool = [_Worker(i) for i in range(workers)]
        self._ids = itertools.count()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._start_lock: asyncio.Lock | None = None

    def __repr__(self) -> str:
        return f"ProcessPoolProvider(kind={self.kind!r}, workers={self.workers})"

    def _bind_loop(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._start_lock is None:
            # Streams belong to the loop that opened them: a new loop gets new workers.
            for w in self._pool:
                if w.proc is not None and w.proc.poll() is None:
                    w.proc.kill()
            self._pool = [_Worker(i) for i in range(self.workers)]
            self._loop, self._start_lock = loop, asyncio.Lock()
        return self._start_lock

    async def _ensure_started(self, worker: _Worker, lock: asyncio.Lock) -> None:
        if not worker.alive:
            async with lock:
                if not worker.alive:
                    await worker.stop()
                    await worker.start(self._config)

    async def start(self) -> None:
        """Start every worker process now (otherwise they start with the first requests)."""
        if self._closed:
            raise ProviderError("this provider was closed (aclose)", retryable=False)
        lock = self._bind_loop()
        for w in self._pool:
            await self._ensure_started(w, lock)

    @property
    def pids(self) -> list[int]:
        """Process ids of the running workers."""
        return [w.proc.pid for w in self._pool if w.proc is not None and w.proc.poll() is None]

    async def _worker(self) -> _Worker:
        lock = self._bind_loop()
        best = min(self._pool, key=lambda w: (len(w.pending), not w.alive))
        await self._ensure_started(best, lock)
        return best

    async def complete(
        self, messages: list[dict[str, str]], settings: GenerationSettings
    ) -> Completion:
        """Send one request to the least-busy worker and wait for its completion.

        Args:
            messages: Chat messages.
            settings: Generation settings.

        Returns:
            The worker's completion.

        Raises:
            ProviderError: The worker provider's error (same message and
                retryability), or a retryable one when the worker died.
        """
        if self._closed:
            raise ProviderError("this provider was closed (aclose)", retryable=False)
        worker = await self._worker()
        rid = next(self._ids)
        fut: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        writer = worker.writer
        if writer is None or writer.is_closing():
            raise ProviderError(
                f"worker process {worker.index} exited before the request was sent; it is "
                "restarted",
                retryable=True,
            )
        worker.pending[rid] = fut
        writer.write(_frame([rid, messages, settings.to_dict()]))
        try:
            return await fut
        finally:
            worker.pending.pop(rid, None)

    async def aclose(self) -> None:
        """Stop the worker processes."""
        self._closed = True
        if self._loop is asyncio.get_running_loop():
            await asyncio.gather(*(w.stop() for w in self._pool))
        else:
            for w in self._pool:
                if w.proc is not None and w.proc.poll() is None:
                    w.proc.kill()


# --------------------------------------------------------------------------- worker side


async def _serve(sock: socket.socket) -> None:
    from closurebench.evaluate.providers import make_provider

    reader, writer = await asyncio.open_connection(sock=sock)
    config = await _read_frame(reader)
    provider = make_provider(config["kind"], **config["kwargs"])
    tasks: set[asyncio.Task[None]] = set()

    async def handle(rid: int, messages: list[dict[str, str]], raw: dict[str, Any]) -> None:
        try:
            completion = await provider.complete(messages, GenerationSettings(**raw))
            reply = [rid, "ok", asdict(completion)]
        except ProviderError as exc:
            reply = [rid, "error", _error_payload(exc)]
        except Exception as exc:  # reported to the parent, never lost
            reply = [rid, "error", {"message": f"{type(exc).__name__}: {exc}"}]
        writer.write(_frame(reply))

    try:
        while True:
            try:
                rid, messages, raw = await _read_frame(reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                break  # the parent closed the connection: finish and exit
            task = asyncio.get_running_loop().create_task(handle(rid, messages, raw))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
    finally:
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await provider.aclose()
        writer.close()


def _error_payload(exc: ProviderError) -> dict[str, Any]:
    return {
        "message": str(exc),
        "retryable": exc.retryable,
        "status": exc.status,
        "retry_after_s": exc.retry_after_s,
        "fatal": exc.fatal,
        "unsupported": exc.unsupported,
    }


def worker_main(argv: list[str] | None = None) -> int:
    """Entry point of a worker process: ``python -m closurebench.evaluate.providers.pool FD``.

    Args:
        argv: ``[FD]``, the inherited socket's file descriptor.

    Returns:
        The exit code.
    """
    args = sys.argv[1:] if argv is None else argv
    sock = socket.socket(fileno=int(args[0]))
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(sock))
    return 0


if __name__ == "__main__":
    raise SystemExit(worker_main())
