"""The evaluation runner: bounded concurrency, retries, cache, resume, progress.

:func:`run_eval` evaluates instances with a provider under a mode and writes
``RUN_DIR/results.jsonl`` (one flushed line per instance), ``RUN_DIR/cache.jsonl``
(completions keyed by request), ``RUN_DIR/run.json`` (the run's mode and settings)
and, at the end, ``RUN_DIR/summary.json``.

* Concurrency: ``concurrency`` workers share one queue.
* Timeout: each request is bounded by ``settings.timeout_s`` (by the runner, or by a
  provider with ``enforces_timeout``, such as a local model that stops generating).
* Retries: a retryable :class:`ProviderError` (or a timeout) is retried up to
  ``retries`` times with exponential backoff and jitter, seeded per instance and
  attempt; the error's ``retry_after_s`` (from a ``Retry-After`` header)
  is respected. A failure after that is recorded as outcome ``no_answer`` with the
  message in ``error``; the run never crashes on one instance.
* Resume: ids already in ``results.jsonl`` are skipped; a truncated last line from a
  killed run is repaired (see :func:`closurebench.evaluate.records.repair_results`).
  Earlier results are streamed, never held in memory; the cache keeps only an index.
  Each line is flushed as its instance finishes, so a killed process loses nothing;
  fsync is group-committed every ``sync_interval_s`` (a machine crash loses at most
  that window, which the resume re-runs).
* Cache: a request seen before (same settings and messages) costs nothing.

Example:
    >>> recs = [{"id": f"i{k}", "category": "a" if k % 2 else "b"} for k in range(6)]
    >>> [r["id"] for r in select_instances(recs, categories=["a"], limit=2)]
    ['i1', 'i3']
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError
from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S
from closurebench.evaluate.cache import CompletionCache, request_key
from closurebench.evaluate.modes import Mode, get_mode
from closurebench.evaluate.providers.base import (
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
)
from closurebench.evaluate.records import (
    ResultsFileError,
    ResultWriter,
    iter_results,
    make_result,
    repair_results,
    summarize,
    write_summary,
)

__all__ = ["RunOptions", "RunStats", "backoff_delay", "run_eval", "select_instances"]

RESULTS_FILE = "results.jsonl"
CACHE_FILE = "cache.jsonl"
SUMMARY_FILE = "summary.json"
RUN_FILE = "run.json"


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


def _stratum(record: dict[str, Any]) -> str:
    return str(record.get("category") or record.get("task") or "")


def select_instances(
    records: Sequence[dict[str, Any]],
    *,
    categories: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    sample: int | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Filter, sample and limit instances (in that order), keeping file order.

    Args:
        records: Dataset records.
        categories: Keep only these ClosureBench categories.
        tasks: Keep only these GRIT tasks.
        sample: Draw this many, stratified by category/task (round-robin over the
            strata in a seeded order, each stratum shuffled with the seed).
        limit: Keep the first ``limit`` after filtering and sampling.
        seed: Seed of the sample.

    Returns:
        The selected records.

    Raises:
        ConfigError: for a negative ``sample`` or ``limit``, or a filter matching nothing.
    """
    out = list(records)
    if categories:
        wanted = set(categories)
        out = [r for r in out if r.get("category") in wanted]
    if tasks:
        wanted = set(tasks)
        out = [r for r in out if r.get("task") in wanted]
    if (categories or tasks) and not out and records:
        raise ConfigError(
            f"no instance matches categories={list(categories or [])} "
            f"tasks={list(tasks or [])}; check the names against the dataset"
        )
    if sample is not None:
        if sample < 0:
            raise ConfigError(f"--sample must be >= 0, got {sample}")
        rng = random.Random(seed)
        groups: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(out):
            groups[_stratum(r)].append(i)
        order = sorted(groups)
        rng.shuffle(order)
        for key in order:
            rng.shuffle(groups[key])
        picked: list[int] = []
        depth = 0
        while len(picked) < min(sample, len(out)):
            for key in order:
                if depth < len(groups[key]) and len(picked) < sample:
                    picked.append(groups[key][depth])
            depth += 1
        out = [out[i] for i in sorted(picked)]
    if limit is not None:
        if limit < 0:
            raise ConfigError(f"--limit must be >= 0, got {limit}")
        out = out[:limit]
    return out


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
    (uniform in the upper half); a server's ``Retry-After`` wins when it is longer.

    Args:
        attempt: 0 for the first retry.
        base_s: Base delay.
        max_s: Cap of the exponential part.
        rng: Seeded random source for the jitter.
        retry_after: Seconds the server asked for, if any.

    Returns:
        The delay in seconds.
    """
    ceiling = min(max_s, base_s * (2**attempt))
    delay = ceiling / 2 + rng.random() * ceiling / 2
    if retry_after is not None and retry_after > delay:
        delay = float(retry_after)
    return delay


def _check_run_file(out: Path, meta: dict[str, Any]) -> None:
    path = out / RUN_FILE
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, OSError):
            old = None
        if isinstance(old, dict):
            for key in ("mode", "settings"):
                if old.get(key) != meta.get(key):
                    raise ResultsFileError(
                        f"{out} holds a run with {key}={old.get(key)!r}, not {meta.get(key)!r}; "
                        "resume with the same options or pass a new --out directory"
                    )
            return
    path.write_text(json.dumps(meta, sort_keys=True, indent=2) + "\n", encoding="utf-8")


class _Progress:
    """A rich progress bar (or nothing) with accuracy and token counters."""

    UPDATE_EVERY_S = 0.1

    def __init__(self, enabled: bool, total: int, done: Iterable[dict[str, Any]]) -> None:
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

    def advance(self, result: dict[str, Any]) -> None:
        self.count += 1
        self.new += 1
        self._unshown += 1
        self.strict += bool(result.get("strict"))
        self.tokens += int((result.get("usage") or {}).get("completion_tokens") or 0)
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


async def run_eval(
    instances: Sequence[dict[str, Any]],
    provider: Provider,
    mode: Mode | str,
    settings: GenerationSettings,
    out: str | Path,
    options: RunOptions | None = None,
) -> RunStats:
    """Evaluate ``instances`` and write the run directory ``out``.

    Args:
        instances: Selected dataset records (see :func:`select_instances`).
        provider: The model backend (not closed here).
        mode: A :class:`Mode` or its registry name.
        settings: Generation settings for every request.
        out: The run directory (created if needed; resumed if it has results).
        options: Concurrency, retries, cache and progress options.

    Returns:
        What the call did, with the summary.

    Raises:
        ResultsFileError: if ``out`` holds a run with another mode or settings.
        ConfigError: for an unknown mode name or a bad option.
    """
    opts = options or RunOptions()
    if opts.concurrency < 1:
        raise ConfigError(f"--concurrency must be >= 1, got {opts.concurrency}")
    if opts.retries < 0:
        raise ConfigError(f"--retries must be >= 0, got {opts.retries}")
    if opts.sync_interval_s < 0:
        raise ConfigError(f"--fsync-interval must be >= 0, got {opts.sync_interval_s}")
    the_mode = get_mode(mode) if isinstance(mode, str) else mode
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    settings_dict = settings.to_dict()
    comparable = {k: v for k, v in settings_dict.items() if k != "timeout_s"}
    _check_run_file(
        out_dir,
        {"mode": the_mode.name, "settings": comparable, "provider": getattr(provider, "name", "")},
    )

    results_path = out_dir / RESULTS_FILE
    # Streamed: memory holds ids and counters, never the earlier results themselves.
    done_ids = repair_results(
        results_path, drop=(lambda r: bool(r.get("error"))) if opts.retry_errors else None
    )
    selected_ids = {str(r["id"]) for r in instances}
    todo = [r for r in instances if str(r["id"]) not in done_ids]
    stats = RunStats(selected=len(instances), skipped=len(instances) - len(todo))

    cache_path = opts.cache_path if opts.cache_path is not None else out_dir / CACHE_FILE
    cache = CompletionCache(
        cache_path if opts.use_cache else None, sync_interval_s=opts.sync_interval_s
    )
    writer = ResultWriter(results_path, sync_interval_s=opts.sync_interval_s)
    progress = _Progress(
        opts.progress,
        len(instances),
        (r for r in iter_results(results_path) if str(r["id"]) in selected_ids)
        if opts.progress and done_ids
        else (),
    )
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for record in todo:
        queue.put_nowait(record)

    # A provider that bounds the time itself (a local model) is not cut off from outside.
    self_timed = bool(getattr(provider, "enforces_timeout", False))

    async def request(record_id: str, messages: list[dict[str, str]]) -> Completion:
        key = request_key(settings, messages)
        if opts.use_cache:
            hit = cache.get(key)
            if hit is not None:
                stats.cache_hits += 1
                return hit
        attempt = 0
        while True:
            stats.requests += 1
            try:
                call = provider.complete(messages, settings)
                completion = await (
                    call if self_timed else asyncio.wait_for(call, timeout=settings.timeout_s + 0.5)
                )
            except TimeoutError:
                error: ProviderError = ProviderError(
                    f"request timed out after {settings.timeout_s:g}s; raise --timeout "
                    "or check the server",
                    retryable=True,
                )
            except ProviderError as exc:
                error = exc
            else:
                if opts.use_cache:
                    cache.put(key, completion)
                return completion
            if not error.retryable or attempt >= opts.retries:
                if attempt:
                    raise ProviderError(
                        f"{error} (after {attempt + 1} attempts)",
                        retryable=error.retryable,
                        status=error.status,
                    ) from error
                raise error
            rng = random.Random(f"{opts.seed}:{record_id}:{attempt}")
            retry_after = getattr(error, "retry_after_s", None)
            await asyncio.sleep(
                backoff_delay(
                    attempt,
                    base_s=opts.backoff_base_s,
                    max_s=opts.backoff_max_s,
                    rng=rng,
                    retry_after=retry_after if isinstance(retry_after, int | float) else None,
                )
            )
            attempt += 1
            stats.retries += 1

    async def evaluate(record: dict[str, Any]) -> dict[str, Any]:
        rid = str(record["id"])
        calls = 0

        async def complete(messages: list[dict[str, str]]) -> Completion:
            nonlocal calls
            calls += 1
            return await request(f"{rid}#{calls}", messages)

        try:
            output = await the_mode.run(record, complete)
        except ProviderError as exc:
            stats.failures += 1
            return make_result(
                record,
                mode=the_mode.name,
                settings=settings_dict,
                requests=calls,
                error=f"ProviderError: {exc}",
            )
        except Exception as exc:  # a bug in a mode or scorer must not stop the run
            stats.failures += 1
            return make_result(
                record,
                mode=the_mode.name,
                settings=settings_dict,
                requests=calls,
                error=f"{type(exc).__name__}: {exc}",
            )
        return make_result(
            record,
            mode=the_mode.name,
            settings=settings_dict,
            score=output.score,
            response=output.response,
            reasoning=output.reasoning,
            prompt_tokens=output.prompt_tokens,
            completion_tokens=output.completion_tokens,
            latency_s=output.latency_s,
            finish_reason=output.finish_reason,
            requests=max(calls, output.requests if calls else 0),
            extra=output.extra,
        )

    async def worker() -> None:
        while True:
            try:
                record = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            result = await evaluate(record)
            writer.write(result)
            stats.evaluated += 1
            progress.advance(result)

    try:
        workers = [asyncio.create_task(worker()) for _ in range(min(opts.concurrency, len(todo)))]
        await asyncio.gather(*workers)
    finally:
        progress.close()
        writer.close()
        cache.close()

    summary = summarize(r for r in iter_results(results_path) if str(r["id"]) in selected_ids)
    summary["run"] = {
        "selected": stats.selected,
        "skipped": stats.skipped,
        "evaluated": stats.evaluated,
        "requests": stats.requests,
        "retries": stats.retries,
        "cache_hits": stats.cache_hits,
        "failures": stats.failures,
    }
    write_summary(out_dir / SUMMARY_FILE, summary)
    stats.summary = summary
    return stats
