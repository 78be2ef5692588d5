"""An append-only line log with per-line flush and group-committed fsync.

Every line is written and flushed to the operating system as it is appended, so a
process killed at any point (SIGKILL, an exception, Ctrl-C) loses nothing it has
appended. ``fsync`` - which protects against a machine crash or power loss, not a
process crash - is group-committed: at most once per ``sync_interval_s`` seconds,
and always on :meth:`AppendLog.close`. With ``sync_interval_s=0`` every line is
fsynced. After a machine crash at most the last interval's lines are missing, and a
partly written last line is repaired by the readers (``repair_results``, the cache).

Example:
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.jsonl"
    >>> log = AppendLog(path, sync_interval_s=0.5)
    >>> log.append('{"a": 1}'), log.append('{"b": 2}')  # byte offsets of the lines
    (0, 9)
    >>> path.read_text()  # already on disk for any reader, before close
    '{"a": 1}\\n{"b": 2}\\n'
    >>> log.close()
    >>> import shutil; shutil.rmtree(path.parent)
"""

from __future__ import annotations

import os
import time
from pathlib import Path

__all__ = ["DEFAULT_SYNC_INTERVAL_S", "AppendLog"]

#: Default seconds between fsyncs (group commit).
DEFAULT_SYNC_INTERVAL_S = 1.0


class AppendLog:
    """Append text lines to a file; flush each line, fsync at most every interval.

    Attributes:
        path: The file.
        sync_interval_s: Seconds between fsyncs (0: fsync every line).
        syncs: Number of fsyncs done so far.
    """

    def __init__(self, path: str | Path, *, sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S):
        """Open ``path`` for appending (created with its folder if missing).

        A file whose last byte is not a newline (a line torn by a crash) gets a newline
        first, so the torn fragment stays a separate, skippable line.

        Args:
            path: The file.
            sync_interval_s: Seconds between fsyncs; 0 fsyncs every line.

        Raises:
            ValueError: for a negative interval.
        """
        if sync_interval_s < 0:
            raise ValueError(f"sync_interval_s must be >= 0, got {sync_interval_s}")
        self.path = Path(path)
        self.sync_interval_s = float(sync_interval_s)
        self.syncs = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self.path.open("ab")
        self._size = self._fh.seek(0, os.SEEK_END)
        needs_newline = False
        if self._size:
            with self.path.open("rb") as fh:
                fh.seek(-1, os.SEEK_END)
                needs_newline = fh.read(1) != b"\n"
        if needs_newline:
            self._fh.write(b"\n")
            self._fh.flush()
            self._size += 1
        self._dirty = needs_newline
        self._last_sync = time.monotonic()

    @property
    def size(self) -> int:
        """Bytes in the file (everything appended is flushed)."""
        return self._size

    def append(self, line: str) -> int:
        """Append one line (a newline is added) and flush it to the operating system.

        Args:
            line: The text, without a trailing newline.

        Returns:
            The byte offset where the line starts.
        """
        data = line.encode("utf-8") + b"\n"
        offset = self._size
        self._fh.write(data)
        self._fh.flush()
        self._size += len(data)
        self._dirty = True
        if self.sync_interval_s == 0 or time.monotonic() - self._last_sync >= self.sync_interval_s:
            self.sync()
        return offset

    def sync(self) -> None:
        """fsync what has been appended (a no-op when nothing new was written)."""
        if self._dirty and not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self.syncs += 1
            self._dirty = False
        self._last_sync = time.monotonic()

    def close(self) -> None:
        """fsync and close the file (idempotent)."""
        if not self._fh.closed:
            self.sync()
            self._fh.close()
