"""The evaluation runner: plan, schedule, request with retries, score, record.

:func:`run_eval` evaluates instances with a provider under a mode and writes
``RUN_DIR/results.jsonl`` (one flushed line per instance), ``RUN_DIR/cache.jsonl``
(completions keyed by request), ``RUN_DIR/run.json`` (the run's mode and settings)
and, at the end, ``RUN_DIR/summary.json``. It is a short composition of named steps:

* **plan** (:func:`plan_run`): check ``run.json``, repair the results file, skip the
  ids already done (resume), and list the instances left to do;
* **schedule** (:func:`schedule`): ``concurrency`` workers share one queue;
* **request with retries** (:class:`Requester`): cache lookup, a timeout of
  ``settings.timeout_s`` (by the runner, or by a provider with ``enforces_timeout``,
  such as a local model that stops generating), and up to ``retries`` retries of a
  retryable :class:`ProviderError` (or a timeout) with exponential backoff and jitter,
  seeded per instance and attempt; the error's ``retry_after_s`` (a ``Retry-After``
  header) is respected;
* **score** (:class:`InstanceEvaluator`): the mode's per-instance loop
  (:meth:`Mode.run`) turns requests into a score; a failure after the retries (or a
  bug in a mode) becomes outcome ``no_answer`` with the message in ``error``, so the run
  never crashes on one instance;
* **record** (:class:`Recorder`): build the
  :class:`~closurebench.schema.ResultRecord`, append and flush its line, advance the
  progress bar. Earlier results are streamed, never held in memory; fsync is
  group-committed every ``sync_interval_s`` (a machine crash loses at most that
  window, which the resume re-runs).

The steps live in their own modules where they stand alone:
:mod:`~closurebench.evaluate.options` (:class:`RunOptions`, :class:`RunStats`),
:mod:`~closurebench.evaluate.selection` (:func:`select_instances`),
:mod:`~closurebench.evaluate.requests` (:class:`Requester`, :func:`backoff_delay`) and
:mod:`~closurebench.evaluate.progress`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from closurebench.evaluate.cache import CompletionCache
from closurebench.evaluate.modes import AnyInstance, Message, Mode, get_mode
from closurebench.evaluate.options import RunOptions, RunStats
from closurebench.evaluate.progress import ProgressBar
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
from closurebench.evaluate.requests import Requester, backoff_delay
from closurebench.evaluate.selection import select_instances
from closurebench.schema import ResultRecord

__all__ = [
    "InstanceEvaluator",
    "Recorder",
    "Requester",
    "RunOptions",
    "RunPlan",
    "RunStats",
    "backoff_delay",
    "plan_run",
    "run_eval",
    "schedule",
    "select_instances",
]

RESULTS_FILE = "results.jsonl"
CACHE_FILE = "cache.jsonl"
SUMMARY_FILE = "summary.json"
RUN_FILE = "run.json"


@dataclass
class RunPlan:
    """What a run has left to do, after resume (see :func:`plan_run`).

    Attributes:
        out_dir: The run directory.
        todo: The instances still to evaluate, in the given order.
        selected_ids: Ids of every selected instance (done or not).
        done_ids: Ids already in the results file.
        stats: The run's counters (``selected`` and ``skipped`` filled in).
    """

    out_dir: Path
    todo: list[AnyInstance]
    selected_ids: set[str]
    done_ids: set[str]
    stats: RunStats

    @property
    def results_path(self) -> Path:
        """``RUN_DIR/results.jsonl``."""
        return self.out_dir / RESULTS_FILE

    def selected_results(self) -> Iterable[dict[str, Any]]:
        """Stream the results file's records of the selected instances (first per id)."""
        return (r for r in iter_results(self.results_path) if str(r["id"]) in self.selected_ids)


def _check_run_file(out: Path, meta: dict[str, Any]) -> None:
    """Write ``run.json``, or check that the run there has the same mode and settings."""
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


def plan_run(
    instances: Sequence[AnyInstance],
    out: str | Path,
    *,
    mode: str,
    settings: GenerationSettings,
    provider_name: str,
    retry_errors: bool = False,
) -> RunPlan:
    """Prepare the run directory and list what is left to do.

    Creates ``out``, checks (or writes) ``run.json``, repairs ``results.jsonl``
    (dropping failed results when ``retry_errors``) and skips the ids already done.

    Args:
        instances: The selected instances.
        out: The run directory.
        mode: The mode name.
        settings: The generation settings.
        provider_name: Recorded in ``run.json``.
        retry_errors: Re-run instances whose earlier result has an error.

    Returns:
        The plan.

    Raises:
        ResultsFileError: if ``out`` holds a run with another mode or settings.
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    comparable = {k: v for k, v in settings.to_dict().items() if k != "timeout_s"}
    _check_run_file(out_dir, {"mode": mode, "settings": comparable, "provider": provider_name})
    # Streamed: memory holds ids and counters, never the earlier results themselves.
    done_ids = repair_results(
        out_dir / RESULTS_FILE, drop=(lambda r: bool(r.get("error"))) if retry_errors else None
    )
    todo = [r for r in instances if str(r.id) not in done_ids]
    stats = RunStats(selected=len(instances), skipped=len(instances) - len(todo))
    return RunPlan(out_dir, todo, {str(r.id) for r in instances}, done_ids, stats)


# ------------------------------------------------------------------- schedule


_T = TypeVar("_T")


async def schedule(
    items: Sequence[_T], work: Callable[[_T], Awaitable[None]], concurrency: int
) -> None:
    """Run ``work`` on every item with at most ``concurrency`` running at once.

    Workers share one queue, so a slow item holds up only its own worker.

    Args:
        items: The items, taken in order.
        work: The coroutine function applied to each item.
        concurrency: Number of workers.

    Example:
        >>> seen = []
        >>> async def work(x):
        ...     seen.append(x)
        >>> asyncio.run(schedule([1, 2, 3], work, concurrency=2)); sorted(seen)
        [1, 2, 3]
    """
    queue: asyncio.Queue[_T] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)

    async def worker() -> None:
        while True:
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await work(item)

    workers = [asyncio.create_task(worker()) for _ in range(min(concurrency, len(items)))]
    await asyncio.gather(*workers)


# ------------------------------------------------------- request with retries


# ---------------------------------------------------------------------- score


class InstanceEvaluator:
    """Score one instance: run the mode's per-instance loop and build its result.

    Attributes:
        mode: The evaluation mode.
        request: The runner's request function.
        settings: Generation settings as a dict (recorded in each result).
        stats: The run's counters (``failures`` is updated here).
    """

    def __init__(
        self,
        mode: Mode,
        request: Callable[[str, list[Message]], Awaitable[Completion]],
        settings: Mapping[str, Any],
        stats: RunStats,
    ) -> None:
        """Bind the evaluator.

        Args:
            mode: The mode.
            request: ``(request id, messages) -> completion`` (a :class:`Requester`).
            settings: Generation settings as a dict.
            stats: The run's counters.
        """
        self.mode = mode
        self.request = request
        self.settings = dict(settings)
        self.stats = stats

    async def __call__(self, record: AnyInstance) -> ResultRecord:
        """The result of ``record`` (a failed instance gets ``no_answer`` and its error).

        Args:
            record: The instance.

        Returns:
            Its result record.
        """
        rid = str(record.id)
        calls = 0

        async def complete(messages: list[Message]) -> Completion:
            nonlocal calls
            calls += 1
            return await self.request(f"{rid}#{calls}", messages)

        try:
            output = await self.mode.run(record, complete)
        except Exception as exc:  # a failed request, or a bug in a mode or scorer
            self.stats.failures += 1
            name = "ProviderError" if isinstance(exc, ProviderError) else type(exc).__name__
            return make_result(
                record,
                mode=self.mode.name,
                settings=self.settings,
                requests=calls,
                error=f"{name}: {exc}",
            )
        return make_result(
            record,
            mode=self.mode.name,
            settings=self.settings,
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


# --------------------------------------------------------------------- record


class Recorder:
    """Append each result to ``results.jsonl`` (one flushed line), count it, show it.

    Attributes:
        writer: The results file writer.
        progress: The progress display.
        stats: The run's counters (``evaluated`` is updated here).
    """

    def __init__(self, writer: ResultWriter, progress: ProgressBar, stats: RunStats) -> None:
        """Bind the recorder.

        Args:
            writer: The results file writer.
            progress: The progress display.
            stats: The run's counters.
        """
        self.writer = writer
        self.progress = progress
        self.stats = stats

    def __call__(self, result: ResultRecord) -> None:
        """Record one result.

        Args:
            result: The instance's result record.
        """
        self.writer.write(result)
        self.stats.evaluated += 1
        self.progress.advance(result)


def _finish(plan: RunPlan) -> dict[str, Any]:
    """Summarise the selected instances' results into ``summary.json``; return it."""
    summary = summarize(plan.selected_results())
    summary["run"] = plan.stats.counters()
    write_summary(plan.out_dir / SUMMARY_FILE, summary)
    plan.stats.summary = summary
    return summary


async def run_eval(
    instances: Sequence[AnyInstance],
    provider: Provider,
    mode: Mode | str,
    settings: GenerationSettings,
    out: str | Path,
    options: RunOptions | None = None,
) -> RunStats:
    """Evaluate ``instances`` and write the run directory ``out``.

    Args:
        instances: Selected typed instance records (see :func:`select_instances`).
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
    opts.check()
    the_mode = get_mode(mode) if isinstance(mode, str) else mode
    plan = plan_run(
        instances,
        out,
        mode=the_mode.name,
        settings=settings,
        provider_name=str(getattr(provider, "name", "")),
        retry_errors=opts.retry_errors,
    )
    stats = plan.stats
    cache_path = opts.cache_path if opts.cache_path is not None else plan.out_dir / CACHE_FILE
    cache = CompletionCache(
        cache_path if opts.use_cache else None, sync_interval_s=opts.sync_interval_s
    )
    writer = ResultWriter(plan.results_path, sync_interval_s=opts.sync_interval_s)
    progress = ProgressBar(
        opts.progress,
        len(instances),
        plan.selected_results() if opts.progress and plan.done_ids else (),
    )
    evaluate = InstanceEvaluator(
        the_mode, Requester(provider, settings, cache, opts, stats), settings.to_dict(), stats
    )
    record = Recorder(writer, progress, stats)

    async def work(instance: AnyInstance) -> None:
        record(await evaluate(instance))

    try:
        await schedule(plan.todo, work, opts.concurrency)
    finally:
        progress.close()
        writer.close()
        cache.close()
    _finish(plan)
    return stats
