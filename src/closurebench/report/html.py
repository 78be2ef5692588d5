"""One self-contained HTML page: inline CSS, tables as HTML, figures as base64 PNG.

The page references no external resource (no stylesheet, script, font or image URL),
so it renders offline and can be mailed or archived as a single file. It never gets
wider than the window: each table scrolls sideways in its own box
(``div.table-scroll``), figures shrink to the page width, and long paths wrap.

Example:
    >>> from closurebench.report.table import Table
    >>> page = render_html([], {"S": [Table("k", "T", "c", ["a"], [["<1>"]])]},
    ...                    {"fig": b"\\x89PNG"})
    >>> "<td>&lt;1&gt;</td>" in page, 'src="data:image/png;base64,iVBORw==' in page
    (True, True)
    >>> "http://" in page or "https://" in page
    False
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence

from closurebench.report.aggregate import Run
from closurebench.report.plots import MIN_CELL
from closurebench.report.table import Table
from closurebench.report.tables import incomplete_note, run_status, unsafe_note

__all__ = ["FIGURE_CAPTIONS", "figure_caption", "render_html", "table_html"]

FIGURE_CAPTIONS: dict[str, str] = {
    "accuracy_by_level": "Accuracy by compositional level (lenient; Wilson 95% error bars).",
    "accuracy_vs_n": "Accuracy vs graph size n, one panel per level (Wilson 95% error bars; "
    f"n binned where cells are thin; open markers: fewer than {MIN_CELL} instances).",
    "accuracy_vs_tokens": "Accuracy vs mean completion tokens per answer (log scale; a "
    "point is labelled where its label fits, the legend names every run).",
    "grit_naming_form": "GRIT accuracy per naming scheme, one panel per form (dashed: "
    f"realistic; Wilson 95% error bars; open markers: fewer than {MIN_CELL} instances).",
}


def figure_caption(name: str) -> str:
    """The caption of a report figure: :data:`FIGURE_CAPTIONS`, a probe's Figure 2, else the name.

    Example:
        >>> figure_caption("memorisation-answer")
        'Memorisation probe answer: accuracy per checkpoint (Figure 2; 95% intervals shaded).'
        >>> figure_caption("other")
        'other'
    """
    if name in FIGURE_CAPTIONS:
        return FIGURE_CAPTIONS[name]
    if name.startswith("memorisation-"):
        label = name.removeprefix("memorisation-")
        return (
            f"Memorisation probe {label}: accuracy per checkpoint (Figure 2; 95% intervals shaded)."
        )
    return name


_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;
max-width:1200px;color:#222;line-height:1.4;padding:0 1em}
h1{border-bottom:2px solid #444}h2{margin-top:2em;border-bottom:1px solid #bbb}
html,body{overflow-wrap:break-word}
div.table-scroll{overflow-x:auto;max-width:100%;margin:.5em 0 1.5em}
table{border-collapse:collapse;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}
th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}
tr:nth-child(even) td{background:#fafafa}
p.caption{color:#555;font-size:13px;margin:.2em 0}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
figure img{height:auto}
figcaption{color:#555;font-size:13px}code{background:#f4f4f4;padding:0 3px;word-break:break-all}
.incomplete{color:#a40000;font-weight:bold}
p.warning{background:#fff4e5;border-left:4px solid #e69500;padding:.5em 1em}
"""


def table_html(table: Table) -> str:
    """Render a :class:`~closurebench.report.table.Table` (escaped) as an HTML section.

    Example:
        >>> print(table_html(Table("k", "T", "c", ["a"], [["1"]])))  # doctest: +ELLIPSIS
        <section id="k"><h3>T</h3><p class="caption">c</p><div class="table-scroll"><table>...
    """
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    return (
        f'<section id="{e(table.key)}"><h3>{e(table.title)}</h3>'
        f'<p class="caption">{e(table.caption)}</p>'
        f'<div class="table-scroll"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div></section>"
    )


def render_html(
    runs: Sequence[Run],
    tables: Mapping[str, Sequence[Table]],
    figures: Mapping[str, bytes],
    title: str = "ClosureBench evaluation report",
) -> str:
    """The complete HTML page.

    Args:
        runs: The runs shown (listed at the top).
        tables: ``{suite heading: tables}`` as from :func:`~closurebench.report.tables.all_tables`.
        figures: ``{name: PNG bytes}`` as from :func:`~closurebench.report.plots.all_figures`.
        title: Page title.
    """
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        "<h2>Runs</h2><ul>",
    ]
    for r in runs:
        status = e(run_status(r)).replace(
            "incomplete:", '<span class="incomplete">incomplete</span>:', 1
        )
        parts.append(f"<li><b>{e(r.label)}</b> — <code>{e(str(r.path))}</code> ({status})</li>")
    parts.append("</ul>")
    for note in (unsafe_note(runs), incomplete_note(runs)):
        if note:
            parts.append(f'<p class="warning"><b>Warning.</b> {e(note)}</p>')
    if figures:
        parts.append("<h2>Figures</h2>")
        for name, png in figures.items():
            data = base64.b64encode(png).decode("ascii")
            cap = figure_caption(name)
            parts.append(
                f'<figure id="fig-{e(name)}"><img alt="{e(cap)}" '
                f'src="data:image/png;base64,{data}"><figcaption>{e(cap)}</figcaption></figure>'
            )
    for suite, suite_tables in tables.items():
        parts.append(f"<h2>{e(suite)}</h2>")
        parts += [table_html(t) for t in suite_tables]
    parts.append("</body></html>")
    return "\n".join(parts)
