"""GRIT graph colouring: the chromatic number of a connected undirected graph.

Solved by the DSATUR branch and bound of :func:`closurebench.graphs.exact.coloring.
chromatic_number` (certified); at every ``n`` re-solved by the independent SAT method
(CaDiCaL; it replaced the HiGHS ILP, which cannot prove most n = 60, p = 0.5 graphs within
a minute), and the stored colouring is always checked (proper, exactly ``answer`` colours).
A model may answer with the number or with an optimal colouring: ``{name: colour}``, colour classes
``[[names], ...]`` or one colour per node in node order.

Example:
    >>> from closurebench.seeding import rng
    >>> t = GraphColoringTask()
    >>> s = t.sample(rng(0, "doc"), 7, 0.4)
    >>> r = t.solve(s)
    >>> t.check(s, r.solution) == r.answer == r.certificate["bound"]
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from closurebench.graphs.exact.check import check_colouring
from closurebench.graphs.exact.coloring import chromatic_number
from closurebench.tasks.grit.answers import Judgement, NameResolver, Rejected, node_ids
from closurebench.tasks.grit.base import CertifiedTask, ExactRoute

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["GraphColoringTask", "read_colouring"]


def read_colouring(record: GritInstance, value: Any) -> dict[int, Any] | list[Any] | Rejected:
    """A colouring candidate in node ids (mapping or per-node list), or why it is unreadable.

    Example:
        >>> from types import SimpleNamespace
        >>> rec = SimpleNamespace(names=["A", "B"], aliases={}, graph=SimpleNamespace(n=2))
        >>> read_colouring(rec, {"A": "red", "B": "blue"}), read_colouring(rec, [["B"], ["A"]])
        ({0: 'red', 1: 'blue'}, {1: 0, 0: 1})
        >>> read_colouring(rec, {"A": 1, "a ": 2}).reason
        "node 'a ' is coloured twice"
    """
    n = record.graph.n
    resolve = NameResolver(record)
    if isinstance(value, Mapping):
        out: dict[int, Any] = {}
        for name, colour in value.items():
            node = resolve(name)
            if node is None:
                return Rejected(f"unknown node {name!r}")
            if node in out:
                return Rejected(f"node {name!r} is coloured twice")
            out[node] = colour
        return out
    if isinstance(value, list) and value and all(isinstance(c, list) for c in value):
        out = {}
        for colour, group in enumerate(value):
            ids = node_ids(resolve, group)
            if isinstance(ids, Rejected):
                return ids
            for node in ids:
                if node in out:
                    return Rejected(f"node {record.names[node]!r} is in two colour classes")
                out[node] = colour
        return out
    if isinstance(value, list) and len(value) == n:
        return value
    return Rejected(f"colouring {value!r} is neither a mapping, colour classes nor {n} colours")


class GraphColoringTask(CertifiedTask):
    """Chromatic number (exact, certified): DSATUR, cross-checked by SAT at every n."""

    name = "graph_coloring"
    route = ExactRoute(
        chromatic_number,
        check_colouring,
        ("dsatur", "sat"),
        "chromatic numbers",
        cross_check_max_n=None,
    )

    def judge_solution(self, record: GritInstance, value: Any) -> Judgement:
        """A proper colouring with the fewest colours."""
        cand = read_colouring(record, value)
        if isinstance(cand, Rejected):
            return cand.judgement(value)
        g = record.graph
        verdict = check_colouring(
            g.n, [e[:2] for e in g.edges], cand, optimum=cast(int, record.answer)
        )
        return Judgement.of_verdict(verdict, value)
