"""Spread a run's requests over several servers (``closurebench eval --base-url A --base-url B``).

:class:`EndpointRouter` is a provider over several providers of one kind, one per
endpoint (an :class:`~closurebench.evaluate.providers.openai_compat.OpenAICompatProvider`
per ``--base-url``; with ``--workers N``, a process pool of N per endpoint). Every
endpoint is expected to serve the same model with the same settings: a result does not
record which endpoint answered, the cache key and the run's identity do not name the
endpoints, so a run resumes with another ``--base-url`` list and writes the same
results file.

Routing. A request goes to the usable endpoint with the fewest requests in flight; ties
go round robin (the first tied endpoint at or after the one after the last chosen), so
at concurrency 1 the endpoints take turns.

Failures, per endpoint (:func:`fault_of` sorts them):

* ``down``: a retryable failure of the server itself (no connection, a timeout, a 5xx,
  a worker process that died) counts against the endpoint; after ``down_after`` (3) in
  a row it is *marked down* for a cool-down (``cooldown_s``, 30 s), said in one line
  (through the run's notice: stderr, above the progress bar). After the cool-down it
  takes one request at a time (a probe): an answer brings it back (one line), a failure
  sets it down again for twice as long (at most ``max_cooldown_s``, 300 s), silently.
* ``busy``: a retryable "slow down" (429, 408, 409, 425) is not held against the
  endpoint; the request goes on to another one.
* ``refused``: a refusal of the endpoint's configuration (401 key, 403 permission, 404
  model or path not served there) sets that endpoint aside for the rest of the run (one
  line): the other endpoints may serve the model. Only when every endpoint has refused
  is the refusal fatal (the run stops at once, exit 3), as it is with one server.
* ``request``: any other error (a 400 on the request's shape, a prompt too long for
  the context, a malformed body, a refused parameter) is about the request, not the
  endpoint: it is raised as is, exactly as with one server.

A request that fails goes on at once (no backoff) to an endpoint it has not tried
yet in this call: each call tries each endpoint at most once. When none is left the
call raises the last failure, and the runner's retries (with their backoff) apply as
with one server. When every endpoint is down, a request goes to the one whose cool-down
ends first: the run then behaves as with one dead server (the instance ends in error
after its retries; ``--max-consecutive-failures`` of those in a row stop the run, exit
3), and the error says that every endpoint is down.

Reported: the runner's :class:`~closurebench.evaluate.requests.Requester` calls
:meth:`EndpointRouter.bind_run`, which puts :attr:`EndpointRouter.report` in
``summary.json`` as ``endpoints``: per endpoint its ``url``, the HTTP ``requests`` sent
(failed-over attempts included, so their sum can exceed the run's ``requests``), how
many were answered (``ok``) or ``failed``, how often it was ``marked_down``, its
``state`` at the end (``up``, ``down`` or ``refused``) and its ``last_error``.

Example:
    >>> import asyncio
    >>> from closurebench.evaluate.providers import ScriptedProvider
    >>> router = EndpointRouter([ScriptedProvider(["a"] * 3), ScriptedProvider(["b"] * 3)],
    ...                         ["http://a/v1", "http://b/v1"])
    >>> async def three():
    ...     s = GenerationSettings(model="m")
    ...     return [(await router.complete([], s)).text for _ in range(3)]
    >>> asyncio.run(three())
    ['a', 'b', 'a']
    >>> [e["requests"] for e in router.report]
    [2, 1]
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from closurebench.errors import ConfigError, shorten
from closurebench.evaluate.providers.base import (
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
)

if TYPE_CHECKING:
    from closurebench.evaluate.options import RunStats

__all__ = ["DOWN_AFTER", "EndpointRouter", "Fault", "fault_of"]

#: Failures of the server in a row after which an endpoint is marked down.
DOWN_AFTER = 3
#: The first cool-down of an endpoint marked down, in seconds (doubled per failed probe).
COOLDOWN_S = 30.0
#: The longest cool-down, in seconds.
MAX_COOLDOWN_S = 300.0

#: How a failed request concerns its endpoint (see the module docstring).
Fault = Literal["down", "busy", "refused", "request"]

_BUSY_STATUS = frozenset({408, 409, 425, 429})
_REFUSED_STATUS = frozenset({401, 403, 404})


def fault_of(error: ProviderError) -> Fault:
    """How a provider's error concerns the endpoint that raised it.

    Args:
        error: The error of one request to one endpoint.

    Returns:
        ``"down"`` (the server failed: counts towards marking it down), ``"busy"`` (a
        retryable "slow down": try another endpoint), ``"refused"`` (the endpoint's
        configuration refuses the run: set it aside) or ``"request"`` (about the request
        itself: raised as is).

    Example:
        >>> fault_of(ProviderError("could not reach", retryable=True))
        'down'
        >>> fault_of(ProviderError("server error", retryable=True, status=503))
        'down'
        >>> fault_of(ProviderError("rate limited", retryable=True, status=429))
        'busy'
        >>> fault_of(ProviderError("model not served", status=404))
        'refused'
        >>> fault_of(ProviderError("bad request", status=400))
        'request'
    """
    if error.retryable:
        return "busy" if error.status in _BUSY_STATUS else "down"
    if error.fatal and error.status in _REFUSED_STATUS and error.unsupported is None:
        return "refused"
    return "request"


def _stderr_notice(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


@dataclass
class _Endpoint:
    """One endpoint's provider and state."""

    index: int
    url: str
    provider: Provider
    in_flight: int = 0
    consecutive: int = 0
    #: None: up; a time: down until then (then probed); inf: set aside for the run.
    down_until: float | None = None
    cooldown_s: float = 0.0
    reason: str | None = None
    counts: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> str:
        if self.down_until is None:
            return "up"
        return "refused" if math.isinf(self.down_until) else "down"

    def fresh_counts(self) -> None:
        self.counts = {
            "url": self.url,
            "requests": 0,
            "ok": 0,
            "failed": 0,
            "marked_down": 0,
            "state": self.state,
            "last_error": self.reason,
        }


class EndpointRouter:
    """A provider that spreads requests over several endpoints (least in flight first).

    Attributes:
        name: The endpoints' provider name (recorded with results, as with one).
        urls: The endpoints, in the order given.
        report: Per endpoint, what this run sent and got (``summary.json``
            ``endpoints``; see the module docstring).
    """

    def __init__(
        self,
        providers: Sequence[Provider],
        urls: Sequence[str] | None = None,
        *,
        down_after: int = DOWN_AFTER,
        cooldown_s: float = COOLDOWN_S,
        max_cooldown_s: float = MAX_COOLDOWN_S,
        notice: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Wrap one provider per endpoint.

        Args:
            providers: One provider per endpoint, all of one kind.
            urls: Their URLs, for messages and the report (default: each provider's
                ``base_url``).
            down_after: Failures of a server in a row that mark it down (>= 1).
            cooldown_s: The first cool-down of an endpoint marked down, in seconds.
            max_cooldown_s: The longest cool-down, in seconds.
            notice: Where the one-line messages go until a run binds its own
                (:meth:`bind_run`; default: stderr).
            clock: The monotonic clock of the cool-downs (a test's fake one).

        Raises:
            ConfigError: for no provider, URLs that do not match them, or a bad limit.
        """
        if not providers:
            raise ConfigError("EndpointRouter needs at least one provider")
        names = [str(u) for u in urls] if urls is not None else None
        if names is None:
            names = [str(getattr(p, "base_url", f"endpoint {i}")) for i, p in enumerate(providers)]
        if len(names) != len(providers):
            raise ConfigError(f"{len(providers)} providers but {len(names)} URLs")
        if down_after < 1 or not 0 < cooldown_s <= max_cooldown_s:
            raise ConfigError(
                "EndpointRouter needs down_after >= 1 and 0 < cooldown_s <= max_cooldown_s"
            )
        self.name = str(getattr(providers[0], "name", "openai"))
        self.urls = tuple(names)
        self.down_after = down_after
        self.cooldown_s = cooldown_s
        self.max_cooldown_s = max_cooldown_s
        self._notice = notice or _stderr_notice
        self._clock = clock
        self._endpoints = [
            _Endpoint(i, u, p) for i, (u, p) in enumerate(zip(names, providers, strict=True))
        ]
        for e in self._endpoints:
            e.fresh_counts()
        self._cursor = 0
        self._bound = False

    def __repr__(self) -> str:
        return f"EndpointRouter(urls={list(self.urls)!r})"

    @property
    def report(self) -> list[dict[str, Any]]:
        """Per endpoint: url, requests, ok, failed, marked_down, state, last_error."""
        return [e.counts for e in self._endpoints]

    def bind_run(self, stats: RunStats, notice: Callable[[str], None] | None) -> None:
        """Report into a run: ``stats.run_info["endpoints"]`` (``summary.json``) and its notices.

        Called by the runner's :class:`~closurebench.evaluate.requests.Requester`. The
        counts start over for each run after the first (which keeps what the check
        before it found: an endpoint unreachable at the start); an endpoint's state
        carries over.

        Args:
            stats: The run's counters; ``run_info`` gets ``endpoints`` (the live
                :attr:`report`, summarised when the run ends).
            notice: The run's one-line notices (None: keep the current ones).
        """
        if self._bound:
            for e in self._endpoints:
                e.fresh_counts()
        self._bound = True
        stats.run_info = {**stats.run_info, "endpoints": self.report}
        if notice is not None:
            self._notice = notice

    # ------------------------------------------------------------------ choosing

    def _usable(self, e: _Endpoint, now: float) -> bool:
        """Up, or past its cool-down with no probe in flight."""
        return e.down_until is None or (e.down_until <= now and e.in_flight == 0)

    def _pick(self, tried: set[int]) -> _Endpoint | None:
        """The usable untried endpoint with the fewest in flight (ties: round robin)."""
        now = self._clock()
        n = len(self._endpoints)
        best: _Endpoint | None = None
        best_key = (0, 0)
        for e in self._endpoints:
            if e.index in tried or not self._usable(e, now):
                continue
            key = (e.in_flight, (e.index - self._cursor) % n)
            if best is None or key < best_key:
                best, best_key = e, key
        if best is not None:
            self._cursor = (best.index + 1) % n
        return best

    def _soonest_back(self, tried: set[int]) -> _Endpoint | None:
        """The untried endpoint in a cool-down that ends first (every one is down)."""
        waiting = [
            e
            for e in self._endpoints
            if e.index not in tried and e.down_until is not None and not math.isinf(e.down_until)
        ]
        return min(waiting, key=lambda e: (e.down_until or 0.0, e.index), default=None)

    def _all_down(self) -> bool:
        return all(e.down_until is not None for e in self._endpoints)

    # ------------------------------------------------------------------ state

    def mark_down(self, index: int, reason: str) -> None:
        """Set endpoint ``index`` down for a cool-down (e.g. unreachable at the start).

        Args:
            index: The endpoint's position in :attr:`urls`.
            reason: Why, for the notice and the report.
        """
        self._down(self._endpoints[index], reason, failures=None)

    def _down(self, e: _Endpoint, reason: str, *, failures: int | None) -> None:
        e.cooldown_s = self.cooldown_s
        e.down_until = self._clock() + e.cooldown_s
        e.reason = reason
        e.counts.update(marked_down=e.counts["marked_down"] + 1, state=e.state)
        after = f" after {failures} failed requests in a row" if failures else ""
        self._notice(
            f"endpoint {e.url} marked down for {e.cooldown_s:g}s{after} ({shorten(reason, 200)}); "
            + self._where_now()
        )

    def _where_now(self) -> str:
        if not self._all_down():
            return "its requests go to the other endpoints"
        return (
            "every endpoint is now down: requests fail as with one dead server (retried, then "
            "--max-consecutive-failures instances in a row in error stop the run)"
        )

    def _set_aside(self, e: _Endpoint, error: ProviderError) -> None:
        if e.down_until is not None and math.isinf(e.down_until):
            return  # a concurrent request already did
        e.down_until = math.inf
        e.reason = str(error)
        e.counts.update(marked_down=e.counts["marked_down"] + 1, state=e.state)
        if all(x.state == "refused" for x in self._endpoints):
            return  # the refusal is fatal: the run's error says it
        self._notice(
            f"endpoint {e.url} is set aside for the rest of the run ({shorten(error, 200)}); "
            + self._where_now()
        )

    def _failed(self, e: _Endpoint, error: ProviderError, probe: bool) -> None:
        """Count a failure of the server; mark it down after too many in a row."""
        e.consecutive += 1
        if e.down_until is not None:
            if probe and not math.isinf(e.down_until):  # still down: wait longer
                e.cooldown_s = min(self.max_cooldown_s, 2 * e.cooldown_s)
                e.down_until = self._clock() + e.cooldown_s
                e.reason = str(error)
            return
        if e.consecutive >= self.down_after:
            self._down(e, str(error), failures=e.consecutive)

    def _answered(self, e: _Endpoint, probe: bool) -> None:
        e.counts["ok"] += 1
        if e.down_until is None:
            e.consecutive = 0
        elif probe and not math.isinf(e.down_until):
            e.down_until, e.consecutive, e.reason = None, 0, None
            e.counts.update(state=e.state)
            self._notice(f"endpoint {e.url} answers again; it takes requests again")

    # ------------------------------------------------------------------ requests

    async def _send(
        self, e: _Endpoint, messages: list[dict[str, Any]], settings: GenerationSettings
    ) -> Completion:
        probe = e.down_until is not None
        e.in_flight += 1
        e.counts["requests"] += 1
        try:
            completion = await e.provider.complete(messages, settings)
        except ProviderError as exc:
            e.counts["failed"] += 1
            e.counts["last_error"] = shorten(exc, 300)
            fault = fault_of(exc)
            if fault == "down":
                self._failed(e, exc, probe)
            elif fault == "refused":
                self._set_aside(e, exc)
            raise
        finally:
            e.in_flight -= 1
        self._answered(e, probe)
        return completion

    async def complete(
        self, messages: list[dict[str, Any]], settings: GenerationSettings
    ) -> Completion:
        """Send one request to the least-loaded endpoint, failing over to the others.

        Args:
            messages: Chat messages.
            settings: Generation settings.

        Returns:
            The first endpoint's completion.

        Raises:
            ProviderError: a ``request`` error as the endpoint raised it; when every
                endpoint was tried (or is down), the last retryable failure (its
                message then says that every endpoint is down, when they are); when
                every endpoint has refused the run's configuration, that refusal
                (fatal).
        """
        tried: set[int] = set()
        failure: ProviderError | None = None
        refusal: ProviderError | None = None
        while True:
            e = self._pick(tried)
            if e is None and failure is None:
                e = self._soonest_back(tried)  # nothing is up: probe early
            if e is None:
                if failure is not None:
                    raise self._exhausted(failure)
                raise self._refused(refusal)
            tried.add(e.index)
            try:
                return await self._send(e, messages, settings)
            except ProviderError as exc:
                fault = fault_of(exc)
                if fault == "request":
                    raise
                if fault == "refused":
                    refusal = exc
                else:
                    failure = exc

    def _exhausted(self, failure: ProviderError) -> ProviderError:
        if not self._all_down():
            return failure
        return ProviderError(
            f"{failure}; every endpoint is down ({', '.join(self.urls)})",
            retryable=failure.retryable,
            status=failure.status,
            retry_after_s=failure.retry_after_s,
            fatal=failure.fatal,
            unsupported=failure.unsupported,
        )

    def _refused(self, refusal: ProviderError | None) -> ProviderError:
        reasons = "; ".join(f"{e.url}: {shorten(e.reason or '?', 200)}" for e in self._endpoints)
        if refusal is None:
            return ProviderError(
                f"every endpoint has been set aside ({reasons}); fix --model, the key or "
                "--base-url",
                retryable=False,
                fatal=True,
            )
        return ProviderError(
            f"{refusal} (every --base-url refused: {len(self.urls)} of {len(self.urls)})",
            retryable=False,
            status=refusal.status,
            fatal=True,
        )

    async def aclose(self) -> None:
        """Close every endpoint's provider."""
        await asyncio.gather(*(e.provider.aclose() for e in self._endpoints))
