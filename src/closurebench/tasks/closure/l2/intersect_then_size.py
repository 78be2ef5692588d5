"""intersect_then_size (L2, integer): how many nodes both X and Y can reach, X and Y excluded.

Reference: ``|desc(X) ∩ desc(Y) \\ {X, Y}|`` with X ≠ Y (0 is a valid answer). Ambiguity
class ``count``: the alternative convention includes X and Y where they qualify, i.e.
``|reach(X) ∩ reach(Y)|`` — X counts when Y reaches X, Y when X reaches Y (it equals the
strict answer when neither reaches the other).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from closurebench.graphs import desc, reach
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


class IntersectThenSize(ClosureTask):
    """Count the common descendants of X and Y (X, Y excluded).

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (1, 2), (1, 3), (2, 1)))
        >>> s = ClosureStructure("intersect_then_size", g, (("X", 0), ("Y", 1)))
        >>> t = IntersectThenSize()
        >>> t.solve(s), t.alternative(s, t.solve(s))
        (2, 3)
    """

    name: ClassVar[str] = "intersect_then_size"
    level: ClassVar[int] = 2
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.COUNT
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = (
        "How many {nouns} can both {X} and {Y} reach {path}, not counting {X} or {Y} themselves?"
    )
    implicit_template: ClassVar[str | None] = "How many {nouns} can both {X} and {Y} reach {path}?"
    conventions: ClassVar[tuple[str, ...]] = ("not counting", "themselves")

    def solve(self, s: ClosureStructure) -> Answer:
        x, y = s.anchor("X"), s.anchor("Y")
        both = desc(s.graph, x) & desc(s.graph, y)
        both[[x, y]] = False
        return int(both.sum())

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        x, y = s.anchor("X"), s.anchor("Y")
        return int((reach(s.graph, x) & reach(s.graph, y)).sum())

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        # desc(A, X) never holds X and desc(A, Y) never holds Y: the product excludes both.
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"DX = desc(A, {x})\nDY = desc(A, {y})\nResult = sum(DX * DY)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"common = (nx.descendants(G, {x}) & nx.descendants(G, {y})) - {{{x}, {y}}}\n"
            "print(json.dumps(len(common)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X, then of Y; the size of their intersection less X, Y."""
        if len(r) < 2:
            return q.on("descendants", node=q.name("Y" if r else "X"))
        both = set(r[0].value) & set(r[1].value) - {q.name("X"), q.name("Y")}
        return Step(answer=len(both))
