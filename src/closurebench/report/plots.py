"""Report figures drawn with matplotlib (Agg backend) and returned as PNG bytes.

Figures (each ``None`` when no run has the needed records):

- accuracy by compositional level (ClosureBench Figure 3), with Wilson 95% error bars;
- accuracy vs graph size n, one panel per level (Figure 4);
- accuracy vs mean completion tokens per answer, log x axis (Figure 5);
- GRIT accuracy per naming scheme and form (GRAIN Figure 4 analogue).

Example:
    >>> from pathlib import Path
    >>> from closurebench.report.aggregate import Run
    >>> recs = [{"suite": "closure", "level": 1, "n": 4, "outcome": "wrong",
    ...          "usage": {"completion_tokens": 5}}]
    >>> png = accuracy_by_level_png([Run(Path("."), "m", "m", "", recs)])
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    >>> accuracy_by_level_png([]) is None
    True
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from closurebench.report.aggregate import (
    Rate,
    Run,
    accuracy,
    accuracy_by,
    group_by,
    suite_records,
    token_stats,
)

__all__ = [
    "accuracy_by_level_png",
    "accuracy_vs_n_png",
    "accuracy_vs_tokens_png",
    "all_figures",
    "grit_views_png",
]

_DPI = 100


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _err(rates: Sequence[Rate]) -> list[list[float]]:
    lows, highs = [], []
    for r in rates:
        lo, hi = r.ci_pct if r.n else (math.nan, math.nan)
        lows.append(max(0.0, r.pct - lo) if r.n else 0.0)
        highs.append(max(0.0, hi - r.pct) if r.n else 0.0)
    return [lows, highs]


def _pairs(runs: Sequence[Run], suite: str) -> list[tuple[Run, list[dict]]]:
    return [(r, recs) for r in runs if (recs := suite_records(r, suite))]


def accuracy_by_level_png(runs: Sequence[Run]) -> bytes | None:
    """Grouped bars: lenient accuracy per level for each run, with Wilson 95% error bars."""
    pairs = _pairs(runs, "closure")
    if not pairs:
        return None
    levels = list(group_by([x for _, recs in pairs for x in recs], "level"))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(pairs) + 3), 3.6))
    width = 0.8 / max(1, len(levels))
    for j, lv in enumerate(levels):
        rates = [accuracy_by(recs, "level").get(lv, Rate(0, 0)) for _, recs in pairs]
        xs = [i + (j - (len(levels) - 1) / 2) * width for i in range(len(pairs))]
        ys = [r.pct if r.n else 0.0 for r in rates]
        ax.bar(xs, ys, width, yerr=_err(rates), capsize=2, label=f"L{lv}")
    ax.set_xticks(range(len(pairs)), [r.label for r, _ in pairs], rotation=20, ha="right")
    ax.set_ylabel("Accuracy (%, lenient)")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy by compositional level")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _png(fig)


def accuracy_vs_n_png(runs: Sequence[Run]) -> bytes | None:
    """One panel per level: lenient accuracy vs graph size n, a line per run."""
    pairs = _pairs(runs, "closure")
    if not pairs:
        return None
    levels = list(group_by([x for _, recs in pairs for x in recs], "level"))
    if not levels:
        return None
    fig, axes = plt.subplots(1, len(levels), figsize=(4.0 * len(levels), 3.4), squeeze=False)
    for ax, lv in zip(axes[0], levels, strict=True):
        for run, recs in pairs:
            by = accuracy_by(group_by(recs, "level").get(lv, []), "n")
            if not by:
                continue
            ns = list(by)
            ax.errorbar(
                ns, [by[n].pct for n in ns], yerr=_err(list(by.values())),
                marker="o", ms=3, capsize=2, label=run.label,
            )  # fmt: skip
        ax.set_title(f"L{lv}")
        ax.set_xlabel("graph size n")
        ax.set_ylim(0, 105)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("Accuracy (%, lenient)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle("Accuracy vs graph size, per level")
    return _png(fig)


def accuracy_vs_tokens_png(runs: Sequence[Run]) -> bytes | None:
    """Scatter: overall lenient accuracy vs mean completion tokens per answer (log x)."""
    pairs = _pairs(runs, "closure")
    pts = [(r.label, token_stats(recs).completion_mean, accuracy(recs)) for r, recs in pairs]
    pts = [p for p in pts if p[1] > 0]
    if not pts:
        return None
    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for label, tok, rate in pts:
        ax.errorbar([tok], [rate.pct], yerr=_err([rate]), marker="o", capsize=2, label=label)
        ax.annotate(label, (tok, rate.pct), fontsize=7, xytext=(4, 4), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_xlabel("mean completion tokens per answer (log)")
    ax.set_ylabel("Accuracy (%, lenient)")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy vs tokens")
    ax.grid(alpha=0.3, which="both")
    return _png(fig)


def grit_views_png(runs: Sequence[Run]) -> bytes | None:
    """GRIT accuracy per naming scheme (x) with a line per run and form."""
    pairs = _pairs(runs, "grit")
    if not pairs:
        return None
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    for run, recs in pairs:
        forms = group_by(recs, "form") or {"all": recs}
        for form, frecs in forms.items():
            by = accuracy_by(frecs, "naming")
            if not by:
                continue
            ls = "--" if form == "realistic" else "-"
            ys = [r.pct for r in by.values()]
            ax.plot(list(by), ys, marker="o", ls=ls, label=f"{run.label} / {form}")
    ax.set_ylabel("Accuracy (%)")
    ax.set_xlabel("naming scheme")
    ax.set_ylim(0, 105)
    ax.set_title("GRIT: accuracy by naming scheme and form")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)


def all_figures(runs: Sequence[Run]) -> dict[str, bytes]:
    """Every available figure as ``{file stem: PNG bytes}``, in report order."""
    makers = {
        "accuracy_by_level": accuracy_by_level_png,
        "accuracy_vs_n": accuracy_vs_n_png,
        "accuracy_vs_tokens": accuracy_vs_tokens_png,
        "grit_naming_form": grit_views_png,
    }
    out = {}
    for name, make in makers.items():
        png = make(runs)
        if png is not None:
            out[name] = png
    return out
