"""Warm zygotes: many sandboxed Python programs per second, each in its own process.

A cold program (:func:`~closurebench.sandbox.python.run_python` with ``warm=False``)
starts bubblewrap and a fresh interpreter and imports networkx and numpy: about
0.15–0.25 s, of which the imports are most. A **zygote** (:mod:`.zygote`) is an
interpreter that has done that once, *inside* the same wall (the same bubblewrap
command, minimal read-only mounts, private tmpfs, every namespace, the unprivileged
uid, no capabilities), and forks a fresh child per program. What each program gets is
what a cold one gets:

* its own process (a fork: the zygote's memory is copied on write, so nothing a program
  changes reaches the zygote or the next program), which checks that it has no
  privilege, then loads, before its first instruction, the inner seccomp allow-list
  (:func:`.seccomp.inner_filter`, stacked on the zygote's own filter: no process,
  ``execve``, socket or IPC call, ``EPERM`` for each), its rlimits and the audit hook;
* its own directory: behind the wall the private tmpfs, which the zygote empties after
  every program (a zygote that cannot empty it is retired), at the unsafe level a fresh
  temporary directory the harness creates and removes;
* the scrubbed environment, stdout, stderr and the report channel as pipes that the
  harness reads with the same caps and the same deadline (:func:`.process.read_pipes`).

The harness retires a zygote (kills its whole sandbox) after any program that did not
end cleanly — past the deadline or a cap, killed by a signal or a limit, refused, or one
that left a process or a file it could not remove — and after one that garbled the
report channel; the next program gets a fresh zygote. The zygote is its pid
namespace's init, with no signal handler and not dumpable, so a program can neither
signal it nor read or write its memory. The children of one zygote share its string
hash seed (the interpreter draws it once); Python's and numpy's random generators are
reseeded in every child.

Zygotes are kept idle per (level, tmpfs size), at most :data:`MAX_IDLE` of each, are
started from one long-lived thread (bubblewrap's ``--die-with-parent`` follows the
thread that started it), and end with the harness. Warm is the default;
``CLOSUREBENCH_SANDBOX_WARM=0`` (or ``warm=False``) starts a cold interpreter per
program instead (where zygotes do not start, programs run cold with one warning).
Programs whose ``memory_bytes`` leaves less than
:data:`HEADROOM_BYTES` beyond the zygote's own address space run cold.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError
from closurebench.idlepool import IdlePool, kill_session
from closurebench.sandbox.isolation import (
    BOOTSTRAP,
    INSIDE_BOOTSTRAP,
    INSIDE_HOME,
    INSIDE_ROOT,
    Isolation,
    Mounts,
    bwrap_command,
    identity,
    interpreter,
    unsafe_layers,
)
from closurebench.sandbox.limits import SandboxLimits
from closurebench.sandbox.process import TMP_PREFIX, Spawned, child_env, memfd, read_pipes

__all__ = [
    "HEADROOM_BYTES",
    "MAX_IDLE",
    "PRELOAD",
    "WARM_ENV",
    "run_warm",
    "shutdown_zygotes",
    "warm_enabled",
]

#: Environment variable: ``1`` forks programs from warm zygotes; unset or ``0``: cold.
WARM_ENV = "CLOSUREBENCH_SANDBOX_WARM"
#: What a zygote imports once, before it forks.
PRELOAD = ("networkx", "numpy")
#: Idle zygotes kept per (level, tmpfs size).
MAX_IDLE = 4
#: Address space a warm program must have beyond the zygote's own (else it runs cold).
HEADROOM_BYTES = 128 * 2**20
#: A zygote's address space before it is known (measured: 122 MiB with networkx and numpy).
_ESTIMATED_VM_BYTES = 160 * 2**20
ZYGOTE = str(Path(__file__).with_name("zygote.py"))
_INSIDE_ZYGOTE = f"{INSIDE_ROOT}/zygote.py"
_START_SECONDS = 60.0
_REPLY_SECONDS = 5.0
_REPORT_FD = 3
_MAX_REPLY = 1 << 16


def warm_enabled(warm: bool | None = None) -> bool:
    """Whether programs run in warm zygotes: ``warm`` if given, else the environment.

    Raises:
        ConfigError: ``CLOSUREBENCH_SANDBOX_WARM`` is not ``0`` or ``1``.

    Example:
        >>> warm_enabled(False)
        False
        >>> warm_enabled(True)
        True
    """
    if warm is not None:
        return bool(warm)
    value = os.environ.get(WARM_ENV, "").strip()
    if value in ("", "1"):
        return True
    if value == "0":
        return False
    raise ConfigError(f"{WARM_ENV} is {value!r}; set it to 1 (warm zygotes) or 0 (cold)")


@dataclass
class _Zygote:
    proc: subprocess.Popen[bytes]
    sock: socket.socket
    level: Isolation
    vm_bytes: int

    def kill(self) -> None:
        """SIGKILL the zygote's session: bubblewrap, the zygote and its child."""
        kill_session(self.proc, wait_s=None)

    def retire(self) -> None:
        """Kill the zygote, close its control socket and reap it."""
        self.forget()
        kill_session(self.proc)

    def forget(self) -> None:
        """Close this process's end of the control socket (a forked child's copy too)."""
        with contextlib.suppress(OSError):
            self.sock.close()


_Key = tuple[Isolation, int]
_IDLE = IdlePool[_Key, _Zygote](MAX_IDLE, _Zygote.forget)
_LOCK = threading.Lock()
_SPAWNER: list[ThreadPoolExecutor] = []
_VM_BYTES: dict[Isolation, int] = {}


def _spawner() -> ThreadPoolExecutor:
    """The one thread zygotes are started from (it lives as long as the process)."""
    with _LOCK:
        if not _SPAWNER:
            _SPAWNER.append(ThreadPoolExecutor(1, thread_name_prefix="closurebench-zygote"))
        return _SPAWNER[0]


def _command(level: Isolation, tmpfs_bytes: int, control: int) -> tuple[list[str], list[int]]:
    cfg: dict[str, Any] = {"control": control, "preload": list(PRELOAD)}
    if level is Isolation.NONE:
        cfg["parent"] = os.getpid()
        return [sys.executable, "-I", "-B", ZYGOTE, json.dumps(cfg)], []
    from closurebench.sandbox.seccomp import seccomp_fd

    mounts = Mounts()
    cfg["sys_path"] = mounts.sys_path
    cfg["identity"] = identity()
    fd = seccomp_fd(zygote=True)
    try:
        argv = [interpreter(), "-I", "-S", "-B", _INSIDE_ZYGOTE, json.dumps(cfg)]
        command = bwrap_command(
            argv,
            mounts=mounts,
            tmpfs_bytes=tmpfs_bytes,
            seccomp_fd=fd,
            files=[(BOOTSTRAP, INSIDE_BOOTSTRAP), (ZYGOTE, _INSIDE_ZYGOTE)],
            init=True,
        )
    except BaseException:
        os.close(fd)
        raise
    return command, [fd]


def _recv(sock: socket.socket, deadline: float) -> dict[str, Any] | None:
    """One message from the zygote by ``deadline``; ``None`` at the deadline or EOF."""
    with selectors.DefaultSelector() as sel:
        sel.register(sock, selectors.EVENT_READ)
        left = deadline - time.monotonic()
        if left <= 0 or not sel.select(timeout=left):
            return None
    try:
        data = sock.recv(_MAX_REPLY)
        message = json.loads(data) if data else None
    except (OSError, ValueError):
        return None
    return message if isinstance(message, dict) else None


def _start(level: Isolation, tmpfs_bytes: int) -> _Zygote:
    """Start a zygote (on the spawner thread); raises ``OSError`` when it does not start."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    err = tempfile.TemporaryFile()  # noqa: SIM115 (the zygote writes to it)
    try:
        argv, fds = _command(level, tmpfs_bytes, theirs.fileno())
        home = INSIDE_HOME if level is Isolation.BWRAP else tempfile.gettempdir()
        try:
            proc = subprocess.Popen(
                argv,
                cwd=tempfile.gettempdir(),
                env=child_env(home),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
                pass_fds=(theirs.fileno(), *fds),
            )
        finally:
            theirs.close()
            for fd in fds:
                os.close(fd)
        zygote = _Zygote(proc, ours, level, 0)
        ready = _recv(ours, time.monotonic() + _START_SECONDS)
        if not ready or not ready.get("ready"):
            zygote.retire()
            err.seek(0)
            tail = err.read().decode(errors="replace").strip().splitlines()[-1:]
            why = (ready or {}).get("why") or " ".join(tail) or "no message"
            raise OSError(f"the warm zygote ({level}) did not start: {why}")
    except BaseException:
        ours.close()
        raise
    finally:
        err.close()
    zygote.vm_bytes = int(ready.get("vm_bytes") or 0)
    _VM_BYTES[level] = zygote.vm_bytes
    return zygote


def _take(key: _Key) -> _Zygote:
    return _IDLE.take(key) or _spawner().submit(_start, *key).result()


def _give_back(key: _Key, zygote: _Zygote) -> None:
    _IDLE.give_back(key, zygote)


def shutdown_zygotes() -> None:
    """End every idle zygote (also done at interpreter exit)."""
    _IDLE.shutdown()


def _forget_spawner() -> None:
    """In a forked harness: the parent's spawner thread is not ours (nor its zygotes)."""
    _SPAWNER.clear()


os.register_at_fork(after_in_child=_forget_spawner)


def fits(limits: SandboxLimits, level: Isolation) -> bool:
    """Whether ``limits`` leave a warm program :data:`HEADROOM_BYTES` beyond the zygote.

    Example:
        >>> fits(SandboxLimits(memory_bytes=64 * 2**20), Isolation.NONE)
        False
    """
    vm = _VM_BYTES.get(level, _ESTIMATED_VM_BYTES)
    return limits.memory_bytes >= vm + HEADROOM_BYTES


def _job(config: dict[str, Any], level: Isolation, tmp: str) -> dict[str, Any]:
    """The child's config: the bootstrap's, in the job's directory, with its filter."""
    job = {**config, "fd": _REPORT_FD, "tmp": tmp, "program": f"{tmp}/program.py"}
    job["sys_path"] = []  # the zygote's import path is already the sandbox's
    if level is Isolation.BWRAP:
        from closurebench.sandbox.seccomp import inner_filter

        job["exec_filter"] = inner_filter().hex()
        # The zygote dropped its privileges already: the child checks that it has none.
        job["identity"] = {**identity(), "drop": False}
        job["wipe"] = True
    else:
        job.update(unsafe_layers(Mounts(), [tmp]))
    return job


def _clean_end(out: Spawned, reply: dict[str, Any] | None) -> bool:
    """Whether the zygote may serve another program after this one."""
    if reply is None or not reply.get("clean") or out.timed_out or out.exceeded:
        return False
    if out.garbled or out.exit_code is None or out.exit_code < 0 or out.exit_code > 1:
        return False
    return all("forbidden" not in m and "memory_error" not in m for m in out.messages)


def _once(
    zygote: _Zygote, job: dict[str, Any], code: str, limits: SandboxLimits
) -> tuple[Spawned, dict[str, Any] | None, bool]:
    """Run one job on ``zygote``: what was seen, the zygote's reply, whether it was sent."""
    out = Spawned()
    pipes = [os.pipe() for _ in range(3)]
    program = memfd("closurebench-program", code.encode("utf-8", "surrogatepass"))
    started = time.monotonic()
    try:
        try:
            socket.send_fds(
                zygote.sock, [json.dumps(job).encode()], [w for _, w in pipes] + [program]
            )
        except OSError:
            return out, None, False
    finally:
        for _, w in pipes:
            os.close(w)
        os.close(program)
    fds = {pipes[0][0]: "stdout", pipes[1][0]: "stderr", pipes[2][0]: "report"}
    deadline = started + limits.wall_seconds
    gone = None
    with contextlib.suppress(OSError):  # bubblewrap's end is the wall's end
        gone = os.pidfd_open(zygote.proc.pid)
    try:
        killed = read_pipes(fds, limits, deadline, zygote.kill, out, gone)
    finally:
        for fd in fds:
            os.close(fd)
        if gone is not None:
            os.close(gone)
    reply = None
    if not killed:
        # The pipes closed: the child is exiting (or closed them and runs on, until the
        # deadline).
        reply = _recv(zygote.sock, max(deadline, time.monotonic() + _REPLY_SECONDS))
        if reply is None and time.monotonic() >= deadline and zygote.proc.poll() is None:
            out.timed_out = True
            zygote.kill()
    if reply is not None:
        status = reply.get("status")
        out.exit_code = status if isinstance(status, int) else None
        cpu = reply.get("cpu")
        out.cpu_seconds = float(cpu) if isinstance(cpu, int | float) else 0.0
    out.wall_seconds = time.monotonic() - started
    return out, reply, True


def run_warm(code: str, config: dict[str, Any], limits: SandboxLimits, level: Isolation) -> Spawned:
    """Run ``code`` in a child of a warm zygote at ``level``; what the harness saw.

    Args:
        code: The program text.
        config: The bootstrap's job config (rlimits, preload, capture, hook).
        limits: The caps (deadline, stdout/stderr).
        level: The wall.

    Returns:
        :class:`~.process.Spawned`, as for a cold program (``exit_code`` is the child's
        status, ``-N`` for signal ``N``).

    Raises:
        OSError: No zygote could be started.
    """
    key = (level, limits.tmpfs_bytes)
    tmp = INSIDE_HOME
    owned = None
    if level is Isolation.NONE:
        owned = tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-")
        tmp = owned
    try:
        job = _job(config, level, tmp)
        zygote = _take(key)
        out, reply, sent = _once(zygote, job, code, limits)
        if not sent or (reply is None and out.first("started") is None and not out.timed_out):
            # The zygote was gone before the program began (nothing of it ran): once
            # more, on a fresh one.
            zygote.retire()
            if owned is not None:
                shutil.rmtree(owned, ignore_errors=True)
                os.mkdir(owned, 0o700)
            zygote = _take(key)
            out, reply, sent = _once(zygote, job, code, limits)
        if _clean_end(out, reply):
            _give_back(key, zygote)
        else:
            zygote.retire()
        return out
    finally:
        if owned is not None:
            shutil.rmtree(owned, ignore_errors=True)
