"""GRIT vertex cover: the size of a minimum vertex cover of a connected undirected graph.

Solved by the maximum-clique branch and bound on the complement
(:func:`closurebench.graphs.exact.cover.vertex_cover`, certified); for ``n <= 40``
re-solved by the independent HiGHS ILP, and the stored cover is always checked. A model
may answer with the size or with any minimum cover (a list of names).

Example:
    >>> t = VertexCoverTask()
    >>> path = t.structure(4, False, False, [(0, 1), (1, 2), (2, 3)])
    >>> solved = t.solve(path)
    >>> solved.answer, solved.solution, solved.certificate["gap"]
    (2, [1, 3], 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from closurebench.graphs.exact.check import check_cover
from closurebench.graphs.exact.cover import vertex_cover
from closurebench.tasks.grit.answers import Judgement, Rejected, read_node_list
from closurebench.tasks.grit.base import CertifiedTask, ExactRoute

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["VertexCoverTask"]


class VertexCoverTask(CertifiedTask):
    """Minimum vertex cover size (exact, certified): complement clique search, then ILP."""

    name = "vertex_cover"
    route = ExactRoute(vertex_cover, check_cover, ("clique", "ilp"), "cover sizes")

    def judge_solution(self, record: GritInstance, value: Any) -> Judgement:
        """A list of names touching every edge, of minimum size."""
        ids = read_node_list(record, value, self.expected)
        if isinstance(ids, Rejected):
            return ids.judgement(value)
        g = record.graph
        verdict = check_cover(g.n, [e[:2] for e in g.edges], ids, optimum=cast(int, record.answer))
        return Judgement.of_verdict(verdict, value)
