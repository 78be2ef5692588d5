"""Run Ein programs in separate processes under a wall-clock deadline: :func:`run_ein`.

Ein is our own interpreter (it reads no file, opens no socket, starts no process), so
the process boundary here is for time and memory, not containment: the program runs
in a warm worker (:mod:`.ein_worker`) that has imported :mod:`closurebench.ein` once,
under the address-space, file and process rlimits of :class:`.SandboxLimits`, a per-run
CPU limit and the audit hook. The parent kills the worker's process group when a run
passes ``wall_seconds`` and starts a fresh worker for the next run; it also replaces a
worker after any run that hit a limit. Idle workers are kept per limits (a few at
most) and ended when the parent exits or their stdin closes.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from closurebench.ein import DEFAULT_LIMITS, Limits
from closurebench.errors import ConfigError, shorten
from closurebench.sandbox.limits import DEFAULT_SANDBOX_LIMITS, SandboxLimits
from closurebench.sandbox.process import child_env
from closurebench.sandbox.result import EinSandboxResult, Outcome

__all__ = ["MAX_IDLE_WORKERS", "run_ein", "shutdown_workers"]

WORKER = str(Path(__file__).with_name("ein_worker.py"))
_SRC_ROOT = str(Path(__file__).resolve().parents[2])
#: Idle workers kept per distinct limits.
MAX_IDLE_WORKERS = 4
_START_SECONDS = 120.0
_REPLY_BYTES = 64 * 2**20
_KEEP = frozenset({Outcome.OK, Outcome.SYNTAX_ERROR, Outcome.RUNTIME_ERROR})


@dataclass
class _Worker:
    proc: subprocess.Popen[bytes]

    def retire(self) -> None:
        for kill in (lambda: os.killpg(self.proc.pid, signal.SIGKILL), self.proc.kill):
            with contextlib.suppress(OSError):
                kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL is not ignorable
            self.proc.wait(timeout=10)


_IDLE: dict[SandboxLimits, list[_Worker]] = {}
_LOCK = threading.Lock()


def _read_line(worker: _Worker, deadline: float) -> bytes | None:
    """One reply line, or ``None`` at the deadline, at end of file or past the byte cap."""
    stdout = worker.proc.stdout
    assert stdout is not None
    buf = bytearray()
    with selectors.DefaultSelector() as sel:
        sel.register(stdout.fileno(), selectors.EVENT_READ)
        while b"\n" not in buf:
            left = deadline - time.monotonic()
            if left <= 0 or len(buf) > _REPLY_BYTES or not sel.select(timeout=left):
                return None
            chunk = os.read(stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            buf += chunk
    return bytes(buf)


def _start(limits: SandboxLimits) -> _Worker:
    rlimits = {k: v for k, v in limits.rlimits().items() if k != "RLIMIT_CPU"}
    # Ein writes nothing: the hook's one writable place is /dev/null, the cwd is "/".
    cfg = {"rlimits": rlimits, "tmp": os.devnull, "cpu_seconds": limits.cpu_seconds}
    argv = [sys.executable, "-I", "-B", WORKER, _SRC_ROOT, json.dumps(cfg)]
    # Unnamed: nothing is left behind, whatever happens to the worker.
    err = tempfile.TemporaryFile()  # noqa: SIM115 (the worker keeps writing to it)
    proc = subprocess.Popen(
        argv,
        cwd="/",
        env=child_env(tempfile.gettempdir()),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=err,
        start_new_session=True,
    )
    worker = _Worker(proc)
    ready = _read_line(worker, time.monotonic() + _START_SECONDS)
    err.seek(0)
    why = err.read(4000).decode(errors="replace")
    err.close()
    if ready is None:
        worker.retire()
        raise ConfigError(
            f"run_ein: the Ein worker did not start under {limits!r}: {shorten(why)}; raise "
            "memory_bytes (importing numpy and scipy needs about 400 MiB of address space)"
        )
    return worker


def _take(limits: SandboxLimits) -> _Worker:
    with _LOCK:
        idle = _IDLE.get(limits)
        if idle:
            return idle.pop()
    return _start(limits)


def _give_back(limits: SandboxLimits, worker: _Worker) -> None:
    with _LOCK:
        idle = _IDLE.setdefault(limits, [])
        if len(idle) < MAX_IDLE_WORKERS:
            idle.append(worker)
            return
    worker.retire()


def shutdown_workers() -> None:
    """End every idle worker (also done at interpreter exit)."""
    with _LOCK:
        workers = [w for idle in _IDLE.values() for w in idle]
        _IDLE.clear()
    for worker in workers:
        worker.retire()


atexit.register(shutdown_workers)


def _died(worker: _Worker, limits: SandboxLimits, elapsed: float) -> EinSandboxResult:
    """The result when the worker ended mid-run (a CPU limit, or the kernel's OOM killer)."""
    worker.retire()
    code = worker.proc.returncode
    if code == -signal.SIGXCPU:
        return EinSandboxResult(Outcome.TIMEOUT, "timeout", "CPU limit", wall_seconds=elapsed)
    return EinSandboxResult(
        Outcome.MEMORY_LIMIT,
        "MemoryError",
        f"the Ein worker died (exit {code}) under memory_bytes={limits.memory_bytes}",
        wall_seconds=elapsed,
    )


def run_ein(
    source: str, *, limits: SandboxLimits | None = None, ein_limits: Limits | None = None
) -> EinSandboxResult:
    """Run an Ein program in a worker process under a wall-clock deadline.

    Args:
        source: The program text.
        limits: Process caps: ``wall_seconds`` (from the request to the reply; a fresh
            worker's start-up is not counted), ``cpu_seconds``, ``memory_bytes`` (the
            worker needs about 400 MiB of address space for numpy and scipy) and the rest.
        ein_limits: The interpreter's own caps (:class:`closurebench.ein.Limits`).

    Returns:
        :class:`EinSandboxResult`: ``ok`` with the printed values as JSON, or the
        outcome with the :class:`~closurebench.ein.errors.EinError` class and message.

    Raises:
        ConfigError: A bad argument, or a worker that cannot start under ``limits``.

    Example:
        >>> run_ein("x = 1 / 0").outcome
        <Outcome.RUNTIME_ERROR: 'runtime_error'>
    """
    if not isinstance(source, str):
        raise ConfigError(f"run_ein: source is a {type(source).__name__}; pass the program text")
    limits = DEFAULT_SANDBOX_LIMITS if limits is None else limits
    ein_limits = DEFAULT_LIMITS if ein_limits is None else ein_limits
    if not isinstance(limits, SandboxLimits) or not isinstance(ein_limits, Limits):
        raise ConfigError(
            f"run_ein: limits is a {type(limits).__name__} and ein_limits a "
            f"{type(ein_limits).__name__}; pass a SandboxLimits and a closurebench.ein.Limits"
        )
    request = json.dumps({"source": source, "limits": dataclasses.asdict(ein_limits)}) + "\n"
    worker = _take(limits)
    started = time.monotonic()
    try:
        assert worker.proc.stdin is not None
        worker.proc.stdin.write(request.encode())
        worker.proc.stdin.flush()
    except OSError:  # the idle worker died (e.g. killed from outside): use a fresh one
        worker.retire()
        worker = _take_fresh(limits)
        started = time.monotonic()
        assert worker.proc.stdin is not None
        worker.proc.stdin.write(request.encode())
        worker.proc.stdin.flush()
    line = _read_line(worker, started + limits.wall_seconds)
    elapsed = time.monotonic() - started
    if line is None:
        if worker.proc.poll() is not None:
            return _died(worker, limits, elapsed)
        worker.retire()
        return EinSandboxResult(
            Outcome.TIMEOUT,
            "timeout",
            f"wall-clock limit of {limits.wall_seconds} s passed; the worker was killed",
            wall_seconds=elapsed,
        )
    reply = json.loads(line)
    outcome = Outcome(reply["outcome"])
    (_give_back(limits, worker) if outcome in _KEEP else worker.retire())
    return EinSandboxResult(
        outcome=outcome,
        error=str(reply.get("error", "")),
        message=str(reply.get("message", "")),
        printed=tuple((str(label), value) for label, value in reply.get("printed", ())),
        value=reply.get("value"),
        label=str(reply.get("label", "")),
        wall_seconds=elapsed,
    )


def _take_fresh(limits: SandboxLimits) -> _Worker:
    return _start(limits)
