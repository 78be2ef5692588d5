"""Stopping a run that cannot produce model results: fatal errors and the circuit breaker.

Two kinds of failure end a run early, so that a dead or misconfigured server costs
seconds, not hours, and is never scored as a 0 % model:

* a **fatal** :class:`~closurebench.evaluate.providers.base.ProviderError` (a
  non-retryable rejection that every other request would get too: a wrong key
  (401), permission (403), model or path (404), or request shape (400, 422)) stops
  the run at the first occurrence, with the server's message;
* the **circuit breaker** (:class:`CircuitBreaker`) stops it when ``limit``
  instances in a row (in the order they finish) ended in error after their retries:
  the server is down, overloaded or answering garbage.

Either way :class:`RunAborted` is raised after the partial ``summary.json`` is written
(``complete: false`` and the reason under ``aborted``). Results already written stay;
the instance that hit a fatal error and those still in flight are not recorded, so
resuming (the same command) runs them, and re-runs the errored ones.

Example:
    >>> b = CircuitBreaker(limit=2)
    >>> b.record(failed=True), b.record(failed=False), b.record(failed=True)
    (False, False, False)
    >>> b.record(failed=True)
    True
    >>> CircuitBreaker(limit=0).record(failed=True)  # 0: never trips
    False
"""

from __future__ import annotations

from closurebench.errors import ClosureBenchError
from closurebench.schema.summary import RunSummary

__all__ = ["CircuitBreaker", "RunAborted"]


class RunAborted(ClosureBenchError, RuntimeError):
    """A run stopped before every instance was done; the message says why and what to do.

    Attributes:
        reason: The one-line cause (also recorded as ``aborted`` in ``summary.json``).
        summary: The partial summary written, once the runner has written it (None
            before).
    """

    def __init__(self, message: str, *, reason: str) -> None:
        """Create the error.

        Args:
            message: What happened and how to go on.
            reason: The short cause.
        """
        super().__init__(message)
        self.reason = reason
        self.summary: RunSummary | None = None


class CircuitBreaker:
    """Counts consecutive failed instances; trips at ``limit`` (0: never).

    Attributes:
        limit: Consecutive failures that trip it.
        consecutive: Failures since the last success.
        last_error: The message of the latest failure.
    """

    def __init__(self, limit: int) -> None:
        """Create a closed breaker.

        Args:
            limit: Consecutive failed instances that trip it (0 disables it).
        """
        self.limit = limit
        self.consecutive = 0
        self.last_error: str | None = None

    def record(self, *, failed: bool, error: str | None = None) -> bool:
        """Count one finished instance.

        Args:
            failed: Whether it ended in error.
            error: Its error message.

        Returns:
            True when this failure trips the breaker.
        """
        if not failed:
            self.consecutive = 0
            return False
        self.consecutive += 1
        self.last_error = error
        return bool(self.limit) and self.consecutive >= self.limit

    def error(self) -> RunAborted:
        """The error of a tripped breaker (names the count, the last error and the fix)."""
        reason = f"{self.consecutive} instances in a row ended in error (last: {self.last_error})"
        return RunAborted(
            f"stopped: {reason}. The server seems down or overloaded: check it, then run "
            "the same command to resume (errored instances are retried); "
            "--max-consecutive-failures sets the limit (0: never stop)",
            reason=reason,
        )
