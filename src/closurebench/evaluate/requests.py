"""One model request with the cache, the timeout and retries with backoff.

:class:`Requester` is the runner's ``complete`` function: a cache hit costs nothing; a
retryable :class:`~closurebench.evaluate.providers.base.ProviderError` (or a timeout) is
retried up to ``options.retries`` times after :func:`backoff_delay` seconds (seeded per
instance and attempt, so runs are reproducible), honouring a server's ``Retry-After``
up to ``options.backoff_max_s``: a longer wait (``Retry-After: 100000`` would be 28
hours) is cut to that maximum, counted in ``RunStats.retry_after_capped``, and said
once per run through the ``notice`` callback (one line on stderr in the CLI), so a
run never sleeps silently for longer than ``--backoff-max``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable

from closurebench.evaluate.cache import CompletionCache, request_key
from closurebench.evaluate.modes import Message
from closurebench.evaluate.options import RunOptions, RunStats
from closurebench.evaluate.providers.base import (
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
)

__all__ = ["Requester", "backoff_delay"]


def backoff_delay(
    attempt: int,
    *,
    base_s: float,
    max_s: float,
    rng: random.Random,
    retry_after: float | None = None,
) -> float:
    """Seconds to wait before retry number ``attempt + 1``.

    Exponential (``base_s * 2**attempt``, capped at ``max_s``) with "equal jitter"
    (uniform in the upper half); a server's ``Retry-After`` wins when it is longer,
    but never beyond ``max_s``.

    Args:
        attempt: 0 for the first retry.
        base_s: Base delay.
        max_s: Cap of the exponential part and of ``retry_after``.
        rng: Seeded random source for the jitter.
        retry_after: Seconds the server asked for, if any.

    Returns:
        The delay in seconds.

    Example:
        >>> backoff_delay(0, base_s=1, max_s=60, rng=random.Random(0), retry_after=30)
        30.0
        >>> backoff_delay(0, base_s=1, max_s=60, rng=random.Random(0), retry_after=100000)
        60.0
    """
    ceiling = min(max_s, base_s * (2**attempt))
    delay = ceiling / 2 + rng.random() * ceiling / 2
    if retry_after is not None and retry_after > delay:
        delay = min(float(retry_after), float(max_s))
    return delay


class Requester:
    """One request with the cache, the timeout and retries (the runner's ``complete``).

    Attributes:
        provider: The model backend.
        settings: The generation settings of every request.
        cache: The completion cache (consulted only when ``options.use_cache``).
        options: Retries, backoff and cache options.
        stats: Counters updated per request (``requests``, ``retries``, ``cache_hits``,
            ``retry_after_capped``).
        notice: Receives one-line messages for the user (the first capped
            ``Retry-After``).
    """

    def __init__(
        self,
        provider: Provider,
        settings: GenerationSettings,
        cache: CompletionCache,
        options: RunOptions,
        stats: RunStats,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        """Bind the request's collaborators.

        Args:
            provider: The model backend.
            settings: Generation settings.
            cache: The completion cache.
            options: Run options.
            stats: The run's counters.
            notice: Where one-line notices go (None: nowhere).
        """
        self.provider = provider
        self.settings = settings
        self.cache = cache
        self.options = options
        self.stats = stats
        self.notice = notice
        # A provider that bounds the time itself (a local model) is not cut off from outside.
        self.self_timed = bool(getattr(provider, "enforces_timeout", False))

    async def __call__(self, request_id: str, messages: list[Message]) -> Completion:
        """The completion of ``messages``: from the cache, or from the provider.

        Args:
            request_id: Names the request in the jitter seed (``instance#call``).
            messages: The chat messages.

        Returns:
            The completion.

        Raises:
            ProviderError: when the request fails and may not (or may no longer) be
                retried; after retries the message says how many attempts were made.
        """
        use_cache = self.options.use_cache
        key = request_key(self.settings, messages) if use_cache else ""
        if use_cache:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                return hit
        completion = await self._with_retries(request_id, messages)
        if use_cache:
            self.cache.put(key, completion)
        return completion

    async def _attempt(self, messages: list[Message]) -> Completion:
        """One provider call, bounded by the timeout; a timeout is a retryable error."""
        self.stats.requests += 1
        call = self.provider.complete(messages, self.settings)
        if self.self_timed:
            return await call
        try:
            return await asyncio.wait_for(call, timeout=self.settings.timeout_s + 0.5)
        except TimeoutError:
            raise ProviderError(
                f"request timed out after {self.settings.timeout_s:g}s; raise --timeout "
                "or check the server",
                retryable=True,
            ) from None

    async def _with_retries(self, request_id: str, messages: list[Message]) -> Completion:
        attempt = 0
        while True:
            try:
                return await self._attempt(messages)
            except ProviderError as exc:
                error = exc
            if not error.retryable or attempt >= self.options.retries:
                if attempt:
                    raise ProviderError(
                        f"{error} (after {attempt + 1} attempts)",
                        retryable=error.retryable,
                        status=error.status,
                        fatal=error.fatal,
                    ) from error
                raise error
            await asyncio.sleep(self.delay(request_id, attempt, error))
            attempt += 1
            self.stats.retries += 1

    def delay(self, request_id: str, attempt: int, error: ProviderError) -> float:
        """Seconds to wait before retrying ``request_id`` after ``error``.

        Args:
            request_id: The request's name (seeds the jitter with the run seed).
            attempt: 0 for the first retry.
            error: The failure (its ``retry_after_s`` is respected).

        Returns:
            The backoff delay (a ``Retry-After`` beyond ``backoff_max_s`` is cut to it,
            counted, and said once through ``notice``).
        """
        rng = random.Random(f"{self.options.seed}:{request_id}:{attempt}")
        raw = getattr(error, "retry_after_s", None)
        retry_after = float(raw) if isinstance(raw, int | float) else None
        max_s = self.options.backoff_max_s
        if retry_after is not None and retry_after > max_s:
            self.stats.retry_after_capped += 1
            if self.stats.retry_after_capped == 1 and self.notice is not None:
                self.notice(
                    f"the server asked to wait {retry_after:g}s before retrying "
                    f"(Retry-After); waiting at most {max_s:g}s (--backoff-max) instead"
                )
        return backoff_delay(
            attempt,
            base_s=self.options.backoff_base_s,
            max_s=max_s,
            rng=rng,
            retry_after=retry_after,
        )
