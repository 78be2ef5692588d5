"""reachability (L1, boolean): is there a directed path from X to Y (X ≠ Y).

Reference: ``has_path(A, X, Y)``. Well-posedness: X ≠ Y; the graph has an edge. To let a
split balance the answer ~50/50 at any density, a fair coin from the structural
generator decides whether Y is drawn among the nodes X reaches (``desc(X)``) or among
those it does not (``V \\ reach(X)``); an empty pool resamples. No ambiguity class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import desc, has_path
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import distinct_nodes, reach_digraph


class Reachability(ClosureTask):
    """Is there a directed path from X to Y?

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(3, ((0, 1), (1, 2)))
        >>> t = Reachability()
        >>> t.solve(ClosureStructure(t.name, g, (("X", 0), ("Y", 2)))), t.solve(
        ...     ClosureStructure(t.name, g, (("X", 2), ("Y", 0))))
        (True, False)
    """

    name: ClassVar[str] = "reachability"
    level: ClassVar[int] = 1
    result_type: ClassVar[ResultType] = ResultType.BOOLEAN
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = "Can {X} reach {Y} {path}?"
    conventions: ClassVar[tuple[str, ...]] = ("reach",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        (x,) = distinct_nodes(g, n, 1)
        d = desc(graph, x)
        d_x = d.copy()
        d_x[x] = True
        pool = np.flatnonzero(d) if g.random() < 0.5 else np.flatnonzero(~d_x)
        if pool.size == 0:
            raise Resample(f"{self.name}: no candidate Y for X={x}")
        y = int(pool[g.integers(pool.size)])
        return ClosureStructure(self.name, graph, (("X", x), ("Y", y)))

    def solve(self, s: ClosureStructure) -> Answer:
        return has_path(s.graph, s.anchor("X"), s.anchor("Y"))

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\nResult = has_path(A, {x}, {y})\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"print(json.dumps(nx.has_path(G, {x}, {y})))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """One ``reachability`` call from X to Y."""
        if not r:
            return q.on("reachability", start=q.name("X"), end=q.name("Y"))
        return Step(answer=bool(r[0].value))
