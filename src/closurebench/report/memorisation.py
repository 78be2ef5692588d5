"""The memorisation probe's scores, tables and Figure 2 (ClosureBench §4.5, Table 6).

:func:`score_probe` reads the probe's run folders (:mod:`closurebench.evaluate.memorisation`)
into a :class:`~closurebench.schema.memorisation.MemorisationProbe`:

* per checkpoint and set, the strict and lenient accuracy of the results of all its
  seeds pooled (answered instances only), with the Wilson 95% interval
  (:func:`~closurebench.report.aggregate.wilson_interval`) of the pooled count: over
  seeds and instances alike. The seen set is one file, evaluated once;
* the gaps seen − fresh and seen − reworded: the difference of the pooled accuracies,
  with Newcombe's hybrid score interval (his method 10: the two Wilson intervals
  combined), the standard interval for a difference of two independent proportions;
  and the gap on each seed's own set.

:func:`probe_markdown` renders the probe table, :func:`figure2` Figure 2 (accuracy
per checkpoint, one line per set, the Wilson bands shaded; x is the epoch when every
checkpoint has one, else the step, else the checkpoint's position), and
:func:`table6` / :func:`table6_markdown` Table 6 from several probes, one per kind of
supervision (the last checkpoint of each). :func:`write_probe` and :func:`write_table6`
write the files.

Example:
    >>> interval(3, 4).value, round(interval(3, 4).low, 4)
    (0.75, 0.3006)
    >>> g = gap_interval(9, 10, 1, 10)
    >>> round(g.value, 2), round(g.low, 4), round(g.high, 4)
    (0.8, 0.3699, 0.9161)
    >>> interval(0, 0).value is None
    True
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

from matplotlib.figure import Figure

from closurebench import __version__
from closurebench.errors import ConfigError
from closurebench.evaluate.memorisation import GRIT_REWORD_NOTE, Checkpoint, ProbeSet, SetRun
from closurebench.evaluate.records import iter_result_records
from closurebench.report.aggregate import ReportError, wilson_interval
from closurebench.report.plots import (
    legend_outside,
    new_figure,
    render_png,
    series_styles,
    short_labels,
    thin_tick_labels,
)
from closurebench.report.table import Table
from closurebench.schema import Outcome
from closurebench.schema.memorisation import (
    GAPS,
    PROBE_SETS,
    CheckpointScores,
    GapName,
    GapScores,
    Interval,
    MemorisationProbe,
    ProbeSetFile,
    ProbeSetName,
    SeedGap,
    SeedScore,
    SetScores,
    Table6,
    Table6Row,
    parse_memorisation,
)

__all__ = [
    "FIGURE_FILE",
    "JSON_FILE",
    "MARKDOWN_FILE",
    "TABLE6_JSON",
    "TABLE6_MARKDOWN",
    "figure2",
    "figure2_png",
    "gap_interval",
    "interval",
    "load_probe",
    "parse_table6_args",
    "probe_markdown",
    "probe_sections",
    "probe_table",
    "score_probe",
    "table6",
    "table6_markdown",
    "table6_table",
    "write_probe",
    "write_table6",
]

#: The probe's files, in the probe folder.
JSON_FILE = "memorisation.json"
MARKDOWN_FILE = "memorisation.md"
FIGURE_FILE = "figures/memorisation.png"
#: Table 6's files, in its output folder.
TABLE6_JSON = "table6.json"
TABLE6_MARKDOWN = "table6.md"

#: Confidence level of every interval.
CONFIDENCE = 0.95

_SET_NAMES: dict[str, str] = {"seen": "seen", "fresh": "fresh", "reworded": "re-worded"}
_GAP_SETS: dict[GapName, ProbeSetName] = {"seen-fresh": "fresh", "seen-reworded": "reworded"}


def _rounded(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 6)


def interval(k: int, n: int) -> Interval:
    """``k / n`` with its Wilson 95% interval (all null when ``n`` is 0)."""
    if n <= 0:
        return Interval(value=None, low=None, high=None)
    lo, hi = wilson_interval(k, n)
    return Interval(value=_rounded(k / n), low=_rounded(lo), high=_rounded(hi))


def gap_interval(k1: int, n1: int, k2: int, n2: int) -> Interval:
    """``k1/n1 − k2/n2`` with Newcombe's hybrid score 95% interval (null without data).

    The interval combines the two Wilson intervals ``(l1, u1)``, ``(l2, u2)``:
    ``d − sqrt((p1 − l1)² + (u2 − p2)²)`` to ``d + sqrt((u1 − p1)² + (p2 − l2)²)``.
    """
    if n1 <= 0 or n2 <= 0:
        return Interval(value=None, low=None, high=None)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1)
    l2, u2 = wilson_interval(k2, n2)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return Interval(value=_rounded(d), low=_rounded(max(-1.0, low)), high=_rounded(min(1.0, high)))


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _seed_score(run: SetRun, root: Path, ids: frozenset[str] | None = None) -> SeedScore:
    """A run's counts (only the instances ``ids`` when given)."""
    answered = errors = strict = lenient = 0
    for r in iter_result_records(run.run_dir / "results.jsonl"):
        if ids is not None and r.id not in ids:
            continue
        if r.outcome is Outcome.ERROR:
            errors += 1
            continue
        answered += 1
        strict += r.strict
        lenient += r.lenient
    return SeedScore(
        seed=run.probe_set.seed,
        answered=answered,
        errors=errors,
        strict_correct=strict,
        lenient_correct=lenient,
        strict=_rounded(strict / answered) if answered else None,
        lenient=_rounded(lenient / answered) if answered else None,
        run=_rel(run.run_dir, root),
    )


def _pool(name: ProbeSetName, scores: Sequence[SeedScore]) -> SetScores:
    n = sum(s.answered for s in scores)
    return SetScores(
        set=name,
        answered=n,
        errors=sum(s.errors for s in scores),
        strict=interval(sum(s.strict_correct for s in scores), n),
        lenient=interval(sum(s.lenient_correct for s in scores), n),
        per_seed=list(scores),
    )


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 6)


def _gap(name: GapName, seen: SetScores, other: SetScores) -> GapScores:
    s = seen.per_seed[0] if seen.per_seed else None
    per = [
        SeedGap(
            seed=o.seed if o.seed is not None else 0,
            strict=_diff(s.strict if s else None, o.strict),
            lenient=_diff(s.lenient if s else None, o.lenient),
        )
        for o in other.per_seed
    ]
    ks = sum(x.strict_correct for x in seen.per_seed)
    kl = sum(x.lenient_correct for x in seen.per_seed)
    os_ = sum(x.strict_correct for x in other.per_seed)
    ol = sum(x.lenient_correct for x in other.per_seed)
    return GapScores(
        name=name,
        strict=gap_interval(ks, seen.answered, os_, other.answered),
        lenient=gap_interval(kl, seen.answered, ol, other.answered),
        per_seed=per,
    )


def _set_file(probe_set: ProbeSet, root: Path) -> ProbeSetFile:
    return ProbeSetFile(
        set=probe_set.name,
        seed=probe_set.seed,
        file=probe_set.path.name if probe_set.seed is None else _rel(probe_set.path, root),
        sha256=probe_set.sha256(),
        records=len(probe_set.records),
        derived_seed=probe_set.derived_seed,
    )


def score_probe(
    out: str | Path,
    *,
    checkpoints: Sequence[Checkpoint],
    seen: ProbeSet,
    sets: Sequence[ProbeSet],
    runs: Sequence[SetRun],
    seeds: Sequence[int],
    mode: str,
    provider: str,
) -> MemorisationProbe:
    """The probe record of the evaluations ``runs`` (see the module docstring).

    Args:
        out: The probe folder (paths in the record are relative to it).
        checkpoints: The models, in order.
        seen: The seen set.
        sets: The generated sets.
        runs: Every evaluation (:func:`~closurebench.evaluate.memorisation.run_probe`).
        seeds: The probe seeds.
        mode: The evaluation mode's name.
        provider: The provider's name.

    Raises:
        DatasetFileError: when a results file holds a malformed line.
    """
    root = Path(out)
    suite = str(seen.records[0].suite)
    by_ckpt: dict[str, list[SetRun]] = {}
    for run in runs:
        by_ckpt.setdefault(run.checkpoint.label, []).append(run)
    scored: list[CheckpointScores] = []
    for ckpt in checkpoints:
        mine = by_ckpt.get(ckpt.label, [])
        per_set: dict[str, list[SeedScore]] = {}
        for run in mine:
            per_set.setdefault(run.probe_set.name, []).append(_seed_score(run, root))
        pooled = {name: _pool(name, per_set[name]) for name in PROBE_SETS if name in per_set}
        # A re-worded set that leaves views out (GRIT's standard/canonical) is compared
        # with the seen file's same instances, not the whole file.
        reworded_ids = frozenset(r.id for s in sets if s.name == "reworded" for r in s.records)
        seen_runs = [run for run in mine if run.probe_set.name == "seen"]
        matched = pooled.get("seen")
        if seen_runs and reworded_ids and len(reworded_ids) < len(seen.records):
            matched = _pool("seen", [_seed_score(r, root, reworded_ids) for r in seen_runs])
        gaps = [
            _gap(g, matched if g == "seen-reworded" and matched else pooled["seen"],
                 pooled[_GAP_SETS[g]])
            for g in GAPS
            if "seen" in pooled and _GAP_SETS[g] in pooled
        ]  # fmt: skip
        first = mine[0].run_dir.parent if mine else root / "runs" / ckpt.label
        scored.append(
            CheckpointScores(
                label=ckpt.label,
                model=ckpt.model,
                base=ckpt.base,
                step=ckpt.step,
                epoch=ckpt.epoch,
                run_dir=_rel(first, root),
                complete=all(s.errors == 0 for s in pooled.values()),
                sets=list(pooled.values()),
                gaps=gaps,
            )
        )
    return MemorisationProbe(
        version=__version__,
        suite=suite,
        mode=mode,
        provider=provider,
        seeds=list(seeds),
        confidence=CONFIDENCE,
        seen=_set_file(seen, root),
        sets=[_set_file(s, root) for s in sets],
        reworded_note=GRIT_REWORD_NOTE if suite == "grit" else None,
        checkpoints=scored,
    )


# --------------------------------------------------------------------- render


def _pct(iv: Interval, ci: bool = True) -> str:
    if iv.value is None:
        return "–"
    text = f"{100 * iv.value:.1f}"
    if ci and iv.low is not None and iv.high is not None:
        text += f" [{100 * iv.low:.1f}, {100 * iv.high:.1f}]"
    return text


def _pp(iv: Interval) -> str:
    if iv.value is None:
        return "–"
    text = f"{100 * iv.value:+.1f}"
    if iv.low is not None and iv.high is not None:
        text += f" [{100 * iv.low:+.1f}, {100 * iv.high:+.1f}]"
    return text


def _where(c: CheckpointScores) -> str:
    parts = []
    if c.step is not None:
        parts.append(f"step {c.step}")
    if c.epoch is not None:
        parts.append(f"epoch {c.epoch:g}")
    return ", ".join(parts) or ("base model" if c.base else "–")


def _set_of(c: CheckpointScores, name: str) -> SetScores | None:
    return next((s for s in c.sets if s.set == name), None)


def _gap_of(c: CheckpointScores, name: str) -> GapScores | None:
    return next((g for g in c.gaps if g.name == name), None)


def probe_table(probe: MemorisationProbe, lenient: bool = False) -> Table:
    """The probe table: one row per checkpoint; each set's accuracy and the two gaps."""
    kind = "lenient" if lenient else "strict"
    rows = []
    for c in probe.checkpoints:
        row = [c.label, _where(c)]
        for name in PROBE_SETS:
            s = _set_of(c, name)
            row.append(_pct(s.lenient if lenient else s.strict) if s else "–")
        for g_name in GAPS:
            g = _gap_of(c, g_name)
            row.append(_pp(g.lenient if lenient else g.strict) if g else "–")
        seen = _set_of(c, "seen")
        fresh = _set_of(c, "fresh")
        row.append(f"{seen.answered if seen else 0} / {fresh.answered if fresh else 0}")
        rows.append(row)
    seeds = ", ".join(str(s) for s in probe.seeds)
    caption = (
        f"Accuracy (%, {kind}, over answered instances) of each checkpoint on the seen "
        f"file, on fresh instances of its distribution and on its structures re-worded; "
        f"fresh and re-worded pooled over the seeds {seeds}. Brackets: Wilson 95% "
        "interval of the pooled count; gaps in percentage points with Newcombe's 95% "
        "interval. N: answered seen / fresh results."
    )
    if probe.reworded_note:
        caption += f" Note: {probe.reworded_note}."
    header = ["Checkpoint", "Step", "Seen", "Fresh", "Re-worded"]
    header += ["Seen−fresh (pp)", "Seen−re-worded (pp)", "N"]
    return Table(f"memorisation_{kind}", f"Memorisation probe ({kind})", caption, header, rows)


def probe_markdown(probe: MemorisationProbe, figure: str | None = FIGURE_FILE) -> str:
    """``memorisation.md``: what was probed, the strict and lenient tables, Figure 2."""
    lines = [
        "# Memorisation probe",
        "",
        f"Suite `{probe.suite}`, mode `{probe.mode}`, provider `{probe.provider}`; seen file "
        f"`{probe.seen.file}` ({probe.seen.records} instances, sha256 "
        f"`{probe.seen.sha256[:12]}`); seeds {', '.join(str(s) for s in probe.seeds)}.",
        "",
        probe_table(probe).to_markdown(),
        "",
        probe_table(probe, lenient=True).to_markdown(),
        "",
    ]
    incomplete = [c.label for c in probe.checkpoints if not c.complete]
    if incomplete:
        lines += [
            f"**Incomplete**: {', '.join(incomplete)} have results in error (left out of "
            "the accuracies); run the same command again to retry them.",
            "",
        ]
    if figure is not None:
        lines += ["### Figure 2", "", f"![Accuracy per checkpoint]({figure})", ""]
    lines += ["### Sets", ""]
    lines += ["| Set | Seed | File | Instances | sha256 |", "|---|---|---|---|---|"]
    for s in [probe.seen, *probe.sets]:
        seed = "–" if s.seed is None else str(s.seed)
        lines.append(
            f"| {_SET_NAMES[s.set]} | {seed} | `{s.file}` | {s.records} | `{s.sha256[:12]}` |"
        )
    return "\n".join(lines).rstrip() + "\n"


def _x_axis(probe: MemorisationProbe) -> tuple[list[float], list[str], str]:
    cs = probe.checkpoints
    later = cs[1:]
    labels = [c.label for c in cs]
    if later and all(c.epoch is not None for c in later):
        return [0.0] + [float(c.epoch or 0.0) for c in later], labels, "epoch"
    if later and all(c.step is not None for c in later):
        return [0.0] + [float(c.step or 0) for c in later], labels, "step"
    return [float(i) for i in range(len(cs))], labels, "checkpoint"


def figure2(probe: MemorisationProbe, lenient: bool = False) -> Figure:
    """Figure 2: accuracy per checkpoint, one line per set, the 95% intervals shaded.

    The legend is right of the axes; x tick labels that would collide (checkpoints
    close together) are left out, the base model's and the last one kept
    (:func:`~closurebench.report.plots.thin_tick_labels`); checkpoint labels are
    shortened in the middle past 32 characters.
    """
    xs, labels, axis = _x_axis(probe)
    fig = new_figure(5.4, 3.8)
    ax = fig.add_subplot()
    markers = {"seen": "o", "fresh": "s", "reworded": "^"}
    colours = {name: st.colour for name, st in zip(PROBE_SETS, series_styles(3), strict=True)}
    handles, names = [], []
    for name in PROBE_SETS:
        pts = []
        for x, c in zip(xs, probe.checkpoints, strict=True):
            s = _set_of(c, name)
            iv = None if s is None else (s.lenient if lenient else s.strict)
            if iv is not None and iv.value is not None:
                pts.append((x, 100 * iv.value, 100 * (iv.low or 0.0), 100 * (iv.high or 0.0)))
        if not pts:
            continue
        px, py, lo, hi = (list(v) for v in zip(*pts, strict=True))
        (line,) = ax.plot(px, py, marker=markers[name], ms=4, color=colours[name])
        ax.fill_between(px, lo, hi, color=colours[name], alpha=0.18, linewidth=0)
        handles.append(line)
        names.append(_SET_NAMES[name])
    ax.set_xlabel(
        {"epoch": "epoch (0: base model)", "step": "step (0: base model)"}.get(axis, "checkpoint")
    )
    ax.set_ylabel(f"Accuracy (%, {'lenient' if lenient else 'strict'})")
    ax.set_ylim(-2, 105)
    ax.set_title("Memorisation probe: seen vs fresh vs re-worded")
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=8)
    if handles:
        legend_outside(fig, handles, names, title="set")
    if len(xs) > 1:
        pad = 0.04 * (max(xs) - min(xs))
        ax.set_xlim(min(xs) - pad, max(xs) + pad)
    ticks = short_labels(labels, 32) if axis == "checkpoint" else [f"{x:g}" for x in xs]
    thin_tick_labels(fig, [(ax, xs, ticks)], rotation=30.0 if axis == "checkpoint" else 0.0)
    return fig


def figure2_png(probe: MemorisationProbe, lenient: bool = False) -> bytes:
    """:func:`figure2` as PNG bytes."""
    return render_png(figure2(probe, lenient))


def _dump(model: MemorisationProbe | Table6) -> str:
    return json.dumps(model.model_dump(mode="json"), indent=2, sort_keys=True) + "\n"


def write_probe(out: str | Path, probe: MemorisationProbe) -> list[Path]:
    """Write ``memorisation.json``, ``memorisation.md`` and Figure 2 into ``out``."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    fig = root / FIGURE_FILE
    fig.parent.mkdir(parents=True, exist_ok=True)
    fig.write_bytes(figure2_png(probe))
    js = root / JSON_FILE
    js.write_text(_dump(probe), encoding="utf-8")
    md = root / MARKDOWN_FILE
    md.write_text(probe_markdown(probe), encoding="utf-8")
    return [js, md, fig]


# ---------------------------------------------------------------------- Table 6


def load_probe(folder: str | Path) -> MemorisationProbe:
    """The probe record of a probe folder (``DIR/memorisation.json``).

    Raises:
        ReportError: when the folder or its record is missing or invalid.
    """
    path = Path(folder) / JSON_FILE
    if not path.is_file():
        raise ReportError(
            f"{path}: not found; pass a folder written by `closurebench memorisation --out`"
        )
    try:
        got = parse_memorisation(path.read_text(encoding="utf-8"), "memorisation", str(path))
    except ConfigError as exc:
        raise ReportError(str(exc)) from None
    if not isinstance(got, MemorisationProbe):  # pragma: no cover - parse_memorisation's type
        raise ReportError(f"{path}: not a memorisation record")
    return got


def table6(probes: Sequence[tuple[str, str | Path]]) -> Table6:
    """Table 6 of the probes ``(supervision label, probe folder)``, in the given order.

    Raises:
        ReportError: for a missing or invalid probe folder.
        ConfigError: for a label given twice or a probe without checkpoints.
    """
    seen: set[str] = set()
    rows = []
    for label, folder in probes:
        if label in seen:
            raise ConfigError(
                f"--table6: the label {label!r} is given twice; label each probe once"
            )
        seen.add(label)
        probe = load_probe(folder)
        if not probe.checkpoints:
            raise ConfigError(f"--table6 {label}={folder}: the probe evaluated no model")
        rows.append(
            Table6Row(
                supervision=label,
                probe=str(folder),
                suite=probe.suite,
                mode=probe.mode,
                checkpoint=probe.checkpoints[-1],
            )
        )
    return Table6(version=__version__, rows=rows)


def table6_table(table: Table6, lenient: bool = False) -> Table:
    """Table 6 as a report table: one row per supervision."""
    kind = "lenient" if lenient else "strict"
    rows = []
    for row in table.rows:
        c = row.checkpoint
        cells = [row.supervision, c.label, row.mode]
        for name in PROBE_SETS:
            s = _set_of(c, name)
            cells.append(_pct(s.lenient if lenient else s.strict) if s else "–")
        for g_name in GAPS:
            g = _gap_of(c, g_name)
            cells.append(_pp(g.lenient if lenient else g.strict) if g else "–")
        rows.append(cells)
    caption = (
        f"Accuracy (%, {kind}) of models fine-tuned on the same file with different "
        "supervision (the answer alone, an Ein program, a Python program), each at its "
        "last checkpoint: on the instances it was trained on (seen), on held-out instances "
        "of the same distribution (fresh) and on its own structures re-worded. Brackets: "
        "Wilson 95% interval over seeds and instances; gaps in percentage points with "
        "Newcombe's 95% interval."
    )
    header = ["Supervision", "Checkpoint", "Mode", "Seen", "Held-out (fresh)", "Re-worded"]
    header += ["Seen−held-out (pp)", "Seen−re-worded (pp)"]
    return Table(f"table6_{kind}", f"Table 6: answer vs program supervision ({kind})", caption,
                 header, rows)  # fmt: skip


def table6_markdown(table: Table6) -> str:
    """``table6.md``: the strict and the lenient Table 6, and the probes they come from."""
    lines = ["# Table 6", "", table6_table(table).to_markdown(), ""]
    lines += [table6_table(table, lenient=True).to_markdown(), "", "Probes:", ""]
    lines += [f"- {r.supervision}: `{r.probe}`" for r in table.rows]
    return "\n".join(lines) + "\n"


def write_table6(out: str | Path, table: Table6) -> list[Path]:
    """Write ``table6.json`` and ``table6.md`` into ``out``."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    js = root / TABLE6_JSON
    js.write_text(_dump(table), encoding="utf-8")
    md = root / TABLE6_MARKDOWN
    md.write_text(table6_markdown(table), encoding="utf-8")
    return [js, md]


def parse_table6_args(values: Sequence[str], option: str = "--table6") -> list[tuple[str, str]]:
    """``LABEL=DIR`` values as ``(label, folder)`` pairs.

    Raises:
        ConfigError: for a value without ``=``, or an empty label or folder.

    Example:
        >>> parse_table6_args(["answer=runs/a", "ein=runs/e"])
        [('answer', 'runs/a'), ('ein', 'runs/e')]
    """
    out = []
    for value in values:
        label, sep, folder = value.partition("=")
        if not sep or not label.strip() or not folder.strip():
            raise ConfigError(f"{option} {value!r}: expected LABEL=DIR, e.g. answer=probes/answer")
        out.append((label.strip(), folder.strip()))
    return out


def probe_sections(
    probes: Sequence[tuple[str, str | Path]],
) -> tuple[dict[str, list[Table]], dict[str, bytes]]:
    """What ``closurebench report --probe LABEL=DIR`` adds: sections and figures.

    Returns:
        ``({heading: tables}, {figure name: PNG})``: one section per probe (its strict
        table; its Figure 2 as ``memorisation-<label>``), and with two or more probes a
        Table 6 section (strict and lenient). Empty for no probes.

    Raises:
        ReportError / ConfigError: as :func:`table6`.
    """
    if not probes:
        return {}, {}
    t6 = table6(probes)
    sections: dict[str, list[Table]] = {}
    figures: dict[str, bytes] = {}
    for label, folder in probes:
        probe = load_probe(folder)
        sections[f"Memorisation probe: {label}"] = [probe_table(probe)]
        slug = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in label)
        figures[f"memorisation-{slug}"] = figure2_png(probe)
    if len(probes) > 1:
        sections["Table 6"] = [table6_table(t6), table6_table(t6, lenient=True)]
    return sections, figures
