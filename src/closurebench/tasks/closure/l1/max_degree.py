"""max_degree (L1, string): which node has the most outgoing links.

Reference: ``argmax(sum(A, 1))``. Well-posedness: the graph has an edge and the maximum
out-degree is attained by exactly one node (a tie resamples), so the answer is unique.
No anchors; no ambiguity class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import out_degrees
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import digraph


class MaxDegree(ClosureTask):
    """The node with the (unique) largest out-degree.

    Example:
        >>> from closurebench.graphs import Graph
        >>> s = ClosureStructure("max_degree", Graph(3, ((1, 0), (1, 2), (0, 2))), ())
        >>> MaxDegree().solve(s)
        1
    """

    name: ClassVar[str] = "max_degree"
    level: ClassVar[int] = 1
    result_type: ClassVar[ResultType] = ResultType.STRING
    anchor_names: ClassVar[tuple[str, ...]] = ()
    template: ClassVar[str] = (
        "Which {noun} {sg} the largest number of other {nouns} directly? "
        "Count only direct {links}; exactly one {noun} has the largest number."
    )
    conventions: ClassVar[tuple[str, ...]] = ("exactly one",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = digraph(g, n, density)
        deg = out_degrees(graph)
        if int((deg == deg.max()).sum()) != 1:
            raise Resample(f"{self.name}: the maximum out-degree {deg.max()} is tied")
        return ClosureStructure(self.name, graph, ())

    def solve(self, s: ClosureStructure) -> Answer:
        deg = out_degrees(s.graph)
        (top,) = np.flatnonzero(deg == deg.max())
        return int(top)

    def ein_program(self, s: ClosureStructure) -> str:
        return f"// {self.name}\n{ein_edges(s.graph)}\nResult = argmax(sum(A, 1))\n:print Result\n"

    def python_program(self, s: ClosureStructure) -> str:
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            "print(json.dumps(max(G.nodes, key=lambda v: G.out_degree(v))))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """One all-nodes ``out_degree`` call; its ``argmax``."""
        return q.on("out_degree") if not r else Step(answer=r[0].details["argmax"][0])
