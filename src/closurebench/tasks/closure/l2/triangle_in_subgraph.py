"""triangle_in_subgraph (L2, integer, undirected): triangles in X's connected component.

Reference: ``trace((R A R)³)/6`` with ``R = diag(reach(X))``. The graph is an
undirected ``G(n, ρ)`` with one planted triangle (as triangle_count); X is uniform,
so the answer may be 0 when the planted triangle lies outside X's component — that
is a well-posed answer, not resampled. Not in an ambiguity class (X is always part
of its own component).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.graphs import Graph, planted_triangles, reach, triangle_count
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import distinct_nodes


class TriangleInSubgraph(ClosureTask):
    """Triangles among the nodes connected to X.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(6, ((0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)), directed=False)
        >>> s = ClosureStructure("triangle_in_subgraph", g, (("X", 0),))
        >>> TriangleInSubgraph().solve(s)
        1
    """

    name: ClassVar[str] = "triangle_in_subgraph"
    level: ClassVar[int] = 2
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    directed: ClassVar[bool] = False
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Consider {X} together with every {noun} connected to {X} through a chain of "
        "{und_links}, {X}{self} included. Among these {nouns}, how many groups of three "
        "are there in which every two of the three {und_base} each other? "
        "Count each group of three once."
    )
    conventions: ClassVar[tuple[str, ...]] = ("included", "each group of three once")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = planted_triangles(g, n, density, triangles=1)
        (x,) = distinct_nodes(g, n, 1)
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        comp = reach(s.graph, s.anchor("X"))
        sub = Graph(s.n, [(u, v) for u, v in s.graph.edges if comp[u] and comp[v]], directed=False)
        return triangle_count(sub)

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"R = diag(reach(A, {x}))\nB[i,j] = R[i,k] A[k,l] R[l,j]\n"
            "B2[i,j] = B[i,k] B[k,j]\nB3[i,j] = B2[i,k] B[k,j]\n"
            "Result = trace(B3) / 6\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"H = G.subgraph(nx.node_connected_component(G, {x}))\n"
            "print(json.dumps(sum(nx.triangles(H).values()) // 3))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X, then ``triangle_count`` within X and them."""
        if not r:
            return q.on("descendants", node=q.name("X"))
        if len(r) == 1:
            return q.on("triangle_count", within=[q.name("X"), *r[0].value])
        return Step(answer=r[1].value)
