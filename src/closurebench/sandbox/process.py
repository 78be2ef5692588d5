"""The parent side of one sandboxed process: spawn, read with caps, deadline, kill, reap.

The child runs in its own session (``setsid``: its own process group), with a scrubbed
environment, stdin from ``/dev/null`` and three pipes: stdout, stderr and a report pipe
(inherited under the same descriptor number, passed to the child in its config) on
which the child side writes JSON lines. The parent reads all three at once
(``selectors``); past the wall-clock deadline or a byte cap it kills the whole
process group and, for bubblewrap, the sandbox's pid namespace with it
(bubblewrap's ``--die-with-parent``).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from closurebench.idlepool import kill_children
from closurebench.sandbox.limits import SandboxLimits

__all__ = ["TMP_PREFIX", "Spawned", "child_env", "memfd", "read_pipes", "spawn"]

#: Most bytes of report lines read (graph dumps included); more kills the child.
REPORT_BYTES = 32 * 2**20
#: Environment variables passed through from the parent: CPU tuning only, never secrets
#: (old OpenBLAS builds compute wrong results or crash on some processors without them).
PASSED_THROUGH = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
#: Prefix of the unsafe level's temporary directories (one per program).
TMP_PREFIX = "closurebench-sandbox-"
_CHUNK = 65536
_DRAIN_SECONDS = 1.0


def memfd(name: str, data: bytes) -> int:
    """An unnamed in-memory file holding ``data``, at offset 0 (the caller closes it).

    How the program and the seccomp filter reach bubblewrap: nothing is written on disk.
    """
    fd = os.memfd_create(name, 0)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def child_env(tmp: str) -> dict[str, str]:
    """The whole environment of a child, built from scratch (nothing secret leaks).

    Example:
        >>> sorted(child_env("/tmp/x"))[:4]
        ['HOME', 'LANG', 'LC_ALL', 'MKL_NUM_THREADS']
    """
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": tmp,
        "TMPDIR": tmp,
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "VECLIB_MAXIMUM_THREADS": "1",
        "MPLBACKEND": "Agg",
    }
    for name in PASSED_THROUGH:
        if name in os.environ:
            env[name] = os.environ[name]
    return env


@dataclass
class Spawned:
    """What the parent saw of one child.

    Attributes:
        stdout: The first ``stdout_bytes`` bytes of stdout.
        stderr: The first ``stderr_bytes`` bytes of stderr.
        messages: The report lines that are JSON objects, parsed.
        garbled: Some report line was not a JSON object (the program wrote on the
            channel: the bootstrap writes only JSON objects).
        exit_code: Exit status, ``-N`` for signal ``N``; ``None`` if it could not be reaped.
        timed_out: The wall-clock deadline passed and the parent killed the group.
        exceeded: ``"stdout"``, ``"stderr"`` or ``"report"`` when a cap was passed.
        cpu_seconds: User + system CPU time of the child.
        wall_seconds: Seconds from the spawn to the reaped exit.
    """

    stdout: bytes = b""
    stderr: bytes = b""
    messages: list[dict[str, Any]] = field(default_factory=list)
    garbled: bool = False
    exit_code: int | None = None
    timed_out: bool = False
    exceeded: str = ""
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0

    def first(self, key: str) -> Any:
        """The value of the first report message that has ``key`` (``None`` if none)."""
        return next((m[key] for m in self.messages if key in m), None)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's children (the wall's init), its session, then the child."""
    if proc.returncode is None:
        kill_children(proc.pid)
    for kill in (lambda: os.killpg(proc.pid, signal.SIGKILL), proc.kill):
        with contextlib.suppress(OSError):
            kill()


def _reap(proc: subprocess.Popen[bytes], deadline: float, out: Spawned, killed: bool) -> None:
    """Wait for the child (killing its group at ``deadline``) and record its status."""
    if killed:
        deadline = float("inf")
    while True:
        try:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        except ChildProcessError:
            return
        if pid:
            out.exit_code = os.waitstatus_to_exitcode(status)
            out.cpu_seconds = usage.ru_utime + usage.ru_stime
            proc.returncode = out.exit_code  # so that Popen does not wait again
            return
        if time.monotonic() >= deadline:  # it closed its pipes but runs on
            out.timed_out = not out.exceeded
            _kill_group(proc)
            deadline = float("inf")
        time.sleep(0.005)


def spawn(
    argv: Sequence[str],
    *,
    cwd: str,
    env: dict[str, str],
    limits: SandboxLimits,
    report: tuple[int, int],
    pass_fds: Sequence[int] = (),
) -> Spawned:
    """Run ``argv`` under the deadline and caps of ``limits``; never raises for the child.

    Args:
        argv: The command (already wrapped in ``bwrap``/``unshare`` when isolated).
        cwd: Its working directory (the run's temporary directory).
        env: Its whole environment (see :func:`child_env`).
        limits: Wall-clock deadline and stdout/stderr caps (rlimits are set by the child).
        report: ``(read end, write end)`` of the report pipe (``os.pipe()``); the child
            inherits the write end under the same number. Both are closed here.
        pass_fds: More descriptors the child inherits (bubblewrap's seccomp filter and
            program data); closed here once the child has started.

    Returns:
        :class:`Spawned` with what was read and how the child ended.
    """
    started = time.monotonic()
    out = Spawned()
    report_r, report_w = report
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=(report_w, *pass_fds),
        )
    except BaseException:
        os.close(report_r)
        raise
    finally:
        for fd in (report_w, *pass_fds):
            with contextlib.suppress(OSError):
                os.close(fd)
    streams = {proc.stdout: "stdout", proc.stderr: "stderr"}
    fds = {stream.fileno(): name for stream, name in streams.items() if stream is not None}
    fds[report_r] = "report"
    deadline = started + limits.wall_seconds
    killed = False
    try:
        killed = read_pipes(fds, limits, deadline, lambda: _kill_group(proc), out)
    finally:
        os.close(report_r)
        for stream in streams:
            if stream is not None:
                stream.close()
        _reap(proc, deadline, out, killed)
    out.wall_seconds = time.monotonic() - started
    return out


def read_pipes(
    fds: dict[int, str],
    limits: SandboxLimits,
    deadline: float,
    kill: Callable[[], None],
    out: Spawned,
    gone: int | None = None,
) -> bool:
    """Read a child's ``stdout``, ``stderr`` and ``report`` pipes at once, with the caps.

    Past ``deadline`` or a byte cap it calls ``kill`` (the whole sandbox), drains for a
    second and stops; ``out`` gets what was read (:attr:`Spawned.timed_out`,
    :attr:`Spawned.exceeded`, the parsed report messages). The caller closes the
    descriptors and reaps.

    Args:
        fds: Descriptor -> ``"stdout"``, ``"stderr"`` or ``"report"``.
        limits: The stdout and stderr caps (the report's is :data:`REPORT_BYTES`).
        deadline: ``time.monotonic()`` past which the child is killed.
        kill: Kills the child (and everything of its sandbox).
        out: Filled in.
        gone: A descriptor that turns readable when the wall is gone (a pidfd of
            bubblewrap's outer process, whose death a root harness's sandbox cannot
            see by itself): then ``kill`` at once, as at the deadline (not counted as a
            timeout).

    Returns:
        Whether ``kill`` was called.
    """
    caps = {"stdout": limits.stdout_bytes, "stderr": limits.stderr_bytes, "report": REPORT_BYTES}
    buffers = {"stdout": bytearray(), "stderr": bytearray(), "report": bytearray()}
    sel = selectors.DefaultSelector()
    for fd, name in fds.items():
        sel.register(fd, selectors.EVENT_READ, name)
    if gone is not None:
        sel.register(gone, selectors.EVENT_READ, None)
    kill_at, killed = deadline, False
    try:
        while any(key.data is not None for key in sel.get_map().values()):
            now = time.monotonic()
            if now >= kill_at:
                if killed:  # drained long enough: a leftover holder of a pipe is ignored
                    break
                out.timed_out = not out.exceeded
                kill()
                killed, kill_at = True, now + _DRAIN_SECONDS
                continue
            for key, _ in sel.select(timeout=kill_at - now):
                if key.data is None:  # the wall is gone: nothing of it may run on
                    sel.unregister(key.fd)
                    if not killed:
                        kill()
                        killed, kill_at = True, time.monotonic() + _DRAIN_SECONDS
                    continue
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                buf = buffers[key.data]
                room = caps[key.data] - len(buf)
                buf += chunk[: max(room, 0)]
                if len(chunk) > room and not killed:
                    out.exceeded = key.data
                    kill()
                    killed, kill_at = True, time.monotonic() + _DRAIN_SECONDS
    finally:
        sel.close()
    out.stdout, out.stderr = bytes(buffers["stdout"]), bytes(buffers["stderr"])
    for line in bytes(buffers["report"]).splitlines():
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            out.garbled = True
            continue
        if isinstance(message, dict):
            out.messages.append(message)
        else:
            out.garbled = True
    return killed
