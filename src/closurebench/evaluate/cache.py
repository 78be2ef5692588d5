"""A request-keyed completion cache, so a re-run costs nothing.

The key is the sha256 of the canonical JSON of the generation settings (less the
timeout, which does not change the answer) and the messages. Entries are appended to
a JSONL file (``RUN_DIR/cache.jsonl`` by default) and flushed (fsync grouped, see
:mod:`closurebench.evaluate.appendlog`); a partial line from a crash is ignored.
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

from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S, AppendLog
from closurebench.evaluate.providers.base import Completion, GenerationSettings

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
    """Append-only JSONL cache of completions keyed by :func:`request_key`."""

    def __init__(
        self, path: str | Path | None, *, sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S
    ) -> None:
        """Load the cache at ``path`` (None: an in-memory cache only).

        Args:
            path: The cache file; created on first write.
            sync_interval_s: Seconds between fsyncs of the file (0: every entry).
        """
        self.path = Path(path) if path is not None else None
        self.sync_interval_s = sync_interval_s
        self._entries: dict[str, Completion] = {}
        self.hits = 0
        if self.path is not None and self.path.exists():
            with self.path.open("rb") as fh:
                for line in fh:
                    if not line.endswith(b"\n"):
                        break  # partial tail (a later append starts a new line)
                    try:
                        obj = json.loads(line)
                        self._entries[obj["key"]] = Completion(**obj["completion"])
                    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
                        continue
        self._log: AppendLog | None = None

    def __len__(self) -> int:
        """Number of cached completions."""
        return len(self._entries)

    def get(self, key: str) -> Completion | None:
        """The cached completion for ``key``, or None.

        Args:
            key: A request key.

        Returns:
            The completion, or None on a miss.
        """
        found = self._entries.get(key)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: str, completion: Completion) -> None:
        """Store ``completion`` under ``key`` (appended and flushed).

        Args:
            key: A request key.
            completion: The completion to store.
        """
        self._entries[key] = completion
        if self.path is None:
            return
        if self._log is None:
            self._log = AppendLog(self.path, sync_interval_s=self.sync_interval_s)
        line = json.dumps({"key": key, "completion": asdict(completion)}, ensure_ascii=False)
        self._log.append(line)

    def close(self) -> None:
        """fsync and close the cache file."""
        if self._log is not None:
            self._log.close()
            self._log = None
