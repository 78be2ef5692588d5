"""path_and_compare (L2, boolean): X reaches Y, and X reaches strictly more nodes than Y.

Reference: ``has_path(X, Y) ∧ |desc(X)| > |desc(Y)|`` with X ≠ Y. Balanced over a
split through ``want`` (the default :meth:`~ClosureTask.balance_key`). Not ambiguous.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

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


class PathAndCompare(ClosureTask):
    """Is there a path X→Y, and does X reach more nodes than Y?

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(3, ((0, 1), (1, 2)))
        >>> s = ClosureStructure("path_and_compare", g, (("X", 0), ("Y", 1)))
        >>> PathAndCompare().solve(s)
        True
    """

    name: ClassVar[str] = "path_and_compare"
    level: ClassVar[int] = 2
    result_type: ClassVar[ResultType] = ResultType.BOOLEAN
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = (
        "Are both of these true: {X} can reach {Y} {path}, and {X} can reach strictly more "
        "{nouns} than {Y} can? When counting, do not count the starting {noun}."
    )
    conventions: ClassVar[tuple[str, ...]] = ("strictly more", "do not count the starting")

    def solve(self, s: ClosureStructure) -> Answer:
        x, y = s.anchor("X"), s.anchor("Y")
        return has_path(s.graph, x, y) and int(desc(s.graph, x).sum()) > int(desc(s.graph, y).sum())

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"P = has_path(A, {x}, {y})\nCX = sum(desc(A, {x}))\nCY = sum(desc(A, {y}))\n"
            "Result = P * gt(CX, CY)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"more = len(nx.descendants(G, {x})) > len(nx.descendants(G, {y}))\n"
            f"print(json.dumps(nx.has_path(G, {x}, {y}) and more))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``reachability`` X to Y, then ``descendants`` of X and of Y; compare sizes."""
        if not r:
            return q.on("reachability", start=q.name("X"), end=q.name("Y"))
        if len(r) < 3:
            return q.on("descendants", node=q.name("X" if len(r) == 1 else "Y"))
        return Step(answer=bool(r[0].value) and len(r[1].value) > len(r[2].value))
