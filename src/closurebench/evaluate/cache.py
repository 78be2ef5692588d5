"""A request-keyed completion cache, so a re-run costs nothing.

The key is the sha256 of the canonical JSON of the generation settings (less the
timeout, which does not change the answer) and the messages. Entries are appended to
a JSONL file (``RUN_DIR/cache.jsonl`` by default) and flushed (fsync grouped, see
:mod:`closurebench.evaluate.appendlog`) and read through the one JSONL reader
(:func:`closurebench.jsonl.scan`), whose policy skips a torn or corrupt line.
Only successful completions are cached.

Example:
    >>> from closurebench.evaluate.providers.base import GenerationSettings
    >>> s = GenerationSettings(model="m")
    >>> k1 = request_key(s, [{"role": "user", "content": "hi"}])
    >>> k1 == request_key(GenerationSettings(model="m", timeout_s=5), [{"role": "user",
    ...     "content": "hi"}])
    True
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, BinaryIO

from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S, AppendLog
from closurebench.evaluate.providers.base import Completion, GenerationSettings
from closurebench.jsonl import scan

__all__ = ["CompletionCache", "request_key"]

_IGNORED_SETTINGS = ("timeout_s",)


def request_key(settings: GenerationSettings, messages: list[dict[str, str]]) -> str:
    """The cache key of one request.

    Args:
        settings: Generation settings (the timeout is ignored).
        messages: Chat messages.

    Returns:
        A hex sha256 digest.
    """
    s = {k: v for k, v in settings.to_dict().items() if k not in _IGNORED_SETTINGS}
    blob = json.dumps({"settings": s, "messages": messages}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CompletionCache:
    """Append-only JSONL cache of completions keyed by :func:`request_key`.

    With a file, memory holds only an index (key -> byte offset and length); a hit
    reads its line back from the file. Without one, completions are kept in memory.
    """

    def __init__(
        self, path: str | Path | None, *, sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S
    ) -> None:
        """Index the cache at ``path`` (None: an in-memory cache only).

        Args:
            path: The cache file; created on first write.
            sync_interval_s: Seconds between fsyncs of the file (0: every entry).
        """
        self.path = Path(path) if path is not None else None
        self.sync_interval_s = sync_interval_s
        self._memory: dict[str, Completion] = {}
        self._index: dict[str, tuple[int, int]] = {}
        self.hits = 0
        if self.path is not None:
            offset = 0
            for line in scan(self.path):
                start, offset = offset, offset + len(line.raw)
                entry = _entry(line.obj) if line.obj is not None else None
                if entry is not None:
                    self._index[entry[0]] = (start, len(line.raw))
        self._log: AppendLog | None = None
        self._reader: BinaryIO | None = None

    def __len__(self) -> int:
        """Number of cached completions."""
        return len(self._index) + len(self._memory)

    def get(self, key: str) -> Completion | None:
        """The cached completion for ``key``, or None.

        Args:
            key: A request key.

        Returns:
            The completion, or None on a miss (also when its line can no longer be
            read back).
        """
        found = self._memory.get(key)
        if found is None and key in self._index and self.path is not None:
            offset, length = self._index[key]
            if self._reader is None:
                self._reader = self.path.open("rb")
            self._reader.seek(offset)
            entry = _parse_line(self._reader.read(length))
            found = entry[1] if entry is not None and entry[0] == key else None
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: str, completion: Completion) -> None:
        """Store ``completion`` under ``key`` (appended and flushed).

        Args:
            key: A request key.
            completion: The completion to store.
        """
        if self.path is None:
            self._memory[key] = completion
            return
        if self._log is None:
            self._log = AppendLog(self.path, sync_interval_s=self.sync_interval_s)
        line = json.dumps({"key": key, "completion": asdict(completion)}, ensure_ascii=False)
        offset = self._log.append(line)
        self._index[key] = (offset, self._log.size - offset)

    def close(self) -> None:
        """fsync and close the cache file."""
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None


def _entry(obj: dict[str, Any]) -> tuple[str, Completion] | None:
    """``(key, completion)`` of one cache object, or None when it is not a cache entry."""
    try:
        fields = dict(obj["completion"])
        fields["tool_calls"] = tuple(fields.get("tool_calls") or ())  # JSON gives a list
        return str(obj["key"]), Completion(**fields)
    except (KeyError, TypeError, ValueError):
        return None


def _parse_line(raw: bytes) -> tuple[str, Completion] | None:
    """The entry of the line read back at an indexed offset (None if it changed since)."""
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return _entry(obj) if isinstance(obj, dict) else None
