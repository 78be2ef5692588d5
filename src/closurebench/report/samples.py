"""Repeated sampling: pass@k, the mean and its interval, and the spread over repeats.

``closurebench eval --samples K`` writes one run folder per sample, each recording its
number in ``run.json`` (``sample``). :func:`sample_groups` gathers the runs of a report
that are samples of one configuration (same dataset, model, provider, mode, mode
options and settings, a per-sample ``seed`` aside); :func:`repeated_sampling` scores
each group into the typed :class:`~closurebench.schema.samples.RepeatedSampling`
(``samples.json``), and :func:`samples_table` shows it in the report.

Per instance, ``n`` is the number of samples with a model response (errors are left
out, as in every accuracy) and ``c`` the number of correct ones:

* pass@k is the unbiased estimator ``1 - C(n-c, k) / C(n, k)`` (Chen et al., 2021),
  averaged over the instances with ``n >= k``;
* the mean is the average of ``c / n`` over instances, with a 95 % normal interval
  over instances (the standard error of the mean of the per-instance scores);
* the spread over repeats is the standard deviation (ddof 1) of the per-sample
  accuracies.

Example:
    >>> pass_at_k(3, 2, 1), pass_at_k(3, 2, 2), pass_at_k(3, 0, 3)
    (0.6666666666666666, 1.0, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from closurebench.report.aggregate import Run, sample_variance, suite_records
from closurebench.report.run import LoadedResult
from closurebench.report.table import Table
from closurebench.schema.samples import (
    PassAtK,
    RepeatedSampling,
    RepeatScores,
    SampleGroup,
    SampleRun,
)

__all__ = [
    "pass_at_k",
    "repeat_scores",
    "repeated_sampling",
    "sample_groups",
    "samples_table",
]

_Z95 = 1.959963984540054
#: Identity fields that may differ between the samples of one configuration.
_PER_SAMPLE = ("sample", "format")
#: Settings that may differ between samples (``--request-seed`` sends seed + k - 1).
_PER_SAMPLE_SETTINGS = ("seed",)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one instance: n answered samples, c of them correct.

    The probability that at least one of k samples drawn without replacement from
    the n is correct: ``1 - C(n-c, k) / C(n, k)``.

    Raises:
        ValueError: ``k`` outside ``1..n`` or ``c`` outside ``0..n``.

    Example:
        >>> pass_at_k(5, 1, 1), pass_at_k(5, 1, 5), pass_at_k(4, 2, 2)
        (0.2, 1.0, 0.8333333333333334)
    """
    if not 1 <= k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    total = math.comb(n, k)
    return (total - math.comb(n - c, k)) / total  # one rounding: exact where it can be


def _config_key(run: Run) -> str:
    """What must match between samples of one configuration, as canonical text."""
    import json

    ident = {k: v for k, v in (run.identity or {}).items() if k not in _PER_SAMPLE}
    settings = ident.get("settings")
    if isinstance(settings, Mapping):
        ident["settings"] = {k: v for k, v in settings.items() if k not in _PER_SAMPLE_SETTINGS}
    dataset = ident.get("dataset")
    if isinstance(dataset, Mapping):  # the same file, wherever it was read from
        ident["dataset"] = dataset.get("sha256")
    return json.dumps(ident, sort_keys=True, default=str)


def sample_groups(runs: Sequence[Run]) -> list[list[Run]]:
    """The runs that are samples of one configuration, one list per configuration.

    Runs without a sample number are not in any group; a group lists its runs by
    sample number, and groups come in the order of their first run.

    Example:
        >>> from pathlib import Path
        >>> def run(k, model="m"):
        ...     ident = {"model": model, "mode": "direct", "sample": k}
        ...     return Run(Path(f"s{k}"), model, model, "direct", [], identity=ident)
        >>> unsampled = Run(Path("x"), "x", "x", "", [])
        >>> groups = sample_groups([run(2), run(1), run(1, "other"), unsampled])
        >>> [[r.path.name for r in g] for g in groups]
        [['s1', 's2'], ['s1']]
    """
    groups: dict[str, list[Run]] = {}
    for run in runs:
        if run.sample is not None:
            groups.setdefault(_config_key(run), []).append(run)
    return [sorted(g, key=lambda r: r.sample or 0) for g in groups.values()]


def _accuracy(records: Sequence[LoadedResult], strict: bool) -> float | None:
    return (
        sum(r.strict if strict else r.lenient for r in records) / len(records) if records else None
    )


def repeat_scores(
    per_instance: Mapping[str, Sequence[bool]], per_sample: Sequence[float | None], samples: int
) -> RepeatScores:
    """Score one rule over the samples.

    Args:
        per_instance: Each instance's verdicts, one per answered sample.
        per_sample: Each sample's accuracy (None: it answered nothing).
        samples: K, the number of samples (pass@k for k = 1..K).

    Example:
        >>> s = repeat_scores({"a": [True, True, False], "b": [False] * 3, "c": [True] * 3},
        ...                   [2 / 3, 1 / 3, 2 / 3], 3)
        >>> [(p.k, round(p.value, 4)) for p in s.pass_at]
        [(1, 0.5556), (2, 0.6667), (3, 0.6667)]
        >>> round(s.mean, 4), round(s.std_over_samples, 4)
        (0.5556, 0.1925)
    """
    scores = [sum(v) / len(v) for v in per_instance.values() if v]
    mean = sum(scores) / len(scores) if scores else None
    ci: tuple[float, float] | None = None
    if mean is not None and len(scores) >= 2:
        half = _Z95 * math.sqrt(sample_variance(scores) / len(scores))
        ci = (max(0.0, mean - half), min(1.0, mean + half))
    answered = [a for a in per_sample if a is not None]
    std = math.sqrt(sample_variance(answered)) if len(answered) >= 2 else None
    pass_at = []
    for k in range(1, samples + 1):
        values = [pass_at_k(len(v), sum(v), k) for v in per_instance.values() if len(v) >= k]
        pass_at.append(
            PassAtK(k=k, value=sum(values) / len(values) if values else None, instances=len(values))
        )
    return RepeatScores(mean=mean, ci95=ci, std_over_samples=std, pass_at=pass_at)


def _group(runs: Sequence[Run]) -> SampleGroup:
    verdicts: dict[str, dict[str, list[bool]]] = {"strict": {}, "lenient": {}}
    for run in runs:
        for rec in run.records:
            for rule, found in verdicts.items():
                found.setdefault(rec.id, []).append(rec.strict if rule == "strict" else rec.lenient)
    answered_ids = [{r.id for r in run.records} for run in runs]
    every = set.intersection(*answered_ids) if answered_ids else set()
    first = runs[0]
    provider = (first.identity or {}).get("provider")
    return SampleGroup(
        model=first.model,
        mode=first.mode,
        provider=str(provider) if provider is not None else None,
        samples=len(runs),
        instances=len(verdicts["strict"]),
        complete_instances=len(every),
        runs=[
            SampleRun(
                sample=run.sample or 0,
                path=str(run.path),
                answered=len(run.records),
                errors=run.errors,
                strict_accuracy=_accuracy(run.records, strict=True),
                lenient_accuracy=_accuracy(run.records, strict=False),
            )
            for run in runs
        ],
        strict=repeat_scores(
            verdicts["strict"], [_accuracy(r.records, strict=True) for r in runs], len(runs)
        ),
        lenient=repeat_scores(
            verdicts["lenient"], [_accuracy(r.records, strict=False) for r in runs], len(runs)
        ),
    )


def repeated_sampling(runs: Sequence[Run]) -> RepeatedSampling:
    """Score every group of samples among ``runs`` (``samples.json``'s record).

    Example:
        >>> repeated_sampling([]).groups
        []
    """
    return RepeatedSampling(groups=[_group(g) for g in sample_groups(runs)])


def _shown_k(samples: int) -> list[int]:
    """The pass@k columns: every k up to 8, else powers of two and K itself.

    Example:
        >>> _shown_k(3), _shown_k(20)
        ([1, 2, 3], [1, 2, 4, 8, 16, 20])
    """
    if samples <= 8:
        return list(range(1, samples + 1))
    ks = [2**i for i in range(samples.bit_length()) if 2**i <= samples]
    return ks if ks[-1] == samples else [*ks, samples]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def samples_table(runs: Sequence[Run], suites: Iterable[str] | None = None) -> Table | None:
    """The report's repeated-sampling table, or None when no run is a sample.

    Args:
        runs: The report's runs.
        suites: Keep only groups whose records are of these suites (None: all).

    Returns:
        A :class:`~closurebench.report.table.Table` (key ``<suite>_samples``, or
        ``samples`` with no suite filter) or None.
    """
    groups = sample_groups(runs)
    if suites is not None:
        keep = set(suites)
        groups = [g for g in groups if any(suite_records(run, s) for run in g for s in keep)]
    if not groups:
        return None
    scored = [(g, _group(g)) for g in groups]
    ks = sorted({k for _, s in scored for k in _shown_k(s.samples)})
    rows = []
    for runs_of, group in scored:
        lenient_differs = any(r.strict != r.lenient for run in runs_of for r in run.records)
        rules = [("strict", group.strict), ("lenient", group.lenient)]
        for rule, scores in rules if lenient_differs else rules[:1]:
            by_k = {p.k: p for p in scores.pass_at}
            ci = scores.ci95
            rows.append(
                [
                    f"{group.model} · {group.mode}",
                    rule if lenient_differs else "strict = lenient",
                    str(group.samples),
                    f"{group.complete_instances}/{group.instances}",
                    _pct(scores.mean)
                    + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci is not None else ""),
                    "–"
                    if scores.std_over_samples is None
                    else f"{100 * scores.std_over_samples:.2f}",
                    *(_pct(by_k[k].value) if k in by_k else "" for k in ks),
                ]
            )
    return Table(
        "_".join([*sorted(set(suites)), "samples"]) if suites is not None else "samples",
        "Repeated sampling (pass@k)",
        "Each instance evaluated K times (`eval --samples K`). Mean: the average over "
        "instances of the share of an instance's answered samples that are correct, with "
        "a 95 % interval over instances; Std: the standard deviation (pp) of the K "
        "per-sample accuracies (the spread over repeats); pass@k: the unbiased estimator "
        "1 − C(n−c, k)/C(n, k) over the instances with at least k answered samples (n "
        "answered, c correct; errors are not samples). Complete: instances answered in "
        "every sample, of all with an answer. All figures in %.",
        ["Run", "Scoring", "K", "Complete", "Mean [95% CI]", "Std (pp)"]
        + [f"pass@{k}" for k in ks],
        rows,
    )
