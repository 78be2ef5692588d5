"""The Ein builtins and their one explicit registry table.

Each builtin is one decorated, documented function in a small module of this
package; its docstring is its help text and its first paragraph is its line in
the prompt syntax card. Adding a builtin means writing its function and adding
one line to :data:`_TABLE`.

Example:
    >>> sorted(BUILTINS)[:5]
    ['argmax', 'argmin', 'desc', 'diag', 'edges']
    >>> lookup("tc").forms()
    ['tc(A)']
"""

from __future__ import annotations

from collections.abc import Callable

from closurebench.ein.builtins import compare, construct, graph, linalg, reduce, select
from closurebench.ein.builtins.base import Builtin, Param, builtin

__all__ = ["BUILTINS", "Builtin", "Param", "builtin", "lookup"]

# The one table of builtins, in syntax-card order.
_TABLE: tuple[Callable[..., object], ...] = (
    graph.edges,
    construct.vec,
    graph.tc,
    graph.reach,
    graph.desc,
    graph.has_path,
    linalg.trace,
    linalg.diag,
    linalg.transpose,
    reduce.sum_,
    reduce.max_,
    reduce.min_,
    reduce.mean,
    select.select,
    compare.ge,
    compare.gt,
    compare.eq,
    compare.le,
    compare.lt,
    compare.ne,
    construct.ones,
    construct.zeros,
    construct.eye,
    reduce.argmax,
    reduce.argmin,
)

BUILTINS: dict[str, Builtin] = {f.__ein__.name: f.__ein__ for f in _TABLE}  # type: ignore[attr-defined]


def lookup(name: str) -> Builtin | None:
    """The builtin called ``name``, or ``None``."""
    return BUILTINS.get(name)
