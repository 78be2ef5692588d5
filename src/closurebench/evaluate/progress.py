"""The run's progress bar: rich on stderr, with strict accuracy and token counters."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import Any

from closurebench.schema import ResultRecord

__all__ = ["ProgressBar"]


class ProgressBar:
    """A rich progress bar (or nothing) with accuracy and token counters."""

    UPDATE_EVERY_S = 0.1

    def __init__(self, enabled: bool, total: int, done: Iterable[Mapping[str, Any]]) -> None:
        self.enabled = enabled
        self.strict = self.count = self.tokens = 0
        for r in done:
            self.count += 1
            self.strict += bool(r.get("strict"))
            self.tokens += int((r.get("usage") or {}).get("completion_tokens") or 0)
        self.start = time.monotonic()
        self.new = 0
        self._unshown = 0
        self._last_update = 0.0
        self._progress: Any = None
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]eval"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[stats]}"),
            console=Console(stderr=True),
            transient=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(
            "eval", total=total, completed=self.count, rate="", stats=self._stats()
        )

    def _stats(self) -> str:
        acc = f"{100 * self.strict / self.count:.1f}%" if self.count else "-"
        return f"strict {acc}  tok {self.tokens}"

    def advance(self, result: ResultRecord) -> None:
        self.count += 1
        self.new += 1
        self._unshown += 1
        self.strict += result.strict
        self.tokens += result.usage.completion_tokens
        if self._progress is not None:
            now = time.monotonic()
            # Redrawing costs ~0.2 ms; the bar refreshes 10 times a second anyway.
            if now - self._last_update >= self.UPDATE_EVERY_S:
                self._show(now)

    def _show(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        self._progress.update(
            self._task,
            advance=self._unshown,
            rate=f"{self.new / elapsed:.2f}/s",
            stats=self._stats(),
        )
        self._unshown = 0
        self._last_update = now

    def close(self) -> None:
        if self._progress is not None:
            if self._unshown:
                self._show(time.monotonic())
            self._progress.stop()
