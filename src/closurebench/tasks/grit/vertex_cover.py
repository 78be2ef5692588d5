"""GRIT vertex cover: the size of a minimum vertex cover of a connected undirected graph.

Solved by the maximum-clique branch and bound on the complement
(:func:`closurebench.graphs.exact.cover.vertex_cover`, certified); for ``n <= 40``
re-solved by the independent HiGHS ILP, and the stored cover is always checked.

Example:
    >>> from closurebench.seeding import rng
    >>> t = VertexCoverTask()
    >>> s = t.sample(rng(0, "doc"), 7, 0.4)
    >>> r = t.solve(s)
    >>> t.check(s, r.solution) == r.answer
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from closurebench.graphs.exact.check import check_cover
from closurebench.graphs.exact.cover import vertex_cover
from closurebench.surface.grit import GritStructure
from closurebench.tasks.grit.base import (
    CROSS_CHECK_MAX_N,
    DEFAULT_TIME_LIMIT,
    FEASIBILITY_ONLY,
    GritTask,
    Solved,
    checked,
    connected_graph,
    edge_list,
)

__all__ = ["VertexCoverTask"]


class VertexCoverTask(GritTask):
    """Minimum vertex cover size (exact, certified)."""

    name = "vertex_cover"

    def sample(self, g: np.random.Generator, n: int, p: float) -> GritStructure:
        """Connected undirected Erdős–Rényi graph."""
        return GritStructure(self.name, n, False, False, list(connected_graph(g, n, p).edges))

    def solve(self, s: GritStructure, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Solved:
        """Complement maximum-clique branch and bound."""
        r = vertex_cover(s.n, edge_list(s), time_limit=time_limit, method="clique")
        return Solved(
            answer=int(r.value), solution=sorted(r.cover), certificate=r.certificate.as_dict()
        )

    def check(self, s: GritStructure, solution: Any) -> int:
        """A set of distinct node ids touching every edge; returns its size."""
        return checked(check_cover(s.n, edge_list(s), solution, optimum=FEASIBILITY_ONLY))

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        """ILP method agrees (n <= 40); the cover is valid with ``answer`` nodes."""
        self._check_value(s, solved, where)
        if s.n <= CROSS_CHECK_MAX_N:
            alt = vertex_cover(s.n, edge_list(s), time_limit=time_limit, method="ilp")
            self._agree(where, "cover sizes (clique vs ilp)", solved.answer, int(alt.value))
