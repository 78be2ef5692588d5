"""A report table (:class:`Table`) and the cell formatting every table module shares.

The table modules (:mod:`~closurebench.report.tables`, :mod:`~closurebench.report.grain`,
:mod:`~closurebench.report.samples`, :mod:`~closurebench.report.memorisation`) build on
this module only, so :func:`~closurebench.report.tables.all_tables` can gather theirs
without an import cycle.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = ["Table", "md_escape", "num"]

_MD_SPECIAL = re.compile(r"([\\`*~|])|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])|\]([(\[])")


def md_escape(text: str) -> str:
    """``text`` as literal Markdown: no raw HTML, emphasis, code span, link or cell break.

    ``&``, ``<`` and ``>`` become entities; ``\\``, a backtick, ``*``, ``~``, ``|``, an
    ``_`` at a word edge and the ``](`` / ``][`` of a link get a backslash. Brackets
    alone (``75.0 [30.1, 95.4]``) and ``_`` inside words (``reach_then_count``) stay
    as they are, so the file remains readable.

    Example:
        >>> print(md_escape("<img src=x onerror=alert(1)> & *bold*"))
        &lt;img src=x onerror=alert(1)&gt; &amp; \\*bold\\*
        >>> print(md_escape("[click](http://x) reach_count _x_ 75.0 [30.1, 95.4]"))
        [click]\\(http://x) reach_count \\_x\\_ 75.0 [30.1, 95.4]
    """
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    def sub(m: re.Match[str]) -> str:
        if m.group(1):
            return "\\" + m.group(1)
        if m.group(2):
            return "]\\" + m.group(2)
        return "\\_"

    return _MD_SPECIAL.sub(sub, text)


@dataclass
class Table:
    """A titled table of pre-formatted string cells.

    Attributes:
        key: Stable identifier (``"closure_level"``, ``"grit_naming"``, ...).
        title: Heading shown above the table.
        caption: One-paragraph explanation shown under the heading.
        header: Column headers.
        rows: Rows of cells (same length as ``header``).
    """

    key: str
    title: str
    caption: str
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)

    def to_markdown(self) -> str:
        """Render as a Markdown section (heading, caption, pipe table; cells escaped).

        Example:
            >>> print(Table("k", "T", "c", ["a", "b"], [["1", "x|y"], ["<b>", "2"]]).to_markdown())
            ### T
            <BLANKLINE>
            c
            <BLANKLINE>
            | a | b |
            |---|---|
            | 1 | x\\|y |
            | &lt;b&gt; | 2 |
        """
        esc = [[md_escape(c) for c in row] for row in [self.header, *self.rows]]
        lines = [f"### {self.title}", "", self.caption, ""]
        lines.append("| " + " | ".join(esc[0]) + " |")
        lines.append("|" + "|".join("---" for _ in self.header) + "|")
        lines.extend("| " + " | ".join(row) + " |" for row in esc[1:])
        return "\n".join(lines)


def num(x: float | None, digits: int = 1) -> str:
    """Format a float; nan or None (no value) as an en dash, inf as ∞.

    Example:
        >>> num(3.14159), num(float("nan")), num(float("inf")), num(1234.5, 0), num(None)
        ('3.1', '–', '∞', '1,234', '–')
    """
    if x is None or math.isnan(x):
        return "–"
    if math.isinf(x):
        return "∞"
    return f"{x:,.{digits}f}"
