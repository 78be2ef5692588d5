"""scc_then_count (L2, integer): size of X's strongly connected group, X counted.

Reference: ``|reach(X) ∩ reach_in(X)|`` (at least 1). Not in an ambiguity class: the
question states that X is counted. Any X is well posed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from closurebench.graphs import scc_labels
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


class SccThenCount(ClosureTask):
    """Number of nodes in X's strongly connected component (X counted).

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (1, 2), (2, 0), (2, 3)))
        >>> SccThenCount().solve(ClosureStructure("scc_then_count", g, (("X", 1),)))
        3
    """

    name: ClassVar[str] = "scc_then_count"
    level: ClassVar[int] = 2
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "How many {nouns} are in {X}'s mutually reachable group, that is, {X} and every "
        "{noun} that {X} can reach {path} and that can also reach {X} back? "
        "Include {X}{self} in the count."
    )
    conventions: ClassVar[tuple[str, ...]] = ("in the count",)

    def solve(self, s: ClosureStructure) -> Answer:
        _, labels = scc_labels(s.graph)
        return int((labels == labels[s.anchor("X")]).sum())

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"Out = reach(A, {x})\nIn = reach(transpose(A), {x})\n"
            "Result = sum(Out * In)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"size = next(len(c) for c in nx.strongly_connected_components(G) if {x} in c)\n"
            "print(json.dumps(size))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """X's ``scc``; its size."""
        return q.on("scc", node=q.name("X")) if not r else Step(answer=len(r[0].value))
