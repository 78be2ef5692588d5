"""How a run is carried out (:class:`RunOptions`) and what it did (:class:`RunStats`).

Example:
    >>> RunOptions(concurrency=0).check()
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: --concurrency must be >= 1, got 0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError
from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S

__all__ = ["RunOptions", "RunStats"]


@dataclass
class RunOptions:
    """How a run is carried out (none of these change the answers).

    Attributes:
        concurrency: Requests in flight at once.
        retries: Extra attempts after a retryable failure.
        backoff_base_s: First backoff delay; doubles with each attempt.
        backoff_max_s: Upper bound of one backoff delay.
        seed: Seed of the backoff jitter.
        cache_path: Cache file (default ``RUN_DIR/cache.jsonl``); None disables
            the file (an in-memory cache only) when ``use_cache`` is False.
        use_cache: Read and write the completion cache.
        retry_errors: On resume, re-run instances whose earlier result has an error.
        progress: Show a progress bar on stderr.
        sync_interval_s: Seconds between fsyncs of the results and cache files
            (0: fsync every line; lines are flushed to the OS either way).
    """

    concurrency: int = 8
    retries: int = 4
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    seed: int = 0
    cache_path: Path | None = None
    use_cache: bool = True
    retry_errors: bool = False
    progress: bool = True
    sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S

    def check(self) -> None:
        """Reject values no run can use.

        Raises:
            ConfigError: naming the option and the value.
        """
        if self.concurrency < 1:
            raise ConfigError(f"--concurrency must be >= 1, got {self.concurrency}")
        if self.retries < 0:
            raise ConfigError(f"--retries must be >= 0, got {self.retries}")
        if self.sync_interval_s < 0:
            raise ConfigError(f"--fsync-interval must be >= 0, got {self.sync_interval_s}")


@dataclass
class RunStats:
    """What one call of :func:`run_eval` did.

    Attributes:
        selected: Instances selected for the run.
        skipped: Instances already in the results file (resumed).
        evaluated: Instances evaluated in this call.
        requests: Provider requests sent (including retried attempts).
        retries: Retried attempts.
        cache_hits: Requests answered from the cache.
        failures: Instances recorded with an error.
        summary: The summary written to ``summary.json``.
    """

    selected: int = 0
    skipped: int = 0
    evaluated: int = 0
    requests: int = 0
    retries: int = 0
    cache_hits: int = 0
    failures: int = 0
    summary: dict[str, Any] = field(default_factory=dict)

    def counters(self) -> dict[str, int]:
        """The counters, as recorded under ``run`` in ``summary.json``."""
        return {
            "selected": self.selected,
            "skipped": self.skipped,
            "evaluated": self.evaluated,
            "requests": self.requests,
            "retries": self.retries,
            "cache_hits": self.cache_hits,
            "failures": self.failures,
        }
