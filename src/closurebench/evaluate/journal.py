"""The crash journal: which replies were being handled when a harness process died.

A reply can kill or hang the harness itself - a model program that escapes the sandbox
and signals its parent, a reply that makes scoring run out of memory, a bug. The reply
is cached, so a plain resume would replay it, handle it again and die again, for ever.
The journal, ``RUN_DIR/journal.jsonl``, breaks that loop. It is an append-only log
(:class:`~closurebench.evaluate.appendlog.AppendLog`: every line flushed to the
operating system as it is written, so it survives the process being killed) of one
JSON object per line:

* ``{"event": "session", "session": S, "pid": P}`` - a process took the run folder's
  lock and started (``S`` is random per process, so a reused pid cannot be confused);
* ``{"event": "handle", "session": S, "id": ID}`` - a reply for instance ``ID`` arrived
  and is about to be handed to the mode (scored, its program executed). The line is
  written *before* the mode sees the reply;
* ``{"event": "wait", "session": S, "id": ID}`` - the mode asked for another request
  (an agent's next round): nothing of this instance is being handled while it waits;
* ``{"event": "done", "session": S, "id": ID}`` - the instance's result line is written.

An *attempt* of instance ``ID`` in session ``S`` is *open* when its last line is
``handle``. The run folder's lock (:class:`~closurebench.evaluate.rundir.RunLock`)
admits one process at a time, and the journal is read under it before this process
writes anything, so every session already in the file has ended: an attempt still open
there is a process that stopped while handling that reply - SIGKILL, a crash, the
out-of-memory killer, an interrupt while it handled it. :func:`read_deaths` counts, per
instance, the sessions that stopped so. A torn last line is skipped (the one reader's
policy, :func:`closurebench.jsonl.scan`): a torn ``handle`` line means its reply was
never handed over (the line is flushed first), so it is rightly not counted.

Within a process the journal is written from the event loop, one flushed line per
event under a lock (so lines never interleave, also from a worker thread), and the state
is per instance id, so any number of concurrent instances are tracked at once; each
instance is evaluated at most once per session.

The runner's policy (:func:`~closurebench.evaluate.runner.run_eval`,
``RunOptions.max_harness_deaths``) reads these counts on resume.

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / JOURNAL_FILE
    >>> first = CrashJournal(path, session="s1")
    >>> first.handling("a"); first.handling("b"); first.done("b")
    >>> first.close()  # "a" was being handled when this process ended
    >>> read_deaths(path)
    {'a': 1}
    >>> second = CrashJournal(path, session="s2")
    >>> second.handling("a"); second.done("a"); second.close()
    >>> read_deaths(path)  # the second attempt finished: still one death
    {'a': 1}
    >>> import shutil; shutil.rmtree(path.parent)
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections import Counter
from pathlib import Path

from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S, AppendLog
from closurebench.jsonl import scan

__all__ = ["JOURNAL_FILE", "CrashJournal", "read_deaths"]

#: The journal's file name in the run directory.
JOURNAL_FILE = "journal.jsonl"

_HANDLE, _WAIT, _DONE, _SESSION = "handle", "wait", "done", "session"


def read_deaths(path: str | Path) -> dict[str, int]:
    """Per instance id, the sessions that ended while handling its reply (streamed).

    Call it with the run folder's lock held and before this process writes to the
    journal: then every session in the file has ended, and each attempt still open
    is a death. Damaged lines (torn, corrupt, not an event) are skipped.

    Args:
        path: ``RUN_DIR/journal.jsonl`` (a missing file means no deaths).

    Returns:
        ``{id: deaths}`` for the ids with at least one death.

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / JOURNAL_FILE
        >>> _ = p.write_text(
        ...     '{"event": "handle", "session": "s", "id": "x"}\\n'
        ...     '{"event": "wait", "session": "s", "id": "y"}\\n'
        ...     '{"event": "handle", "session": "t", "id": "x"}\\n'
        ...     'not json\\n'
        ...     '{"event": "handle", "session": "t", "id": "z"')  # torn: z was never handed over
        >>> read_deaths(p)
        {'x': 2}
        >>> import shutil; shutil.rmtree(p.parent)
    """
    open_attempts: set[tuple[str, str]] = set()
    for line in scan(path):
        obj = line.obj
        if obj is None or obj.get("event") == _SESSION:
            continue
        event, session, key = obj.get("event"), obj.get("session"), obj.get("id")
        if not isinstance(session, str) or not isinstance(key, str):
            continue
        if event == _HANDLE:
            open_attempts.add((session, key))
        elif event in (_WAIT, _DONE):
            open_attempts.discard((session, key))
    return dict(sorted(Counter(key for _session, key in open_attempts).items()))


class CrashJournal:
    """This process's writer of ``RUN_DIR/journal.jsonl`` (see the module docs).

    Each method writes a line only when it changes the instance's state (a second
    :meth:`handling` of an instance already being handled writes nothing), so a
    one-request mode costs two lines per instance: ``handle`` and ``done``.

    Attributes:
        path: The journal file.
        session: This process's random session token.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S,
        session: str | None = None,
    ) -> None:
        """Open the journal for appending and write this session's first line.

        Args:
            path: The journal file (created with its folder if missing).
            sync_interval_s: Seconds between fsyncs (0: every line). Lines are flushed
                to the operating system either way, which is what survives a killed
                process; the fsync only matters for a machine crash.
            session: The session token (default: a random one).
        """
        self.path = Path(path)
        self.session = session or secrets.token_hex(8)
        self._log = AppendLog(self.path, sync_interval_s=sync_interval_s)
        self._lock = threading.Lock()
        self._state: dict[str, str] = {}
        self._write({"event": _SESSION, "session": self.session, "pid": os.getpid()})

    def _write(self, obj: dict[str, object]) -> None:
        self._log.append(json.dumps(obj, ensure_ascii=False, sort_keys=True))

    def _move(self, key: str, event: str, *, unless: tuple[str | None, ...]) -> None:
        with self._lock:
            if self._state.get(key) in unless:
                return
            self._write({"event": event, "session": self.session, "id": key})
            if event == _DONE:
                self._state.pop(key, None)
            else:
                self._state[key] = event

    def handling(self, key: str) -> None:
        """Say that a reply of instance ``key`` is about to be handled (flushed first).

        Args:
            key: The instance id.
        """
        self._move(key, _HANDLE, unless=(_HANDLE,))

    def waiting(self, key: str) -> None:
        """Say that instance ``key`` waits for another request (its handling paused).

        Written only when the instance was being handled.

        Args:
            key: The instance id.
        """
        self._move(key, _WAIT, unless=(None, _WAIT))

    def done(self, key: str) -> None:
        """Say that instance ``key``'s result is recorded (after its result line).

        Written only when the journal has an earlier line for the instance this session.

        Args:
            key: The instance id.
        """
        self._move(key, _DONE, unless=(None,))

    @property
    def open_ids(self) -> list[str]:
        """The instances whose reply is being handled now, sorted."""
        with self._lock:
            return sorted(k for k, v in self._state.items() if v == _HANDLE)

    def close(self) -> None:
        """fsync and close the file (idempotent). Open attempts stay open in the file."""
        with self._lock:
            self._log.close()
