"""The colouring SAT method's child process: one warm child per process, killed on timeout.

CaDiCaL cannot be interrupted in-process through python-sat, so the SAT search runs in a
child (:mod:`closurebench.graphs.exact._sat_child`) that is killed when the time limit is
spent. Starting one costs ~0.15 s (importing python-sat), so each process keeps one warm
child in ``--serve`` mode and sends it one JSON line per job; after a kill or a crash the
next job starts a fresh child. A forked process never reuses its parent's child (the
owning pid is checked), and a lock serialises threads. Where ``select`` cannot wait on a
pipe (Windows), every job runs in a one-shot child instead.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
from pathlib import Path

from closurebench.errors import shorten
from closurebench.graphs.exact._common import Deadline
from closurebench.graphs.exact.errors import SolverError, SolverTimeout

__all__ = ["solve_in_child"]

_SCRIPT = str(Path(__file__).with_name("_sat_child.py"))
_LOCK = threading.Lock()
_WARM: dict[int, subprocess.Popen[str]] = {}  # owning pid -> its warm child


def _timeout(deadline: Deadline) -> float | None:
    remaining = deadline.remaining()
    return None if remaining == float("inf") else max(remaining, 0.001)


def _timed_out(deadline: Deadline) -> SolverTimeout:
    return SolverTimeout(deadline.task, deadline.time_limit, "SAT method (CaDiCaL) did not finish")


def _failed(status: object, stderr: str) -> SolverError:
    tail = shorten(stderr.strip().splitlines()[-1] if stderr.strip() else "")
    return SolverError(
        f"chromatic_number: the SAT child exited with status {status}: {tail}; "
        "is python-sat installed (it is a dependency of closurebench)?"
    )


def _reply(line: str) -> list[int]:
    reply = json.loads(line)
    if "error" in reply:
        raise SolverError(f"chromatic_number: the SAT child failed: {shorten(reply['error'])}")
    return [int(c) for c in reply["colouring"]]


def _one_shot(job: dict[str, object], deadline: Deadline) -> list[int]:
    try:
        done = subprocess.run(
            [sys.executable, _SCRIPT],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=_timeout(deadline),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise _timed_out(deadline) from None
    if done.returncode != 0 or not done.stdout.strip():
        raise _failed(done.returncode, done.stderr)
    return _reply(done.stdout)


def _stop(proc: subprocess.Popen[str]) -> str:
    """Kill ``proc``, reap it and return what it wrote to stderr."""
    proc.kill()
    try:
        _, err = proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        err = ""
    return err or ""


def _warm() -> subprocess.Popen[str]:
    pid = os.getpid()
    proc = _WARM.get(pid)
    if proc is None or proc.poll() is not None:
        proc = subprocess.Popen(
            [sys.executable, _SCRIPT, "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        _WARM[pid] = proc
    return proc


def _with_warm(job: dict[str, object], deadline: Deadline) -> list[int]:
    proc = _warm()
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(job) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], _timeout(deadline))
    except (BrokenPipeError, OSError):
        del _WARM[os.getpid()]
        raise _failed(proc.poll(), _stop(proc)) from None
    if not ready:
        del _WARM[os.getpid()]
        _stop(proc)
        raise _timed_out(deadline)
    line = proc.stdout.readline()
    if not line:
        del _WARM[os.getpid()]
        raise _failed(proc.poll(), _stop(proc))
    return _reply(line)


def solve_in_child(job: dict[str, object], deadline: Deadline) -> list[int]:
    """Run one job of :mod:`~closurebench.graphs.exact._sat_child`; its optimal colouring.

    Raises:
        SolverTimeout: ``deadline`` was spent first (the child is killed).
        SolverError: the child failed (its message says why).
    """
    if os.name == "nt":
        return _one_shot(job, deadline)
    with _LOCK:
        return _with_warm(job, deadline)


@atexit.register
def _close_warm() -> None:
    proc = _WARM.pop(os.getpid(), None)
    if proc is not None:
        _stop(proc)
