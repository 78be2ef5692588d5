"""The idle pool the warm workers share: per-key caps, retirement, and fork safety."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from closurebench.idlepool import IdlePool, kill_session


class Worker:
    """A stand-in worker that records what happened to it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.retired = False
        self.forgotten = False

    def retire(self) -> None:
        self.retired = True

    def forget(self) -> None:
        self.forgotten = True


def test_caps_per_key_and_last_in_first_out() -> None:
    pool = IdlePool[str, Worker](max_idle=2, forget=Worker.forget)
    a, b, c, d = (Worker(x) for x in "abcd")
    for w in (a, b, c):
        pool.give_back("k", w)
    pool.give_back("other", d)
    assert c.retired and not (a.retired or b.retired or d.retired)  # the third of "k"
    assert [w.name for w in pool.snapshot("k")] == ["a", "b"]
    assert pool.take("k") is b and pool.take("k") is a and pool.take("k") is None
    pool.shutdown()
    assert d.retired and pool.snapshot("other") == []


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX fork")
def test_a_forked_child_forgets_the_parents_workers_without_retiring_them() -> None:
    pool = IdlePool[str, Worker](max_idle=4, forget=Worker.forget)
    mine = Worker("mine")
    pool.give_back("k", mine)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report what it sees, then leave without running atexit
        try:
            seen = pool.take("k")
            message = f"{seen is None} {mine.retired} {mine.forgotten}"
        except BaseException as exc:  # pragma: no cover - reported to the parent
            message = repr(exc)
        os.write(write, message.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as reply:
        seen_in_child = reply.read()
    os.waitpid(pid, 0)
    assert seen_in_child == "True False True"  # nothing to take; forgotten, not retired
    assert pool.snapshot("k") == [mine] and not mine.retired and not mine.forgotten


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_kill_session_ends_the_workers_whole_session() -> None:
    code = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(child.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, start_new_session=True
    )
    assert proc.stdout is not None
    grandchild = int(proc.stdout.readline())
    kill_session(proc)
    proc.stdout.close()
    assert proc.returncode == -9  # reaped
    # The grandchild was in the session's process group: it got SIGKILL too (it is
    # reaped by init, so poll its state through /proc until it is gone or a zombie).
    for _ in range(200):
        try:
            with open(f"/proc/{grandchild}/stat") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"process {grandchild} of the killed session is still running")
