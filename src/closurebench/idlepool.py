"""Warm child processes kept idle per key, for the process that started them.

Three parts of closurebench keep interpreters warm between jobs: the sandbox's Python
zygotes (:mod:`closurebench.sandbox.warm`), its Ein workers
(:mod:`closurebench.sandbox.ein_runner`) and the colouring's CaDiCaL children
(:mod:`closurebench.graphs.exact._sat_worker`). They share this pool:

* :meth:`IdlePool.take` hands out an idle worker of a key (or ``None``: start one);
  :meth:`IdlePool.give_back` keeps it, up to ``max_idle`` per key, and retires the rest;
* a worker that ended badly is never given back: its owner retires it;
* idle workers are retired at interpreter exit (:meth:`IdlePool.shutdown`);
* a forked child forgets its parent's idle workers without retiring them (they are
  the parent's: two processes must never talk to one worker), closing its copies of
  their descriptors through ``forget``.

:func:`kill_session` is the one way these workers end: ``SIGKILL`` to the session the
worker leads (it was started with ``start_new_session=True``, so that also ends what it
started), then to the process itself, then a bounded wait that reaps it.

Example:
    >>> class Worker:
    ...     def __init__(self, name): self.name, self.retired = name, False
    ...     def retire(self): self.retired = True
    >>> pool = IdlePool[str, Worker](max_idle=1)
    >>> pool.take("k") is None
    True
    >>> a, b = Worker("a"), Worker("b")
    >>> pool.give_back("k", a); pool.give_back("k", b)
    >>> b.retired, [w.name for w in pool.snapshot("k")]
    (True, ['a'])
    >>> pool.take("k").name, pool.take("k")
    ('a', None)
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar

__all__ = ["IdlePool", "Retirable", "kill_children", "kill_session"]


class Retirable(Protocol):
    """A warm worker: :meth:`retire` ends it for good (kills and reaps it)."""

    def retire(self) -> None:
        """End the worker and reap it."""


K = TypeVar("K", bound=Hashable)
W = TypeVar("W", bound=Retirable)


def kill_children(pid: int) -> None:
    """``SIGKILL`` the direct children of ``pid`` (errors of those already gone ignored).

    Behind bubblewrap the child of its outer process is the sandbox's pid-namespace
    init, in a session of its own and, behind a root harness, of another uid than
    bubblewrap (whose parent-death signal then cannot reach it): killed from here (a
    root harness may signal any uid), its pid namespace dies with it.
    """
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
            children = [int(x) for x in handle.read().split()]
    except (OSError, ValueError):
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                stat = f"/proc/{entry}/stat"
                with (
                    contextlib.suppress(OSError, ValueError, IndexError),
                    open(stat, encoding="ascii", errors="replace") as f,
                ):
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        children.append(int(entry))
    for child in children:
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)


def kill_session(proc: subprocess.Popen[bytes], wait_s: float | None = 10.0) -> None:
    """``SIGKILL`` ``proc``'s children, the session ``proc`` leads and ``proc``; reap it.

    ``proc`` must have been started with ``start_new_session=True`` (its pid is its
    session's and process group's id) or the group kill is refused by the kernel and
    only ``proc`` is killed. Errors of processes already gone are ignored.

    Args:
        proc: The worker process.
        wait_s: Most seconds to wait for the kernel to reap it (``SIGKILL`` cannot be
            ignored, so only a process stuck in the kernel takes longer); ``None``: do
            not wait (a reader of its pipes sees them close).
    """
    if proc.returncode is None:  # (a reaped pid may be someone else's by now)
        kill_children(proc.pid)
    for kill in (lambda: os.killpg(proc.pid, signal.SIGKILL), proc.kill):
        with contextlib.suppress(OSError):
            kill()
    if wait_s is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=wait_s)


class IdlePool(Generic[K, W]):
    """Idle workers per key, owned by the process that created the pool (module docstring).

    Args:
        max_idle: The most idle workers kept per key; one more given back is retired.
        forget: Called on each idle worker in a forked child, instead of retiring it
            (close the child's copies of its descriptors); ``None``: nothing to close.
    """

    def __init__(self, max_idle: int, forget: Callable[[W], None] | None = None) -> None:
        self.max_idle = max_idle
        self._forget = forget
        self._idle: dict[K, list[W]] = {}
        self._lock = threading.Lock()
        atexit.register(self.shutdown)
        os.register_at_fork(after_in_child=self._after_fork)

    def take(self, key: K) -> W | None:
        """An idle worker of ``key`` (the one given back last), or ``None``."""
        with self._lock:
            idle = self._idle.get(key)
            return idle.pop() if idle else None

    def give_back(self, key: K, worker: W) -> None:
        """Keep ``worker`` idle under ``key``, or retire it when ``max_idle`` are kept."""
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if len(idle) < self.max_idle:
                idle.append(worker)
                return
        worker.retire()

    def snapshot(self, key: K) -> list[W]:
        """The idle workers of ``key`` now (a copy, oldest first)."""
        with self._lock:
            return list(self._idle.get(key, ()))

    def shutdown(self) -> None:
        """Retire every idle worker (also done at interpreter exit)."""
        with self._lock:
            workers = [w for idle in self._idle.values() for w in idle]
            self._idle.clear()
        for worker in workers:
            worker.retire()

    def _after_fork(self) -> None:
        """In a forked child: the parent's idle workers are not ours; forget them."""
        self._lock = threading.Lock()  # the parent may have held it while forking
        workers = [w for idle in self._idle.values() for w in idle]
        self._idle.clear()
        if self._forget is not None:
            for worker in workers:
                with contextlib.suppress(OSError):
                    self._forget(worker)
