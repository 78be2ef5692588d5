"""Layout checks of a matplotlib figure: text off the canvas, colliding labels, legends on data.

The report's figures (:mod:`closurebench.report.plots`, Figure 2 of
:mod:`closurebench.report.memorisation`) are checked with these in the tests, and a
developer can run them on any figure. Every check draws the figure first
(``fig.canvas.draw()``, which also runs its layout engine) and then compares the
window extents (display pixels) matplotlib reports for the artists:

* :func:`texts_outside`: visible, non-empty texts (titles, axis and tick labels,
  legend entries, annotations) that reach past the figure's edge, and annotations
  (texts added with ``Axes.text`` / ``Axes.annotate``) that reach past their axes;
* :func:`overlapping_texts`: pairs of visible texts that overlap (rotated texts
  compared as rotated rectangles, :func:`text_polygon`);
* :func:`legends_on_data`: for each axes, how many legends overlap its data area;
* :func:`check_figure`: all three, as a :class:`FigureCheck`.

Extents are compared with a tolerance of :data:`TOLERANCE_PX` pixels (anti-aliasing
and rounding).

Example:
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(3, 2), layout="constrained")
    >>> ax = fig.add_subplot()
    >>> _ = ax.plot([0, 1], [0, 1], label="line")
    >>> _ = ax.legend(loc="upper left")
    >>> _ = ax.text(1.5, 0.5, "past the right edge", transform=ax.transAxes)
    >>> check = check_figure(fig)
    >>> [t.get_text() for t in check.outside], check.legends_on_data
    (['past the right edge'], [1])
    >>> check.ok(max_legends=1)
    False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import BboxBase

__all__ = [
    "TOLERANCE_PX",
    "FigureCheck",
    "check_figure",
    "draw",
    "legends_on_data",
    "overlapping_texts",
    "polygons_overlap",
    "text_polygon",
    "texts_outside",
    "visible_texts",
]

#: Pixels an extent may stick out (or two extents overlap) before it counts.
TOLERANCE_PX = 1.0


def draw(fig: Figure) -> None:
    """Draw ``fig`` (running its layout engine) so that window extents are final.

    ``fig.canvas.draw()`` on a canvas that renders (Agg, what pyplot gives under the
    Agg backend), else :meth:`~matplotlib.figure.Figure.draw_without_rendering`.
    """
    if hasattr(fig.canvas, "get_renderer"):
        fig.canvas.draw()
    else:
        fig.draw_without_rendering()


def _shown(t: Text) -> bool:
    """Whether ``t`` is drawn: visible itself and in every artist above it, and not empty."""
    if not t.get_text().strip() or not t.get_visible():
        return False
    parent = getattr(t, "axes", None)
    return not (isinstance(parent, Axes) and not parent.get_visible())


def visible_texts(fig: Figure, drawn: bool = False) -> list[Text]:
    """Every drawn, non-empty :class:`~matplotlib.text.Text` of ``fig``, in a stable order.

    Tick labels of ticks outside the view limits are left out (matplotlib does not
    draw them). The figure is drawn first unless ``drawn`` (as every function here).

    Example:
        >>> from matplotlib.figure import Figure
        >>> fig = Figure()
        >>> ax = fig.add_subplot()
        >>> _ = ax.set_title("T")
        >>> "T" in [t.get_text() for t in visible_texts(fig)]
        True
    """
    if not drawn:
        draw(fig)
    drawn_ticks: set[int] = set()
    all_ticks: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            lo, hi = sorted(axis.get_view_interval())
            for tick in ticks:
                labels = (tick.label1, tick.label2)
                all_ticks.update(id(x) for x in labels)
                loc = tick.get_loc()
                if loc is not None and lo - 1e-9 * (abs(lo) + 1) <= loc <= hi + 1e-9 * (
                    abs(hi) + 1
                ):
                    drawn_ticks.update(id(x) for x in labels)
    out = []
    for t in fig.findobj(Text):
        if not isinstance(t, Text) or not _shown(t):
            continue
        if id(t) in all_ticks and id(t) not in drawn_ticks:
            continue
        out.append(t)
    return out


def _inside(inner: BboxBase, outer: BboxBase, tol: float = TOLERANCE_PX) -> bool:
    return (
        inner.x0 >= outer.x0 - tol
        and inner.y0 >= outer.y0 - tol
        and inner.x1 <= outer.x1 + tol
        and inner.y1 <= outer.y1 + tol
    )


def _overlap(a: BboxBase, b: BboxBase, tol: float = TOLERANCE_PX) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol


Point = tuple[float, float]


def text_polygon(t: Text) -> list[Point]:
    """The four corners (display pixels) of the rotated rectangle a drawn text fills.

    ``Text.get_window_extent`` gives the axis-aligned box around a rotated text;
    two neighbouring rotated tick labels' boxes overlap although the labels do not.
    The rectangle's size is the extent of the text unrotated; its centre is that of
    the axis-aligned box.

    Example:
        >>> from matplotlib.figure import Figure
        >>> fig = Figure()
        >>> t = fig.text(0.5, 0.5, "label", rotation=90)
        >>> draw(fig)
        >>> (x0, y0), _, (x1, y1), _ = text_polygon(t)
        >>> round(abs(x1 - x0)) < round(abs(y1 - y0))
        True
    """
    box = t.get_window_extent()
    angle = float(t.get_rotation())
    if angle % 360.0:
        t.set_rotation(0.0)
        flat = t.get_window_extent()
        t.set_rotation(angle)
        w, h = flat.width, flat.height
    else:
        w, h = box.width, box.height
    cx, cy = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    corners = ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
    return [(cx + c * x - s * y, cy + s * x + c * y) for x, y in corners]


def polygons_overlap(a: Sequence[Point], b: Sequence[Point], tol: float = TOLERANCE_PX) -> bool:
    """Whether two convex polygons overlap by more than ``tol`` pixels (separating axes).

    A negative ``tol`` also counts polygons less than ``-tol`` pixels apart.

    Example:
        >>> square = [(0, 0), (10, 0), (10, 10), (0, 10)]
        >>> polygons_overlap(square, [(5, 5), (15, 5), (15, 15), (5, 15)])
        True
        >>> polygons_overlap(square, [(10, 0), (20, 0), (20, 10), (10, 10)])
        False
    """
    for poly in (a, b):
        for i in range(len(poly)):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = y0 - y1, x1 - x0
            norm = math.hypot(nx, ny)
            if not norm:
                continue
            pa = [(x * nx + y * ny) / norm for x, y in a]
            pb = [(x * nx + y * ny) / norm for x, y in b]
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= tol:
                return False
    return True


def _annotations(fig: Figure) -> dict[int, Axes]:
    """``id(text) -> axes`` for the texts placed in an axes (``Axes.text``, ``annotate``)."""
    return {id(t): ax for ax in fig.axes for t in ax.texts}


def texts_outside(fig: Figure, drawn: bool = False) -> list[Text]:
    """Texts that reach past the figure, and annotations that reach past their axes.

    Example:
        >>> from matplotlib.figure import Figure
        >>> fig = Figure(figsize=(3, 2))
        >>> _ = fig.text(0.9, 0.5, "cut off at the right")
        >>> [t.get_text() for t in texts_outside(fig)]
        ['cut off at the right']
    """
    texts = visible_texts(fig, drawn)
    owners = _annotations(fig)
    out = []
    for t in texts:
        ext = t.get_window_extent()
        area = owners[id(t)].get_window_extent() if id(t) in owners else fig.bbox
        if not _inside(ext, area):
            out.append(t)
    return out


def overlapping_texts(fig: Figure, drawn: bool = False) -> list[tuple[Text, Text]]:
    """Pairs of drawn texts whose extents overlap (by more than :data:`TOLERANCE_PX`).

    Example:
        >>> from matplotlib.figure import Figure
        >>> fig = Figure(figsize=(3, 2))
        >>> _ = fig.text(0.1, 0.5, "first label")
        >>> _ = fig.text(0.15, 0.5, "second label")
        >>> [(a.get_text(), b.get_text()) for a, b in overlapping_texts(fig)]
        [('first label', 'second label')]
    """
    texts = visible_texts(fig, drawn)
    boxes = [t.get_window_extent() for t in texts]
    shapes = [text_polygon(t) for t in texts]
    return [
        (texts[i], texts[j])
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
        if _overlap(boxes[i], boxes[j]) and polygons_overlap(shapes[i], shapes[j])
    ]


def _legends(fig: Figure) -> list[Legend]:
    found = [*fig.legends]
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is not None:
            found.append(leg)
    return [leg for leg in found if leg.get_visible()]


def legends_on_data(fig: Figure, drawn: bool = False) -> list[int]:
    """For each axes of ``fig`` (in ``fig.axes`` order): the legends overlapping its data area.

    Figure legends and the legends of every axes count (a legend of one panel can
    cover its neighbour).

    Example:
        >>> from matplotlib.figure import Figure
        >>> fig = Figure(figsize=(4, 2), layout="constrained")
        >>> ax = fig.add_subplot()
        >>> _ = ax.plot([0, 1], label="a")
        >>> _ = fig.legend(loc="outside right upper")
        >>> legends_on_data(fig)
        [0]
    """
    if not drawn:
        draw(fig)
    boxes = [leg.get_window_extent() for leg in _legends(fig)]
    return [
        sum(1 for box in boxes if _overlap(box, ax.get_window_extent()))
        for ax in fig.axes
        if ax.get_visible()
    ]


@dataclass
class FigureCheck:
    """What :func:`check_figure` found.

    Attributes:
        outside: :func:`texts_outside`.
        overlapping: :func:`overlapping_texts`.
        legends_on_data: :func:`legends_on_data`.
    """

    outside: list[Text] = field(default_factory=list)
    overlapping: list[tuple[Text, Text]] = field(default_factory=list)
    legends_on_data: list[int] = field(default_factory=list)

    def ok(self, max_legends: int = 0) -> bool:
        """No text outside, none overlapping, at most ``max_legends`` legends on any axes."""
        return (
            not self.outside
            and not self.overlapping
            and all(k <= max_legends for k in self.legends_on_data)
        )

    def describe(self) -> str:
        """One line per problem (empty when there is none), for assertion messages."""
        lines = [f"outside: {t.get_text()!r}" for t in self.outside]
        lines += [f"overlap: {a.get_text()!r} / {b.get_text()!r}" for a, b in self.overlapping]
        lines += [
            f"axes {i}: {k} legend(s) on its data area"
            for i, k in enumerate(self.legends_on_data)
            if k
        ]
        return "\n".join(lines)


def check_figure(fig: Figure) -> FigureCheck:
    """Run every check of this module on ``fig`` (drawn once, first)."""
    draw(fig)
    return FigureCheck(
        texts_outside(fig, drawn=True),
        overlapping_texts(fig, drawn=True),
        legends_on_data(fig, drawn=True),
    )
