"""GRIT graph colouring: the chromatic number of a connected undirected graph.

Solved by the DSATUR branch and bound of :func:`closurebench.graphs.exact.coloring.
chromatic_number` (certified); for ``n <= 40`` re-solved by the independent ILP method, and
the stored colouring is always checked (proper, exactly ``answer`` colours).

Example:
    >>> from closurebench.seeding import rng
    >>> t = GraphColoringTask()
    >>> s = t.sample(rng(0, "doc"), 7, 0.4)
    >>> r = t.solve(s)
    >>> t.check(s, r.solution) == r.answer == r.certificate["bound"]
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from closurebench.graphs.exact.check import check_colouring
from closurebench.graphs.exact.coloring import chromatic_number
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

__all__ = ["GraphColoringTask"]


class GraphColoringTask(GritTask):
    """Chromatic number (exact, certified)."""

    name = "graph_coloring"

    def sample(self, g: np.random.Generator, n: int, p: float) -> GritStructure:
        """Connected undirected Erdős–Rényi graph."""
        return GritStructure(self.name, n, False, False, list(connected_graph(g, n, p).edges))

    def solve(self, s: GritStructure, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Solved:
        """DSATUR branch and bound with a clique lower bound."""
        r = chromatic_number(s.n, edge_list(s), time_limit=time_limit, method="dsatur")
        return Solved(
            answer=int(r.value), solution=list(r.colouring), certificate=r.certificate.as_dict()
        )

    def check(self, s: GritStructure, solution: Any) -> int:
        """A proper colouring of every node; returns the number of colours used."""
        return checked(check_colouring(s.n, edge_list(s), solution, optimum=FEASIBILITY_ONLY))

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        """ILP method agrees (n <= 40); colouring valid with exactly ``answer`` colours."""
        self._check_value(s, solved, where)
        if s.n <= CROSS_CHECK_MAX_N:
            alt = chromatic_number(s.n, edge_list(s), time_limit=time_limit, method="ilp")
            self._agree(where, "chromatic numbers (dsatur vs ilp)", solved.answer, int(alt.value))
