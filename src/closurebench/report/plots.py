"""Report figures drawn with matplotlib (Agg) and returned as PNG bytes.

Figures (each ``None`` when no run has the needed records):

- accuracy by compositional level (ClosureBench Figure 3), with Wilson 95% error bars;
- accuracy vs graph size n, one panel per level (Figure 4), Wilson 95% error bars; n
  is binned where cells are thin (:func:`n_bins`), and a point over fewer than
  :data:`MIN_CELL` instances is drawn open;
- accuracy vs mean completion tokens per answer, log x axis (Figure 5): a point is
  labelled in place only where its label fits (:func:`place_labels`);
- GRIT accuracy per naming scheme, one panel per form (GRAIN Figure 4 analogue).

Each ``*_png`` function renders the matching ``*_figure`` function's
:class:`~matplotlib.figure.Figure`. The figures are laid out by matplotlib's
constrained layout, every legend outside the axes (right of them); a run keeps one
colour and marker in every figure (:func:`series_styles`, by its position in the
report), and legend and tick labels longer than :data:`LABEL_CHARS` are shortened in
the middle (:func:`short_labels`). :mod:`closurebench.report.figure_checks` checks the
result (no text past the figure, no colliding labels, no legend on the data).

Example:
    >>> from pathlib import Path
    >>> from closurebench.report.aggregate import LoadedResult, Run
    >>> recs = [LoadedResult(id="a", outcome="wrong", mode="direct", suite="closure", level=1,
    ...                      n=4, usage={"completion_tokens": 5})]
    >>> png = accuracy_by_level_png([Run(Path("."), "m", "m", "", recs)])
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    >>> accuracy_by_level_png([]) is None
    True
"""

from __future__ import annotations

import io
import itertools
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
from matplotlib.transforms import Bbox

from closurebench.report.aggregate import (
    Rate,
    Run,
    accuracy,
    accuracy_by,
    group_by,
    natural_key,
    suite_records,
    token_stats,
)
from closurebench.report.figure_checks import polygons_overlap, text_polygon
from closurebench.report.run import LoadedResult

__all__ = [
    "COLOURS",
    "FIGURE_MAKERS",
    "LABEL_CHARS",
    "MARKERS",
    "MIN_CELL",
    "SeriesStyle",
    "TickSpec",
    "accuracy_by_level_figure",
    "accuracy_by_level_png",
    "accuracy_vs_n_figure",
    "accuracy_vs_n_png",
    "accuracy_vs_tokens_figure",
    "accuracy_vs_tokens_png",
    "all_figures",
    "grit_views_figure",
    "grit_views_png",
    "legend_outside",
    "n_bins",
    "new_figure",
    "place_labels",
    "render_png",
    "series_styles",
    "short_label",
    "short_labels",
    "thin_tick_labels",
]

_DPI = 100
#: Fewest instances per plotted point of accuracy vs n: thinner cells are binned
#: (:func:`n_bins`), and a point still under it is drawn with an open marker.
MIN_CELL = 5
#: Longest legend or tick label (characters); longer ones are cut in the middle.
LABEL_CHARS = 44
#: Markers of the series cycle (9, coprime with the 20 colours: 180 distinct pairs).
MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "<", ">")
_FONT = 8


def _palette() -> tuple[str, ...]:
    """20 distinct colours: tab10, then the dark and mid shades of tab20b's five hues."""
    tab10 = [to_hex(c) for c in colormaps["tab10"].colors]  # type: ignore[attr-defined]
    tab20b = [to_hex(c) for c in colormaps["tab20b"].colors]  # type: ignore[attr-defined]
    return (*tab10, *tab20b[0::4], *tab20b[2::4])


#: The series colours, in cycle order.
COLOURS: tuple[str, ...] = _palette()


@dataclass(frozen=True)
class SeriesStyle:
    """How one series (a run) is drawn: colour (hex) and marker."""

    colour: str
    marker: str


def series_styles(count: int) -> list[SeriesStyle]:
    """``count`` styles, deterministic: colour ``i mod 20``, marker ``i mod 9``.

    The first 20 colours are distinct, and the (colour, marker) pairs are distinct
    for up to 180 series.

    Example:
        >>> styles = series_styles(16)
        >>> len({s.colour for s in styles}), styles[0], styles[10].marker
        (16, SeriesStyle(colour='#1f77b4', marker='o'), 's')
        >>> len({(s.colour, s.marker) for s in series_styles(180)})
        180
    """
    return [SeriesStyle(COLOURS[i % len(COLOURS)], MARKERS[i % len(MARKERS)]) for i in range(count)]


def short_label(label: str, limit: int = LABEL_CHARS) -> str:
    """``label`` cut in the middle to at most ``limit`` characters (``…`` marks the cut).

    Example:
        >>> short_label("meta-llama/Llama-3.3-70B-Instruct-Turbo · direct", 30)
        'meta-llama/Lla…-Turbo · direct'
        >>> short_label("short")
        'short'
    """
    if len(label) <= limit:
        return label
    keep = limit - 1
    head = keep // 2
    return label[:head] + "…" + label[len(label) - (keep - head) :]


def short_labels(labels: Sequence[str], limit: int = LABEL_CHARS) -> list[str]:
    """:func:`short_label` of each label, or the labels as given when two would coincide.

    Example:
        >>> short_labels(["a" * 50 + "x", "a" * 50 + "y"], 10)
        ['aaaa…aaaax', 'aaaa…aaaay']
        >>> middle = ["a" * 10 + "1" + "a" * 10, "a" * 10 + "2" + "a" * 10]
        >>> short_labels(middle, 10) == middle
        True
    """
    out = [short_label(x, limit) for x in labels]
    return out if len(set(out)) == len(set(labels)) else list(labels)


def new_figure(width: float, height: float) -> Figure:
    """A constrained-layout :class:`~matplotlib.figure.Figure` on an Agg canvas (no pyplot).

    Example:
        >>> new_figure(4, 3).get_size_inches().tolist()
        [4.0, 3.0]
    """
    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def render_png(fig: Figure) -> bytes:
    """``fig`` as PNG bytes (no software tag in the metadata: the bytes depend on the data).

    Example:
        >>> render_png(new_figure(1, 1))[:4]
        b'\\x89PNG'
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def legend_outside(
    fig: Figure,
    handles: Sequence[Any],
    labels: Sequence[str],
    title: str | None = None,
    loc: str = "outside right upper",
) -> Legend:
    """A figure legend right of the axes; the figure widened by the legend's width.

    The axes keep their width; when the legend is taller than the figure it gets more
    columns (up to 4).

    Example:
        >>> fig = new_figure(4, 3)
        >>> ax = fig.add_subplot()
        >>> (line,) = ax.plot([0, 1])
        >>> leg = legend_outside(fig, [line], ["a run"])
        >>> bool(fig.get_size_inches()[0] > 4)
        True
    """
    width, height = (float(v) for v in fig.get_size_inches())
    ncol = 1
    style: dict[str, Any] = {"loc": loc, "fontsize": _FONT - 1, "title": title,
                             "title_fontsize": _FONT, "frameon": False}  # fmt: skip
    leg = fig.legend(list(handles), list(labels), ncols=ncol, **style)
    while True:
        fig.canvas.draw()
        box = leg.get_window_extent()
        if box.height <= 0.95 * fig.bbox.height or ncol >= 4:
            break
        ncol += 1
        leg.remove()
        leg = fig.legend(list(handles), list(labels), ncols=ncol, **style)
    fig.set_size_inches(width + box.width / fig.dpi + 0.1, height)
    return leg


def _err(rates: Sequence[Rate]) -> list[list[float]]:
    """Error-bar half-lengths ``[below, above]`` of each rate's Wilson 95% interval (%)."""
    lows, highs = [], []
    for r in rates:
        lo, hi = r.ci_pct if r.n else (math.nan, math.nan)
        lows.append(max(0.0, r.pct - lo) if r.n else 0.0)
        highs.append(max(0.0, hi - r.pct) if r.n else 0.0)
    return [lows, highs]


def _pairs(runs: Sequence[Run], suite: str) -> list[tuple[int, Run, list[LoadedResult]]]:
    """``(position in runs, run, suite records)`` of the runs that have records of ``suite``."""
    return [(i, r, recs) for i, r in enumerate(runs) if (recs := suite_records(r, suite))]


def _run_labels(runs: Sequence[Run]) -> list[str]:
    return short_labels([r.label for r in runs])


#: One axes' x ticks for :func:`thin_tick_labels`: ``(axes, positions, labels)``.
TickSpec = tuple[Axes, Sequence[float], Sequence[str]]


def thin_tick_labels(
    fig: Figure, ticks: Sequence[TickSpec], rotation: float = 0.0, gap_px: float = 6.0
) -> list[list[str]]:
    """Set each axes' x ticks; blank the labels that would collide with a kept one.

    The ticks are set and the figure drawn once (its layout run); then the labels'
    extents are compared (:func:`~closurebench.report.figure_checks.text_polygon`):
    two labels collide when less than ``gap_px`` pixels lie between them. Labels are
    kept left to right; the last one is always kept (those before it that it
    collides with are blanked instead). A ``rotation`` turns the labels, anchored at
    their right end.

    Returns:
        Per axes, the labels as set (``""`` for a blanked one).

    Example:
        >>> fig = new_figure(2, 2)
        >>> ax = fig.add_subplot()
        >>> thin_tick_labels(fig, [(ax, [0, 1, 2, 50], ["0", "1", "2", "50"])])
        [['0', '', '', '50']]
    """
    style: dict[str, Any] = {}
    if rotation:
        style = {"rotation": rotation, "ha": "right", "rotation_mode": "anchor"}
    for ax, positions, labels in ticks:
        ax.set_xticks(list(positions), list(labels), **style)
    fig.canvas.draw()
    out = []
    for ax, positions, labels in ticks:
        shapes = [text_polygon(t) for t in ax.get_xticklabels()]

        def collide(a: int, b: int, shapes: list[list[tuple[float, float]]] = shapes) -> bool:
            return polygons_overlap(shapes[a], shapes[b], tol=-gap_px)

        kept: list[int] = []
        for i in range(len(shapes)):
            if kept and collide(kept[-1], i):
                if i < len(shapes) - 1:
                    continue
                while kept and collide(kept[-1], i):
                    kept.pop()
            kept.append(i)
        shown = [label if i in kept else "" for i, label in enumerate(labels)]
        ax.set_xticks(list(positions), shown, **style)
        out.append(shown)
    return out


def _crowded_ticks(ax: Axes, gap_px: float = 4.0) -> bool:
    """Whether two neighbouring x tick labels of ``ax`` (as drawn) are under ``gap_px`` apart."""
    fig = ax.get_figure()
    assert isinstance(fig, Figure)
    fig.canvas.draw()
    shapes = [text_polygon(t) for t in ax.get_xticklabels() if t.get_text()]
    return any(polygons_overlap(a, b, tol=-gap_px) for a, b in itertools.pairwise(shapes))


# --- accuracy by level --------------------------------------------------------------


def accuracy_by_level_figure(runs: Sequence[Run]) -> Figure | None:
    """Grouped bars: lenient accuracy per level for each run, Wilson 95% error bars."""
    pairs = _pairs(runs, "closure")
    if not pairs:
        return None
    levels = list(group_by([x for _, _, recs in pairs for x in recs], "level"))
    labels = short_labels([r.label for _, r, _ in pairs])
    width_in = min(12.0, max(4.5, 0.35 * len(pairs) * max(1, len(levels)) + 2.0))
    fig = new_figure(width_in, 3.6)
    ax = fig.add_subplot()
    level_styles = series_styles(len(levels))
    width = 0.8 / max(1, len(levels))
    handles = []
    for j, lv in enumerate(levels):
        rates = [accuracy_by(recs, "level").get(lv, Rate(0, 0)) for _, _, recs in pairs]
        xs = [i + (j - (len(levels) - 1) / 2) * width for i in range(len(pairs))]
        ys = [r.pct if r.n else 0.0 for r in rates]
        bars = ax.bar(xs, ys, width, color=level_styles[j].colour, yerr=_err(rates),
                      capsize=2, error_kw={"elinewidth": 0.8})  # fmt: skip
        handles.append(bars)
    ax.set_xticks(range(len(pairs)), labels, fontsize=_FONT)
    ax.set_xlim(-0.6, len(pairs) - 0.4)
    ax.set_ylabel("Accuracy (%, lenient)")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy by compositional level")
    ax.grid(axis="y", alpha=0.3)
    legend_outside(fig, handles, [f"L{lv}" for lv in levels], title="level")
    if _crowded_ticks(ax):  # turn the run labels, and make room for them below
        ax.set_xticks(range(len(pairs)), labels, fontsize=_FONT, rotation=30, ha="right",
                      rotation_mode="anchor")  # fmt: skip
        w, h = (float(v) for v in fig.get_size_inches())
        fig.set_size_inches(w, h + 0.045 * max(len(x) for x in labels))
    return fig


def accuracy_by_level_png(runs: Sequence[Run]) -> bytes | None:
    """:func:`accuracy_by_level_figure` as PNG bytes."""
    fig = accuracy_by_level_figure(runs)
    return None if fig is None else render_png(fig)


# --- accuracy vs n ------------------------------------------------------------------


def n_bins(counts: Sequence[Mapping[int, int]], min_count: int = MIN_CELL) -> list[tuple[int, int]]:
    """Contiguous bins ``(lo, hi)`` (inclusive) of graph sizes, thick enough to plot.

    ``counts`` holds one ``{n: instances}`` per series. When every series has at
    least ``min_count`` instances at each n it has, each n is its own bin. Otherwise
    consecutive sizes are merged, left to right, until the median over the series with
    instances in the bin reaches ``min_count``; a short last bin joins the one before.

    Example:
        >>> n_bins([{4: 20, 5: 20}, {4: 9, 5: 30}])
        [(4, 4), (5, 5)]
        >>> n_bins([{n: 1 for n in range(4, 14)}, {n: 1 for n in range(4, 14)}])
        [(4, 8), (9, 13)]
        >>> n_bins([{4: 1, 5: 1}], min_count=5)
        [(4, 5)]
        >>> n_bins([])
        []
    """
    values = sorted({n for c in counts for n in c})
    if all(k >= min_count for c in counts for k in c.values() if k):
        return [(n, n) for n in values]

    def thick(lo: int, hi: int) -> bool:
        sums = [sum(k for n, k in c.items() if lo <= n <= hi) for c in counts]
        sums = [s for s in sums if s]
        return bool(sums) and statistics.median(sums) >= min_count

    bins: list[tuple[int, int]] = []
    start = 0
    for i, n in enumerate(values):
        if thick(values[start], n):
            bins.append((values[start], n))
            start = i + 1
    if start < len(values):
        tail = (values[start], values[-1])
        bins[-1:] = [(bins[-1][0], tail[1])] if bins else [tail]
    return bins


def _bin_label(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}–{hi}"


def _dodge(count: int, spacing: float) -> list[float]:
    """x offsets spreading ``count`` series over 60% of ``spacing`` (centred on 0)."""
    step = 0.6 * spacing / max(1, count)
    return [(i - (count - 1) / 2) * step for i in range(count)]


def _open_marker_handle() -> Line2D:
    return Line2D([], [], ls="none", marker="o", mfc="white", mec="0.3", color="0.3")


def _draw_series(
    ax: Axes,
    pts: Sequence[tuple[float, Rate]],
    style: SeriesStyle,
    min_count: int,
    ls: str = "-",
) -> tuple[Any, bool]:
    """One run's line with Wilson error bars (faint); points under ``min_count`` drawn open.

    Returns:
        The line (the legend handle) and whether a point was open.
    """
    xs, rs = [x for x, _ in pts], [r for _, r in pts]
    bar = ax.errorbar(
        xs, [r.pct for r in rs], yerr=_err(rs), color=style.colour, marker=style.marker,
        ms=4, lw=1.0, ls=ls, elinewidth=0.7, capsize=1.5,
    )  # fmt: skip
    for part in (*bar[1], *bar[2]):
        part.set_alpha(0.45)
    thin = [(x, r.pct) for x, r in pts if r.n < min_count]
    if thin:
        ax.plot([t[0] for t in thin], [t[1] for t in thin], ls="none", marker=style.marker,
                ms=4, mfc="white", mec=style.colour, zorder=3)  # fmt: skip
    return bar.lines[0], bool(thin)


def accuracy_vs_n_figure(runs: Sequence[Run], min_count: int = MIN_CELL) -> Figure | None:
    """One panel per level: lenient accuracy vs graph size n, a line per run.

    Error bars are Wilson 95% intervals. Sizes are binned per level with
    :func:`n_bins` (tick labels name each bin); a point over fewer than ``min_count``
    instances is drawn open. The series are spread a little along x so that their
    error bars stay apart.
    """
    pairs = _pairs(runs, "closure")
    if not pairs:
        return None
    levels = list(group_by([x for _, _, recs in pairs for x in recs], "level"))
    if not levels:
        return None
    styles = series_styles(len(runs))
    labels = _run_labels(runs)
    fig = new_figure(3.6 * len(levels) + 0.4, 3.6)
    axes = fig.subplots(1, len(levels), squeeze=False, sharey=True)[0]
    handles: dict[int, Any] = {}
    any_thin = any_binned = rotate = False
    ticks: list[TickSpec] = []
    for ax, lv in zip(axes, levels, strict=True):
        per_run = [(i, run, group_by(recs, "level").get(lv, [])) for i, run, recs in pairs]
        per_run = [(i, run, recs) for i, run, recs in per_run if recs]
        counts = [{n: len(g) for n, g in group_by(recs, "n").items()} for _, _, recs in per_run]
        bins = n_bins(counts, min_count)
        any_binned |= any(lo != hi for lo, hi in bins)
        mids = [(lo + hi) / 2 for lo, hi in bins]
        gaps = [b - a for a, b in itertools.pairwise(mids)]
        offsets = _dodge(len(per_run), min(gaps) if gaps else 1.0)
        for (i, _run, recs), dx in zip(per_run, offsets, strict=True):
            rates = [
                accuracy([r for r in recs if r.n is not None and lo <= r.n <= hi])
                for lo, hi in bins
            ]
            pts = [(m + dx, rate) for m, rate in zip(mids, rates, strict=True) if rate.n]
            if not pts:
                continue
            bar, thin = _draw_series(ax, pts, styles[i], min_count)
            handles.setdefault(i, bar)
            any_thin |= thin
        ax.set_title(f"L{lv}", fontsize=_FONT + 1)
        ax.set_ylim(-3, 105)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=_FONT)
        if bins:
            pad = 0.5 * (min(gaps) if gaps else 1.0)
            ax.set_xlim(mids[0] - pad, mids[-1] + pad)
            rotate |= any(lo != hi for lo, hi in bins) and len(bins) > 5
            ticks.append((ax, mids, [_bin_label(lo, hi) for lo, hi in bins]))
    axes[0].set_ylabel("Accuracy (%, lenient)")
    xlabel = "graph size n"
    if any_binned:
        xlabel += f" (binned: ≥{min_count} instances per point where possible)"
    fig.supxlabel(xlabel, fontsize=_FONT + 1)
    fig.suptitle("Accuracy vs graph size, per level")
    order = sorted(handles)
    hs, ls = [handles[i] for i in order], [labels[i] for i in order]
    if any_thin:
        hs.append(_open_marker_handle())
        ls.append(f"open marker: < {min_count} instances")
    legend_outside(fig, hs, ls)
    thin_tick_labels(fig, ticks, rotation=30.0 if rotate else 0.0)
    return fig


def accuracy_vs_n_png(runs: Sequence[Run]) -> bytes | None:
    """:func:`accuracy_vs_n_figure` as PNG bytes."""
    fig = accuracy_vs_n_figure(runs)
    return None if fig is None else render_png(fig)


# --- accuracy vs tokens -------------------------------------------------------------


def _box_overlap(a: Bbox, b: Bbox) -> bool:
    return min(a.x1, b.x1) > max(a.x0, b.x0) and min(a.y1, b.y1) > max(a.y0, b.y0)


#: Where a point label may go, in offset points: (dx, dy, ha, va), tried in order.
_LABEL_SPOTS: tuple[tuple[float, float, str, str], ...] = (
    (5, 4, "left", "bottom"),
    (5, -4, "left", "top"),
    (-5, 4, "right", "bottom"),
    (-5, -4, "right", "top"),
    (7, 0, "left", "center"),
    (-7, 0, "right", "center"),
)


def place_labels(
    ax: Axes,
    points: Sequence[tuple[float, float]],
    labels: Sequence[str],
    spans: Sequence[tuple[float, float]] = (),
    marker_px: float = 6.0,
) -> list[bool]:
    """Annotate each point with its label where it fits, else leave it unlabelled.

    The figure is drawn first (its layout final). For each point in turn the spots of
    :data:`_LABEL_SPOTS` are tried; a label is kept at the first spot where it lies
    inside the axes and clear of every kept label, of every point's marker (a square
    of ``2 * marker_px`` pixels) and of every point's error bar (``spans``: its
    ``(low, high)`` in data units, one per point, optional). Kept labels are out of
    the layout, so they cannot move the axes.

    Returns:
        For each point, whether its label was placed.

    Example:
        >>> fig = new_figure(3, 2)
        >>> ax = fig.add_subplot()
        >>> ax.set_xlim(0, 6), ax.set_ylim(0, 2)
        ((0.0, 6.0), (0.0, 2.0))
        >>> place_labels(ax, [(1, 1)] * 7 + [(5, 1)], [f"label {i}" for i in range(8)])
        [True, True, True, True, True, False, False, True]
    """
    fig = ax.get_figure()
    assert isinstance(fig, Figure)
    fig.canvas.draw()
    area = ax.get_window_extent()
    centres: list[tuple[float, float]] = (
        [(float(x), float(y)) for x, y in ax.transData.transform(list(points))] if points else []
    )
    taken = [Bbox.from_extents(x - marker_px, y - marker_px, x + marker_px, y + marker_px)
             for x, y in centres]  # fmt: skip
    for (x, _), (lo, hi) in zip(points, spans, strict=False):
        (x0, y0), (x1, y1) = ax.transData.transform([(x, lo), (x, hi)])
        taken.append(Bbox.from_extents(x0 - 3, min(y0, y1), x1 + 3, max(y0, y1)))
    placed = []
    for (x, y), label in zip(points, labels, strict=True):
        ok = False
        for dx, dy, ha, va in _LABEL_SPOTS:
            ann = ax.annotate(label, (x, y), xytext=(dx, dy), textcoords="offset points",
                              ha=ha, va=va, fontsize=_FONT - 1)  # fmt: skip
            ann.set_in_layout(False)
            box = ann.get_window_extent()
            inside = (box.x0 >= area.x0 + 1 and box.x1 <= area.x1 - 1
                      and box.y0 >= area.y0 + 1 and box.y1 <= area.y1 - 1)  # fmt: skip
            if inside and not any(_box_overlap(box, t) for t in taken):
                taken.append(box)
                ok = True
                break
            ann.remove()
        placed.append(ok)
    return placed


def _token_label(value: float, _pos: float) -> str:
    return f"{value:g}"


def accuracy_vs_tokens_figure(runs: Sequence[Run]) -> Figure | None:
    """Overall lenient accuracy vs mean completion tokens per answer (log x), a point per run.

    Each run keeps its colour and marker (legend right of the axes); a point is also
    labelled in place where the label fits (:func:`place_labels`).
    """
    labels = _run_labels(runs)
    pts = [(i, token_stats(recs).completion_mean, accuracy(recs)) for i, _, recs in
           _pairs(runs, "closure")]  # fmt: skip
    pts = [p for p in pts if p[1] > 0]
    if not pts:
        return None
    styles = series_styles(len(runs))
    fig = new_figure(5.2, 3.8)
    ax = fig.add_subplot()
    handles = []
    for i, tok, rate in pts:
        st = styles[i]
        bar = ax.errorbar([tok], [rate.pct], yerr=_err([rate]), color=st.colour,
                          marker=st.marker, ms=5, capsize=2, elinewidth=0.8, ls="none")  # fmt: skip
        handles.append(bar.lines[0])
    lo, hi = min(p[1] for p in pts), max(p[1] for p in pts)
    centre = math.sqrt(lo * hi)
    half = max(math.sqrt(hi / lo) * 1.25, math.sqrt(3.0))
    ax.set_xscale("log")
    ax.set_xlim(centre / half, centre * half)
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(_token_label))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("mean completion tokens per answer (log)")
    ax.set_ylabel("Accuracy (%, lenient)")
    ax.set_ylim(-3, 105)
    ax.set_title("Accuracy vs tokens")
    ax.grid(alpha=0.3, which="both")
    ax.tick_params(labelsize=_FONT)
    legend_outside(fig, handles, [labels[i] for i, _, _ in pts])
    spans = [rate.ci_pct for _, _, rate in pts]
    place_labels(
        ax, [(tok, rate.pct) for _, tok, rate in pts], [labels[i] for i, _, _ in pts], spans
    )
    return fig


def accuracy_vs_tokens_png(runs: Sequence[Run]) -> bytes | None:
    """:func:`accuracy_vs_tokens_figure` as PNG bytes."""
    fig = accuracy_vs_tokens_figure(runs)
    return None if fig is None else render_png(fig)


# --- GRIT views ---------------------------------------------------------------------


def grit_views_figure(runs: Sequence[Run], min_count: int = MIN_CELL) -> Figure | None:
    """GRIT accuracy per naming scheme (x), one panel per form, a line per run.

    Wilson 95% error bars; realistic-form lines are dashed; a point over fewer than
    ``min_count`` instances is drawn open. Records without a form are shown in one
    panel, "all forms".
    """
    pairs = _pairs(runs, "grit")
    if not pairs:
        return None
    per_run = [(i, group_by(recs, "form") or {"all forms": recs}) for i, _, recs in pairs]
    forms = sorted({f for _, by in per_run for f in by}, key=natural_key)
    namings = list(group_by([r for _, _, recs in pairs for r in recs], "naming"))
    if not namings:
        return None
    styles = series_styles(len(runs))
    labels = _run_labels(runs)
    fig = new_figure(3.4 * len(forms) + 0.4, 3.6)
    axes = fig.subplots(1, len(forms), squeeze=False, sharey=True)[0]
    offsets = _dodge(len(pairs), 1.0)
    handles: dict[int, Any] = {}
    any_thin = False
    for ax, form in zip(axes, forms, strict=True):
        for (i, by), dx in zip(per_run, offsets, strict=True):
            by_naming = accuracy_by(by.get(form, []), "naming")
            pts = [(namings.index(k) + dx, r) for k, r in by_naming.items() if r.n]
            if not pts:
                continue
            dash = "--" if form == "realistic" else "-"
            bar, thin = _draw_series(ax, pts, styles[i], min_count, dash)
            handles.setdefault(i, bar)
            any_thin |= thin
        ax.set_title(f"form: {form}", fontsize=_FONT + 1)
        ax.set_xticks(range(len(namings)), [str(n) for n in namings])
        ax.set_xlim(-0.5, len(namings) - 0.5)
        ax.set_ylim(-3, 105)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=_FONT)
    axes[0].set_ylabel("Accuracy (%, lenient)")
    fig.supxlabel("naming scheme", fontsize=_FONT + 1)
    fig.suptitle("GRIT: accuracy by naming scheme and form")
    order = sorted(handles)
    hs, ls = [handles[i] for i in order], [labels[i] for i in order]
    if any_thin:
        hs.append(_open_marker_handle())
        ls.append(f"open marker: < {min_count} instances")
    legend_outside(fig, hs, ls)
    return fig


def grit_views_png(runs: Sequence[Run]) -> bytes | None:
    """:func:`grit_views_figure` as PNG bytes."""
    fig = grit_views_figure(runs)
    return None if fig is None else render_png(fig)


#: The figure of each report figure name, in report order.
FIGURE_MAKERS: dict[str, Callable[[Sequence[Run]], Figure | None]] = {
    "accuracy_by_level": accuracy_by_level_figure,
    "accuracy_vs_n": accuracy_vs_n_figure,
    "accuracy_vs_tokens": accuracy_vs_tokens_figure,
    "grit_naming_form": grit_views_figure,
}


def all_figures(runs: Sequence[Run]) -> dict[str, bytes]:
    """Every available figure as ``{file stem: PNG bytes}``, in report order."""
    out = {}
    for name, make in FIGURE_MAKERS.items():
        fig = make(runs)
        if fig is not None:
            out[name] = render_png(fig)
    return out
