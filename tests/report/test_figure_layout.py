"""Figure layout (issue 26, item 3): no text off its area, legends off the data, 16 colours.

Every figure kind is built from inputs that broke the old figures (:mod:`figure_inputs`:
16 runs with long labels, token means close together, one instance per n-cell, a
probe with checkpoints close together) and checked with
:mod:`closurebench.report.figure_checks`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from figure_inputs import crowded_probe, crowded_runs, probe_without_steps, run_records, thin_run
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from report_fixtures import typed

from closurebench.report.aggregate import Run
from closurebench.report.figure_checks import (
    check_figure,
    legends_on_data,
    overlapping_texts,
    texts_outside,
    visible_texts,
)
from closurebench.report.memorisation import figure2, figure2_png
from closurebench.report.plots import (
    FIGURE_MAKERS,
    MIN_CELL,
    accuracy_vs_n_figure,
    accuracy_vs_n_png,
    accuracy_vs_tokens_figure,
    accuracy_vs_tokens_png,
    grit_views_figure,
    n_bins,
    new_figure,
    series_styles,
)
from closurebench.schema.memorisation import MemorisationProbe

Maker = Callable[[Sequence[Run]], Figure | None]


def _run(label: str, records: list[dict[str, Any]]) -> Run:
    return Run(Path(label), label, label, "direct", typed(records))


@pytest.fixture(scope="module")
def crowded() -> list[Run]:
    return crowded_runs(16)


@pytest.fixture(scope="module")
def crowded_figures(crowded: list[Run]) -> dict[str, Figure]:
    figs = {name: make(crowded) for name, make in FIGURE_MAKERS.items()}
    assert all(f is not None for f in figs.values())
    return {k: f for k, f in figs.items() if f is not None}


def _assert_clean(fig: Figure) -> None:
    check = check_figure(fig)
    assert not check.outside, check.describe()
    assert not check.overlapping, check.describe()
    # The rule is "at most one legend on the data"; these figures keep every legend outside.
    assert check.legends_on_data and all(k == 0 for k in check.legends_on_data), check.describe()


@pytest.mark.parametrize("name", list(FIGURE_MAKERS))
def test_crowded_figures_keep_text_inside_and_legends_off_the_data(
    crowded_figures: dict[str, Figure], name: str
) -> None:
    _assert_clean(crowded_figures[name])


@pytest.mark.parametrize("name", list(FIGURE_MAKERS))
def test_a_single_thin_run_is_laid_out_too(name: str) -> None:
    fig = FIGURE_MAKERS[name]([thin_run()])
    assert fig is not None
    _assert_clean(fig)


@pytest.mark.parametrize(
    "probe", [crowded_probe(), probe_without_steps()], ids=["steps", "positions"]
)
def test_memorisation_figure2_is_laid_out(probe: MemorisationProbe) -> None:
    _assert_clean(figure2(probe))


def _legend_styles(fig: Figure) -> list[tuple[str, str, str]]:
    """(label, colour, marker) of each run entry of the figure's legend."""
    (legend,) = fig.legends
    out = []
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        assert isinstance(handle, Line2D)
        if text.get_text().startswith("open marker"):
            continue
        out.append((text.get_text(), to_hex(handle.get_color()), str(handle.get_marker())))
    return out


@pytest.mark.parametrize("name", ["accuracy_vs_n", "accuracy_vs_tokens", "grit_naming_form"])
def test_sixteen_runs_get_sixteen_colours(crowded_figures: dict[str, Figure], name: str) -> None:
    styles = _legend_styles(crowded_figures[name])
    assert len(styles) == 16
    assert len({colour for _, colour, _ in styles}) == 16
    assert len({(colour, marker) for _, colour, marker in styles}) == 16


def test_a_run_keeps_its_colour_and_marker_in_every_figure(
    crowded_figures: dict[str, Figure],
) -> None:
    per_figure = [
        _legend_styles(crowded_figures[n])
        for n in ("accuracy_vs_n", "accuracy_vs_tokens", "grit_naming_form")
    ]
    assert per_figure[0] == per_figure[1] == per_figure[2]


def test_the_series_cycle_is_deterministic_and_distinct() -> None:
    assert series_styles(16) == series_styles(16)
    assert len({s.colour for s in series_styles(20)}) == 20
    assert len({(s.colour, s.marker) for s in series_styles(60)}) == 60


def test_lines_in_the_axes_use_the_legend_colours(crowded_figures: dict[str, Figure]) -> None:
    fig = crowded_figures["accuracy_vs_n"]
    legend = {colour for _, colour, _ in _legend_styles(fig)}
    drawn = {to_hex(line.get_color()) for ax in fig.axes for line in ax.lines}
    assert drawn == legend


# --- thin cells (accuracy vs n) -------------------------------------------------------


def test_one_instance_per_n_is_binned_to_at_least_min_cell() -> None:
    run = thin_run()
    by_n = {n: sum(1 for r in run.records if r.level == 1 and r.n == n)
            for n in range(4, 25)}  # fmt: skip
    assert set(by_n.values()) == {1}
    bins = n_bins([by_n])
    assert len(bins) < len(by_n)
    assert [lo for lo, _ in bins] == sorted(lo for lo, _ in bins)
    assert bins[0][0] == 4 and bins[-1][1] == 24
    for lo, hi in bins:
        assert sum(k for n, k in by_n.items() if lo <= n <= hi) >= MIN_CELL


def test_thick_cells_are_not_binned() -> None:
    assert n_bins([{4: MIN_CELL, 5: MIN_CELL + 3}]) == [(4, 4), (5, 5)]


def test_the_thin_figure_labels_its_bins_and_plots_no_point_under_min_cell() -> None:
    fig = accuracy_vs_n_figure([thin_run()])
    assert fig is not None
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]
    assert ticks and all("–" in t for t in ticks)  # bins such as 4–8, not single sizes
    texts = [t.get_text() for t in visible_texts(fig)]
    assert any("binned" in t for t in texts)
    for ax in fig.axes:
        assert not [ln for ln in ax.lines if ln.get_markerfacecolor() == "white"]


def test_a_point_still_under_min_cell_is_drawn_open_and_explained() -> None:
    sparse = [r for r in run_records(1) if r.get("n") in (4, 5)]  # 2 per level at most
    full = run_records(2, per_cell=MIN_CELL)
    runs = [
        _run("sparse", sparse),
        _run("full", full),
        _run("full too", run_records(3, per_cell=5)),
    ]
    fig = accuracy_vs_n_figure(runs)
    assert fig is not None
    open_points = [ln for ax in fig.axes for ln in ax.lines if ln.get_markerfacecolor() == "white"]
    assert open_points
    assert any(t.get_text().startswith("open marker") for t in fig.legends[0].get_texts())
    _assert_clean(fig)


# --- accuracy vs tokens labels --------------------------------------------------------


def test_token_labels_are_placed_only_where_they_fit(crowded_figures: dict[str, Figure]) -> None:
    fig = crowded_figures["accuracy_vs_tokens"]
    (ax,) = fig.axes
    labels = [t for t in ax.texts if t.get_visible()]
    assert 0 < len(labels) < 16  # some fit, the crowded ones are left to the legend
    assert not texts_outside(fig) and not overlapping_texts(fig)


def test_well_separated_points_are_all_labelled() -> None:
    runs = [_run(f"model-{i}", run_records(4 * i)) for i in range(3)]  # 120, 900+, ... tokens
    fig = accuracy_vs_tokens_figure(runs)
    assert fig is not None
    assert len(fig.axes[0].texts) >= 2
    _assert_clean(fig)


# --- GRIT views -----------------------------------------------------------------------


def test_grit_has_one_panel_per_form(crowded: list[Run]) -> None:
    fig = grit_views_figure(crowded)
    assert fig is not None
    assert [ax.get_title() for ax in fig.axes] == ["form: standard", "form: realistic"]
    dashed = {line.get_linestyle() for line in fig.axes[1].lines if line.get_marker() != "None"}
    assert "--" in dashed


# --- the checks themselves ------------------------------------------------------------


def test_the_checks_see_the_old_defects() -> None:
    fig = Figure(figsize=(4, 3))  # no layout engine, as the old figures
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    for i in range(4):
        ax.errorbar([100 + i], [50], yerr=[[5], [5]], marker="o", label=f"a long run label {i}")
        ax.annotate(f"a long run label {i}", (100 + i, 50), xytext=(4, 4),
                    textcoords="offset points")  # fmt: skip
    ax.annotate("past the edge", (103, 50), xytext=(200, 0), textcoords="offset points")
    ax.legend(loc="center")
    outside = [t.get_text() for t in texts_outside(fig)]
    assert "past the edge" in outside
    assert "a long run label 3" in outside  # the right-most point's label runs off the axes
    assert len(overlapping_texts(fig)) >= 3
    assert legends_on_data(fig) == [1]


def test_rotated_tick_labels_side_by_side_do_not_count_as_overlapping() -> None:
    fig = new_figure(6, 3)
    ax = fig.add_subplot()
    ax.set_xticks(range(8), [f"a fairly long tick label {i}" for i in range(8)], rotation=30,
                  ha="right", rotation_mode="anchor")  # fmt: skip
    assert overlapping_texts(fig) == []


def test_the_pngs_are_byte_identical_across_builds(crowded: list[Run]) -> None:
    """Labels placed and ticks thinned from measured extents: still the same bytes."""
    runs = crowded[:3]
    png = accuracy_vs_n_png(runs)
    assert png is not None and b"matplotlib" not in png  # no version tag in the metadata
    assert accuracy_vs_n_png(runs) == png
    assert accuracy_vs_tokens_png(runs) == accuracy_vs_tokens_png(runs)
    assert figure2_png(crowded_probe()) == figure2_png(crowded_probe())
