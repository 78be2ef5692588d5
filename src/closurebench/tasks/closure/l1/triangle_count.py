"""triangle_count (L1, integer, undirected): how many groups of three nodes all connect.

Reference: ``trace(A³) / 6``. Well-posedness: the graph is ``G(n, ρ)`` undirected plus
one planted triangle (:func:`~closurebench.graphs.planted_triangles`), so the answer is
at least 1. No anchors; no ambiguity class (no source to include or exclude).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.graphs import planted_triangles, triangle_count
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


class TriangleCount(ClosureTask):
    """Count the triangles of an undirected graph.

    Example:
        >>> from closurebench.graphs import Graph
        >>> k4 = Graph(4, ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)), directed=False)
        >>> TriangleCount().solve(ClosureStructure("triangle_count", k4, ()))
        4
    """

    name: ClassVar[str] = "triangle_count"
    level: ClassVar[int] = 1
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    directed: ClassVar[bool] = False
    anchor_names: ClassVar[tuple[str, ...]] = ()
    template: ClassVar[str] = (
        "How many groups of three {nouns} are there in which every two of the three "
        "{und_base} each other? Count each group of three once."
    )
    conventions: ClassVar[tuple[str, ...]] = ("each group of three once",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = planted_triangles(g, n, density, triangles=1)
        return ClosureStructure(self.name, graph, ())

    def solve(self, s: ClosureStructure) -> Answer:
        return triangle_count(s.graph)

    def ein_program(self, s: ClosureStructure) -> str:
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            "B[i,k] = A[i,j] A[j,k]\nC[i,l] = B[i,k] A[k,l]\n"
            "Result = trace(C) / 6\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            "print(json.dumps(sum(nx.triangles(G).values()) // 3))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """One ``triangle_count`` call."""
        return q.on("triangle_count") if not r else Step(answer=r[0].value)
