"""The warm parent inside the wall: ``python -I -S -B zygote.py CONFIG``.

Standard library only (plus :mod:`bootstrap`, which sits beside it inside the sandbox),
like the bootstrap. Started once behind the same kernel wall as a cold program (see
:mod:`closurebench.sandbox.warm`, the harness side), it

1. resets ``SIGINT`` to its default (behind the wall it is its pid namespace's init, to
   which the kernel delivers, from inside the namespace, only the signals it handles:
   with no handler at all, no program can signal it), makes itself non-dumpable
   (``PR_SET_DUMPABLE`` 0: a program running as the same uid cannot open its
   ``/proc/1/mem``, ``environ`` or descriptors), imports ``ctypes`` and the packages of
   ``CONFIG["preload"]`` (networkx and numpy: the ~0.15 s every cold program pays), and
   checks that it is one thread (a fork copies only the calling thread);
2. says ``{"ready": ...}`` on its control socket (an ``AF_UNIX`` socket pair inherited
   from the harness) and then serves jobs, one at a time: a job is a small JSON config
   and four descriptors (the job's stdout, stderr and report pipes, whose other ends the
   harness reads with its caps and deadline, and a memfd holding the program);
3. for each job forks a fresh child that puts the pipes on descriptors 1, 2 and 3,
   closes every other descriptor (the control socket included), enters the job's own
   directory, writes the program there and runs
   :func:`bootstrap.run_program` (the privilege check, rlimits, the inner seccomp
   allow-list — no ``fork``/``clone`` of a process, ``execve``, socket or System V /
   POSIX IPC: ``EPERM`` —, the audit hook, the program, ``os._exit``) — the same steps
   as a cold program, after the fork;
4. reaps the child (``wait4``: its exit status and CPU time), empties the job directory
   when it owns it (behind the wall: the whole private tmpfs, so nothing one program
   wrote is there for the next), checks that no other process is left in its pid
   namespace, and answers ``{"status", "cpu", "clean"}``. A job that does not end
   ``clean`` makes the harness retire this zygote.

The harness enforces the deadline and the byte caps on the job's pipes; past them it
kills the zygote's whole sandbox (its pid namespace dies with it) and starts a fresh
one for the next program.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import sys
from typing import Any

__all__ = ["main"]

_MAX_MESSAGE = 1 << 20
_JOB_FDS = 4  # stdout, stderr, report, program
_REPORT_FD = 3


def _non_dumpable() -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_dumpable = 4
    if libc.prctl(pr_set_dumpable, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


def _die_with(parent: int) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    if libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:  # the harness was gone before the line above
        raise RuntimeError("the harness exited while the zygote started")


def _vm_bytes() -> int:
    with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
        for line in handle:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(json.dumps(message).encode())


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _child(cfg: dict[str, Any], fds: list[int], bootstrap: Any) -> None:
    """The forked child: never returns."""
    status = 1
    try:
        signal.set_wakeup_fd(-1)  # the zygote's waiting, not the program's
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        out, err, rep, prog = fds
        for fd, target in ((out, 1), (err, 2), (rep, _REPORT_FD)):
            if fd != target:
                os.dup2(fd, target)
        source = _read_all(prog)
        os.closerange(_REPORT_FD + 1, os.sysconf("SC_OPEN_MAX"))
        tmp = str(cfg["tmp"])
        os.chdir(tmp)
        for name in ("HOME", "TMPDIR"):
            os.environ[name] = tmp
        program = str(cfg["program"])
        fd = os.open(program, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
        with os.fdopen(fd, "wb") as handle:
            handle.write(source)
        del source
        legacy = sys.modules.get("numpy.random")
        if legacy is not None:  # its global generator: fresh entropy, as in a cold start
            legacy.seed()
        status = bootstrap.run_program(cfg)
    except BaseException as exc:  # the job's wall did not come up: say so, run nothing
        with contextlib.suppress(BaseException):
            bootstrap.report(_REPORT_FD, {"wall_error": f"the warm child: {exc!r}"})
    os._exit(status)


def _wipe(path: str) -> bool:
    """Remove everything under ``path`` (not ``path``); ``False`` if something stays."""
    import shutil

    def unlock(function: Any, name: str, excinfo: Any) -> None:
        parent = os.path.dirname(name)
        with contextlib.suppress(OSError):
            os.chmod(parent, stat.S_IRWXU)
            os.chmod(name, stat.S_IRWXU)
        with contextlib.suppress(OSError):
            function(name)

    for _ in range(2):
        with contextlib.suppress(OSError):
            os.chmod(path, stat.S_IRWXU | stat.S_IRWXG | stat.S_IRWXO | stat.S_ISVTX)
        for entry in os.listdir(path):
            full = os.path.join(path, entry)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full, onerror=unlock)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(full)
        if not os.listdir(path):
            return True
    return False


def _alone(pid: int) -> bool:
    """Behind the wall (pid 1): no process but this one is left in the namespace."""
    if pid != 1:
        return True
    return [p for p in os.listdir("/proc") if p.isdigit()] == ["1"]


def _wait(pid: int, sock: socket.socket, wakeup: int) -> tuple[int, Any] | None:
    """Wait for the child ``pid``, or for the harness to go away (then kill the child).

    A root harness's zygote runs as another uid than bubblewrap's outer process, so the
    kernel's parent-death signal cannot reach it: the harness's end of the control
    socket closing is how it learns (the harness never writes during a job). SIGCHLD
    (through ``wakeup``, :func:`signal.set_wakeup_fd`) says the child ended.

    Returns:
        ``(status, rusage)`` of the child, or ``None`` when the harness went away.
    """
    import select

    poller = select.poll()
    poller.register(sock, select.POLLIN)
    poller.register(wakeup, select.POLLIN)
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done == pid:
            return status, usage
        for fd, _ in poller.poll():
            if fd == wakeup:
                with contextlib.suppress(BlockingIOError):
                    os.read(wakeup, 512)
                continue
            try:  # data mid-job breaks the protocol: the same as a harness gone
                sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError:
                pass
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.wait4(pid, 0)
            return None


def _serve(sock: socket.socket, cfg: dict[str, Any], bootstrap: Any) -> None:
    me = os.getpid()
    wakeup_r, wakeup_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wakeup_w, warn_on_full_buffer=False)
    wakeup = wakeup_r
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(sock, _MAX_MESSAGE, _JOB_FDS)
        except OSError:
            return
        if not data:
            return
        try:
            job = json.loads(data)
        except ValueError:
            return
        if len(fds) != _JOB_FDS or not isinstance(job, dict):
            return
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(job, fds, bootstrap)
        for fd in fds:
            os.close(fd)
        ended = _wait(pid, sock, wakeup)
        if ended is None:  # the harness is gone: so is this zygote, and its child
            return
        status, usage = ended
        clean = True
        if job.get("wipe"):
            clean = _wipe(str(job["tmp"]))
        clean = clean and _alone(me)
        reply = {
            "status": os.waitstatus_to_exitcode(status),
            "cpu": usage.ru_utime + usage.ru_stime,
            "clean": clean,
        }
        _send(sock, reply)


def main(argv: list[str]) -> None:
    """Entry point: ``argv[1]`` is the JSON config; returns when the harness goes away."""
    cfg = json.loads(argv[1])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.path.extend(str(p) for p in cfg.get("sys_path", ()))
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sock = socket.socket(fileno=int(cfg["control"]))
    try:
        import bootstrap  # type: ignore[import-not-found]

        bootstrap.become(cfg.get("identity"))  # first: nothing runs as root here
        del sys.path[0]  # the program's import path is a cold program's
        parent = cfg.get("parent")
        if parent is not None:  # unsafe level (no pid namespace): die with the harness
            _die_with(int(parent))
        _non_dumpable()
        import ctypes  # noqa: F401  (as the bootstrap: numpy imports it lazily)

        for name in cfg.get("preload", ()):
            __import__(name)
        threads = _threads()
        if threads != 1:
            raise RuntimeError(f"{threads} threads after the imports (a fork needs one)")
    except BaseException as exc:
        _send(sock, {"ready": False, "why": repr(exc)[:500]})
        return
    _send(sock, {"ready": True, "vm_bytes": _vm_bytes(), "pid": os.getpid()})
    _serve(sock, cfg, bootstrap)


if __name__ == "__main__":
    main(sys.argv)
