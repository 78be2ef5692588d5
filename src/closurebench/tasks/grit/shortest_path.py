"""GRIT shortest path: minimum total weight from ``source`` to ``target``.

Graphs are connected Erdős–Rényi graphs with integer weights 1-10; a share
(:data:`DIRECTED_SHARE`) are directed and strongly connected, so every target is reachable.
The answer is Dijkstra's integer cost (:func:`closurebench.graphs.exact.paths.shortest_path`);
it is verified against ``networkx.dijkstra_path_length`` and the stored path is checked
edge by edge.

Example:
    >>> from closurebench.seeding import rng
    >>> t = ShortestPathTask()
    >>> s = t.sample(rng(0, "doc"), 6, 0.4)
    >>> r = t.solve(s)
    >>> t.check(s, r.solution) == r.answer
    True
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from closurebench.graphs import weighted
from closurebench.graphs.exact.check import check_path
from closurebench.graphs.exact.paths import shortest_path
from closurebench.surface.grit import GritStructure
from closurebench.tasks.grit.base import (
    DEFAULT_TIME_LIMIT,
    GritTask,
    Solved,
    checked,
    connected_graph,
    edge_list,
    to_nx,
)

__all__ = ["DIRECTED_SHARE", "ShortestPathTask"]

#: Probability that a shortest-path instance is directed (strongly connected).
DIRECTED_SHARE = 0.5


class ShortestPathTask(GritTask):
    """Weighted shortest path between two distinct nodes."""

    name = "shortest_path"

    def sample(self, g: np.random.Generator, n: int, p: float) -> GritStructure:
        """Connected (or strongly connected) graph, weights 1-10, distinct source/target."""
        directed = bool(g.random() < DIRECTED_SHARE)
        graph = weighted(g, connected_graph(g, n, p, directed=directed), 1, 10)
        s, t = (int(x) for x in g.choice(n, size=2, replace=False))
        edges = [(u, v, w) for (u, v), w in zip(graph.edges, graph.weights or (), strict=True)]
        return GritStructure(self.name, n, directed, True, edges, {"source": s, "target": t})

    def solve(self, s: GritStructure, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Solved:
        """Dijkstra cost and one optimal path."""
        r = shortest_path(
            s.n, edge_list(s), s.param("source"), s.param("target"), directed=s.directed
        )
        return Solved(answer=int(r.cost), solution=list(r.path))

    def check(self, s: GritStructure, solution: Any) -> int:
        """A simple path from source to target along existing edges; returns its cost."""
        verdict = check_path(
            s.n, edge_list(s), s.param("source"), s.param("target"), solution, directed=s.directed
        )
        return checked(verdict)

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        """networkx Dijkstra gives the same cost; the path is valid and optimal."""
        theirs = nx.dijkstra_path_length(to_nx(s), s.param("source"), s.param("target"))
        self._agree(where, "shortest-path costs", solved.answer, int(theirs))
        self._check_value(s, solved, where)
