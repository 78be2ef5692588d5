"""Report tables built from loaded runs (pure; rendered as Markdown here, HTML in ``html``).

Each builder takes the runs of a report and returns a :class:`Table` with one row per
run (labelled ``model · mode``) — or, for the per-category table, one column per run —
so several runs are compared side by side. Accuracies are lenient unless stated; cells
computed from fewer than :data:`~closurebench.report.aggregate.SMALL_N` samples carry
their Wilson 95% interval in brackets.

ClosureBench (paper Tables 3, 4, 5 with reasoning tokens when reported, 7 when runs
hold several encodings, 10, 11, the per-category breakdown, accuracy by density bin and
the chain-of-thought self-correction markers) and GRIT (GRAIN §5.1: per
task with the macro "Overall" and the micro average, per naming scheme with the sample
variance, per form with the standard-vs-realistic gap, test-vs-OOD gap — also across two
runs of one model and mode, one of test and one of OOD results — by |V| bin,
efficiency) tables are produced for the runs that contain records of that suite; a
table whose field no record carries (``density``, ``split``) is left out. Every table
is over answered instances: results that ended in error are not model results (see
:mod:`~closurebench.report.aggregate`); the run list gives their count per run and marks
such a run **incomplete**.

Cells are plain text: :meth:`Table.to_markdown` escapes them (:func:`md_escape`), so a
model name or run label such as ``<img src=x onerror=...>`` shows as text in
``report.md`` rather than as HTML.

Example:
    >>> from pathlib import Path
    >>> from closurebench.report.aggregate import LoadedResult, Run
    >>> recs = [LoadedResult(id=oc, outcome=oc, mode="direct", suite="closure", level=lv, n=4,
    ...                      category="reach") for lv, oc in [(1, "strict_correct"), (2, "wrong")]]
    >>> t = accuracy_by_level_table([Run(Path("."), "m · direct", "m", "direct", recs)])
    >>> print(t.to_markdown().splitlines()[4])
    | Run | L1 | L2 | Overall | L1−L3 (pp) | N |
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from closurebench.report.aggregate import (
    DENSITY_BINS,
    OUTCOMES,
    PROGRAM_ERROR_CLASSES,
    SIZE_BINS,
    Rate,
    Run,
    accuracy,
    accuracy_by,
    accuracy_by_bin,
    bin_label,
    directional_accuracy,
    form_gap,
    group_by,
    latency_stats,
    macro_accuracy,
    naming_variance,
    outcome_shares,
    program_stats,
    result_field,
    self_correction_stats,
    split_gap,
    split_pairs,
    suite_records,
    token_stats,
)
from closurebench.report.grain import grain_tables
from closurebench.report.run import LoadedResult
from closurebench.report.samples import samples_table
from closurebench.report.table import Table, md_escape
from closurebench.report.table import num as _num
from closurebench.schema import Outcome

__all__ = [
    "Table",
    "accuracy_by_category_table",
    "accuracy_by_density_table",
    "accuracy_by_level_table",
    "accuracy_by_n_table",
    "all_tables",
    "efficiency_table",
    "encoding_table",
    "grit_form_table",
    "grit_naming_table",
    "grit_size_table",
    "grit_split_pairs_table",
    "grit_split_table",
    "grit_task_table",
    "md_escape",
    "outcome_table",
    "program_table",
    "render_markdown",
    "self_correction_table",
    "strict_lenient_table",
    "token_table",
]

OUTCOME_HEADERS: dict[Outcome, str] = {
    Outcome.STRICT_CORRECT: "Strict",
    Outcome.LENIENT_ONLY: "Lenient-only",
    Outcome.WRONG: "Wrong",
    Outcome.FORMAT_ERROR: "Format err.",
    Outcome.NO_ANSWER: "No ans.",
}


def _signed(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:+.1f}"


def _runs_with(runs: Sequence[Run], suite: str) -> list[tuple[Run, list[LoadedResult]]]:
    out = []
    for run in runs:
        recs = suite_records(run, suite)
        if recs:
            out.append((run, recs))
    return out


def _union_keys(pairs: Sequence[tuple[Run, list[LoadedResult]]], key: str) -> list[Any]:
    allrecs = [r for _, recs in pairs for r in recs]
    return list(group_by(allrecs, key))


def _by_key_table(
    runs: Sequence[Run],
    suite: str,
    key: str,
    label: Callable[[Any], str],
    tkey: str,
    title: str,
    caption: str,
    overall: bool = True,
    extra: Sequence[tuple[str, Callable[[list[LoadedResult]], str]]] = (),
) -> Table:
    pairs = _runs_with(runs, suite)
    keys = _union_keys(pairs, key)
    header = ["Run", *(label(k) for k in keys)]
    if overall:
        header.append("Overall")
    header.extend(h for h, _ in extra)
    rows = []
    for run, recs in pairs:
        by = accuracy_by(recs, key)
        row = [run.label, *(by.get(k, Rate(0, 0)).fmt() for k in keys)]
        if overall:
            row.append(accuracy(recs).fmt())
        row.extend(fn(recs) for _, fn in extra)
        rows.append(row)
    return Table(tkey, title, caption, header, rows)


def _slope(recs: list[LoadedResult]) -> str:
    by = accuracy_by(recs, "level")
    levels = sorted(by)
    if len(levels) < 2:
        return "–"
    return _signed(by[levels[0]].pct - by[levels[-1]].pct)


def accuracy_by_level_table(runs: Sequence[Run]) -> Table:
    """ClosureBench Table 3: lenient accuracy (%) by level, overall, compositional slope."""
    return _by_key_table(
        runs,
        "closure",
        "level",
        lambda k: f"L{k}",
        "closure_level",
        "ClosureBench: accuracy by level (Table 3)",
        "Lenient accuracy (%). L1−L3 is the compositional slope in percentage points. "
        "Brackets: Wilson 95% interval (cells with n < 100).",
        extra=[("L1−L3 (pp)", _slope), ("N", lambda recs: str(len(recs)))],
    )


def accuracy_by_n_table(runs: Sequence[Run]) -> Table:
    """ClosureBench Table 4: overall lenient accuracy (%) by graph size n."""
    return _by_key_table(
        runs,
        "closure",
        "n",
        lambda k: f"n={k}",
        "closure_n",
        "ClosureBench: accuracy by graph size (Table 4)",
        "Overall lenient accuracy (%) by number of nodes n. "
        "Brackets: Wilson 95% interval (cells with n < 100).",
    )


def token_table(runs: Sequence[Run]) -> Table:
    """ClosureBench Table 5: completion tokens per answer (by level) and per correct answer."""
    pairs = _runs_with(runs, "closure")
    levels = _union_keys(pairs, "level")
    header = [
        "Run",
        *(f"Tok/ans L{lv}" for lv in levels),
        "Tok/ans",
        "Prompt tok",
        "Accuracy",
        "Tok/correct",
    ]
    reasoning = any(token_stats(recs).reasoning_reported for _, recs in pairs)
    if reasoning:
        header.append("Reasoning tok/ans")
    rows = []
    for run, recs in pairs:
        by = group_by(recs, "level")
        ts = token_stats(recs)
        row = [
            run.label,
            *(_num(token_stats(by.get(lv, [])).completion_mean, 0) for lv in levels),
            _num(ts.completion_mean, 0),
            _num(ts.prompt_mean, 0),
            accuracy(recs).fmt(ci=False),
            _num(ts.per_correct, 0),
        ]
        if reasoning:
            row.append(_num(ts.reasoning_mean, 0))
        rows.append(row)
    return Table(
        "closure_tokens",
        "ClosureBench: token cost (Table 5)",
        "Mean completion tokens per answer (overall and by level), mean prompt tokens, "
        "overall lenient accuracy (%), and completion tokens per correct answer "
        "(total completion tokens / lenient-correct answers)."
        + (
            " Reasoning tok/ans: mean reasoning tokens (counted within the completion "
            "tokens) over the responses whose server reported them "
            "(completion_tokens_details.reasoning_tokens)."
            if reasoning
            else ""
        ),
        header,
        rows,
    )


def _encoding_order(value: Any) -> tuple[int, str]:
    return (0 if value == "nl" else 1, str(value))


_ENCODING_NAMES = {"nl": "NL", "json": "JSON", "matrix": "Matrix"}


def encoding_table(runs: Sequence[Run]) -> Table:
    """ClosureBench Table 7: lenient accuracy (%) by encoding, the gap to NL, L1−L3 per encoding."""
    pairs = _runs_with(runs, "closure")
    encodings: list[str] = sorted(
        {str(r.encoding) for _, recs in pairs for r in recs if r.encoding},
        key=_encoding_order,
    )
    base = encodings[0]
    name = [_ENCODING_NAMES.get(e, e) for e in encodings]
    header = [
        "Run",
        *name,
        *(f"{n}−{name[0]} (pp)" for n in name[1:]),
        *(f"L1−L3 {n} (pp)" for n in name),
        "N",
    ]
    rows = []
    for run, recs in pairs:
        by = group_by(recs, "encoding")
        rates = [accuracy(by.get(e, [])) for e in encodings]
        rows.append(
            [
                run.label,
                *(rate.fmt() if rate.n else "–" for rate in rates),
                *(
                    _signed(rate.pct - rates[0].pct) if rate.n and rates[0].n else "–"
                    for rate in rates[1:]
                ),
                *(_slope(by.get(e, [])) for e in encodings),
                str(len(recs)),
            ]
        )
    return Table(
        "closure_encoding",
        "ClosureBench: accuracy by graph encoding (Table 7)",
        f"Lenient accuracy (%) per encoding of the graph (same structures and query "
        f"sentence on `generate closure --subset encoding-study`), the difference to "
        f"{_ENCODING_NAMES.get(base, base)} in percentage points, and the compositional "
        "slope L1−L3 within each encoding. Brackets: Wilson 95% interval (cells with n < 100).",
        header,
        rows,
    )


def strict_lenient_table(runs: Sequence[Run], suite: str = "closure") -> Table:
    """ClosureBench Table 10: strict vs lenient accuracy (%), the gap, the directional variant."""
    rows = []
    for run, recs in _runs_with(runs, suite):
        s, le = accuracy(recs, strict=True), accuracy(recs)
        rows.append(
            [
                run.label,
                s.fmt(),
                le.fmt(),
                _signed(le.pct - s.pct),
                directional_accuracy(recs).fmt(),
            ]
        )
    return Table(
        f"{suite}_strict_lenient",
        "ClosureBench: strict vs lenient (Table 10)",
        "Strict counts source-inclusion ambiguities as wrong; lenient is the paper's "
        "Algorithm 1: |p − r| = 1 either way for the six count-ambiguous categories, one "
        "anchor added or dropped for the six set-ambiguous ones. Gap = lenient − strict (pp). "
        "Lenient (directional): the variant that accepts only the step towards the other "
        "source convention (for a mean, that convention's value) — over the results that "
        "record it; – when none does (pass the dataset file to compute it for older runs).",
        ["Run", "Strict", "Lenient", "Gap", "Lenient (directional)"],
        rows,
    )


def outcome_table(runs: Sequence[Run], suite: str = "closure") -> Table:
    """Table 11: mutually exclusive outcome shares (%), each row sums to 100."""
    rows = []
    for run, recs in _runs_with(runs, suite):
        shares = outcome_shares(recs)
        rows.append([run.label, *(_num(shares[o]) for o in OUTCOMES), str(len(recs))])
    name = "ClosureBench" if suite == "closure" else "GRIT"
    return Table(
        f"{suite}_outcomes",
        f"{name}: outcome decomposition" + (" (Table 11)" if suite == "closure" else ""),
        "Share of responses (%) per mutually exclusive outcome; rows sum to 100 up to "
        "rounding. Lenient-only: correct under lenient but not strict scoring.",
        ["Run", *(OUTCOME_HEADERS[o] for o in OUTCOMES), "N"],
        rows,
    )


def _bin_labels(bins: Sequence[tuple[float, float]], integer: bool) -> list[str]:
    return [bin_label(b, integer) for b in bins]


def _has(runs: Sequence[Run], suite: str, key: str) -> bool:
    return any(
        result_field(r, key) is not None for _, recs in _runs_with(runs, suite) for r in recs
    )


def accuracy_by_density_table(runs: Sequence[Run]) -> Table:
    """ClosureBench accuracy (%) by density bin (paper §4.2: "a few points sparse to dense")."""
    pairs = _runs_with(runs, "closure")
    per_run = [accuracy_by_bin(recs, "density", DENSITY_BINS, integer=False) for _, recs in pairs]
    labels = [
        label for label in _bin_labels(DENSITY_BINS, False) if any(label in b for b in per_run)
    ]
    rows = [
        [run.label, *(by.get(lb, Rate(0, 0)).fmt() for lb in labels), accuracy(recs).fmt()]
        for (run, recs), by in zip(pairs, per_run, strict=True)
    ]
    return Table(
        "closure_density",
        "ClosureBench: accuracy by density",
        "Lenient accuracy (%) by edge density ρ (bins [lo, hi)). "
        "Brackets: Wilson 95% interval (cells with n < 100).",
        ["Run", *(f"ρ {lb}" for lb in labels), "Overall"],
        rows,
    )


def self_correction_table(runs: Sequence[Run]) -> Table:
    """Self-correction markers per response by level (paper §4.3/§4.4), one row per run."""
    pairs = _runs_with(runs, "closure")
    levels = _union_keys(pairs, "level")
    rows = []
    for run, recs in pairs:
        by = group_by(recs, "level")
        per_level = [self_correction_stats(by.get(lv, [])) for lv in levels]
        total = self_correction_stats(recs)
        rows.append(
            [
                run.label,
                *(_num(st.mean, 2) for st in per_level),
                _num(total.mean, 2),
                *(_num(st.share) for st in per_level),
                _num(total.share),
            ]
        )
    return Table(
        "closure_self_correction",
        "ClosureBench: self-correction markers",
        'Mean number of self-correction markers per response ("wait", "let me '
        'reconsider", "actually", "hmm", "on second thought", ...; response and '
        "reasoning text), by level and overall, then the share of responses (%) with at "
        "least one (the paper: 30–40% of L3 CoT traces).",
        [
            "Run",
            *(f"Mean L{lv}" for lv in levels),
            "Mean",
            *(f"Any L{lv} (%)" for lv in levels),
            "Any (%)",
        ],
        rows,
    )


def accuracy_by_category_table(runs: Sequence[Run]) -> Table:
    """ClosureBench per-category lenient accuracy (%): one row per category, one column per run."""
    pairs = _runs_with(runs, "closure")
    allrecs = [r for _, recs in pairs for r in recs]
    level_of: dict[str, Any] = {}
    for rec in allrecs:
        if rec.category is not None:
            level_of.setdefault(rec.category, rec.level)
    cats = sorted(level_of, key=lambda c: (level_of[c] is None, level_of[c] or 0, str(c)))
    per_run = [accuracy_by(recs, "category") for _, recs in pairs]
    rows = [
        [
            str(c),
            "–" if level_of[c] is None else f"L{level_of[c]}",
            *(by.get(c, Rate(0, 0)).fmt() for by in per_run),
        ]
        for c in cats
    ]
    return Table(
        "closure_category",
        "ClosureBench: accuracy by category",
        "Lenient accuracy (%) per category, runs side by side. "
        "Brackets: Wilson 95% interval (cells with n < 100).",
        ["Category", "Level", *(run.label for run, _ in pairs)],
        rows,
    )


def grit_task_table(runs: Sequence[Run]) -> Table:
    """GRIT accuracy (%) per task (GRAIN Table 2 layout): macro Overall, then micro."""
    return _by_key_table(
        runs,
        "grit",
        "task",
        str,
        "grit_task",
        "GRIT: accuracy by task",
        'Accuracy (%) per task. Overall: the macro average over tasks (GRAIN\'s "Avg."); '
        "Micro: over all instances. Brackets: Wilson 95% interval (cells with n < 100).",
        overall=False,
        extra=[
            ("Overall (macro)", lambda recs: _num(macro_accuracy(recs, "task"), 2)),
            ("Micro", lambda recs: accuracy(recs).fmt(ci=False, digits=2)),
            ("N", lambda recs: str(len(recs))),
        ],
    )


def grit_naming_table(runs: Sequence[Run]) -> Table:
    """GRIT accuracy (%) per naming scheme and the sample variance across schemes (×10⁻⁴)."""
    return _by_key_table(
        runs,
        "grit",
        "naming",
        str,
        "grit_naming",
        "GRIT: accuracy by naming scheme",
        "Accuracy (%) per naming scheme. Var: sample variance (denominator k − 1) of the "
        "per-scheme accuracies (as fractions) ×10⁻⁴, i.e. in pp², as GRAIN Table 10 "
        "computes it; lower is more naming-invariant.",
        extra=[("Var (×10⁻⁴)", lambda recs: _num(naming_variance(recs), 2))],
    )


_SPLIT_ORDER = ("train", "test", "ood", "large")


def grit_split_table(runs: Sequence[Run]) -> Table:
    """GRIT accuracy (%) per split, macro over tasks, and the test-vs-OOD gap (GRAIN Table 3)."""
    pairs = _runs_with(runs, "grit")
    present = {r.split for _, recs in pairs for r in recs}
    splits = [sp for sp in _SPLIT_ORDER if sp in present]
    splits += sorted(str(sp) for sp in present - {*_SPLIT_ORDER, None})
    rows = []
    for run, recs in pairs:
        by = group_by(recs, "split")
        rows.append(
            [
                run.label,
                *(_num(macro_accuracy(by[sp], "task"), 2) if sp in by else "–" for sp in splits),
                _signed(split_gap(recs)),
            ]
        )
    return Table(
        "grit_split",
        "GRIT: test vs OOD",
        "Accuracy (%) per split, each the macro average over tasks. Gap = test − OOD (pp; "
        "GRAIN Table 3's Gap ↓).",
        ["Run", *splits, "Test−OOD gap (pp)"],
        rows,
    )


def grit_split_pairs_table(runs: Sequence[Run]) -> Table:
    """GRAIN Table 3's test−OOD gap from two runs: one holds a model's test, another its OOD.

    One row per model and mode whose test and OOD results lie in different runs
    (:func:`~closurebench.report.aggregate.split_pairs`), naming the runs paired; when
    several runs hold one split's results the row says the pairing is ambiguous and
    gives no numbers.
    """
    rows = []
    for pair in split_pairs(runs):
        why = pair.ambiguous
        test, ood = pair.records("test"), pair.records("ood")
        rows.append(
            [
                pair.label,
                ", ".join(r.label for r in pair.base),
                ", ".join(r.label for r in pair.other),
                "–" if why else _num(macro_accuracy(test, "task"), 2),
                "–" if why else _num(macro_accuracy(ood, "task"), 2),
                "–" if why else _signed(pair.gap),
                why or "paired",
            ]
        )
    return Table(
        "grit_split_pairs",
        "GRIT: test vs OOD across runs (Table 3)",
        "The test−OOD gap of a model and mode whose test and OOD results are in two runs "
        "(runs paired by model and mode): accuracy (%) of the test run's test results and "
        "of the OOD run's OOD results, each the macro average over tasks; Gap = test − OOD "
        "(pp; GRAIN Table 3's Gap ↓). When several runs of one model and mode hold one "
        "split, the row says so and is left empty: pass one run per split.",
        ["Model · mode", "Test run", "OOD run", "Test", "OOD", "Test−OOD gap (pp)", "Pairing"],
        rows,
    )


def grit_size_table(runs: Sequence[Run]) -> Table:
    """GRIT accuracy (%) by |V| bin (GRAIN Fig. 5 and Table 20's buckets)."""
    pairs = _runs_with(runs, "grit")
    per_run = [accuracy_by_bin(recs, "n", SIZE_BINS) for _, recs in pairs]
    labels = [label for label in _bin_labels(SIZE_BINS, True) if any(label in b for b in per_run)]
    rows = [
        [run.label, *(by.get(lb, Rate(0, 0)).fmt() for lb in labels)]
        for (run, _), by in zip(pairs, per_run, strict=True)
    ]
    return Table(
        "grit_size",
        "GRIT: accuracy by |V|",
        "Accuracy (%) by number of nodes |V| (GRAIN Table 20's buckets; training covers "
        "|V| ≤ 40, Fig. 5 follows accuracy past it). "
        "Brackets: Wilson 95% interval (cells with n < 100).",
        ["Run", *(f"{lb} nodes" for lb in labels)],
        rows,
    )


def grit_form_table(runs: Sequence[Run]) -> Table:
    """GRIT accuracy (%) per form and the standard-vs-realistic gap (pp)."""
    return _by_key_table(
        runs,
        "grit",
        "form",
        str,
        "grit_form",
        "GRIT: accuracy by form",
        "Accuracy (%) per task form. Gap = standard − realistic (pp); GRAIN reports |gap|.",
        extra=[("Gap (pp)", lambda recs: _signed(form_gap(recs)))],
    )


def efficiency_table(runs: Sequence[Run], suite: str) -> Table:
    """Tokens and latency per answer (mean and p90) for one suite."""
    rows = []
    for run, recs in _runs_with(runs, suite):
        ts = token_stats(recs)
        mean, p90 = latency_stats(recs)
        rows.append(
            [
                run.label,
                _num(ts.completion_mean, 0),
                _num(ts.prompt_mean, 0),
                _num(ts.per_correct, 0),
                _num(mean, 2),
                _num(p90, 2),
            ]
        )
    name = "ClosureBench" if suite == "closure" else "GRIT"
    return Table(
        f"{suite}_efficiency",
        f"{name}: efficiency",
        "Mean completion and prompt tokens per answer, completion tokens per correct answer, "
        "and latency per answer in seconds (mean and 90th percentile).",
        ["Run", "Tok/ans", "Prompt tok", "Tok/correct", "Latency mean (s)", "Latency p90 (s)"],
        rows,
    )


def _share(k: int, n: int) -> str:
    return f"{k} ({100.0 * k / n:.0f}%)" if n else "–"


def _has_programs(runs: Sequence[Run], suite: str) -> bool:
    return any(program_stats(recs).responses for _, recs in _runs_with(runs, suite))


def program_table(runs: Sequence[Run], suite: str = "closure") -> Table:
    """Program synthesis (paper §4.5, Table 6): execution rate and the error classes."""
    rows = []
    for run, recs in _runs_with(runs, suite):
        st = program_stats(recs)
        if not st.responses:
            continue
        ts = token_stats(recs)
        fails = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in st.failures.items()) or "–"
        rows.append(
            [
                run.label,
                f"{st.executed}/{st.responses} ({_num(st.exec_rate)}%)",
                accuracy(recs).fmt(ci=False),
                str(st.wrong),
                *(_share(st.classes[c], st.wrong) for c in PROGRAM_ERROR_CLASSES),
                fails,
                _num(ts.completion_mean, 0),
                _num(ts.per_correct, 0),
                _num(st.exec_seconds_mean, 3),
            ]
        )
    name = "ClosureBench" if suite == "closure" else "GRIT"
    return Table(
        f"{suite}_programs",
        f"{name}: program synthesis (§4.5, Table 6)",
        "Executed: programs that ran to their end in the sandbox, of all program-mode "
        "responses (the paper: 1,295/1,300). Accuracy: lenient (%), an execution failure "
        "counting as not correct (in the outcome table it is No ans., as in the paper's "
        "Table 11). Wrong: responses not correct, whatever their outcome (the paper's 74 "
        "held-out errors). Wrong answers by class (§4.5; the paper: 82% / 11% / 7%): "
        "graph reading (the program's graph differs from the question's), logic (graph "
        "right, answer wrong), execution (no program, or it did not run to its end). "
        "Failures: execution outcomes. Tokens: completion tokens per answer and per "
        "correct answer. Exec s: mean sandbox seconds per executed program.",
        [
            "Run",
            "Executed",
            "Accuracy",
            "Wrong",
            "Graph reading",
            "Logic",
            "Execution",
            "Failures",
            "Tok/ans",
            "Tok/correct",
            "Exec s",
        ],
        rows,
    )


def all_tables(runs: Sequence[Run]) -> dict[str, list[Table]]:
    """Every table of the report, grouped by suite (suites without records are omitted).

    Agent-mode results add the GRAIN tables (:func:`~closurebench.report.grain.grain_tables`)
    at the end of their suite's list; runs that are repeated samples (``eval --samples``)
    add the pass@k table (:func:`~closurebench.report.samples.samples_table`) at its start.

    Returns:
        ``{"ClosureBench": [...], "GRIT": [...]}`` in report order.
    """
    out: dict[str, list[Table]] = {}
    if _runs_with(runs, "closure"):
        sampled = samples_table(runs, ["closure"])
        closure = [] if sampled is None else [sampled]
        closure += [
            accuracy_by_level_table(runs),
            accuracy_by_n_table(runs),
        ]
        if _has(runs, "closure", "density"):
            closure.append(accuracy_by_density_table(runs))
        pairs = _runs_with(runs, "closure")
        if len({r.encoding for _, recs in pairs for r in recs} - {None}) > 1:
            closure.append(encoding_table(runs))
        if _has_programs(runs, "closure"):
            closure.append(program_table(runs, "closure"))
        closure += [
            token_table(runs),
            strict_lenient_table(runs),
            outcome_table(runs),
            accuracy_by_category_table(runs),
            self_correction_table(runs),
            efficiency_table(runs, "closure"),
        ]
        closure += grain_tables(runs, "closure")
        out["ClosureBench"] = closure
    if _runs_with(runs, "grit"):
        sampled = samples_table(runs, ["grit"])
        grit = [] if sampled is None else [sampled]
        grit += [
            grit_task_table(runs),
            grit_naming_table(runs),
            grit_form_table(runs),
        ]
        if _has(runs, "grit", "split"):
            grit.append(grit_split_table(runs))
            if split_pairs(runs):
                grit.append(grit_split_pairs_table(runs))
        if _has(runs, "grit", "n"):
            grit.append(grit_size_table(runs))
        if _has_programs(runs, "grit"):
            grit.append(program_table(runs, "grit"))
        grit += [outcome_table(runs, "grit"), efficiency_table(runs, "grit")]
        grit += grain_tables(runs, "grit")
        out["GRIT"] = grit
    return out


def run_status(run: Run) -> str:
    """A run's counts in one phrase: answered results, errors, and whether it is complete.

    Example:
        >>> from pathlib import Path
        >>> one = LoadedResult(id="a", outcome="wrong", mode="direct")
        >>> run_status(Run(Path("."), "m", "m", "", [one, one], errors=1))
        '2 answered, 1 errors — incomplete: 1 instances ended in error (no model response)'
        >>> run_status(Run(Path("."), "m", "m", "", [one]))
        '1 answered, 0 errors'
        >>> run_status(Run(Path("."), "m", "m", "", [one], harness_gave_up=1))
        '1 answered, 0 errors (1 recorded wrong: the harness died handling the reply)'
    """
    text = f"{len(run.records)} answered, {run.errors} errors"
    outside = (run.summary.counts.outside_selection if run.summary else None) or 0
    if outside:
        text += f" ({outside} results outside the last command's selection left out)"
    if run.harness_gave_up:
        text += f" ({run.harness_gave_up} recorded wrong: the harness died handling the reply)"
    extra = next(
        (r.settings["extra_body"] for r in run.records if "extra_body" in r.settings),
        None,
    )
    if extra:
        text += "; extra body " + json.dumps(extra, sort_keys=True, ensure_ascii=False)
    why = run.incomplete
    return f"{text} — incomplete: {why}" if why else text


def run_list_markdown(runs: Sequence[Run]) -> str:
    """A bullet list of the runs (label, directory, counts, completeness), escaped."""
    lines = []
    for r in runs:
        status = md_escape(run_status(r))
        if r.incomplete:
            status = status.replace("incomplete:", "**incomplete**:", 1)
        lines.append(f"- **{md_escape(r.label)}** — {md_escape(str(r.path))} ({status})")
    return "\n".join(lines)


def incomplete_note(runs: Sequence[Run]) -> str | None:
    """One sentence when some runs are incomplete (shown above the tables), else None."""
    bad = [r for r in runs if r.incomplete]
    if not bad:
        return None
    names = ", ".join(r.label for r in bad)
    return (
        f"Incomplete runs: {names}. Their tables cover answered instances only; results "
        "that ended in error (a failed request, no model response) are left out of every "
        "accuracy. Run the same `closurebench eval` command again to retry them."
    )


def unsafe_note(runs: Sequence[Run]) -> str | None:
    """One sentence when some runs executed model programs without a wall, else None.

    Example:
        >>> from pathlib import Path
        >>> print(unsafe_note([Run(Path("."), "m · program-python", "m", "program-python", [],
        ...     sandbox={"isolation": "none", "unsafe": True})]))  # doctest: +ELLIPSIS
        Unsafe runs: m · program-python ran model-written programs with no sandbox wall...
    """
    bad = [r for r in runs if r.unsafe]
    if not bad:
        return None
    names = ", ".join(r.label for r in bad)
    return (
        f"Unsafe runs: {names} ran model-written programs with no sandbox wall "
        "(--unsafe-no-sandbox: process limits and an audit hook only). A program could "
        "have read the answers or the run's files, so their program-mode numbers are not "
        "trustworthy; run them again behind bubblewrap."
    )


def render_markdown(
    runs: Sequence[Run],
    figures: Sequence[str] = (),
    extra: Mapping[str, Sequence[Table]] | None = None,
    *,
    tables: Mapping[str, Sequence[Table]] | None = None,
) -> str:
    """The whole Markdown report.

    Args:
        runs: Loaded runs, shown side by side.
        figures: Relative paths of figure files to link (optional).
        extra: More sections, ``{heading: tables}``, after the runs' own (optional).
        tables: The runs' own sections, when the caller has computed them
            (:func:`all_tables`; computed here when None).
    """
    parts = ["# ClosureBench evaluation report", "", "## Runs", "", run_list_markdown(runs), ""]
    for note in (unsafe_note(runs), incomplete_note(runs)):
        if note:
            parts += [f"> **Warning.** {md_escape(note)}", ""]
    own = all_tables(runs) if tables is None else tables
    for suite, section in {**own, **(extra or {})}.items():
        parts += [f"## {suite}", ""]
        for table in section:
            parts += [table.to_markdown(), ""]
    if figures:
        parts += ["## Figures", ""]
        parts += [f"![{f}]({f})" for f in figures]
        parts.append("")
    return "\n".join(parts)
