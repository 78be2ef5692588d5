"""Deterministic formatting of tool results (the ``<result>`` body, paper Table 14).

A result is a title line ending in ``result:`` and bullet lines ``• Key: value``. Numbers
print without a trailing ``.0`` when whole, floats rounded to 6 decimals; paths use
``→``. The same answer always gives the same bytes.

Example:
    >>> print(render("Shortest path algorithm (Dijkstra)", ["Path: A → B", "Total Length: 16"]))
    Shortest path algorithm (Dijkstra) result:
    • Path: A → B
    • Total Length: 16
    >>> fmt_num(16.0), fmt_num(2.5), fmt_num(1 / 3), fmt_num(7)
    ('16', '2.5', '0.333333', '7')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["arrow", "fmt_num", "fmt_score", "names", "render", "yes_no"]


def fmt_num(x: int | float) -> str:
    """An int as is; a whole float without ``.0``; other floats rounded to 6 decimals.

    Example:
        >>> fmt_num(3.0), fmt_num(0.1 + 0.2)
        ('3', '0.3')
    """
    if isinstance(x, bool):
        return str(x).lower()
    if isinstance(x, int):
        return str(x)
    if x.is_integer():
        return str(int(x))
    return repr(round(x, 6))


def fmt_score(x: float) -> str:
    """A score rounded to 4 decimals (``0.6667``; ``1`` and ``0`` stay short).

    Example:
        >>> fmt_score(2 / 3), fmt_score(1.0)
        ('0.6667', '1')
    """
    return fmt_num(round(x, 4))


def arrow(path: Sequence[str]) -> str:
    """Names joined by ``→``.

    Example:
        >>> arrow(["A", "B", "C"])
        'A → B → C'
    """
    return " → ".join(path)


def names(items: Iterable[str]) -> str:
    """Names joined by commas; ``(none)`` when empty.

    Example:
        >>> names(["A", "B"]), names([])
        ('A, B', '(none)')
    """
    out = ", ".join(items)
    return out or "(none)"


def yes_no(flag: bool) -> str:
    """``yes`` or ``no``."""
    return "yes" if flag else "no"


def render(title: str, lines: Iterable[str], notes: Iterable[str] = ()) -> str:
    """The result text: ``<title> result:`` then ``• line`` rows, then ``• Note: …`` rows.

    Example:
        >>> render("BFS", ["Visit order: A, B"], ["x"])
        'BFS result:\\n• Visit order: A, B\\n• Note: x'
    """
    rows = [f"{title} result:"]
    rows += [f"• {line}" for line in lines]
    rows += [f"• Note: {note}" for note in notes]
    return "\n".join(rows)
