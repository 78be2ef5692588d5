"""Evaluation on a Ray cluster: the instances to do, in batches, as Ray tasks.

``closurebench eval ... --backend ray [--ray-address ADDR]`` runs :func:`run_eval_ray`,
which keeps the run directory exactly as :func:`~closurebench.evaluate.runner.run_eval`
does and moves only the per-instance work to Ray:

* **driver** (this process): the lock, the plan (``run.json`` identity, resume, errors
  re-run, harness deaths from an earlier local run's journal), ``results.jsonl`` through
  the same :class:`~closurebench.evaluate.runner.Recorder` (one flushed line per result,
  the circuit breaker, the progress bar), ``cache.jsonl``, the settings adaptations in
  ``run.json`` and ``summary.json`` (the runner's own summary step);
* **a Ray task per batch** of instances (:func:`evaluate_batch`): builds the provider in
  its worker (``make_provider``, e.g. ``build_provider`` over every ``--base-url``, so a
  task spreads its requests over the endpoints; or a reference model), and runs the
  same :class:`~closurebench.evaluate.runner.InstanceEvaluator` over the batch: the mode,
  a :class:`~closurebench.evaluate.requests.Requester` (retries, backoff seeded per
  instance, the timeout, adaptations) and scoring, ``--concurrency`` instances at once.
  It returns the result records, the completions it got (the driver appends them to
  ``cache.jsonl``), its counters, notices, adaptations and endpoint counts.

So a result is what the local backend writes for the instance (same record, same score),
and a run resumes either way: a Ray run can be resumed locally and the other way round
(the provider name, the mode and the settings are the run's identity; the backend is not).
Results are appended per finished batch: a killed driver loses at most the batches in
flight. Their order in the file is the order batches finish (the local backend's is the
order instances finish, with ``--concurrency`` above 1 not the input order either).

Completions already in the run's cache (an interrupted or errored earlier call) are sent
to the tasks once (``ray.put``), so a resume reuses them as the local backend does.

Harness deaths: the crash journal is the local backend's (a reply that kills the process
that handles it). Here a reply that kills its Ray worker fails that task: the driver runs
the batch's instances again one per task, and an instance whose own task dies
``max_harness_deaths`` times is recorded as ``wrong`` with ``harness_deaths`` (``gave_up``),
as the local backend does on resume. Instances an earlier local run's journal charged are
run first, one task at a time (alone), as locally.

Not done: a ``ray.data.llm`` vLLM processor (batch inference inside the cluster) is not
implemented; a vLLM server per node behind ``--base-url`` is the way to use vLLM here.
"""

from __future__ import annotations

import asyncio
import collections
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from closurebench.evaluate.breaker import CircuitBreaker, RunAborted
from closurebench.evaluate.cache import CompletionCache
from closurebench.evaluate.modes import AnyInstance, Mode
from closurebench.evaluate.options import RunOptions, RunStats
from closurebench.evaluate.providers.base import Completion, GenerationSettings, Provider
from closurebench.evaluate.requests import Requester
from closurebench.evaluate.rundir import (
    RunLock,
    record_adaptation,
    recorded_adaptations,
)
from closurebench.evaluate.runner import (
    InstanceEvaluator,
    Recorder,
    check_run,
    finish_run,
    open_run,
    schedule,
    stderr_notice,
    triage,
)
from closurebench.generate.ray_backend import cluster_cpus, ray_session, task_failure
from closurebench.jsonl import scan
from closurebench.schema import ResultRecord

__all__ = ["BatchOutcome", "TaskSpec", "evaluate_batch", "merge_endpoints", "run_eval_ray"]

#: Counters a task reports, summed into the run's :class:`RunStats`.
_COUNTERS = (
    "requests",
    "retries",
    "cache_hits",
    "failures",
    "retry_after_capped",
    "adapted_requests",
)

#: Endpoint counts summed over tasks (the others are the last task's).
_ENDPOINT_SUMS = ("requests", "ok", "failed", "marked_down")


@dataclass(frozen=True)
class TaskSpec:
    """What every task of a run needs (sent once to the cluster).

    Attributes:
        mode: The configured mode (its prompts, limits, sandbox, few-shot examples).
        settings: The run's generation settings (before any adaptation).
        options: The run options (retries, backoff, seed, concurrency within a task).
        make_provider: Builds the provider in the worker (called once per task).
        cache: Completions already in the run's cache, by request key.
    """

    mode: Mode
    settings: GenerationSettings
    options: RunOptions
    make_provider: Callable[[], Provider]
    cache: Mapping[str, Completion] = field(default_factory=dict)


@dataclass
class BatchOutcome:
    """What one task returns.

    Attributes:
        results: The batch's results, in the order they finished.
        cache: The completions the task got from the provider, by request key.
        counters: The task's request counters (:data:`_COUNTERS`).
        adaptations: Settings changes the task made after a refused parameter.
        notices: The task's one-line notices.
        endpoints: Its endpoint counts (several ``--base-url``), or None.
        aborted: ``(message, reason)`` of a fatal provider error that stopped it, or None.
    """

    results: list[ResultRecord]
    cache: list[tuple[str, Completion]]
    counters: dict[str, int]
    adaptations: list[dict[str, Any]]
    notices: list[str]
    endpoints: list[dict[str, Any]] | None = None
    aborted: tuple[str, str] | None = None


class _TaskCache(CompletionCache):
    """The run's known completions (read only) plus those this task got (returned)."""

    def __init__(self, known: Mapping[str, Completion]) -> None:
        super().__init__(None)
        self.known = known
        self.new: dict[str, Completion] = {}

    def get(self, key: str) -> Completion | None:
        found = self.new.get(key) or self.known.get(key)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: str, completion: Completion) -> None:
        self.new[key] = completion


async def _evaluate(
    spec: TaskSpec,
    batch: Sequence[AnyInstance],
    deaths: Mapping[str, int],
    adaptations: Sequence[Mapping[str, Any]],
) -> BatchOutcome:
    stats = RunStats()
    notices: list[str] = []
    adapted: list[dict[str, Any]] = []
    cache = _TaskCache(spec.cache)
    provider = spec.make_provider()
    results: list[ResultRecord] = []
    aborted: tuple[str, str] | None = None
    try:
        requester = Requester(
            provider,
            spec.settings,
            cache,
            spec.options,
            stats,
            notice=notices.append,
            on_adapt=adapted.append,
        )
        requester.restore(adaptations)
        evaluate = InstanceEvaluator(
            spec.mode, requester, spec.settings.to_dict(), stats, deaths=deaths
        )

        async def work(instance: AnyInstance) -> None:
            results.append(await evaluate(instance))

        try:
            await schedule(batch, work, spec.options.concurrency)
        except RunAborted as exc:
            aborted = (str(exc), exc.reason)
    finally:
        await provider.aclose()
    endpoints = stats.run_info.get("endpoints")
    return BatchOutcome(
        results=results,
        cache=list(cache.new.items()),
        counters={name: int(getattr(stats, name)) for name in _COUNTERS},
        adaptations=adapted,
        notices=notices,
        endpoints=[dict(e) for e in endpoints] if isinstance(endpoints, list) else None,
        aborted=aborted,
    )


def evaluate_batch(
    spec: TaskSpec,
    batch: Sequence[AnyInstance],
    deaths: Mapping[str, int],
    adaptations: Sequence[Mapping[str, Any]],
) -> BatchOutcome:
    """Evaluate ``batch`` (what one Ray task runs; also callable in-process).

    Args:
        spec: The run's mode, settings, options, provider factory and known cache.
        batch: The instances.
        deaths: Earlier harness deaths of the batch's instances (recorded in results).
        adaptations: The run's settings changes so far (re-applied first).

    Returns:
        The batch's results and what the driver records besides them.
    """
    return asyncio.run(_evaluate(spec, batch, deaths, adaptations))


def merge_endpoints(
    total: list[dict[str, Any]] | None, part: list[dict[str, Any]] | None
) -> list[dict[str, Any]] | None:
    """Add one task's endpoint counts to the run's (by url; state and error: the latest).

    Example:
        >>> a = [{"url": "u", "requests": 2, "ok": 2, "failed": 0, "marked_down": 0,
        ...       "state": "up", "last_error": None}]
        >>> merge_endpoints(a, [dict(a[0], requests=3, ok=2, failed=1)])[0]["requests"]
        5
    """
    if part is None:
        return total
    if total is None:
        return [dict(e) for e in part]
    by_url = {e["url"]: e for e in total}
    for e in part:
        mine = by_url.get(e["url"])
        if mine is None:
            total.append(dict(e))
            continue
        for key, value in e.items():
            if key in _ENDPOINT_SUMS:
                mine[key] = int(mine.get(key) or 0) + int(value or 0)
            else:
                mine[key] = value
    return total


def _known_completions(path: Path) -> dict[str, Completion]:
    """Every completion in the cache file ``path`` (later lines win), for the tasks."""
    known: dict[str, Completion] = {}
    for line in scan(path):
        obj = line.obj
        if not isinstance(obj, dict):
            continue
        try:
            fields = dict(obj["completion"])
            fields["tool_calls"] = tuple(fields.get("tool_calls") or ())
            known[str(obj["key"])] = Completion(**fields)
        except (KeyError, TypeError, ValueError):
            continue
    return known


def _batches(items: Sequence[AnyInstance], size: int) -> list[list[AnyInstance]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


async def run_eval_ray(
    instances: Sequence[AnyInstance],
    make_provider: Callable[[], Provider],
    mode: Mode | str,
    settings: GenerationSettings,
    out: str | Path,
    options: RunOptions | None = None,
    *,
    provider_name: str,
    dataset: str | Path | None = None,
    notice: Callable[[str], None] | None = stderr_notice,
    sample: int | None = None,
    address: str | None = None,
    batch_size: int | None = None,
) -> RunStats:
    """Evaluate ``instances`` as Ray tasks; write ``out`` as :func:`run_eval` does.

    Args:
        instances: Selected typed instance records.
        make_provider: Builds the provider (called in each task's worker; picklable,
            e.g. a ``functools.partial`` of ``build_provider``).
        mode: A configured :class:`Mode` or its registry name.
        settings: Generation settings for every request.
        out: The run directory (created if needed; resumed if it has results).
        options: As for :func:`run_eval`; ``concurrency`` is per task.
        provider_name: The provider's name, recorded in ``run.json`` (the run's identity:
            the same as the local backend's, so either resumes the other).
        dataset: The file the instances were read from (its sha256 goes into ``run.json``).
        notice: Receives one-line warnings (default: stderr).
        sample: Which repeated sample this run is, or None.
        address: An existing Ray cluster (None: a local one; see
            :func:`~closurebench.generate.ray_backend.ray_session`).
        batch_size: Instances per task (default: about 8 tasks per CPU, 1 to 64).

    Returns:
        What the call did, with the summary.

    Raises:
        RunDirError: another run holds ``out``, or it holds a different run.
        RunAborted: the run stopped early (a fatal provider error or the circuit breaker;
            the partial summary is written first and attached).
        ConfigError: Ray missing or unreachable, an unknown mode, a bad option.
    """
    opts, the_mode = check_run(instances, mode, settings, options)
    with RunLock(out), ray_session(address) as ray:
        run = open_run(
            instances,
            out,
            the_mode,
            settings,
            opts,
            provider_name=provider_name,
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
        known = _known_completions(run.cache_path) if opts.use_cache and plan.todo else {}
        adaptations = list(recorded_adaptations(plan.out_dir))
        stats.adaptations = adaptations

        async def no_request(*_args: Any) -> Completion:
            raise AssertionError("the driver sends no request")  # pragma: no cover

        # Records the instances given up on; its deaths (the journal's, then those of
        # workers that died here) are the run's.
        local = InstanceEvaluator(
            the_mode, no_request, settings.to_dict(), stats, deaths=plan.deaths
        )
        deaths = local.deaths
        record = Recorder(writer, progress, stats, CircuitBreaker(opts.max_consecutive_failures))
        give_up, retry, rest = triage(plan.todo, plan.deaths, opts.max_harness_deaths)
        cpus = cluster_cpus(ray)
        size = batch_size or max(1, min(64, math.ceil(len(rest) / (8 * cpus)) or 1))
        in_flight = 2 * cpus
        spec_ref = ray.put(TaskSpec(the_mode, settings, opts, make_provider, known))
        task = ray.remote(max_retries=0)(evaluate_batch)
        said: set[str] = set()
        retried = {str(r.id) for r in retry}
        pending: dict[asyncio.Future[Any], tuple[Any, list[AnyInstance]]] = {}

        def tell(message: str) -> None:
            if say is not None and message not in said:
                said.add(message)
                say(message)

        def submit(batch: list[AnyInstance]) -> None:
            batch_deaths = {str(r.id): deaths[str(r.id)] for r in batch if str(r.id) in deaths}
            ref = task.remote(spec_ref, batch, batch_deaths, list(adaptations))
            pending[asyncio.wrap_future(ref.future())] = (ref, batch)

        def gave_up(instance: AnyInstance) -> None:
            n = deaths[str(instance.id)]
            tell(
                f"{instance.id}: the harness died {n} time{'s' if n != 1 else ''} while "
                "handling its reply; recorded as wrong without handling it again"
            )
            record(local.give_up(instance, opts.max_harness_deaths))
            stats.harness_gave_up += 1

        def take(outcome: BatchOutcome) -> None:
            for name in _COUNTERS:
                setattr(stats, name, getattr(stats, name) + outcome.counters.get(name, 0))
            for message in outcome.notices:
                tell(message)
            for entry in outcome.adaptations:
                if all(a.get("parameter") != entry.get("parameter") for a in adaptations):
                    adaptations.append(entry)
                    record_adaptation(plan.out_dir, entry)
            merged = merge_endpoints(stats.run_info.get("endpoints"), outcome.endpoints)
            if merged is not None:
                stats.run_info["endpoints"] = merged
            for key, completion in outcome.cache:
                cache.put(key, completion)
            for result in outcome.results:
                record(result)
                if str(result.id) in retried:
                    stats.harness_retried += 1
            if outcome.aborted is not None:
                message, reason = outcome.aborted
                raise RunAborted(message, reason=reason)

        async def drain(limit: int, queue: collections.deque[list[AnyInstance]]) -> None:
            while queue or pending:
                while queue and len(pending) < limit:
                    submit(queue.popleft())
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for fut in done:
                    _ref, batch = pending.pop(fut)
                    try:
                        outcome = fut.result()
                    except ray.exceptions.RayTaskError as exc:
                        raise task_failure(exc, f"a Ray task of {len(batch)} instance(s)") from None
                    except ray.exceptions.RayError as exc:  # its worker died
                        died(batch, exc, queue)
                        continue
                    take(outcome)

        def died(
            batch: list[AnyInstance], exc: Exception, queue: collections.deque[list[AnyInstance]]
        ) -> None:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if len(batch) > 1:
                tell(
                    f"a Ray worker died evaluating {len(batch)} instance(s) ({reason}); each is "
                    "run again in a task of its own"
                )
                queue.extendleft([r] for r in reversed(batch))
                return
            instance = batch[0]
            rid = str(instance.id)
            deaths[rid] = deaths.get(rid, 0) + 1
            retried.add(rid)
            if deaths[rid] >= opts.max_harness_deaths:
                gave_up(instance)
            else:
                tell(f"{rid}: its Ray worker died ({reason}); run once more in a task of its own")
                queue.appendleft([instance])

        async def run_all() -> None:
            for instance in give_up:
                gave_up(instance)
            if retry:
                tell(
                    f"{len(retry)} instance(s) were being handled when an earlier run on this "
                    "folder died; each is handled once more, alone, before the others"
                )
                await drain(1, collections.deque([r] for r in retry))
            await drain(in_flight, collections.deque(_batches(rest, size)))

        aborted: RunAborted | None = None
        interrupted = True
        try:
            await run_all()
            interrupted = False
        except RunAborted as exc:
            aborted, interrupted = exc, False
        finally:
            for ref, _batch in pending.values():
                ray.cancel(ref, force=True)
            pending.clear()
            progress.close()
            writer.close()
            cache.close()
            if interrupted:
                finish_run(plan, "interrupted")
        summary = finish_run(plan, aborted.reason if aborted is not None else None)
    if aborted is not None:
        aborted.summary = summary
        raise aborted
    return stats
