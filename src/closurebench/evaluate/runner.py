"""The evaluation runner: lock, plan, schedule, request with retries, score, record.

:func:`run_eval` evaluates instances with a provider under a mode and writes
``RUN_DIR/results.jsonl`` (one flushed line per instance), ``RUN_DIR/cache.jsonl``
(completions keyed by request), ``RUN_DIR/run.json`` (the run's identity: dataset
sha256, model, provider, mode, scoring-relevant settings) and ``RUN_DIR/summary.json``
(also when the run stops early). It is a short composition of named steps:

* **lock** (:class:`~closurebench.evaluate.rundir.RunLock`): an exclusive ``flock`` on
  ``RUN_DIR/.lock`` for the whole run; a second run on the same folder refuses at once;
* **plan** (:func:`plan_run`): check ``run.json`` against this run (a different
  dataset, model, provider, mode or settings is refused, naming each difference;
  ``force_new`` starts over instead), repair the results file, drop the results that
  ended in error so they run again (unless ``keep_errors``), skip the ids already
  done (resume), and list the instances left to do;
* **schedule** (:func:`schedule`): ``concurrency`` workers share one queue; the first
  worker that raises (a stopped run) cancels the others;
* **request with retries** (:class:`Requester`): cache lookup, a timeout of
  ``settings.timeout_s`` (by the runner, or by a provider with ``enforces_timeout``,
  such as a local model that stops generating), and up to ``retries`` retries of a
  retryable :class:`ProviderError` (or a timeout) with exponential backoff and jitter,
  seeded per instance and attempt; a server's ``Retry-After`` is respected up to
  ``backoff_max_s`` (a longer one is cut, and said once on stderr); a 400 that refuses
  a named parameter (``max_tokens``, ``temperature`` for a reasoning model) changes the
  settings once and re-sends, recorded under ``adaptations`` in ``run.json`` and
  ``summary.json``;
* **score** (:class:`InstanceEvaluator`): the mode's per-instance loop
  (:meth:`Mode.run`) turns requests into a score. A request that still fails after
  its retries (or a bug in a mode) gives outcome ``error`` with the message in
  ``error``: not a model result, so it is left out of the accuracies. A *fatal*
  provider error (a wrong key, model, path or request: every request would fail)
  stops the run at once (:class:`~closurebench.evaluate.breaker.RunAborted`);
* **record** (:class:`Recorder`): build the
  :class:`~closurebench.schema.ResultRecord`, append and flush its line, advance the
  progress bar, and feed the circuit breaker
  (:class:`~closurebench.evaluate.breaker.CircuitBreaker`), which stops the run after
  ``max_consecutive_failures`` instances in a row ended in error. Earlier results are
  streamed, never held in memory; fsync is group-committed every ``sync_interval_s``
  (a machine crash loses at most that window, which the resume re-runs);
* **journal** (:class:`~closurebench.evaluate.journal.CrashJournal`): a reply that
  kills or hangs the harness itself would otherwise be replayed from the cache, and
  kill it again, on every resume. Each reply is noted in ``RUN_DIR/journal.jsonl``
  (flushed) before the mode handles it, and the instance is closed there once its
  result is written; the journal lives here, so it covers every mode. On resume
  (:func:`plan_run` reads it under the lock), an instance whose reply an earlier
  process died handling ``max_harness_deaths`` times (default 2) is not handled
  again: it is recorded as ``wrong`` with ``harness_deaths`` (in the denominator,
  not an ``error``, so a reply cannot shrink its own denominator by crashing the
  harness) and the run goes on. One with fewer deaths is handled again first, *alone*
  (nothing else in flight, so a second death is its own, not a bystander's), from the
  cached reply: re-requesting would give a reply that crashed the harness a fresh
  sample, a second chance no other reply gets, and cost a request.

The steps live in their own modules where they stand alone:
:mod:`~closurebench.evaluate.options` (:class:`RunOptions`, :class:`RunStats`),
:mod:`~closurebench.evaluate.rundir` (``run.json`` and the lock),
:mod:`~closurebench.evaluate.breaker`,
:mod:`~closurebench.evaluate.selection` (:func:`select_instances`),
:mod:`~closurebench.evaluate.requests` (:class:`Requester`, :func:`backoff_delay`) and
:mod:`~closurebench.evaluate.progress`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from closurebench.evaluate.breaker import CircuitBreaker, RunAborted
from closurebench.evaluate.cache import CompletionCache
from closurebench.evaluate.journal import JOURNAL_FILE, CrashJournal, read_deaths
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
    ResultWriter,
    iter_result_records,
    iter_results,
    make_result,
    repair_results,
    summarize,
    write_summary,
)
from closurebench.evaluate.requests import Requester, backoff_delay
from closurebench.evaluate.rundir import (
    RunDirError,
    RunLock,
    check_identity,
    file_sha256,
    record_adaptation,
    record_run_info,
    recorded_adaptations,
    run_identity,
)
from closurebench.evaluate.selection import select_instances
from closurebench.schema import HarnessDeaths, Outcome, ResultRecord
from closurebench.schema.results import is_error_result
from closurebench.schema.summary import RunSummary
from closurebench.scoring.outcome import Score

__all__ = [
    "InstanceEvaluator",
    "OpenRun",
    "Recorder",
    "Requester",
    "RunAborted",
    "RunDirError",
    "RunOptions",
    "RunPlan",
    "RunStats",
    "backoff_delay",
    "check_run",
    "finish_run",
    "open_run",
    "plan_run",
    "run_eval",
    "schedule",
    "select_instances",
    "triage",
]

RESULTS_FILE = "results.jsonl"
CACHE_FILE = "cache.jsonl"
SUMMARY_FILE = "summary.json"


def stderr_notice(message: str) -> None:
    """Print one warning line on stderr (the default ``notice`` of :func:`run_eval`)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


@dataclass
class RunPlan:
    """What a run has left to do, after resume (see :func:`plan_run`).

    Attributes:
        out_dir: The run directory.
        todo: The instances still to evaluate, in the given order.
        selected_ids: Ids of every selected instance (done or not).
        done_ids: Ids already in the results file.
        stats: The run's counters (``selected`` and ``skipped`` filled in).
        deaths: For the instances to do, how many earlier harness processes died while
            handling their reply (the crash journal; only ids with at least one).
    """

    out_dir: Path
    todo: list[AnyInstance]
    selected_ids: set[str]
    done_ids: set[str]
    stats: RunStats
    deaths: dict[str, int] = field(default_factory=dict)

    @property
    def results_path(self) -> Path:
        """``RUN_DIR/results.jsonl``."""
        return self.out_dir / RESULTS_FILE

    def selected_results(self) -> Iterable[ResultRecord]:
        """Stream the results file's typed records of the selected instances (first per id).

        Raises:
            DatasetFileError: a line is JSON but not a result record (names the line).
        """
        return (r for r in iter_result_records(self.results_path) if r.id in self.selected_ids)


def _start_over(out_dir: Path) -> None:
    """Delete a run's results, cache, summary and journal (``--force-new``; lock held)."""
    for name in (RESULTS_FILE, CACHE_FILE, SUMMARY_FILE, JOURNAL_FILE):
        with contextlib.suppress(FileNotFoundError):
            (out_dir / name).unlink()


def plan_run(
    instances: Sequence[AnyInstance],
    out: str | Path,
    *,
    mode: str,
    settings: GenerationSettings,
    provider_name: str,
    keep_errors: bool = False,
    force_new: bool = False,
    dataset: str | Path | None = None,
    notice: Callable[[str], None] | None = None,
    mode_options: Mapping[str, Any] | None = None,
    sample: int | None = None,
) -> RunPlan:
    """Prepare the run directory and list what is left to do (call with its lock held).

    Creates ``out``, checks (or writes) ``run.json``, starts over when ``force_new``,
    repairs ``results.jsonl`` (dropping the results that ended in error unless
    ``keep_errors``), skips the ids already done and reads, from the crash journal, how
    often a harness process died while handling each remaining instance's reply.

    Args:
        instances: The selected instances.
        out: The run directory.
        mode: The mode name.
        settings: The generation settings.
        provider_name: Recorded in ``run.json``.
        keep_errors: Keep (do not re-run) instances whose earlier result is an error.
        force_new: Delete the folder's results, cache and summary and start over.
        dataset: The dataset file (its sha256 goes into ``run.json`` and is checked).
        notice: Receives one-line warnings (an old ``run.json``).
        mode_options: The mode's scoring-relevant options (part of the identity).
        sample: Which repeated sample this run is (``eval --samples``), or None.

    Returns:
        The plan.

    Raises:
        RunDirError: if ``out`` holds a run of another dataset, model, provider, mode
            or settings (and not ``force_new``).
    """
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    identity = run_identity(
        dataset=Path(dataset).resolve() if dataset is not None else None,
        dataset_sha256=file_sha256(dataset) if dataset is not None else None,
        model=settings.model,
        provider=provider_name,
        mode=mode,
        settings=settings.to_dict(),
        mode_options=mode_options,
        sample=sample,
    )
    results = out_dir / RESULTS_FILE
    restart = check_identity(
        out_dir,
        identity,
        has_results=results.exists() and results.stat().st_size > 0,
        force_new=force_new,
        notice=notice,
    )
    if restart:
        _start_over(out_dir)
    # Streamed: memory holds ids and counters, never the earlier results themselves.
    done_ids = repair_results(results, drop=None if keep_errors else is_error_result)
    todo = [r for r in instances if str(r.id) not in done_ids]
    stats = RunStats(selected=len(instances), skipped=len(instances) - len(todo))
    # Under the lock, before this process writes: every session in the journal is over.
    died = read_deaths(out_dir / JOURNAL_FILE)
    deaths = {str(r.id): died[str(r.id)] for r in todo if str(r.id) in died}
    return RunPlan(out_dir, todo, {str(r.id) for r in instances}, done_ids, stats, deaths)


def triage(
    todo: Sequence[AnyInstance], deaths: Mapping[str, int], max_deaths: int
) -> tuple[list[AnyInstance], list[AnyInstance], list[AnyInstance]]:
    """Split the instances to do by the harness deaths their replies caused.

    Args:
        todo: The instances to do, in order.
        deaths: Harness deaths per instance id (see :func:`plan_run`).
        max_deaths: ``RunOptions.max_harness_deaths``.

    Returns:
        ``(give_up, retry, rest)``: the instances with ``max_deaths`` or more deaths
        (recorded as wrong, unhandled), those with fewer but some (handled again, one at
        a time, first), and the others; each in ``todo`` order.

    Example:
        >>> from types import SimpleNamespace as I
        >>> parts = triage([I(id="a"), I(id="b"), I(id="c")], {"a": 2, "b": 1}, 2)
        >>> [[r.id for r in part] for part in parts]
        [['a'], ['b'], ['c']]
    """
    give_up: list[AnyInstance] = []
    retry: list[AnyInstance] = []
    rest: list[AnyInstance] = []
    for record in todo:
        n = deaths.get(str(record.id), 0)
        (give_up if n >= max_deaths else retry if n else rest).append(record)
    return give_up, retry, rest


# ------------------------------------------------------------------- schedule


_T = TypeVar("_T")


async def schedule(
    items: Sequence[_T], work: Callable[[_T], Awaitable[None]], concurrency: int
) -> None:
    """Run ``work`` on every item with at most ``concurrency`` running at once.

    Workers share one queue, so a slow item holds up only its own worker. When a
    ``work`` call raises, the other workers are cancelled and the exception is
    raised here (a stopped run).

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
    if not workers:
        return
    try:
        await asyncio.wait(workers, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    for task in workers:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


# ---------------------------------------------------------------------- score


class InstanceEvaluator:
    """Score one instance: run the mode's per-instance loop and build its result.

    Attributes:
        mode: The evaluation mode.
        request: The runner's request function.
        settings: Generation settings as a dict (recorded in each result).
        stats: The run's counters (``failures`` is updated here).
        journal: The crash journal (None: not kept): each reply is noted there before
            the mode handles it, and each further request as a wait.
        deaths: Earlier harness deaths per instance id, recorded in its result.
    """

    def __init__(
        self,
        mode: Mode,
        request: Callable[
            [
                str,
                list[Message],
                Sequence[str] | None,
                Sequence[Mapping[str, Any]] | None,
                int | None,
            ],
            Awaitable[Completion],
        ],
        settings: Mapping[str, Any],
        stats: RunStats,
        *,
        journal: CrashJournal | None = None,
        deaths: Mapping[str, int] | None = None,
    ) -> None:
        """Bind the evaluator.

        Args:
            mode: The mode.
            request: ``(request id, messages, stop, tools, max_tokens) -> completion`` (a
                :class:`Requester`).
            settings: Generation settings as a dict.
            stats: The run's counters.
            journal: The crash journal (None: not kept).
            deaths: Earlier harness deaths per instance id (None: none).
        """
        self.mode = mode
        self.request = request
        self.settings = dict(settings)
        self.stats = stats
        self.journal = journal
        self.deaths = dict(deaths or {})

    async def __call__(self, record: AnyInstance) -> ResultRecord:
        """The result of ``record`` (a failed instance gets outcome ``error``).

        Args:
            record: The instance.

        Returns:
            Its result record.

        Raises:
            RunAborted: for a fatal provider error (every request would fail alike).
        """
        rid = str(record.id)
        calls = 0
        journal = self.journal

        async def complete(
            messages: list[Message],
            *,
            stop: Sequence[str] | None = None,
            tools: Sequence[Mapping[str, Any]] | None = None,
            max_tokens: int | None = None,
        ) -> Completion:
            nonlocal calls
            calls += 1
            if journal is not None:
                journal.waiting(rid)  # an earlier reply's handling pauses (agent rounds)
            completion = await self.request(f"{rid}#{calls}", messages, stop, tools, max_tokens)
            if journal is not None:
                journal.handling(rid)  # flushed before the mode sees the reply
            return completion

        try:
            output = await self.mode.run(record, complete)
        except ProviderError as exc:
            if exc.fatal:
                raise RunAborted(
                    f"stopped at once: {exc}. No request can succeed with these settings, "
                    "so nothing was scored; fix the cause and run the same command to "
                    "resume",
                    reason=f"fatal provider error: {exc}",
                ) from exc
            return self._failed(record, calls, f"ProviderError: {exc}")
        except Exception as exc:  # a bug in a mode or scorer: this instance only
            return self._failed(record, calls, f"{type(exc).__name__}: {exc}")
        return make_result(
            record,
            mode=self.mode.name,
            settings=self.settings,
            score=output.score,
            response=output.response,
            reasoning=output.reasoning,
            prompt_tokens=output.prompt_tokens,
            completion_tokens=output.completion_tokens,
            reasoning_tokens=output.reasoning_tokens,
            latency_s=output.latency_s,
            finish_reason=output.finish_reason,
            requests=max(calls, output.requests if calls else 0),
            extra=output.extra,
            harness_deaths=self._deaths(rid),
        )

    def _deaths(self, rid: str, *, gave_up: bool = False) -> HarnessDeaths | None:
        n = self.deaths.get(rid, 0)
        return HarnessDeaths(count=n, gave_up=gave_up) if n else None

    def _failed(self, record: AnyInstance, calls: int, error: str) -> ResultRecord:
        self.stats.failures += 1
        return make_result(
            record,
            mode=self.mode.name,
            settings=self.settings,
            requests=calls,
            error=error,
            harness_deaths=self._deaths(str(record.id)),
        )

    def give_up(self, record: AnyInstance, max_deaths: int) -> ResultRecord:
        """The result of an instance whose reply the harness died on too often: wrong.

        The reply is not requested nor handled: the instance is recorded as ``wrong``
        (strict and lenient False, so it counts in every accuracy's denominator) with
        ``harness_deaths`` ``gave_up`` and a reason that says how often the harness died.

        Args:
            record: The instance.
            max_deaths: ``RunOptions.max_harness_deaths`` (named in the reason).

        Returns:
            Its result record.
        """
        rid = str(record.id)
        n = self.deaths.get(rid, 0)
        reason = (
            f"the harness died {n} time{'s' if n != 1 else ''} while handling this reply "
            f"(max_harness_deaths={max_deaths}); not handled again, recorded as wrong "
            "(the reply is in the run's cache.jsonl)"
        )
        return make_result(
            record,
            mode=self.mode.name,
            settings=self.settings,
            score=Score.fail(Outcome.WRONG, None, reason),
            harness_deaths=self._deaths(rid, gave_up=True),
        )


# --------------------------------------------------------------------- record


class Recorder:
    """Append each result to ``results.jsonl`` (one flushed line), count it, show it.

    Attributes:
        writer: The results file writer.
        progress: The progress display.
        stats: The run's counters (``evaluated`` is updated here).
        breaker: Stops the run after too many failed instances in a row.
    """

    def __init__(
        self,
        writer: ResultWriter,
        progress: ProgressBar,
        stats: RunStats,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        """Bind the recorder.

        Args:
            writer: The results file writer.
            progress: The progress display.
            stats: The run's counters.
            breaker: The circuit breaker (None: never stops).
        """
        self.writer = writer
        self.progress = progress
        self.stats = stats
        self.breaker = breaker or CircuitBreaker(0)

    def __call__(self, result: ResultRecord) -> None:
        """Record one result.

        Args:
            result: The instance's result record.

        Raises:
            RunAborted: when this result trips the circuit breaker (it is recorded
                first).
        """
        self.writer.write(result)
        self.stats.evaluated += 1
        self.progress.advance(result)
        failed = result.outcome is Outcome.ERROR
        if self.breaker.record(failed=failed, error=result.error):
            raise self.breaker.error()


def finish_run(plan: RunPlan, aborted: str | None = None) -> RunSummary:
    """Summarise the selected instances' results into ``summary.json``; return it.

    ``complete`` is True only when every selected instance has a model result. Only when
    the folder also holds results outside the selection, ``counts.outside_selection``
    says how many and ``selected_ids`` lists the selection (the report reads only those).
    """
    summary = summarize(plan.selected_results())
    summary.counts.selected = plan.stats.selected
    # Results of earlier commands outside this selection (a smaller --sample into the
    # same folder): counted, and the selection listed, so the report reads the same set.
    outside = sum(
        1 for r in iter_results(plan.results_path) if str(r["id"]) not in plan.selected_ids
    )
    if outside:
        summary.counts.outside_selection = outside
        summary.selected_ids = sorted(plan.selected_ids)
    summary.complete = bool(
        summary.complete and aborted is None and summary.counts.total >= plan.stats.selected
    )
    summary.aborted = aborted
    summary.run = plan.stats.counters()
    summary.adaptations = list(plan.stats.adaptations)
    known = summary.model_fields_set | set(summary.model_extra or {})
    for key, value in plan.stats.run_info.items():  # e.g. the sandbox (unsafe or a wall)
        if key not in known:
            setattr(summary, key, value)
    write_summary(plan.out_dir / SUMMARY_FILE, summary)
    plan.stats.summary = summary
    plan.stats.aborted = aborted
    return summary


def check_run(
    instances: Sequence[AnyInstance],
    mode: Mode | str,
    settings: GenerationSettings,
    options: RunOptions | None,
) -> tuple[RunOptions, Mode]:
    """Check a run's options, settings and instances before its folder is touched.

    Returns:
        ``(options, mode)``: the options (defaults when None) and the mode object.

    Raises:
        ConfigError: An unknown mode, a bad option or setting, instances the mode
            cannot take.
    """
    opts = options or RunOptions()
    opts.check()
    settings.check()
    the_mode = get_mode(mode) if isinstance(mode, str) else mode
    the_mode.check_instances(instances)
    return opts, the_mode


@dataclass
class OpenRun:
    """A run folder opened for writing (its lock held by the caller).

    Attributes:
        plan: What is left to do (:func:`plan_run`); ``plan.stats`` carries the run info.
        cache_path: The completion cache's file.
        cache: The completion cache (writes nothing with ``use_cache`` off).
        writer: The results file's writer.
        progress: The progress bar (over every selected instance).
        say: One-line notices, printed above the progress bar (None: nowhere).
    """

    plan: RunPlan
    cache_path: Path
    cache: CompletionCache
    writer: ResultWriter
    progress: ProgressBar
    say: Callable[[str], None] | None


def open_run(
    instances: Sequence[AnyInstance],
    out: str | Path,
    the_mode: Mode,
    settings: GenerationSettings,
    opts: RunOptions,
    *,
    provider_name: str,
    dataset: str | Path | None,
    notice: Callable[[str], None] | None,
    sample: int | None,
) -> OpenRun:
    """Plan the run and open its files: what every backend does before evaluating.

    Checks (or records) ``run.json`` and the mode's run info, then opens the cache,
    the results writer and the progress bar. Call with the folder's lock held.
    """
    plan = plan_run(
        instances,
        out,
        mode=the_mode.name,
        settings=settings,
        provider_name=provider_name,
        keep_errors=opts.keep_errors,
        force_new=opts.force_new,
        dataset=dataset,
        notice=notice,
        mode_options=the_mode.identity(),
        sample=sample,
    )
    plan.stats.run_info = the_mode.run_info()
    record_run_info(plan.out_dir, plan.stats.run_info)
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
    return OpenRun(plan, cache_path, cache, writer, progress, progress.notice_to(notice))


async def run_eval(
    instances: Sequence[AnyInstance],
    provider: Provider,
    mode: Mode | str,
    settings: GenerationSettings,
    out: str | Path,
    options: RunOptions | None = None,
    *,
    dataset: str | Path | None = None,
    notice: Callable[[str], None] | None = stderr_notice,
    sample: int | None = None,
) -> RunStats:
    """Evaluate ``instances`` and write the run directory ``out``.

    Args:
        instances: Selected typed instance records (see :func:`select_instances`).
        provider: The model backend (not closed here).
        mode: A :class:`Mode` or its registry name.
        settings: Generation settings for every request.
        out: The run directory (created if needed; resumed if it has results).
        options: Concurrency, retries, cache, resume and progress options.
        dataset: The file the instances were read from: its sha256 is recorded in
            ``run.json`` and a resume with another file is refused.
        notice: Receives one-line warnings for the user (default: stderr).
        sample: Which of repeated samples this run is (``eval --samples K``: 1..K;
            recorded in ``run.json``, so the report groups the samples), or None.

    Returns:
        What the call did, with the summary. ``summary["complete"]`` is False when an
        instance ended in error.

    Raises:
        RunDirError: if another run holds ``out``'s lock, or ``out`` holds a run of
            another dataset, model, provider, mode or settings (unless
            ``options.force_new``).
        RunAborted: when the run stopped early (a fatal provider error, or
            ``max_consecutive_failures`` instances in a row in error); the partial
            summary is written first and attached.
        ConfigError: for an unknown mode name or a bad option or setting.
    """
    opts, the_mode = check_run(instances, mode, settings, options)
    with RunLock(out):
        run = open_run(
            instances,
            out,
            the_mode,
            settings,
            opts,
            provider_name=str(getattr(provider, "name", "")),
            dataset=dataset,
            notice=notice,
            sample=sample,
        )
        plan, stats, cache, writer, progress, say = (
            run.plan,
            run.plan.stats,
            run.cache,
            run.writer,
            run.progress,
            run.say,
        )
        requester = Requester(
            provider,
            settings,
            cache,
            opts,
            stats,
            notice=say,
            on_adapt=lambda entry: record_adaptation(plan.out_dir, entry),
        )
        requester.restore(recorded_adaptations(plan.out_dir))
        stats.adaptations = requester.adaptations
        journal = CrashJournal(plan.out_dir / JOURNAL_FILE, sync_interval_s=opts.sync_interval_s)
        evaluate = InstanceEvaluator(
            the_mode, requester, settings.to_dict(), stats, journal=journal, deaths=plan.deaths
        )
        record = Recorder(writer, progress, stats, CircuitBreaker(opts.max_consecutive_failures))
        give_up, retry, rest = triage(plan.todo, plan.deaths, opts.max_harness_deaths)
        retry_ids = {str(r.id) for r in retry}

        def tell(message: str) -> None:
            if say is not None:
                say(message)

        async def work(instance: AnyInstance) -> None:
            rid = str(instance.id)
            result = await evaluate(instance)
            try:
                record(result)
            finally:
                journal.done(rid)  # after its result line: the attempt is complete
            if rid in retry_ids:
                stats.harness_retried += 1

        async def run_all() -> None:
            for instance in give_up:
                n = plan.deaths[str(instance.id)]
                tell(
                    f"{instance.id}: the harness died {n} time{'s' if n != 1 else ''} while "
                    "handling its reply; recorded as wrong without handling it again"
                )
                record(evaluate.give_up(instance, opts.max_harness_deaths))
                stats.harness_gave_up += 1
            if retry:
                shown = ", ".join(str(r.id) for r in retry[:5]) + (
                    ", ..." if len(retry) > 5 else ""
                )
                tell(
                    f"{len(retry)} instance(s) were being handled when an earlier run on this "
                    f"folder died ({shown}); each is handled once more, alone, before the "
                    f"others (after {opts.max_harness_deaths} such deaths an instance is "
                    "recorded as wrong)"
                )
                await schedule(retry, work, 1)  # alone: a death now is this reply's own
            await schedule(rest, work, opts.concurrency)

        aborted: RunAborted | None = None
        interrupted = True
        try:
            await run_all()
            interrupted = False
        except RunAborted as exc:
            aborted, interrupted = exc, False
        finally:
            charged = journal.open_ids
            if charged:  # stopped while handling: on resume each counts as a harness death
                tell(
                    f"stopped while handling the reply of {', '.join(charged[:5])}"
                    + (", ..." if len(charged) > 5 else "")
                    + ": the next run on this folder counts each as a harness death (handled "
                    f"again alone; recorded as wrong after {opts.max_harness_deaths})"
                )
            journal.close()
            progress.close()
            writer.close()
            cache.close()
            if interrupted:  # Ctrl-C or cancellation: still summarise what is done
                finish_run(plan, "interrupted")
        summary = finish_run(plan, aborted.reason if aborted is not None else None)
    if aborted is not None:
        aborted.summary = summary
        raise aborted
    return stats
