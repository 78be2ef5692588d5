"""degree_then_reach (L2, boolean): can H, the node with the most outgoing links, reach X?

Reference: ``has_path(argmax(outdeg), X)``. Well-posedness: a graph whose maximum
out-degree is shared by two or more nodes is resampled (H must be unique); X is then
drawn uniformly among the other ``n - 1`` nodes, so ``H ≠ X``. Balanced over a split
through ``want``. Not ambiguous.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, has_path, out_degrees
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import reach_digraph


def unique_hub(graph: Graph) -> int:
    """The unique node of largest out-degree; :class:`Resample` on a tie.

    Example:
        >>> unique_hub(Graph(3, ((0, 1), (0, 2), (1, 2))))
        0
    """
    deg = out_degrees(graph)
    hubs = np.flatnonzero(deg == deg.max())
    if hubs.size != 1:
        raise Resample(f"{hubs.size} nodes share the largest out-degree {int(deg.max())}")
    return int(hubs[0])


class DegreeThenReach(ClosureTask):
    """Can the unique highest out-degree node H reach X (H ≠ X)?

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (0, 2), (1, 3)))
        >>> DegreeThenReach().solve(ClosureStructure("degree_then_reach", g, (("X", 3),)))
        True
    """

    name: ClassVar[str] = "degree_then_reach"
    level: ClassVar[int] = 2
    result_type: ClassVar[ResultType] = ResultType.BOOLEAN
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Consider the {noun} that {sg} the largest number of other {nouns} directly "
        "(exactly one {noun} {does}, and it is not {X}). Can that {noun} reach {X} {path}?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("exactly one",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        h = unique_hub(graph)
        others = [v for v in range(n) if v != h]
        x = int(others[int(g.integers(len(others)))])
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return has_path(s.graph, unique_hub(s.graph), s.anchor("X"))

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"H = argmax(sum(A, 1))\nResult = has_path(A, H, {x})\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            "hub = max(G.nodes, key=G.out_degree)\n"
            f"print(json.dumps(nx.has_path(G, hub, {x})))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """Every ``out_degree`` (its ``argmax`` is the hub), then hub-to-X ``reachability``."""
        if not r:
            return q.on("out_degree")
        if len(r) == 1:
            return q.on("reachability", start=r[0].details["argmax"][0], end=q.name("X"))
        return Step(answer=bool(r[1].value))
