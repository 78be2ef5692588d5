"""mixed_domain (L3, float): mean out-degree over X's strongly connected group (X counted).

Reference (paper Appendix L.3): ``mean(outdeg[reach(X) ∩ reach_in(X)])``. Well-posedness:
a draw where X's group has fewer than 2 members is resampled. Rounded to 2 decimals by
:func:`~closurebench.tasks.closure.base.normalize`. Not ambiguous (the question counts X).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, out_degrees, scc_labels
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply, degrees, mean
from closurebench.tasks.closure.sampling import distinct_nodes, reach_digraph


def _group(graph: Graph, x: int) -> np.ndarray:
    _, labels = scc_labels(graph)
    return labels == labels[x]


class MixedDomain(ClosureTask):
    """Average out-degree inside X's strongly connected component.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(3, ((0, 1), (1, 0), (1, 2)))
        >>> MixedDomain().solve(ClosureStructure("mixed_domain", g, (("X", 0),)))
        1.5
    """

    name: ClassVar[str] = "mixed_domain"
    level: ClassVar[int] = 3
    result_type: ClassVar[ResultType] = ResultType.FLOAT
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Consider {X}'s mutually reachable group: {X}{self} included, and every {noun} "
        "that {X} can reach {path} and that can also reach {X} back. On average, how many "
        "{nouns} {does} a member of this group {inf} directly? Round to 2 decimal places."
    )
    conventions: ClassVar[tuple[str, ...]] = ("included", "2 decimal places")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        (x,) = distinct_nodes(g, n, 1)
        if int(_group(graph, x).sum()) < 2:
            raise Resample("X's strongly connected group has fewer than 2 members")
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return float(out_degrees(s.graph)[_group(s.graph, s.anchor("X"))].mean())

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"S = reach(A, {x}) * reach(transpose(A), {x})\nO = sum(A, 1)\n"
            "Result = sum(O * S) / sum(S)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"group = next(c for c in nx.strongly_connected_components(G) if {x} in c)\n"
            "print(json.dumps(sum(G.out_degree(v) for v in group) / len(group)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """X's ``scc``, then every ``out_degree``; their mean over the group."""
        if not r:
            return q.on("scc", node=q.name("X"))
        if len(r) == 1:
            return q.on("out_degree")
        deg = degrees(r[1])
        return Step(answer=mean([deg[v] for v in r[0].value]))
