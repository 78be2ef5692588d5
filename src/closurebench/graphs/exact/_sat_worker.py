"""The colouring SAT method's child processes: warm, several per process, killed on timeout.

CaDiCaL cannot be interrupted in-process through python-sat, so the SAT search runs in
children (:mod:`closurebench.graphs.exact._sat_child`) that are killed when the time limit
is spent. Starting one costs ~0.15 s (importing python-sat), so each process keeps its
children warm in ``--serve`` mode (one idle child per slot, :class:`closurebench.idlepool.
IdlePool`) and sends them one JSON line per request; after a kill or a crash the next
request starts a fresh child. A forked process never reuses its parent's children (the
pool forgets them in the fork), and a lock serialises threads. Where ``select``
cannot wait on a pipe (Windows), a job runs as one unlimited descent in a one-shot child.

:func:`solve_with_cubes` is the SAT method's proof (cube and conquer):

1. Child 0 descends from the greedy bound with one incremental solver, each SAT call
   limited to :data:`CONFLICT_BUDGET` conflicts. A call that ends (SAT: a better
   colouring; UNSAT: optimality) is final. Most levels of most graphs end this way.
2. At a level ``k`` whose call ran out of budget, a tabu search
   (:func:`closurebench.graphs.exact._sat_cubes.tabu_colouring`, at most
   :data:`TABU_MOVES` moves, seeded) looks for a ``k``-colouring. If it finds one, child 0
   takes it as its new bound (checked proper there and here) and goes on with step 1.
3. Otherwise the level is split into cubes
   (:func:`closurebench.graphs.exact._sat_cubes.cubes`), which :data:`WORKERS` children
   (child 0 among them) solve at once, each with its own incremental cube solver, taking
   the next unsolved cube when free. All cubes UNSAT: ``chi > k``, and the colouring
   with ``k + 1`` colours from step 1 is optimal.
4. Otherwise let ``j`` be the lowest-numbered satisfiable cube (every cube below it is
   solved first): child 0's descent solver solves level ``k`` under cube ``j``
   (satisfiable, the same models), takes that colouring and goes on with step 1.

The returned colouring is a function of the requests child 0 receives, which depend only
on the graph, the budget, the tabu search (a deterministic function of its arguments) and
which cubes are satisfiable (a fact of the formula), never on which child finished first
or how many children there are. The proof of ``chi > k`` is CaDiCaL's: UNSAT of the whole
level, or of every cube of a cover of it. On Windows the job runs as one unlimited descent
in a one-shot child instead (also deterministic, but its colouring can differ from the one
returned elsewhere).
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Any

from closurebench.errors import shorten
from closurebench.graphs.exact._common import Deadline
from closurebench.graphs.exact._sat_cubes import cubes, tabu_colouring
from closurebench.graphs.exact.errors import SolverError, SolverTimeout
from closurebench.idlepool import IdlePool

__all__ = [
    "CONFLICT_BUDGET",
    "CUBE_TARGET",
    "TABU_MOVES",
    "WORKERS",
    "solve_in_child",
    "solve_with_cubes",
]

#: Conflicts per SAT call of the descent before its level is split into cubes.
CONFLICT_BUDGET = 5000
#: Children solving cubes at once (the result does not depend on it).
WORKERS = max(1, min(2, os.cpu_count() or 1))
#: The fewest cubes a hard level is split into.
CUBE_TARGET = 48
#: Moves of the tabu search that looks for a colouring at an open level.
TABU_MOVES = 6000

_SCRIPT = str(Path(__file__).with_name("_sat_child.py"))
_LOCK = threading.Lock()


class _Child:
    """A serving child and the bytes it wrote that are not yet split into reply lines.

    Replies are read with ``os.read`` into ``buf``, never through a buffered reader, so a
    reply already read from the pipe can never hide from ``select``.
    """

    __slots__ = ("buf", "proc")

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, _SCRIPT, "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        self.buf = bytearray()

    def retire(self) -> None:
        """Kill and reap the child."""
        _stop(self.proc)

    def forget(self) -> None:
        """Close this process's ends of the child's pipes (a forked child's copies)."""
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def line(self) -> bytes | None:
        """The next complete reply line already read, if any."""
        end = self.buf.find(b"\n")
        if end < 0:
            return None
        out = bytes(self.buf[: end + 1])
        del self.buf[: end + 1]
        return out


#: This process's idle children, by slot (child ``i`` of a solve takes slot ``i``).
_IDLE = IdlePool[int, _Child](1, _Child.forget)


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


def _checked(reply: dict[str, Any]) -> dict[str, Any]:
    if "error" in reply:
        raise SolverError(f"chromatic_number: the SAT child failed: {shorten(reply['error'])}")
    return reply


def _colouring(reply: dict[str, Any]) -> list[int]:
    return [int(c) for c in _checked(reply)["colouring"]]


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
    return _colouring(json.loads(done.stdout))


def _stop(proc: subprocess.Popen[bytes]) -> str:
    """Kill ``proc``, reap it and return what it wrote to stderr."""
    proc.kill()
    try:
        _, err = proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        err = b""
    return (err or b"").decode("utf-8", "replace")


class _Pool:
    """The warm children of one solve; every request is answered or killed.

    ``pending[i]`` holds the tags of child ``i``'s unanswered requests, in order (a child
    answers in order). When a solve ends (:meth:`close`), the children that still owe
    replies (a timeout, an error) are killed, so a later solve never reads a stale reply;
    the others go back to the idle pool, warm.
    """

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.procs: list[_Child | None] = []
        self.pending: dict[int, deque[object]] = {}

    def _child(self, i: int) -> _Child:
        while len(self.procs) <= i:
            self.procs.append(None)
        child = self.procs[i]
        if child is None:
            child = _IDLE.take(i)
        if child is None or child.proc.poll() is not None:
            if child is not None:
                child.retire()  # died while idle: reap it
            child = _Child()
        self.procs[i] = child
        return child

    def _drop(self, i: int) -> str:
        """Kill child ``i`` and forget it; its stderr."""
        child = self.procs[i]
        self.procs[i] = None
        self.pending.pop(i, None)
        return _stop(child.proc) if child is not None else ""

    def send(self, i: int, request: dict[str, object], tag: object) -> None:
        """Send ``request`` to child ``i`` (started if needed); its reply will carry ``tag``."""
        proc = self._child(i).proc
        assert proc.stdin is not None
        try:
            data = memoryview((json.dumps(request) + "\n").encode())
            while data:  # an unbuffered pipe may take a long line in parts
                data = data[proc.stdin.write(data) or 0 :]
        except (BrokenPipeError, OSError):
            status = proc.poll()
            raise _failed(status, self._drop(i)) from None
        self.pending.setdefault(i, deque()).append(tag)

    def receive(self) -> tuple[int, object, dict[str, Any]]:
        """The next reply of any child that owes one: ``(child, tag, reply)``.

        Raises:
            SolverTimeout: the deadline was spent first.
            SolverError: a child died.
        """
        while True:
            owing: dict[int, int] = {}
            for i, tags in sorted(self.pending.items()):
                child = self.procs[i]
                if not tags or child is None:
                    continue
                line = child.line()
                if line is not None:
                    return i, tags.popleft(), json.loads(line)
                assert child.proc.stdout is not None
                owing[child.proc.stdout.fileno()] = i
            if not owing:
                raise RuntimeError("no reply is owed")
            ready, _, _ = select.select(list(owing), [], [], _timeout(self.deadline))
            if not ready:
                raise _timed_out(self.deadline)
            for fd in sorted(ready):
                i = owing[fd]
                chunk = os.read(fd, 1 << 16)
                child = self.procs[i]
                assert child is not None
                if not chunk:  # EOF: the child died
                    raise _failed(child.proc.poll(), self._drop(i))
                child.buf += chunk

    def call(self, i: int, request: dict[str, object]) -> dict[str, Any]:
        """Send one request to child ``i`` and wait for its reply (nothing else is owed)."""
        self.send(i, request, "call")
        _, _, reply = self.receive()
        return _checked(reply)

    def drain(self) -> None:
        """Wait for every owed reply (keeps the children in step)."""
        while any(self.pending.values()):
            _checked(self.receive()[2])

    def close(self) -> None:
        """Kill every child that still owes a reply; give the others back, warm."""
        for i, tags in list(self.pending.items()):
            if tags:
                self._drop(i)
        for i, child in enumerate(self.procs):
            if child is not None:
                _IDLE.give_back(i, child)
        self.procs = []

    def first_sat_cube(
        self, load: dict[str, object], todo: list[list[tuple[int, int]]], workers: int
    ) -> int | None:
        """Index of the lowest satisfiable cube of ``todo`` (``None``: all are UNSAT)."""
        status: list[bool | None] = [None] * len(todo)
        lowest_sat = len(todo)
        nxt = 0

        def feed(i: int) -> None:
            nonlocal nxt
            if nxt < lowest_sat:
                self.send(i, {"op": "cube", "cube": todo[nxt]}, nxt)
                nxt += 1

        for i in range(min(workers, len(todo))):
            self.send(i, load, "load")
            feed(i)
        while any(s is None for s in status[:lowest_sat]):
            i, tag, reply = self.receive()
            _checked(reply)
            if isinstance(tag, int):
                status[tag] = bool(reply["sat"])
                if status[tag]:
                    lowest_sat = min(lowest_sat, tag)
            if not self.pending.get(i):
                feed(i)
        self.drain()
        return lowest_sat if lowest_sat < len(todo) else None


def solve_in_child(job: dict[str, object], deadline: Deadline) -> list[int]:
    """Run one job of :mod:`~closurebench.graphs.exact._sat_child` (an unlimited descent).

    Returns its optimal colouring.

    Raises:
        SolverTimeout: ``deadline`` was spent first (the child is killed).
        SolverError: the child failed (its message says why).
    """
    if os.name == "nt":
        return _one_shot(job, deadline)
    with _LOCK:
        pool = _Pool(deadline)
        try:
            return _colouring(pool.call(0, job))
        finally:
            pool.close()


def solve_with_cubes(
    job: dict[str, Any],
    adj: list[int],
    deadline: Deadline,
    *,
    budget: int | None = None,
    workers: int | None = None,
    target: int | None = None,
    tabu_moves: int | None = None,
) -> tuple[list[int], dict[str, int]]:
    """The optimal colouring of a job, proven by cube and conquer (module docstring).

    Args:
        job: ``n``, ``edges``, ``order``, ``omega`` and ``colouring`` (see
            :mod:`~closurebench.graphs.exact._sat_child`).
        adj: The graph's adjacency bitsets (for the cubes).
        deadline: Every child that owes a reply is killed when it is spent.
        budget: Conflicts per descent call (default :data:`CONFLICT_BUDGET`).
        workers: Children solving cubes (default :data:`WORKERS`).
        target: The fewest cubes per split level (default :data:`CUBE_TARGET`).
        tabu_moves: Tabu-search moves per open level (default :data:`TABU_MOVES`; ``0``:
            no tabu search).

    Returns:
        The colouring and counts: ``calls`` (descent SAT calls), ``tabu`` (open levels
        the tabu search coloured), ``splits`` (levels split into cubes) and ``cubes``
        (cubes generated).

    Raises:
        SolverTimeout: ``deadline`` was spent first (the children are killed).
        SolverError: a child failed (its message says why).
    """
    stats = {"calls": 0, "tabu": 0, "splits": 0, "cubes": 0}
    if os.name == "nt":
        return _one_shot(job, deadline), stats
    budget = CONFLICT_BUDGET if budget is None else budget
    workers = WORKERS if workers is None else max(1, workers)
    target = CUBE_TARGET if target is None else target
    tabu_moves = TABU_MOVES if tabu_moves is None else tabu_moves
    with _LOCK:
        pool = _Pool(deadline)
        try:
            reply = pool.call(0, {"op": "descend", **job, "budget": budget})
            while reply["open"] is not None:
                k = int(reply["open"])
                found = None
                if tabu_moves > 0:
                    found = tabu_colouring(
                        adj, k, _colouring(reply), max_moves=tabu_moves, deadline=deadline
                    )
                if found is not None:
                    if len(found) != job["n"] or any(found[u] == found[v] for u, v in job["edges"]):
                        raise SolverError("chromatic_number: the tabu colouring is not proper")
                    stats["tabu"] += 1
                    request = {"op": "improve", "colouring": found, "budget": budget}
                    reply = pool.call(0, request)
                    continue
                todo = cubes(adj, job["order"], job["omega"], k, target=target)
                stats["splits"] += 1
                stats["cubes"] += len(todo)
                load = {key: job[key] for key in ("n", "edges", "order", "omega")}
                j = pool.first_sat_cube(load | {"op": "load", "k": k}, todo, workers)
                if j is None:
                    break
                reply = pool.call(0, {"op": "resume", "cube": todo[j], "budget": budget})
            stats["calls"] = int(reply["calls"])
            return _colouring(reply), stats
        finally:
            pool.close()
