"""The run's progress bar: rich on stderr, with accuracy, error and token counters.

Accuracy is over answered instances: results that ended in error (outcome ``error``)
are counted apart (``err N``), as in ``summary.json``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from closurebench.schema import ResultRecord

__all__ = ["ProgressBar"]


class ProgressBar:
    """A rich progress bar (or nothing) with accuracy, error and token counters."""

    UPDATE_EVERY_S = 0.1

    def __init__(self, enabled: bool, total: int, done: Iterable[ResultRecord]) -> None:
        """Start the bar (when ``enabled``) with the counters of the results ``done``.

        Args:
            enabled: Show the bar on stderr.
            total: Instances selected.
            done: Results already in the run directory (read once).
        """
        self.enabled = enabled
        self.strict = self.count = self.tokens = self.errors = 0
        for r in done:
            self.count += 1
            if r.is_error:
                self.errors += 1
                continue
            self.strict += r.strict
            self.tokens += r.usage.completion_tokens
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
        answered = self.count - self.errors
        acc = f"{100 * self.strict / answered:.1f}%" if answered else "-"
        errors = f"  err {self.errors}" if self.errors else ""
        return f"strict {acc}{errors}  tok {self.tokens}"

    def notice_to(self, notice: Callable[[str], None] | None) -> Callable[[str], None] | None:
        """A notice function that prints above the live bar (else calls ``notice``).

        Args:
            notice: Where notices go when no bar is shown (None: nowhere).

        Returns:
            The function to give the run's steps (None when ``notice`` is None).
        """
        if notice is None:
            return None
        if self._progress is None:
            return notice
        console = self._progress.console

        def show(message: str) -> None:
            console.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)

        return show

    def advance(self, result: ResultRecord) -> None:
        """Count one new result (redraws at most every :attr:`UPDATE_EVERY_S`)."""
        self.count += 1
        self.new += 1
        self._unshown += 1
        if result.is_error:
            self.errors += 1
        else:
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
        """Show the final counts and stop the bar (idempotent)."""
        if self._progress is not None:
            if self._unshown:
                self._show(time.monotonic())
            self._progress.stop()
            self._progress = None
