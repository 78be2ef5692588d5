"""Result records, the append-only results file, and ``summary.json``.

``RUN_DIR/results.jsonl`` holds one :class:`~closurebench.schema.ResultRecord` per line
(its :meth:`~closurebench.schema.ResultRecord.to_json` form), appended and flushed as
each instance finishes (fsync group-committed, see
:mod:`closurebench.evaluate.appendlog`). Files are read through the one JSONL reader
(:mod:`closurebench.jsonl`) and its damaged-line policy: a torn last line (a run killed
mid-write) or a corrupt line is skipped, and :func:`repair_results` rewrites the file
without it; a repeated id keeps its first record, so every id appears exactly once.
A record of an older version whose request failed (``no_answer`` with an ``error``
message) is read as outcome ``error`` (:func:`~closurebench.schema.results.upgrade_result`).

An instance that ended in error (outcome ``error``: the request failed after its
retries, or the harness failed) is not a model result: :func:`summarize` leaves it out
of the accuracies, which are over *answered* instances, and counts it under
``counts.errors``.

Result fields: ``id``, ``outcome``, ``strict``, ``lenient``, ``extracted``,
``reason``, ``response``, ``reasoning``, ``usage`` {``prompt_tokens``,
``completion_tokens``, ``reasoning_tokens`` (null when the server reported none)},
``latency_s``, ``finish_reason``, ``requests``,
``settings``, ``mode``, ``error``, ``extra``, ``harness_deaths`` (only when a harness
process died while handling the reply, see :mod:`closurebench.evaluate.journal`), plus
the metadata fields of :data:`~closurebench.schema.META_FIELDS` copied from the instance
(missing ones are null).

Example:
    >>> ok = ResultRecord(id="a", outcome="strict_correct", strict=True, lenient=True,
    ...                   usage={"prompt_tokens": 10, "completion_tokens": 4},
    ...                   latency_s=1.0, mode="direct")
    >>> failed = ResultRecord(id="b", outcome="error", error="ProviderError: 503", mode="direct")
    >>> s = summarize([ok, failed])
    >>> s.strict_accuracy, s.outcomes["strict_correct"], s.tokens.completion_mean
    (1.0, 1, 4.0)
    >>> s.to_json()["counts"], s.complete
    ({'total': 2, 'answered': 1, 'errors': 1}, False)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from closurebench.errors import ClosureBenchError
from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S, AppendLog
from closurebench.evaluate.figures import FiguresError, figure_view, summary_figures
from closurebench.jsonl import Line, read_json, repair, scan
from closurebench.schema import (
    META_FIELDS,
    ClosureInstance,
    GritInstance,
    HarnessDeaths,
    Outcome,
    ResultRecord,
    Usage,
    parse_result,
)
from closurebench.schema.results import upgrade_result
from closurebench.schema.summary import RunSummary, parse_summary

if TYPE_CHECKING:
    from closurebench.scoring.outcome import Score

__all__ = [
    "META_FIELDS",
    "ResultWriter",
    "ResultsFileError",
    "iter_result_records",
    "iter_results",
    "load_results",
    "make_result",
    "read_summary",
    "repair_results",
    "summarize",
    "write_summary",
]


class ResultsFileError(ClosureBenchError, ValueError):
    """A run directory's results file cannot be used (names the file and the fix)."""


def _jsonable(value: Any) -> Any:
    """``value`` as plain JSON values (tuples become lists); its repr when JSON cannot hold it."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def make_result(
    record: ClosureInstance | GritInstance,
    *,
    mode: str,
    settings: dict[str, Any],
    score: Score | None = None,
    response: str = "",
    reasoning: str | None = None,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    reasoning_tokens: int | None = None,
    latency_s: float = 0.0,
    finish_reason: str | None = None,
    requests: int = 0,
    error: str | None = None,
    extra: dict[str, Any] | None = None,
    harness_deaths: HarnessDeaths | None = None,
) -> ResultRecord:
    """Build the result record of one instance.

    Args:
        record: The typed instance record (``.id`` and the :data:`META_FIELDS` it has
            are read as attributes).
        mode: Mode name.
        settings: Generation settings as a dict.
        score: The score, or None when the instance failed (outcome ``error``).
        response: Final response text.
        reasoning: Separate reasoning text, if any.
        prompt_tokens: Prompt tokens used.
        completion_tokens: Completion tokens used.
        reasoning_tokens: Of those, reasoning tokens, when the backend reported them.
        latency_s: Request seconds.
        finish_reason: Finish reason of the last request.
        requests: Number of model calls the instance took.
        error: Error message when the instance failed (after all retries).
        extra: Mode-specific details.
        harness_deaths: Harness processes that died while handling the reply (None:
            none did).

    Returns:
        The :class:`~closurebench.schema.ResultRecord`.

    Example:
        >>> from types import SimpleNamespace
        >>> r = make_result(SimpleNamespace(id="a", suite="closure", level=1), mode="direct",
        ...                 settings={}, error="boom")
        >>> r.outcome, r.level, r.task, r.error
        (<Outcome.ERROR: 'error'>, 1, None, 'boom')
    """
    meta: dict[str, Any] = {}
    for key in META_FIELDS:
        value = getattr(record, key, None)
        meta[key] = str(value) if isinstance(value, str) else value  # enums as their strings
    if score is None:
        outcome, strict, lenient, extracted, reason = Outcome.ERROR, False, False, None, error
    else:
        outcome, strict, lenient = Outcome(score.outcome), bool(score.strict), bool(score.lenient)
        extracted, reason = _jsonable(score.extracted), score.reason
    return ResultRecord(
        id=str(record.id),
        outcome=outcome,
        strict=strict,
        lenient=lenient,
        lenient_directional=None if score is None else score.lenient_directional,
        extracted=extracted,
        reason=reason,
        response=response,
        reasoning=reasoning,
        usage=Usage(
            prompt_tokens=int(prompt_tokens),
            completion_tokens=int(completion_tokens),
            reasoning_tokens=None if reasoning_tokens is None else int(reasoning_tokens),
        ),
        latency_s=round(float(latency_s), 6),
        finish_reason=finish_reason,
        requests=requests,
        settings=settings,
        mode=mode,
        error=error,
        extra=_jsonable(extra or {}),
        harness_deaths=harness_deaths,
        **meta,
    )


def _first_per_id(path: Path) -> Iterator[tuple[Line, dict[str, Any] | None]]:
    """Every line of ``path`` with its result, or None when the line is to be dropped.

    A line is dropped when the one reader finds it damaged (torn, corrupt, blank), when
    it has no ``id``, or when it repeats an earlier id (the first record wins). An old
    failed record is upgraded to outcome ``error`` on the way.
    """
    seen: set[str] = set()
    for line in scan(path):
        obj = line.obj
        if obj is not None and "id" in obj and str(obj["id"]) not in seen:
            seen.add(str(obj["id"]))
            yield line, upgrade_result(obj)
        else:
            yield line, None


def iter_results(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream the valid results of a results file as JSON objects (first per id).

    The file is not modified (see :func:`repair_results`) and lines are not validated,
    so the runner's summary stays cheap; :func:`iter_result_records` validates.

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file yields nothing).

    Yields:
        Result objects, in file order.
    """
    for _line, obj in _first_per_id(Path(path)):
        if obj is not None:
            yield obj


def iter_result_records(path: str | Path) -> Iterator[ResultRecord]:
    """Stream the valid results of a results file as typed records (first per id).

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file yields nothing).

    Yields:
        :class:`~closurebench.schema.ResultRecord` objects, in file order.

    Raises:
        DatasetFileError: for a line that is JSON but not a result record (names the
            file, line and field).
    """
    for line, obj in _first_per_id(Path(path)):
        if obj is not None:
            yield parse_result(obj, where=f"{path}:{line.lineno}")


def repair_results(
    path: str | Path, drop: Callable[[dict[str, Any]], bool] | None = None
) -> set[str]:
    """Rewrite a results file without damaged lines (and without ``drop``-ped results).

    Streams the file (through :func:`closurebench.jsonl.repair`), so memory holds only
    ids and line numbers; the file is replaced atomically, and only when something is
    removed.

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file means no results).
        drop: Also remove results for which this returns True (e.g. failed ones).

    Returns:
        The ids of the results kept.
    """
    p = Path(path)
    kept: set[str] = set()
    keep_lines: set[int] = set()
    for line, obj in _first_per_id(p):
        if obj is not None and (drop is None or not drop(obj)):
            kept.add(str(obj["id"]))
            keep_lines.add(line.lineno)
    repair(p, keep=lambda line: line.lineno in keep_lines)
    return kept


def load_results(path: str | Path) -> list[dict[str, Any]]:
    """Read a results file for resume, repairing a damaged tail.

    For large runs prefer :func:`repair_results` and :func:`iter_results`, which stream.

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file means no results).

    Returns:
        The kept results (first per id), in file order.
    """
    repair_results(path)
    return list(iter_results(path))


class ResultWriter:
    """Append results to a JSONL file: one flushed line per instance, fsync grouped."""

    def __init__(
        self, path: str | Path, *, sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S
    ) -> None:
        """Open ``path`` for appending.

        Args:
            path: The results file.
            sync_interval_s: Seconds between fsyncs (0: every line).
        """
        self.path = Path(path)
        self._log = AppendLog(self.path, sync_interval_s=sync_interval_s)

    def write(self, result: ResultRecord) -> None:
        """Append one result (its JSON form) and flush it to the operating system.

        Args:
            result: A result record.
        """
        self._log.append(json.dumps(result.to_json(), ensure_ascii=False))

    def close(self) -> None:
        """fsync and close the file."""
        self._log.close()


def _p90(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(0.9 * len(ordered)))
    return ordered[rank - 1]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(results: Iterable[ResultRecord]) -> RunSummary:
    """Aggregate results into ``summary.json``'s typed record (one streaming pass).

    Accuracies are over *answered* instances: a result with outcome ``error`` (no
    model response: the request failed) is counted under ``counts.errors`` and in
    ``outcomes.error``, never as a wrong answer; ``complete`` is False when there is
    one (the caller also sets it False for a run that stopped early).
    ``error_examples`` holds up to three distinct error messages.
    ``tokens.completion_mean`` is generated tokens per answer; ``per_correct_*`` divide
    all generated tokens by the number of (strict or lenient) correct answers, the
    paper's cost-efficiency measure (Table 5). ``tokens.reasoning_total`` sums the
    reasoning tokens servers reported (part of the completion tokens), over the
    ``tokens.reasoning_reported`` results that had them; ``reasoning_mean`` is per such
    result (None when no server reported any). Latency statistics cover answered
    instances. ``harness_deaths`` counts the results whose reply a harness process died
    while handling (:mod:`closurebench.evaluate.journal`): ``recorded_wrong`` were given
    up and are answered ``wrong`` (in every denominator; up to three ids under
    ``examples``), ``survived`` were handled again and finished. ``figures`` holds the
    mode figures of the answered results per suite
    (:class:`~closurebench.schema.summary.SummaryFigures`, computed by
    :func:`~closurebench.evaluate.figures.summary_figures`, as the report's program and
    GRAIN tables are): a program mode's execution rate, error classes and execution
    failures, an agent mode's rounds and tool calls per episode, structure recovery
    (mean ``s_inv``, the Table 19 classes) and episode ends with the cut ones. Should a
    result's structure score be unreadable, ``figures`` is null and ``figures_error``
    says which result.

    Args:
        results: Typed results (e.g. from :func:`iter_result_records`; any iterable,
            consumed once).

    Returns:
        The summary: the keys it sets are the ones ``summary.json`` holds
        (:meth:`~closurebench.schema.summary.RunSummary.to_json`); the runner adds the
        run's own (:func:`~closurebench.evaluate.runner.finish_run`).
    """
    total = answered = strict = lenient = 0
    outcomes: dict[str, int] = {o.value: 0 for o in Outcome}
    prompt_total = completion_total = 0.0
    reasoning_total = reasoning_reported = 0
    latencies: list[float] = []
    suites: set[str] = set()
    examples: list[str] = []
    gave_up = survived = 0
    gave_up_ids: list[str] = []
    views: list[ResultRecord] = []  # what the mode figures read of each answered result
    first: ResultRecord | None = None
    for r in results:
        if first is None:
            first = r
        total += 1
        deaths = r.harness_deaths
        if deaths is not None:
            if deaths.gave_up:
                gave_up += 1
                if len(gave_up_ids) < 3:
                    gave_up_ids.append(r.id)
            else:
                survived += 1
        completion_total += r.usage.completion_tokens
        prompt_total += r.usage.prompt_tokens
        if r.usage.reasoning_tokens is not None:
            reasoning_total += r.usage.reasoning_tokens
            reasoning_reported += 1
        if r.suite is not None:
            suites.add(r.suite)
        if r.is_error:
            outcomes[Outcome.ERROR.value] += 1
            message = r.error or ""
            if len(examples) < 3 and message not in examples:
                examples.append(message)
            continue
        answered += 1
        strict += r.strict
        lenient += r.lenient
        outcomes[r.outcome.value] += 1
        latencies.append(r.latency_s)
        view = figure_view(r)
        if view is not None:
            views.append(view)
    errors = total - answered
    figures_error: dict[str, str] = {}
    try:
        figures: dict[str, Any] | None = summary_figures(views).model_dump(mode="json")
    except FiguresError as exc:
        figures, figures_error = None, {"figures_error": str(exc)}
    return RunSummary.model_validate(
        {
            "counts": {"total": total, "answered": answered, "errors": errors},
            "complete": errors == 0,
            "error_examples": examples,
            "strict_accuracy": strict / answered if answered else None,
            "lenient_accuracy": lenient / answered if answered else None,
            "strict_correct": strict,
            "lenient_correct": lenient,
            "outcomes": outcomes,
            "tokens": {
                "prompt_total": int(prompt_total),
                "completion_total": int(completion_total),
                "prompt_mean": prompt_total / answered if answered else None,
                "completion_mean": completion_total / answered if answered else None,
                "per_correct_strict": completion_total / strict if strict else None,
                "per_correct_lenient": completion_total / lenient if lenient else None,
                "reasoning_total": reasoning_total,
                "reasoning_reported": reasoning_reported,
                "reasoning_mean": (
                    reasoning_total / reasoning_reported if reasoning_reported else None
                ),
            },
            "latency_s": {"mean": _mean(latencies), "p90": _p90(latencies)},
            "harness_deaths": {
                "recorded_wrong": gave_up,
                "survived": survived,
                "examples": gave_up_ids,
            },
            "mode": first.mode if first is not None else None,
            "settings": first.settings if first is not None else None,
            "suites": sorted(suites),
            "figures": figures,
            **figures_error,
        }
    )


def read_summary(path: str | Path) -> RunSummary | None:
    """Read ``summary.json`` through its typed definition (None when the file is absent).

    Args:
        path: The file.

    Returns:
        The summary, or None.

    Raises:
        ClosureBenchError: The file is not JSON, or not a ``summary.json`` record (the
            message names the file and the field).

    Example:
        >>> read_summary("/nonexistent/summary.json") is None
        True
    """
    p = Path(path)
    if not p.is_file():
        return None
    return parse_summary(read_json(p), str(p))


def write_summary(path: str | Path, summary: RunSummary) -> Path:
    """Write ``summary.json`` atomically (sorted keys, indented).

    Args:
        path: Destination file.
        summary: The summary (its :meth:`~closurebench.schema.summary.RunSummary.to_json`
            form is written).

    Returns:
        The path written.
    """
    p = Path(path)
    # Validated again: a field assigned a value of the wrong type is a bug caught here.
    dumped = summary.model_dump(exclude_unset=True, warnings=False)
    checked = RunSummary.model_validate(dumped).to_json()
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(checked, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    return p
