"""One model request with the cache, the timeout and retries with backoff.

:class:`Requester` is the runner's ``complete`` function: a cache hit costs nothing; a
retryable :class:`~closurebench.evaluate.providers.base.ProviderError` (or a timeout) is
retried up to ``options.retries`` times after :func:`backoff_delay` seconds (seeded per
instance and attempt, so runs are reproducible), honouring a server's ``Retry-After``
up to ``options.backoff_max_s``: a longer wait (``Retry-After: 100000`` would be 28
hours) is cut to that maximum, counted in ``RunStats.retry_after_capped``, and said
once per run through the ``notice`` callback (one line on stderr in the CLI), so a
run never sleeps silently for longer than ``--backoff-max``.

A strict server (OpenAI's reasoning models) refuses some parameters with a 400 that
names them (``max_tokens``: use ``max_completion_tokens``; a ``temperature`` other than
its default). Such a refusal is not fatal: the requester stops sending that parameter
for the rest of the run (:meth:`GenerationSettings.without`: ``max_tokens`` becomes
``max_completion_tokens`` with the same limit, others are dropped), says so once
through ``notice``, reports it to ``on_adapt`` (the runner records it in ``run.json``)
and sends the request again at once. Each parameter is changed at most once, so a
server that refuses what it was sent after the change, or a parameter the request did
not send, stays a fatal error.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

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
            ``Retry-After``, each refused parameter).
        on_adapt: Receives each change of the settings after a refused parameter
            (``{"parameter", "action", "status", "message"}``).
        adaptations: The changes made so far (also those restored by :meth:`restore`).
    """

    def __init__(
        self,
        provider: Provider,
        settings: GenerationSettings,
        cache: CompletionCache,
        options: RunOptions,
        stats: RunStats,
        notice: Callable[[str], None] | None = None,
        on_adapt: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """Bind the request's collaborators.

        Args:
            provider: The model backend.
            settings: Generation settings (as the user set them).
            cache: The completion cache.
            options: Run options.
            stats: The run's counters.
            notice: Where one-line notices go (None: nowhere).
            on_adapt: Told each change of the settings after a refused parameter.
        """
        self.provider = provider
        self.settings = settings
        self.cache = cache
        self.options = options
        self.stats = stats
        self.notice = notice
        self.on_adapt = on_adapt
        self.adaptations: list[dict[str, Any]] = []
        self._refused: set[str] = set()
        # A provider that bounds the time itself (a local model) is not cut off from outside.
        self.self_timed = bool(getattr(provider, "enforces_timeout", False))
        # A provider over several servers (several --base-url: an EndpointRouter) says
        # through the run's notice when one goes down, and reports each server in
        # summary.json (``endpoints``, through ``stats.run_info``).
        bind_run = getattr(provider, "bind_run", None)
        if callable(bind_run):
            bind_run(stats, notice)

    async def __call__(
        self,
        request_id: str,
        messages: list[Message],
        stop: Sequence[str] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        """The completion of ``messages``: from the cache, or from the provider.

        Args:
            request_id: Names the request in the jitter seed (``instance#call``).
            messages: The chat messages.
            stop: Stop sequences of this request (an agent mode's ``</graph>``); part of
                the cache key. A server that refuses ``stop`` gets none from then on
                (recorded like any refused parameter); the mode cuts the reply itself.
            tools: Function-calling tool specs of this request (``agent-tools``); part
                of the cache key.
            max_tokens: This request's token limit (an agent call's remaining episode
                budget), sent in place of the run's; None: the run's. Part of the cache key.

        Returns:
            The completion.

        Raises:
            ProviderError: when the request fails and may not (or may no longer) be
                retried; after retries the message says how many attempts were made.
        """
        use_cache = self.options.use_cache
        if use_cache:
            hit = self.cache.get(request_key(self._settings_for(stop, tools, max_tokens), messages))
            if hit is not None:
                self.stats.cache_hits += 1
                return hit
        completion, sent = await self._with_retries(request_id, messages, stop, tools, max_tokens)
        if use_cache:  # keyed by the settings it was produced with
            self.cache.put(request_key(sent, messages), completion)
        return completion

    def _settings_for(
        self,
        stop: Sequence[str] | None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> GenerationSettings:
        """The run's settings with this request's stop sequences (unless refused), tools
        and token limit."""
        settings = self.settings.with_tools(tools).with_token_limit(max_tokens)
        return settings if "stop" in self._refused else settings.with_stop(stop)

    def _drop_stop(self, entry: Mapping[str, Any], *, announce: bool = True) -> None:
        """Stop sending ``stop`` for the rest of the run (the server refused it)."""
        if "stop" in self._refused:
            return
        self._refused.add("stop")
        action = "stop dropped (replies are cut at the stop sequences by the client)"
        record = {"parameter": "stop", "action": action, **dict(entry)}
        self.adaptations.append(record)
        if announce:
            if self.notice is not None:
                self.notice(
                    f"the server refused the parameter 'stop' for this model; {action} "
                    "for the rest of the run (recorded in run.json)"
                )
            if self.on_adapt is not None:
                self.on_adapt(record)

    def restore(self, adaptations: Iterable[Mapping[str, Any]]) -> None:
        """Re-apply the changes an earlier call of the same run made (from ``run.json``).

        Args:
            adaptations: Earlier ``on_adapt`` entries (their ``parameter`` is read).
        """
        for entry in adaptations:
            param = entry.get("parameter")
            if param == "stop":
                self._drop_stop(entry, announce=False)
            elif isinstance(param, str):
                self._adapt(param, self.settings, entry, announce=False)

    def _adapt(
        self,
        param: str,
        sent: GenerationSettings,
        entry: Mapping[str, Any],
        *,
        announce: bool = True,
    ) -> bool:
        """Stop sending ``param`` (refused by the server); whether to send again.

        True when the request that was refused sent ``param`` and the settings no
        longer do (changed now, or already by a concurrent request).
        """
        if param not in sent.request_fields():
            return False  # the server refused something this request did not send
        if param not in self.settings.request_fields():
            return True  # another request has already changed it
        if param in self._refused:
            return False  # changed once already: the server still refuses it
        renamed_back = {"max_tokens": "max_completion_tokens"}.get(param, "max_tokens")
        changed = self.settings.without(param, rename=renamed_back not in self._refused)
        if changed is None:
            return False
        self.settings, action = changed
        self._refused.add(param)
        record = {"parameter": param, "action": action, **dict(entry)}
        self.adaptations.append(record)
        if announce:
            if self.notice is not None:
                self.notice(
                    f"the server refused the parameter {param!r} for this model; {action} "
                    "for the rest of the run (recorded in run.json)"
                )
            if self.on_adapt is not None:
                self.on_adapt(record)
        return True

    async def _attempt(self, messages: list[Message], settings: GenerationSettings) -> Completion:
        """One provider call, bounded by the timeout; a timeout is a retryable error."""
        self.stats.requests += 1
        call = self.provider.complete(messages, settings)
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

    async def _with_retries(
        self,
        request_id: str,
        messages: list[Message],
        stop: Sequence[str] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> tuple[Completion, GenerationSettings]:
        """The completion and the settings it was produced with."""
        attempt = 0
        while True:
            sent = self._settings_for(stop, tools, max_tokens)
            try:
                return await self._attempt(messages, sent), sent
            except ProviderError as exc:
                error = exc
            if error.unsupported == "stop" and sent.stop is not None:
                self._drop_stop({"status": error.status, "message": str(error)[:300]})
                self.stats.adapted_requests += 1
                continue  # the same request without stop sequences, at once
            if error.unsupported is not None:
                entry = {"status": error.status, "message": str(error)[:300]}
                if self._adapt(error.unsupported, sent, entry):
                    self.stats.adapted_requests += 1
                    continue  # the same request without the refused parameter, at once
            if not error.retryable or attempt >= self.options.retries:
                if attempt:
                    raise ProviderError(
                        f"{error} (after {attempt + 1} attempts)",
                        retryable=error.retryable,
                        status=error.status,
                        fatal=error.fatal,
                        unsupported=error.unsupported,
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
