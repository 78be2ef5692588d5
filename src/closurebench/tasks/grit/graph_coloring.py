"""GRIT graph colouring: the chromatic number of a connected undirected graph.

Solved by :func:`closurebench.graphs.exact.coloring.chromatic_number` with its default
method ``"auto"`` (certified: SAT on graphs with ``n >= 50`` and edge density ``>= 0.4``,
the DSATUR branch and bound elsewhere); at every ``n`` re-solved by the other independent
method (DSATUR or SAT; SAT replaced the HiGHS ILP, which cannot prove most n = 60, p = 0.5
graphs within a minute), whose chromatic number must agree, and the stored colouring is
always checked (proper, exactly ``answer`` colours). The stored colouring is the canonical
one (:func:`~closurebench.graphs.exact.coloring.canonical_colouring`: DSATUR's, whichever
method proved the number), so it does not change with the method.
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
from closurebench.graphs.exact.coloring import (
    DEFAULT_COLOURING_METHOD,
    auto_method,
    chromatic_number,
)
from closurebench.tasks.grit.answers import Judgement, NameResolver, Rejected, node_ids
from closurebench.tasks.grit.base import CertifiedTask, ExactRoute, Solved, edge_list

if TYPE_CHECKING:
    from closurebench.schema import GritInstance
    from closurebench.structures.grit import GritStructure

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
    """Chromatic number, certified: SAT if n >= 50 and density >= 0.4, else DSATUR; both run."""

    name = "graph_coloring"
    route = ExactRoute(
        chromatic_number,
        check_colouring,
        (DEFAULT_COLOURING_METHOD, "sat"),
        "chromatic numbers",
        cross_check_max_n=None,
    )

    def second_method(self, s: GritStructure) -> tuple[str, str]:
        """``(first, second)``: the method ``"auto"`` runs on ``s`` and the other one.

        Example:
            >>> t = GraphColoringTask()
            >>> t.second_method(t.structure(3, False, False, [(0, 1), (1, 2)]))
            ('dsatur', 'sat')
        """
        first = auto_method(s.n, s.m)
        return first, "dsatur" if first == "sat" else "sat"

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        """The colouring is valid with ``answer``; the other method's number agrees.

        The second method runs at every ``n`` without the canonical-colouring search
        (only its chromatic number is compared), so DSATUR and SAT both prove every
        stored answer whichever of them ``"auto"`` picked.
        """
        self._check_value(s, solved, where)
        first, second = self.second_method(s)
        alt = chromatic_number(
            s.n, edge_list(s), time_limit=time_limit, method=second, canonical=False
        )
        what = f"{self.route.quantity} ({first} vs {second})"
        self._agree(where, what, solved.answer, int(alt.value))

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
