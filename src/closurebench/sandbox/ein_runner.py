"""Run Ein programs in separate processes under a wall-clock deadline: :func:`run_ein`.

Ein is our own interpreter (it reads no file, opens no socket, starts no process), but
its input is model-written, so it runs behind the same wall as a Python program
(:mod:`.isolation`: bubblewrap with minimal read-only mounts — here also the
``closurebench`` package and lark —, a private tmpfs, every namespace, the
unprivileged identity, the outer seccomp filter and, once the worker is up, the inner
allow-list: no ``execve``, process or socket), in a warm worker
(:mod:`.ein_worker`) that has imported :mod:`closurebench.ein` once, under the
address-space, file and thread rlimits of :class:`.SandboxLimits`, a per-run CPU limit
and the audit hook. No wall, no run: :func:`run_ein` refuses like
:func:`~closurebench.sandbox.run_python` unless ``isolation="none"`` is asked for
(where the worker is Landlocked to its runtime and gets the inner allow-list, where
the machine has them).
The parent kills the worker (and with it its pid namespace) when a run passes
``wall_seconds`` and starts a fresh worker for the next run; it also replaces a worker
after any run that hit a limit. Idle workers are kept per limits and level (a few at
most) and ended when the parent exits or their stdin closes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from closurebench.ein import DEFAULT_LIMITS, Limits
from closurebench.ein.budget import format_bytes
from closurebench.errors import ConfigError, shorten
from closurebench.idlepool import IdlePool, kill_session
from closurebench.sandbox.isolation import (
    EIN_PACKAGES,
    INSIDE_HOME,
    INSIDE_LIB,
    PYTHON_PACKAGES,
    Isolation,
    Mounts,
    bwrap_command,
    identity,
    interpreter,
    require_wall,
    unsafe_layers,
)
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
    isolation: str = "none"

    def retire(self) -> None:
        """Kill the worker's session (its pid namespace with it), close its pipes, reap it."""
        self.forget()
        kill_session(self.proc)

    def forget(self) -> None:
        """Close this process's ends of the worker's pipes (a forked child's copies too)."""
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


_IDLE = IdlePool[tuple[SandboxLimits, Isolation], _Worker](MAX_IDLE_WORKERS, _Worker.forget)
_EIN_MOUNTS = Mounts(packages=(*PYTHON_PACKAGES, *EIN_PACKAGES), closurebench=True)


def _read_reply(worker: _Worker, deadline: float, cap: int) -> tuple[bytes | None, str]:
    """One reply line and ``""``, or ``None`` and why not: ``deadline``, ``eof`` or ``cap``.

    ``cap`` is the most bytes the line (newline included) may take; the parent stops
    reading as soon as more arrive, so it never holds more than ``cap`` plus one read.
    """
    stdout = worker.proc.stdout
    assert stdout is not None
    buf = bytearray()
    with selectors.DefaultSelector() as sel:
        sel.register(stdout.fileno(), selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(timeout=left):
                return None, "deadline"
            chunk = os.read(stdout.fileno(), 1 << 20)
            if not chunk:
                return None, "eof"
            end = chunk.find(b"\n")
            size = len(buf) + (len(chunk) if end < 0 else end + 1)
            if size > cap:
                return None, "cap"
            buf += chunk
            if end >= 0:
                return bytes(buf), ""


def _read_line(worker: _Worker, deadline: float, cap: int = _REPLY_BYTES) -> bytes | None:
    """One reply line, or ``None`` at the deadline, at end of file or past the byte cap."""
    return _read_reply(worker, deadline, cap)[0]


def _command(level: Isolation, cfg: dict[str, object]) -> tuple[list[str], list[int]]:
    """The worker's command line at ``level`` and the descriptors it inherits."""
    if level is Isolation.NONE:
        cfg = {**cfg, **unsafe_layers(_EIN_MOUNTS, [])}
        return [sys.executable, "-I", "-B", WORKER, _SRC_ROOT, json.dumps(cfg)], []
    from closurebench.sandbox.seccomp import inner_filter, seccomp_fd

    cfg = {**cfg, "sys_path": _EIN_MOUNTS.sys_path[1:], "exec_filter": inner_filter().hex()}
    cfg["identity"] = identity()
    inside = f"{INSIDE_LIB}/closurebench/sandbox/ein_worker.py"
    argv = [interpreter(), "-I", "-S", "-B", inside, INSIDE_LIB, json.dumps(cfg)]
    fd = seccomp_fd()
    try:
        command = bwrap_command(argv, mounts=_EIN_MOUNTS, tmpfs_bytes=1 << 20, seccomp_fd=fd)
    except BaseException:
        os.close(fd)
        raise
    return command, [fd]


def _start(limits: SandboxLimits, level: Isolation) -> _Worker:
    rlimits = {k: v for k, v in limits.rlimits().items() if k != "RLIMIT_CPU"}
    # Ein writes nothing: the hook's one writable place is /dev/null.
    cfg = {"rlimits": rlimits, "tmp": os.devnull, "cpu_seconds": limits.cpu_seconds}
    argv, fds = _command(level, cfg)
    home = INSIDE_HOME if level is Isolation.BWRAP else tempfile.gettempdir()
    # Unnamed: nothing is left behind, whatever happens to the worker.
    err = tempfile.TemporaryFile()  # noqa: SIM115 (the worker keeps writing to it)
    try:
        proc = subprocess.Popen(
            argv,
            cwd="/" if level is Isolation.NONE else tempfile.gettempdir(),
            env=child_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
            pass_fds=fds,
        )
    finally:
        for fd in fds:
            os.close(fd)
    worker = _Worker(proc, str(level))
    ready = _read_line(worker, time.monotonic() + _START_SECONDS)
    err.seek(0)
    why = err.read(4000).decode(errors="replace")
    err.close()
    if ready is None:
        worker.retire()
        raise ConfigError(
            f"run_ein: the Ein worker did not start under {limits!r} at {level}: "
            f"{shorten(why)}; raise memory_bytes (importing numpy and scipy needs about "
            "400 MiB of address space)"
        )
    return worker


def _take(limits: SandboxLimits, level: Isolation) -> _Worker:
    return _IDLE.take((limits, level)) or _start(limits, level)


def _give_back(limits: SandboxLimits, worker: _Worker) -> None:
    _IDLE.give_back((limits, Isolation(worker.isolation)), worker)


def shutdown_workers() -> None:
    """End every idle worker (also done at interpreter exit)."""
    _IDLE.shutdown()


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


def _died(worker: _Worker, limits: SandboxLimits, elapsed: float) -> EinSandboxResult:
    """The result when the worker ended mid-run, naming why from its exit status.

    ``SIGXCPU`` is the per-run CPU limit (``timeout``, error ``cpu_limit``); ``SIGKILL``
    is what the kernel's out-of-memory killer sends (``memory_limit``); any other
    signal or exit status is a crash (``runtime_error``, error ``worker_crash``). A
    status above 128 from a wrapper (a pid-namespace init) is read as signal
    ``status - 128``.
    """
    worker.retire()
    code = worker.proc.returncode
    sig = -code if code is not None and code < 0 else None
    if code is not None and code > 128:
        sig = code - 128
    cap = f"memory_bytes={limits.memory_bytes} ({format_bytes(limits.memory_bytes)})"
    if sig == signal.SIGXCPU:
        return EinSandboxResult(
            Outcome.TIMEOUT,
            "cpu_limit",
            f"the Ein worker passed its CPU limit of {limits.cpu_seconds:g} s per run "
            "(SandboxLimits.cpu_seconds) and the kernel stopped it (SIGXCPU); raise "
            "cpu_seconds or make the program cheaper",
            wall_seconds=elapsed,
        )
    if sig == signal.SIGKILL:
        return EinSandboxResult(
            Outcome.MEMORY_LIMIT,
            "MemoryError",
            f"the Ein worker was killed (SIGKILL) mid-run under {cap}: the kernel's "
            "out-of-memory killer does this when the machine runs out of memory; lower "
            "Limits.max_live_bytes or keep fewer values alive",
            wall_seconds=elapsed,
        )
    how = f"died of {_signal_name(sig)}" if sig is not None else f"exited with status {code}"
    return EinSandboxResult(
        Outcome.RUNTIME_ERROR,
        "worker_crash",
        f"the Ein worker {how} mid-run under {cap}",
        wall_seconds=elapsed,
    )


def _reply_too_long(cap: int, ein_limits: Limits, elapsed: float) -> EinSandboxResult:
    inner = format_bytes(ein_limits.max_output_bytes)
    return EinSandboxResult(
        Outcome.OUTPUT_LIMIT,
        "output_limit",
        f"the Ein worker's reply passed the reply cap of {format_bytes(cap)} ({cap} bytes, "
        "run_ein(reply_bytes=...)); the worker was stopped. The reply holds the printed "
        f"values as JSON, which Limits.max_output_bytes ({inner}) "
        "bounds inside the run: print less, or raise reply_bytes",
        wall_seconds=elapsed,
    )


def run_ein(
    source: str,
    *,
    limits: SandboxLimits | None = None,
    ein_limits: Limits | None = None,
    reply_bytes: int = _REPLY_BYTES,
    isolation: Isolation | str | None = None,
) -> EinSandboxResult:
    """Run an Ein program in a worker process under a wall-clock deadline.

    Args:
        source: The program text.
        limits: Process caps: ``wall_seconds`` (from the request to the reply; a fresh
            worker's start-up is not counted), ``cpu_seconds``, ``memory_bytes`` (the
            worker needs about 400 MiB of address space for numpy and scipy) and the rest.
        ein_limits: The interpreter's own caps (:class:`closurebench.ein.Limits`); its
            ``max_output_bytes`` bounds the printed values inside the run (outcome
            ``output_limit``, error ``EinOutputLimitError``, with line and caret).
        reply_bytes: Most bytes of the worker's reply line (default 64 MiB), the parent's
            own cap; a longer reply stops the worker (outcome ``output_limit``, error
            ``output_limit``).
        isolation: ``None`` (the strongest wall that works), ``"bwrap"``, or ``"none"``
            (no wall: the explicit unsafe choice), as for
            :func:`~closurebench.sandbox.run_python`.

    Returns:
        :class:`EinSandboxResult`: ``ok`` with the printed values as JSON, or the
        outcome with the :class:`~closurebench.ein.errors.EinError` class and message;
        ``timeout`` (error ``timeout`` for the wall clock, ``cpu_limit`` for the CPU
        limit, ``EinTimeoutError`` for Ein's own deadline), ``memory_limit`` or
        ``output_limit`` when a limit stopped it, each named in the message.

    Raises:
        ConfigError: A bad argument, or a worker that cannot start under ``limits``.
        SandboxUnavailableError: No wall works here and ``none`` was not asked for.

    Example:
        >>> run_ein("x = 1 / 0", isolation="none").outcome
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
    if isinstance(reply_bytes, bool) or not isinstance(reply_bytes, int) or reply_bytes < 1:
        raise ConfigError(f"run_ein: reply_bytes is {reply_bytes!r}; pass an integer >= 1")
    level = require_wall(isolation)
    request = json.dumps({"source": source, "limits": dataclasses.asdict(ein_limits)}) + "\n"
    worker = _take(limits, level)
    started = time.monotonic()
    try:
        assert worker.proc.stdin is not None
        worker.proc.stdin.write(request.encode())
        worker.proc.stdin.flush()
    except OSError:  # the idle worker died (e.g. killed from outside): use a fresh one
        worker.retire()
        worker = _start(limits, level)
        started = time.monotonic()
        assert worker.proc.stdin is not None
        worker.proc.stdin.write(request.encode())
        worker.proc.stdin.flush()
    line, why = _read_reply(worker, started + limits.wall_seconds, reply_bytes)
    elapsed = time.monotonic() - started
    if line is None:
        if why == "cap":
            worker.retire()
            return _reply_too_long(reply_bytes, ein_limits, elapsed)
        if why == "eof":  # the worker is exiting: wait for its status to tell why
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.proc.wait(timeout=5)
        if worker.proc.poll() is not None:
            return _died(worker, limits, elapsed)
        worker.retire()
        return EinSandboxResult(
            Outcome.TIMEOUT,
            "timeout",
            f"wall-clock limit of {limits.wall_seconds:g} s (SandboxLimits.wall_seconds) "
            "passed; the worker was killed",
            wall_seconds=elapsed,
        )
    try:
        reply = json.loads(line)
        outcome = Outcome(reply["outcome"])
    except (ValueError, KeyError, TypeError):
        worker.retire()
        return EinSandboxResult(
            Outcome.RUNTIME_ERROR,
            "worker_crash",
            f"the Ein worker sent an unreadable reply: {shorten(line.decode(errors='replace'))}",
            wall_seconds=elapsed,
        )
    (_give_back(limits, worker) if outcome in _KEEP else worker.retire())
    printed = tuple((str(label), value) for label, value in reply.get("printed", ()))
    value = reply.get("value")
    if reply.get("value_is_last_printed") and printed:
        value = printed[-1][1]
    return EinSandboxResult(
        outcome=outcome,
        error=str(reply.get("error", "")),
        message=str(reply.get("message", "")),
        printed=printed,
        value=value,
        label=str(reply.get("label", "")),
        wall_seconds=elapsed,
        isolation=str(level),
    )
