"""degree_count (L1, integer): the out-degree of X ("how many does X pay").

Reference: the row sum of ``A`` at X. Well-posedness: the graph has an edge; any X is
valid (an out-degree of 0 is a legitimate answer). No ambiguity class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

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
from closurebench.tasks.closure.sampling import digraph, distinct_nodes


class DegreeCount(ClosureTask):
    """The out-degree of X.

    Example:
        >>> from closurebench.graphs import Graph
        >>> s = ClosureStructure("degree_count", Graph(3, ((0, 1), (0, 2), (1, 0))), (("X", 0),))
        >>> DegreeCount().solve(s)
        2
    """

    name: ClassVar[str] = "degree_count"
    level: ClassVar[int] = 1
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "How many {nouns} {does} {X} {inf} directly? Count only direct {links} from {X}, "
        "not longer chains."
    )
    conventions: ClassVar[tuple[str, ...]] = ("directly", "not longer chains")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = digraph(g, n, density)
        (x,) = distinct_nodes(g, n, 1)
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return int(out_degrees(s.graph)[s.anchor("X")])

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"Result = select(sum(A, 1), {x}, 0)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"print(json.dumps(G.out_degree({x})))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """One ``out_degree`` call at X."""
        return q.on("out_degree", node=q.name("X")) if not r else Step(answer=int(r[0].value))
