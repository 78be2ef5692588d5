"""conditional (L3, integer): if X can reach Y, how many nodes can X reach (X not counted); else -1.

Reference: ``|desc(X)|`` when ``has_path(X, Y)``, else ``-1`` (X ≠ Y, so the first branch
is at least 1). The split balances both branches (``balance_key`` = answer ≠ -1).
Ambiguity class ``count``: the alternative counts X in the first branch (answer + 1);
the ``-1`` branch has no other convention, so its alternative is ``None``.
Ein has no ``if``: ``Result = R*C + (1-R)*(-1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from closurebench.graphs import desc, has_path
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


class Conditional(ClosureTask):
    """Branch on reachability: count X's descendants, or -1.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(3, ((0, 1), (1, 2)))
        >>> t = Conditional()
        >>> t.solve(ClosureStructure("conditional", g, (("X", 0), ("Y", 2))))
        2
        >>> t.solve(ClosureStructure("conditional", g, (("X", 2), ("Y", 0))))
        -1
    """

    name: ClassVar[str] = "conditional"
    level: ClassVar[int] = 3
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.COUNT
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = (
        "If {X} can reach {Y} {path}, how many {nouns} can {X} reach in total, "
        "not counting {X}{self}? If {X} cannot reach {Y}, answer -1."
    )
    implicit_template: ClassVar[str | None] = (
        "If {X} can reach {Y} {path}, how many {nouns} can {X} reach in total? "
        "If {X} cannot reach {Y}, answer -1."
    )
    conventions: ClassVar[tuple[str, ...]] = ("not counting", "answer -1")

    def solve(self, s: ClosureStructure) -> Answer:
        x, y = s.anchor("X"), s.anchor("Y")
        return int(desc(s.graph, x).sum()) if has_path(s.graph, x, y) else -1

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        return None if answer == -1 else answer + 1

    def balance_key(self, answer: Answer) -> bool | None:
        return answer != -1

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"R = has_path(A, {x}, {y})\nC = sum(desc(A, {x}))\n"
            "Result = R * C + (1 - R) * (-1)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"if nx.has_path(G, {x}, {y}):\n"
            f"    answer = len(nx.descendants(G, {x}))\nelse:\n    answer = -1\n"
            "print(json.dumps(answer))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``reachability`` X to Y; if so, the number of ``descendants`` of X, else -1."""
        if not r:
            return q.on("reachability", start=q.name("X"), end=q.name("Y"))
        if not r[0].value:
            return Step(answer=-1)
        if len(r) == 1:
            return q.on("descendants", node=q.name("X"))
        return Step(answer=len(r[1].value))
