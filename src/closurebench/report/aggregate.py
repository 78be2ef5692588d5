"""Pure aggregation of evaluation run directories (no rendering).

A *run directory* holds ``results.jsonl`` (one record per instance, written by the
runner) and optionally ``summary.json``. Runs are read through the one JSONL reader
(:func:`closurebench.jsonl.scan`, whose policy skips a torn last line) and every line is
validated as a :class:`~closurebench.schema.ResultRecord` (a message names the file,
line and field). Results that ended in error (outcome ``error``: the request failed,
no model response) are not model results: :func:`load_run` keeps them out of
:attr:`Run.records`, so every table and figure is over answered instances, and counts
them in :attr:`Run.errors`; a run with errors, or whose ``summary.json`` says it
stopped early or is incomplete, is marked incomplete (:attr:`Run.incomplete`). A
result the runner gave up on because the harness died while handling its reply
(``harness_deaths.gave_up``) is a ``wrong`` answer like any other - it stays in the
records and in every denominator - and is counted in :attr:`Run.harness_gave_up`; in a
program-mode run it is a failed execution (``harness_died``).
This module loads runs and computes the
quantities the report tables and figures show: accuracies with Wilson 95% intervals,
outcome shares, token and latency statistics, the GRIT robustness measures as GRAIN
computes them (per naming scheme with the *sample* variance across schemes, per form
with the standard-vs-realistic gap, the test-vs-OOD gap — within a run, or across two
runs of one model and mode (:func:`split_pairs`) — a macro average over tasks,
accuracy by |V| bin), accuracy by density bin, and the chain-of-thought
self-correction markers of each response (counted while loading, before the texts are
dropped). A program or agent run's own figures (execution rate and error classes;
tool calls, structure recovery and episode ends) come from
:mod:`closurebench.evaluate.figures`, the functions ``summary.json`` is written with
(:func:`program_stats` is :func:`~closurebench.evaluate.figures.program_figures`).

Fields a result may lack (``density`` and ``split`` in results written before they were
recorded — a GRIT result's ``density``, its graph's, only since GRAIN Table 20's density
panel exists; ``lenient_directional`` only in runs scored since the directional column
exists) can be joined from the dataset files the run was made from
(:func:`attach_instances`); tables that need them are left out when no record has them.

Every function takes the typed results a run holds (:class:`LoadedResult`, or any
:class:`~closurebench.schema.ResultRecord`); a grouping key names one of their fields.

Example:
    >>> def rec(outcome, **meta): return LoadedResult(id="x", outcome=outcome, mode="d", **meta)
    >>> recs = [rec("strict_correct", level=1), rec("lenient_only", level=1), rec("wrong", level=2)]
    >>> round(accuracy(recs).pct, 2)
    66.67
    >>> {k: r.pct for k, r in accuracy_by(recs, "level").items()}
    {1: 100.0, 2: 0.0}
    >>> outcome_shares(recs)["lenient_only"]
    33.333333333333336
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from closurebench.errors import ClosureBenchError, DatasetFileError
from closurebench.evaluate.figures import (
    harness_gave_up,
    is_lenient,
    is_strict,
    result_suite,
)
from closurebench.evaluate.figures import program_figures as program_stats
from closurebench.evaluate.records import read_summary, summarize
from closurebench.jsonl import JsonFileError, read_json, scan
from closurebench.report.run import (
    LoadedResult,
    ReportError,
    Run,
    run_model_and_mode,
)
from closurebench.schema import Outcome, ResultRecord
from closurebench.schema.enums import MODEL_OUTCOMES
from closurebench.schema.summary import PROGRAM_ERROR_CLASSES, RunSummary
from closurebench.schema.summary import ProgramFigures as ProgramStats

__all__ = [
    "DENSITY_BINS",
    "JOINED_FIELDS",
    "MARKER_ALTERNATION",
    "NAMING_ORDER",
    "OUTCOMES",
    "PROGRAM_ERROR_CLASSES",
    "SELF_CORRECTIONS",
    "SELF_CORRECTION_MARKERS",
    "SIZE_BINS",
    "SMALL_N",
    "LoadedResult",
    "ProgramStats",
    "Rate",
    "ReportError",
    "Run",
    "SelfCorrectionStats",
    "SplitPair",
    "TokenStats",
    "accuracy",
    "accuracy_by",
    "accuracy_by_bin",
    "attach_instances",
    "bin_label",
    "count_self_corrections",
    "directional_accuracy",
    "form_gap",
    "group_by",
    "group_by_bin",
    "harness_gave_up",
    "is_lenient",
    "is_strict",
    "latency_stats",
    "load_run",
    "load_runs",
    "macro_accuracy",
    "naming_variance",
    "natural_key",
    "outcome_shares",
    "percentile",
    "program_stats",
    "result_field",
    "sample_variance",
    "self_correction_stats",
    "split_gap",
    "split_pairs",
    "suite_records",
    "token_stats",
    "wilson_interval",
]

OUTCOMES: tuple[Outcome, ...] = MODEL_OUTCOMES
"""The five mutually exclusive response outcomes, in table order (``error`` is not one)."""

NAMING_ORDER: tuple[str, ...] = ("canonical", "random", "semantic", "mixed")
"""GRIT naming schemes, in table order (unknown schemes sort after these)."""

FORM_ORDER: tuple[str, ...] = ("standard", "realistic")

SMALL_N = 100
"""Cells with fewer samples than this show their Wilson 95% interval."""

DENSITY_BINS: tuple[tuple[float, float], ...] = ((0.0, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 1.0))
"""ClosureBench density (ρ) bins, ``[lo, hi)`` (the last one closed): sparse to dense
over the default ρ ∈ [0.1, 0.5] (paper §4.2: "a few points from sparse to dense")."""

SIZE_BINS: tuple[tuple[float, float], ...] = (
    (1, 9),
    (10, 15),
    (16, 20),
    (21, 30),
    (31, 40),
    (41, 50),
    (51, 60),
    (61, math.inf),
)
"""GRIT |V| bins, inclusive: GRAIN Table 20's 10–15 / 16–20 / 21–30 / 31–40 (test) and
Fig. 5's range past training (41–60, the large split), with catch-alls at both ends."""

SELF_CORRECTION_MARKERS: tuple[str, ...] = (
    "wait",
    "let me reconsider",
    "let me re-check",
    "let me recheck",
    "let me double-check",
    "let me recount",
    "let me re-examine",
    "actually",
    "hmm",
    "on second thought",
    "i made a mistake",
)
"""Phrases counted as chain-of-thought self-corrections (paper §4.3/§4.4: "Wait, let me
reconsider…" segments), matched case-insensitively as whole words."""

#: The markers as one alternation (a space matches any run of whitespace).
MARKER_ALTERNATION = "|".join(re.escape(m).replace("\\ ", r"\s+") for m in SELF_CORRECTION_MARKERS)
# The lookahead on the markers' first letters only skips positions no marker can start
# at (the same matches, about twice as fast on long chain-of-thought texts).
_MARKER_RE = re.compile(
    r"\b(?=[" + "".join(sorted({m[0] for m in SELF_CORRECTION_MARKERS})) + r"])"
    r"(?:" + MARKER_ALTERNATION + r")\b",
    re.IGNORECASE,
)

#: The field :class:`LoadedResult` adds: self-correction markers in the texts.
SELF_CORRECTIONS = "self_corrections"

#: A result type (a loaded result, or any result record): functions keep it.
R = TypeVar("R", bound=ResultRecord)

_Z95 = 1.959963984540054


def wilson_interval(k: int, n: int, z: float = _Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``k / n``.

    Args:
        k: Number of successes.
        n: Number of trials.
        z: Normal quantile (default: 95% two-sided).

    Returns:
        ``(low, high)`` as fractions in [0, 1]; ``(nan, nan)`` when ``n == 0``.

    Example:
        >>> lo, hi = wilson_interval(5, 10)
        >>> round(lo, 4), round(hi, 4)
        (0.2366, 0.7634)
        >>> wilson_interval(0, 4)[0]
        0.0
    """
    if n <= 0:
        return (math.nan, math.nan)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return (lo, hi)


@dataclass(frozen=True)
class Rate:
    """A proportion ``k / n`` with its Wilson 95% interval.

    Example:
        >>> r = Rate(3, 4)
        >>> r.pct, r.fmt()
        (75.0, '75.0 [30.1, 95.4]')
        >>> Rate(150, 200).fmt()
        '75.0'
        >>> Rate(0, 0).fmt()
        '–'
    """

    k: int
    n: int

    @property
    def value(self) -> float:
        """The proportion as a fraction (nan when empty)."""
        return self.k / self.n if self.n else math.nan

    @property
    def pct(self) -> float:
        """The proportion in percent (nan when empty)."""
        return 100.0 * self.value

    @property
    def ci_pct(self) -> tuple[float, float]:
        """Wilson 95% bounds in percent."""
        lo, hi = wilson_interval(self.k, self.n)
        return (100.0 * lo, 100.0 * hi)

    def fmt(self, ci: bool | None = None, digits: int = 1) -> str:
        """Format as a percentage; the interval is appended when ``ci`` (default: n < SMALL_N)."""
        if not self.n:
            return "–"
        show = self.n < SMALL_N if ci is None else ci
        text = f"{self.pct:.{digits}f}"
        if show:
            lo, hi = self.ci_pct
            text += f" [{lo:.{digits}f}, {hi:.{digits}f}]"
        return text


def _read_results(results: Path) -> Iterable[LoadedResult]:
    """The validated records of ``results`` (texts dropped), via the one JSONL reader."""
    for line in scan(results):
        if line.torn:
            # The last line of a run still going (or killed mid-write) is written only
            # partly; the runner drops it on resume, so do we.
            continue
        if line.obj is None:
            if line.blank:
                continue
            raise ReportError(f"{results}:{line.lineno}: malformed JSON ({line.error})")
        # The texts are dropped (LoadedResult); the self-correction count read from them is kept.
        texts = (line.obj.get("response"), line.obj.get("reasoning"))
        count = sum(count_self_corrections(x) for x in texts if isinstance(x, str))
        try:
            yield LoadedResult.parse(line.obj, f"{results}:{line.lineno}", count)
        except DatasetFileError as exc:
            raise ReportError(str(exc)) from None


def load_run(path: str | Path) -> Run:
    """Load ``results.jsonl`` (required) and ``summary.json`` (optional) from a run directory.

    Args:
        path: The run directory (or its ``results.jsonl`` file).

    Returns:
        The :class:`Run` (results that ended in error counted in ``errors``, not kept
        in ``records``; an old file's failed request, ``no_answer`` with an ``error``
        message, is one of them).

    A partly written last line (a run still going, or killed mid-write) is skipped, as
    the runner's resume does. When ``summary.json`` lists ``selected_ids`` (the folder
    holds results outside the last command's selection), only those results are read,
    so the report and the summary cover the same instances. Response and reasoning
    texts are not kept (no table uses them), so the records stay small.

    Raises:
        ReportError: When the file is missing, a line is not a JSON object, or a record is
            not a result record (e.g. an unknown ``outcome``) — the message names the path,
            line and field.

    Example:
        >>> try:
        ...     load_run("/nonexistent/run")
        ... except ReportError as exc:
        ...     print(exc)  # doctest: +ELLIPSIS
        /nonexistent/run/results.jsonl: not found; ...
    """
    p = Path(path)
    if p.is_file() and p.name == "results.jsonl":
        p = p.parent
    results = p / "results.jsonl"
    if not results.is_file():
        raise ReportError(f"{results}: not found; pass a run directory written by the runner")
    records: list[LoadedResult] = []
    summary = _summary(p / "summary.json")
    # The last command's selection, when the folder holds results outside it: the
    # report covers what summary.json covers.
    listed = summary.selected_ids if summary is not None else None
    selection = set(listed) if listed is not None else None

    def selected() -> Iterator[LoadedResult]:
        for rec in _read_results(results):
            if selection is None or rec.id in selection:
                if not rec.is_error:
                    records.append(rec)
                yield rec

    # The counts, error examples, model and mode come from the function that writes
    # summary.json, over the same results, so the report and the summary cannot disagree.
    totals = summarize(selected())
    model, mode = run_model_and_mode(totals.settings, totals.mode, summary, p)
    label = f"{model} · {mode}" if mode else model
    gave_up = sum(harness_gave_up(r) for r in records)
    identity = _json_object(p / "run.json")
    sandbox = _sandbox_info(identity, summary)
    return Run(
        p,
        label,
        model,
        mode,
        records,
        summary,
        totals.counts.errors,
        list(totals.error_examples),
        gave_up,
        sandbox,
        identity,
    )


def _summary(path: Path) -> RunSummary | None:
    """``summary.json`` read through its typed definition (``None`` when absent).

    Raises:
        ReportError: The file is not JSON or not a ``summary.json`` record (the message
            names the field).
    """
    try:
        return read_summary(path)
    except ClosureBenchError as exc:
        raise ReportError(str(exc)) from None


def _json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``; ``None`` when the file is absent or holds no object.

    Raises:
        ReportError: The file is not JSON.
    """
    if not path.is_file():
        return None
    try:
        loaded = read_json(path)
    except JsonFileError as exc:
        raise ReportError(str(exc)) from None
    return loaded if isinstance(loaded, dict) else None


def _sandbox_info(
    identity: dict[str, Any] | None, summary: RunSummary | None
) -> dict[str, Any] | None:
    """``run.json``'s ``sandbox`` (else the summary's): how model programs ran."""
    info = identity or {}
    if isinstance(info.get("sandbox"), dict):
        return dict(info["sandbox"])
    found = (summary.model_extra or {}).get("sandbox") if summary is not None else None
    return dict(found) if isinstance(found, dict) else None


def load_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Load several run directories; duplicate labels get the directory name appended.

    A path that names an inspect_ai log (``.eval`` or ``.json``) of a closurebench task
    gives its runs (one per epoch; :mod:`closurebench.report.inspect_log`).

    Raises:
        ReportError: When no path is given or any run fails to load.
    """
    from closurebench.report.inspect_log import is_inspect_log, runs_from_inspect_log

    runs: list[Run] = []
    for path in paths:
        if Path(path).is_file() and is_inspect_log(Path(path)):
            runs += runs_from_inspect_log(path)
        else:
            runs.append(load_run(path))
    if not runs:
        raise ReportError("no run directory given")
    counts: dict[str, int] = {}
    for run in runs:
        counts[run.label] = counts.get(run.label, 0) + 1
    for run in runs:
        if counts[run.label] > 1:
            run.label = f"{run.label} ({run.path.name})"
    return runs


def accuracy(records: Sequence[ResultRecord], strict: bool = False) -> Rate:
    """Lenient (default) or strict accuracy of ``records`` as a :class:`Rate`.

    Example:
        >>> recs = [LoadedResult(id=o, outcome=o, mode="d") for o in ("lenient_only", "wrong")]
        >>> accuracy(recs, strict=True), accuracy(recs)
        (Rate(k=0, n=2), Rate(k=1, n=2))
    """
    ok = is_strict if strict else is_lenient
    return Rate(sum(1 for r in records if ok(r)), len(records))


def natural_key(value: Any) -> tuple[int, Any]:
    """The sort key of a grouping value (:func:`group_by`'s order): numbers numerically,
    GRIT namings and forms in paper order, other strings alphabetically, None last.

    Example:
        >>> sorted(["realistic", "zeta", 3, "standard"], key=natural_key)
        [3, 'standard', 'realistic', 'zeta']
    """
    if isinstance(value, bool) or value is None:
        return (3, str(value))
    if isinstance(value, int | float):
        return (0, value)
    if value in NAMING_ORDER:
        return (1, NAMING_ORDER.index(value))
    if value in FORM_ORDER:
        return (1, FORM_ORDER.index(value))
    return (2, str(value))


def result_field(rec: ResultRecord, key: str) -> Any:
    """The value of the field ``key`` of ``rec``; None for a :class:`LoadedResult` field on
    a plain record.

    Raises:
        ValueError: ``key`` is not a field of :class:`LoadedResult`.

    Example:
        >>> rec = ResultRecord(id="a", outcome="wrong", mode="d", n=5)
        >>> result_field(rec, "n"), result_field(rec, "self_corrections")
        (5, None)
    """
    return getattr(rec, _checked_field(key), None)


_FIELDS = frozenset(LoadedResult.model_fields)


def _checked_field(key: str) -> str:
    """``key``, when it names a field of :class:`LoadedResult` (else ValueError)."""
    if key not in _FIELDS:
        names = ", ".join(LoadedResult.model_fields)
        raise ValueError(f"{key!r} is not a result field; expected one of {names}")
    return key


def group_by(records: Iterable[R], key: str) -> dict[Any, list[R]]:
    """Group records by a field (records without it are dropped), keys in a natural order.

    Numbers sort numerically, GRIT namings and forms in paper order, other strings
    alphabetically.

    Raises:
        ValueError: ``key`` is not a field of :class:`LoadedResult`.

    Example:
        >>> recs = [LoadedResult(id="x", outcome="wrong", mode="d", naming=naming)
        ...         for naming in ("mixed", "canonical", None)]
        >>> list(group_by(recs, "naming"))
        ['canonical', 'mixed']
    """
    groups: dict[Any, list[R]] = {}
    name = _checked_field(key)
    for rec in records:
        value = getattr(rec, name, None)
        if value is None or value == "":
            continue
        groups.setdefault(value, []).append(rec)
    return dict(sorted(groups.items(), key=lambda kv: natural_key(kv[0])))


def accuracy_by(records: Iterable[ResultRecord], key: str, strict: bool = False) -> dict[Any, Rate]:
    """Accuracy per value of ``key`` (see :func:`group_by` for ordering)."""
    return {k: accuracy(v, strict) for k, v in group_by(records, key).items()}


def suite_records(run: Run, suite: str) -> list[LoadedResult]:
    """The records of ``run`` belonging to a suite (``"closure"`` or ``"grit"``).

    Records without ``suite`` count as ClosureBench when they carry ``level``, as GRIT
    when they carry ``naming`` or ``form``.

    Example:
        >>> recs = [LoadedResult(id="a", outcome="wrong", mode="d", suite="grit"),
        ...         LoadedResult(id="b", outcome="wrong", mode="d", level=2)]
        >>> r = Run(Path("."), "m", "m", "", recs)
        >>> len(suite_records(r, "closure")), len(suite_records(r, "grit"))
        (1, 1)
    """

    return [r for r in run.records if result_suite(r) == suite]


def outcome_shares(records: Sequence[ResultRecord]) -> dict[str, float]:
    """Percentage of records per outcome (sums to 100 for non-empty input).

    Example:
        >>> recs = [LoadedResult(id=o, outcome=o, mode="d") for o in ("wrong", "no_answer")]
        >>> s = outcome_shares(recs)
        >>> s["wrong"], s["no_answer"], sum(s.values())
        (50.0, 50.0, 100.0)
    """
    counts = {o.value: 0 for o in OUTCOMES}
    for rec in records:
        outcome = rec.outcome
        if outcome.is_model:  # an error is not a response (load_run drops them anyway)
            counts[outcome.value] += 1
    n = sum(counts.values())
    return {k: (100.0 * v / n if n else math.nan) for k, v in counts.items()}


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (``q`` in [0, 100]); nan for empty input.

    Example:
        >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)
        9.1
    """
    xs = sorted(float(v) for v in values)
    if not xs:
        return math.nan
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return round(xs[lo] + (xs[hi] - xs[lo]) * (pos - lo), 12)


@dataclass(frozen=True)
class TokenStats:
    """Token cost of a set of responses (Table 5).

    Attributes:
        answers: Number of responses.
        correct: Number of lenient-correct responses.
        completion_mean: Mean completion (output) tokens per answer — "tokens per answer".
        prompt_mean: Mean prompt tokens per answer.
        per_correct: Total completion tokens / correct answers (inf when none correct).
        reasoning_mean: Mean reasoning tokens (part of the completion tokens) over the
            responses whose server reported them; nan when none did.
        reasoning_reported: Responses whose server reported reasoning tokens.
    """

    answers: int
    correct: int
    completion_mean: float
    prompt_mean: float
    per_correct: float
    reasoning_mean: float = math.nan
    reasoning_reported: int = 0


def token_stats(records: Sequence[ResultRecord]) -> TokenStats:
    """Tokens per answer and per correct answer (completion tokens; missing usage counts 0).

    Example:
        >>> def rec(outcome, prompt, completion, reasoning=None):
        ...     usage = {"prompt_tokens": prompt, "completion_tokens": completion,
        ...              "reasoning_tokens": reasoning}
        ...     return LoadedResult(id="x", outcome=outcome, mode="d", usage=usage)
        >>> recs = [rec("strict_correct", 10, 30), rec("wrong", 20, 10)]
        >>> st = token_stats(recs)
        >>> st.completion_mean, st.prompt_mean, st.per_correct, st.reasoning_reported
        (20.0, 15.0, 40.0, 0)
        >>> token_stats([rec("strict_correct", 10, 30, 24), recs[1]]).reasoning_mean
        24.0
    """
    n = len(records)
    comp = float(sum(r.usage.completion_tokens for r in records))
    prompt = float(sum(r.usage.prompt_tokens for r in records))
    reasoning = [
        float(r.usage.reasoning_tokens) for r in records if r.usage.reasoning_tokens is not None
    ]
    correct = sum(1 for r in records if is_lenient(r))
    return TokenStats(
        answers=n,
        correct=correct,
        completion_mean=comp / n if n else math.nan,
        prompt_mean=prompt / n if n else math.nan,
        per_correct=(comp / correct if correct else math.inf) if n else math.nan,
        reasoning_mean=math.fsum(reasoning) / len(reasoning) if reasoning else math.nan,
        reasoning_reported=len(reasoning),
    )


def latency_stats(records: Sequence[ResultRecord]) -> tuple[float, float]:
    """Mean and p90 of ``latency_s`` (nan when there are no records).

    Example:
        >>> recs = [LoadedResult(id="x", outcome="wrong", mode="d", latency_s=s) for s in (1, 3)]
        >>> latency_stats(recs), latency_stats([])
        ((2.0, 2.8), (nan, nan))
    """
    xs = [r.latency_s for r in records]
    if not xs:
        return (math.nan, math.nan)
    return (sum(xs) / len(xs), percentile(xs, 90))


def sample_variance(values: Sequence[float], ddof: int = 1) -> float:
    """Variance of ``values`` with ``len - ddof`` as denominator (nan when too few).

    Example:
        >>> sample_variance([0.9, 0.7]), sample_variance([0.9, 0.7], ddof=0)
        (0.02000000000000001, 0.010000000000000005)
        >>> import math; math.isnan(sample_variance([0.5]))
        True
    """
    if len(values) - ddof <= 0 or len(values) < 2:
        return math.nan
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - ddof)


def naming_variance(records: Sequence[ResultRecord], ddof: int = 1) -> float:
    """Variance of per-naming-scheme accuracy, in units of 10⁻⁴ (= pp²), as GRAIN computes it.

    GRAIN's "Var." column (Table 10): accuracies as fractions, the *sample* variance
    (denominator ``k − 1`` for ``k`` schemes) across the naming schemes present, scaled
    by 10⁴ — the only way the paper's own numbers are reproduced (gpt-5-nano, synthetic:
    83.33 / 66.67 / 75.00 / 70.00 → 52.5). ``ddof=0`` gives the population variance. nan
    when fewer than two schemes are present.

    Example:
        >>> def rec(naming, outcome):
        ...     return LoadedResult(id="x", outcome=outcome, mode="d", naming=naming)
        >>> recs = ([rec("canonical", "strict_correct")] * 9 + [rec("canonical", "wrong")]
        ...         + [rec("random", "strict_correct")] * 7 + [rec("random", "wrong")] * 3)
        >>> round(naming_variance(recs), 6)  # accuracies 0.9 and 0.7 -> var 0.02
        200.0
        >>> round(naming_variance(recs, ddof=0), 6)
        100.0
    """
    accs = [r.value for r in accuracy_by(records, "naming").values()]
    return 1e4 * sample_variance(accs, ddof)


def macro_accuracy(records: Sequence[ResultRecord], key: str = "task") -> float:
    """Mean of the per-``key`` accuracies in percent (GRAIN's "Avg.": macro over tasks).

    Example:
        >>> def rec(task, outcome): return LoadedResult(id="x", outcome=outcome, mode="d",
        ...                                          task=task)
        >>> recs = [rec("bfs", "strict_correct")] + [rec("tsp", "wrong")] * 3
        >>> macro_accuracy(recs), accuracy(recs).pct  # macro vs micro
        (50.0, 25.0)
    """
    pcts = [r.pct for r in accuracy_by(records, key).values()]
    return sum(pcts) / len(pcts) if pcts else math.nan


def split_gap(records: Sequence[ResultRecord], base: str = "test", other: str = "ood") -> float:
    """``base`` minus ``other`` split accuracy in pp (GRAIN Table 3's Gap; nan if one is missing).

    Accuracies are macro averages over tasks (as GRAIN's Test and OOD columns).

    Example:
        >>> recs = [LoadedResult(id="x", outcome=outcome, mode="d", split=split, task="bfs")
        ...         for split, outcome in (("test", "strict_correct"), ("ood", "wrong"))]
        >>> split_gap(recs)
        100.0
    """
    by = group_by(records, "split")
    if base not in by or other not in by:
        return math.nan
    return macro_accuracy(by[base]) - macro_accuracy(by[other])


@dataclass(frozen=True)
class SplitPair:
    """The runs of one model and mode that hold its ``base`` and its ``other`` split results.

    Made by :func:`split_pairs` when those results are not all in one run: one run holds
    the test results and another the OOD results (GRAIN Table 3 run as two evaluations).

    Attributes:
        model: The runs' model.
        mode: The runs' mode (``""`` when unknown).
        base: The runs holding ``base_split`` results (GRIT), in the report's order.
        other: The runs holding ``other_split`` results.
        base_split: The split the gap starts from (``test``).
        other_split: The split it subtracts (``ood``).
    """

    model: str
    mode: str
    base: tuple[Run, ...]
    other: tuple[Run, ...]
    base_split: str = "test"
    other_split: str = "ood"

    @property
    def label(self) -> str:
        """``model · mode`` (the model alone when the mode is unknown)."""
        return f"{self.model} · {self.mode}" if self.mode else self.model

    @property
    def ambiguous(self) -> str | None:
        """Why the runs cannot be paired (several runs on one side), or None.

        Example:
            >>> a, b, c = (Run(Path(p), p, "m", "direct", []) for p in "abc")
            >>> SplitPair("m", "direct", (a, b), (c,)).ambiguous
            'ambiguous: 2 runs hold test results (a, b); pass one run per split'
            >>> SplitPair("m", "direct", (a,), (c,)).ambiguous is None
            True
        """
        parts = [
            f"{len(runs)} runs hold {split} results ({', '.join(r.label for r in runs)})"
            for runs, split in ((self.base, self.base_split), (self.other, self.other_split))
            if len(runs) > 1
        ]
        if not parts:
            return None
        return f"ambiguous: {' and '.join(parts)}; pass one run per split"

    def records(self, which: str) -> list[LoadedResult]:
        """The GRIT results of split ``which`` in the pair's one run of that split.

        Args:
            which: ``base_split`` or ``other_split``.

        Returns:
            Those results; ``[]`` when the pair is ambiguous.

        Raises:
            ValueError: ``which`` is neither of the pair's splits.
        """
        if which not in (self.base_split, self.other_split):
            raise ValueError(
                f"split {which!r} is neither {self.base_split!r} nor {self.other_split!r}"
            )
        runs = self.base if which == self.base_split else self.other
        if self.ambiguous:
            return []
        return [r for r in suite_records(runs[0], "grit") if r.split == which]

    @property
    def gap(self) -> float:
        """:func:`split_gap` of the two runs' results together (nan when ambiguous)."""
        return split_gap(
            [*self.records(self.base_split), *self.records(self.other_split)],
            self.base_split,
            self.other_split,
        )


def split_pairs(runs: Sequence[Run], base: str = "test", other: str = "ood") -> list[SplitPair]:
    """Runs of one model and mode whose ``base`` and ``other`` GRIT results lie apart.

    Runs are grouped by ``(model, mode)``. A group yields a :class:`SplitPair` when it
    has runs holding ``base`` results and runs holding ``other`` results, unless one run
    alone holds both (its own row of the split table gives that gap). A pair with
    several runs on one side is :attr:`SplitPair.ambiguous`: it is reported, not guessed.

    Example:
        >>> def grit(split):
        ...     return [LoadedResult(id="x", outcome="wrong", mode="cot", suite="grit",
        ...                          split=split, task="bfs")]
        >>> runs = [Run(Path("t"), "m (t)", "m", "cot", grit("test")),
        ...         Run(Path("o"), "m (o)", "m", "cot", grit("ood")),
        ...         Run(Path("x"), "x", "x", "cot", grit("test") + grit("ood"))]
        >>> [(p.label, [r.label for r in p.base], [r.label for r in p.other])
        ...  for p in split_pairs(runs)]
        [('m · cot', ['m (t)'], ['m (o)'])]
    """
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.model, run.mode), []).append(run)
    out = []
    for (model, mode), members in groups.items():

        def holding(split: str, members: list[Run] = members) -> tuple[Run, ...]:
            return tuple(
                r for r in members if any(x.split == split for x in suite_records(r, "grit"))
            )

        with_base, with_other = holding(base), holding(other)
        if not with_base or not with_other:
            continue
        if len(with_base) == len(with_other) == 1 and with_base[0] is with_other[0]:
            continue
        out.append(SplitPair(model, mode, with_base, with_other, base, other))
    return out


def bin_label(bounds: tuple[float, float], integer: bool = True) -> str:
    """The label of a bin: ``10–15`` (inclusive integers) or ``0.2–0.3`` (``[lo, hi)``).

    Example:
        >>> bin_label((10, 15)), bin_label((61, math.inf)), bin_label((0.2, 0.3), False)
        ('10–15', '≥61', '0.2–0.3')
    """
    lo, hi = bounds
    if integer:
        return f"≥{lo:g}" if math.isinf(hi) else f"{lo:g}–{hi:g}"
    return f"{lo:g}–{hi:g}"


def _bin_of(value: float, bins: Sequence[tuple[float, float]], integer: bool) -> int | None:
    for i, (lo, hi) in enumerate(bins):
        last = i == len(bins) - 1
        if integer and lo <= value <= hi:
            return i
        if not integer and lo <= value and (value < hi or (last and value <= hi)):
            return i
    return None


def accuracy_by_bin(
    records: Iterable[ResultRecord],
    key: str,
    bins: Sequence[tuple[float, float]],
    integer: bool = True,
    strict: bool = False,
) -> dict[str, Rate]:
    """Accuracy per bin of a numeric field (bins without records are left out).

    Args:
        records: Result records.
        key: The numeric field (``n``, ``density``).
        bins: ``(lo, hi)`` pairs in order: inclusive for ``integer``, else ``[lo, hi)``
            (the last one closed).
        integer: Whether the field holds integers.
        strict: Strict instead of lenient accuracy.

    Example:
        >>> def rec(n, outcome="wrong"): return LoadedResult(id="x", outcome=outcome, mode="d", n=n)
        >>> recs = [rec(12, "strict_correct"), rec(18), rec(14), rec(None)]
        >>> {k: r.fmt(ci=False) for k, r in accuracy_by_bin(recs, "n", SIZE_BINS).items()}
        {'10–15': '50.0', '16–20': '0.0'}
    """
    groups = group_by_bin(records, key, bins, integer)
    return {bin_label(bins[i], integer): accuracy(groups[i], strict) for i in groups}


def group_by_bin(
    records: Iterable[R],
    key: str,
    bins: Sequence[tuple[float, float]],
    integer: bool = True,
) -> dict[int, list[R]]:
    """Records per bin of a numeric field: bin index -> records, in bin order.

    Records without a number under ``key`` (a bool is none) or outside every bin are
    left out, and so are bins without records.

    Raises:
        ValueError: ``key`` is not a field of :class:`LoadedResult`.

    Args:
        records: Result records.
        key: The numeric field (``n``, ``density``).
        bins: ``(lo, hi)`` pairs in order: inclusive for ``integer``, else ``[lo, hi)``
            (the last one closed).
        integer: Whether the field holds integers.

    Example:
        >>> recs = [LoadedResult(id="x", outcome="wrong", mode="d", density=d)
        ...         for d in (0.1, 0.314, 1.0, None)]
        >>> by = group_by_bin(recs, "density", ((0, 0.314), (0.314, 0.415), (0.415, 1)), False)
        >>> {i: [r.density for r in rs] for i, rs in by.items()}
        {0: [0.1], 1: [0.314], 2: [1.0]}
    """
    groups: dict[int, list[R]] = {}
    name = _checked_field(key)
    for rec in records:
        value = getattr(rec, name, None)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        idx = _bin_of(float(value), bins, integer)
        if idx is not None:
            groups.setdefault(idx, []).append(rec)
    return dict(sorted(groups.items()))


def _directional(rec: ResultRecord) -> bool | None:
    value = rec.lenient_directional
    if value is None:
        found = rec.extra.get("lenient_directional")
        value = found if isinstance(found, bool) else None
    return value


def directional_accuracy(records: Sequence[ResultRecord]) -> Rate:
    """Accuracy under the directional lenient variant, over the records that record it.

    The variant (``scoring.lenient.LENIENT_DIRECTIONAL``) is read from the record's
    ``lenient_directional`` field (or ``extra["lenient_directional"]``; filled in by
    :func:`attach_instances` for older runs); ``Rate(0, 0)`` when no record has it.

    Example:
        >>> def rec(**fields): return LoadedResult(id="x", outcome="wrong", mode="d", **fields)
        >>> directional_accuracy([rec(lenient_directional=True), rec(),
        ...                       rec(extra={"lenient_directional": False})])
        Rate(k=1, n=2)
    """
    got = [v for v in (_directional(r) for r in records) if v is not None]
    return Rate(sum(got), len(got))


def count_self_corrections(text: str | None) -> int:
    """Self-correction markers in a response (:data:`SELF_CORRECTION_MARKERS`).

    Example:
        >>> count_self_corrections("So 4. Wait, let me reconsider... Hmm, actually 5.")
        4
        >>> count_self_corrections("They await the result."), count_self_corrections(None)
        (0, 0)
    """
    return len(_MARKER_RE.findall(text)) if text else 0


@dataclass(frozen=True)
class SelfCorrectionStats:
    """Self-correction markers over a set of responses (paper §4.3/§4.4).

    Attributes:
        responses: Responses counted (records that carry a count).
        mean: Mean markers per response.
        share: Percentage of responses with at least one marker.
    """

    responses: int
    mean: float
    share: float


def self_correction_stats(records: Sequence[ResultRecord]) -> SelfCorrectionStats:
    """Mean self-correction markers per response and the share of responses with any.

    Records that carry no count (no :class:`LoadedResult`, or one not counted) are left
    out.

    Example:
        >>> def rec(k): return LoadedResult(id="x", outcome="wrong", mode="d", self_corrections=k)
        >>> self_correction_stats([rec(3), rec(0), rec(None)])
        SelfCorrectionStats(responses=2, mean=1.5, share=50.0)
    """
    counts = [k for r in records if (k := result_field(r, SELF_CORRECTIONS)) is not None]
    if not counts:
        return SelfCorrectionStats(0, math.nan, math.nan)
    with_any = sum(1 for c in counts if c > 0)
    return SelfCorrectionStats(len(counts), sum(counts) / len(counts), 100 * with_any / len(counts))


#: Instance fields :func:`attach_instances` copies into results that lack them.
JOINED_FIELDS: tuple[str, ...] = ("split", "density", "n")


def attach_instances(runs: Sequence[Run], datasets: Iterable[str | Path]) -> int:
    """Join dataset records into the runs' results by ``id`` (in place).

    Copies :data:`JOINED_FIELDS` (``split``, ``density``, ``n``) where a result lacks
    them, and for ClosureBench results whose answer was judged (``strict_correct``,
    ``lenient_only``, ``wrong``) without a ``lenient_directional`` verdict, computes it
    from the recorded ``extracted`` value with the one scorer. Results without a
    matching instance are left as they are.

    Args:
        runs: Loaded runs.
        datasets: Instance files (JSONL, as written by ``closurebench generate``).

    Returns:
        The number of results that matched an instance.

    Raises:
        ReportError: a dataset file is missing or holds a malformed record.
    """
    from closurebench.generate.io import iter_instances
    from closurebench.schema import ClosureInstance
    from closurebench.scoring import score_closure_value

    wanted = {rec.id for run in runs for rec in run.records}
    found: dict[str, Any] = {}
    for path in datasets:
        try:
            for instance in iter_instances(path):
                if instance.id in wanted:
                    found[instance.id] = instance
        except (ClosureBenchError, OSError) as exc:
            raise ReportError(f"{path}: cannot read the dataset file ({exc})") from None
    judged = {Outcome.STRICT_CORRECT, Outcome.LENIENT_ONLY, Outcome.WRONG}
    matched = 0
    for run in runs:
        for i, rec in enumerate(run.records):
            inst = found.get(rec.id)
            if inst is None:
                continue
            matched += 1
            update: dict[str, Any] = {
                key: getattr(inst, key)
                for key in JOINED_FIELDS
                if getattr(rec, key) is None and getattr(inst, key, None) is not None
            }
            if (
                isinstance(inst, ClosureInstance)
                and _directional(rec) is None
                and rec.outcome in judged
            ):
                score = score_closure_value(inst, rec.extracted)
                update["lenient_directional"] = bool(score.lenient_directional)
            if update:  # records are immutable: the run holds the joined copy
                run.records[i] = rec.model_copy(update=update)
    return matched


def form_gap(records: Sequence[ResultRecord]) -> float:
    """Standard-minus-realistic accuracy gap in percentage points (nan if a form is missing).

    GRAIN reports ``|Standard − Real|``; the sign is kept here (positive: realistic is
    harder) and tables show it signed.

    Example:
        >>> recs = [LoadedResult(id="x", outcome=outcome, mode="d", form=form)
        ...         for form, outcome in (("standard", "strict_correct"), ("realistic", "wrong"))]
        >>> form_gap(recs)
        100.0
    """
    by = accuracy_by(records, "form")
    if "standard" not in by or "realistic" not in by:
        return math.nan
    return by["standard"].pct - by["realistic"].pct
