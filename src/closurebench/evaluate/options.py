"""How a run is carried out (:class:`RunOptions`) and what it did (:class:`RunStats`).

Example:
    >>> RunOptions(concurrency=0).check()
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: --concurrency must be >= 1, got 0
    >>> RunOptions(backoff_base_s=-1).check()
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: --backoff must be >= 0 (seconds), got -1
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError
from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S
from closurebench.schema.summary import RunSummary

__all__ = [
    "DEFAULT_MAX_CONSECUTIVE_FAILURES",
    "DEFAULT_MAX_HARNESS_DEATHS",
    "RunOptions",
    "RunStats",
]

#: Consecutive failed instances after which a run stops (``--max-consecutive-failures``).
DEFAULT_MAX_CONSECUTIVE_FAILURES = 10

#: Harness deaths on one reply after which it is recorded as wrong, unhandled
#: (``RunOptions.max_harness_deaths``). Two, not one: a death is charged to every reply
#: being handled when the process stopped - with ``--concurrency 8`` up to seven of them
#: innocent, and all of them when the cause was outside (the user's Ctrl-C, the
#: out-of-memory killer acting on another instance's program, a machine crash). The one
#: more try runs alone, with nothing else in flight, so a second death is this reply's.
DEFAULT_MAX_HARNESS_DEATHS = 2


def _seconds(name: str, value: float) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise ConfigError(f"{name} must be >= 0 (seconds), got {value:g}")


@dataclass
class RunOptions:
    """How a run is carried out (none of these change the answers).

    Attributes:
        concurrency: Requests in flight at once.
        retries: Extra attempts after a retryable failure.
        backoff_base_s: First backoff delay; doubles with each attempt.
        backoff_max_s: Upper bound of one backoff delay, also of a server's
            ``Retry-After`` (a longer wait is cut to this, and said once on stderr).
        seed: Seed of the backoff jitter.
        cache_path: Cache file (default ``RUN_DIR/cache.jsonl``); None disables
            the file (an in-memory cache only) when ``use_cache`` is False.
        use_cache: Read and write the completion cache.
        keep_errors: On resume, keep the results of instances that ended in error
            instead of running them again (the default re-runs them).
        force_new: Start the run over: delete the run directory's results, cache and
            summary (after taking its lock) instead of resuming, also when ``run.json``
            records another dataset, model or settings.
        max_consecutive_failures: Stop the run when this many instances in a row end in
            error (a dead or overloaded server); 0 never stops.
        max_harness_deaths: On resume, an instance whose reply was being handled when
            this many earlier harness processes died (the crash journal,
            :mod:`closurebench.evaluate.journal`) is not handled again: it is recorded as
            ``wrong`` (counted in the accuracies) with ``harness_deaths``. One with fewer
            deaths is handled again - alone, before the other instances, from the cached
            reply - so the default 2 gives each such reply exactly one more try; 1 gives
            none. At least 1.
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
    keep_errors: bool = False
    force_new: bool = False
    max_consecutive_failures: int = DEFAULT_MAX_CONSECUTIVE_FAILURES
    max_harness_deaths: int = DEFAULT_MAX_HARNESS_DEATHS
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
        _seconds("--backoff", self.backoff_base_s)
        _seconds("--backoff-max", self.backoff_max_s)
        if self.backoff_max_s < self.backoff_base_s:
            raise ConfigError(
                f"--backoff-max ({self.backoff_max_s:g}s) is below --backoff "
                f"({self.backoff_base_s:g}s); raise --backoff-max or lower --backoff"
            )
        if self.max_consecutive_failures < 0:
            raise ConfigError(
                "--max-consecutive-failures must be >= 0 (0 never stops), got "
                f"{self.max_consecutive_failures}"
            )
        if self.max_harness_deaths < 1:
            raise ConfigError(
                "max_harness_deaths must be >= 1 (1: a reply the harness died on once is "
                f"recorded as wrong at once), got {self.max_harness_deaths}"
            )
        _seconds("--fsync-interval", self.sync_interval_s)


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
        failures: Instances of this call that ended in error (outcome ``error``).
        retry_after_capped: Waits a server asked for (``Retry-After``) that were cut
            to ``--backoff-max``.
        adapted_requests: Requests sent again at once because the server refused a
            parameter it names (see :class:`~closurebench.evaluate.requests.Requester`).
        adaptations: The settings changes those refusals caused (also in ``run.json``).
        harness_retried: Instances of this call handled again because a harness process
            had died while handling their reply (alone, before the others).
        harness_gave_up: Instances of this call recorded as ``wrong`` without handling
            their reply, because harness processes had died on it ``max_harness_deaths``
            times.
        aborted: Why the run stopped before every instance was done (a fatal provider
            error, or the circuit breaker), or None.
        run_info: What the mode records about how it executes (a program mode's
            sandbox: level, wall or ``unsafe``); also in ``run.json`` and the summary.
        summary: The summary written to ``summary.json``.
    """

    selected: int = 0
    skipped: int = 0
    evaluated: int = 0
    requests: int = 0
    retries: int = 0
    cache_hits: int = 0
    failures: int = 0
    retry_after_capped: int = 0
    adapted_requests: int = 0
    adaptations: list[dict[str, Any]] = field(default_factory=list)
    harness_retried: int = 0
    harness_gave_up: int = 0
    aborted: str | None = None
    run_info: dict[str, Any] = field(default_factory=dict)
    summary: RunSummary = field(default_factory=RunSummary)

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
            "retry_after_capped": self.retry_after_capped,
            "adapted_requests": self.adapted_requests,
            "harness_retried": self.harness_retried,
            "harness_gave_up": self.harness_gave_up,
        }
