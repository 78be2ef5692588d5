"""reach_then_count (L2, integer): how many nodes can X reach, X not counted.

Reference: ``|desc(X)|``. Ambiguity class ``count``: the alternative convention
counts X itself (``|reach(X)| = |desc(X)| + 1``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from closurebench.graphs import desc
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


class ReachThenCount(ClosureTask):
    """Count the nodes X can reach (X excluded).

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (1, 2), (2, 0)))
        >>> s = ClosureStructure("reach_then_count", g, (("X", 0),))
        >>> ReachThenCount().solve(s), ReachThenCount().alternative(s, 2)
        (2, 3)
    """

    name: ClassVar[str] = "reach_then_count"
    level: ClassVar[int] = 2
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.COUNT
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = "How many {nouns} can {X} reach {path}, not counting {X}{self}?"
    implicit_template: ClassVar[str | None] = "How many {nouns} can {X} reach {path}?"
    conventions: ClassVar[tuple[str, ...]] = ("not counting",)

    def solve(self, s: ClosureStructure) -> Answer:
        return int(desc(s.graph, s.anchor("X")).sum())

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        return answer + 1

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"D = desc(A, {x})\nResult = sum(D)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"print(json.dumps(len(nx.descendants(G, {x}))))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X; their number."""
        return q.on("descendants", node=q.name("X")) if not r else Step(answer=len(r[0].value))
