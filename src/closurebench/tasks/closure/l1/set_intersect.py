"""set_intersect (L1, set): nodes both X and Y can reach, X and Y excluded.

Reference: ``desc(X) ∩ desc(Y) \\ {X, Y}``.

Well-posedness: X ≠ Y, the graph has an edge, and the answer is non-empty: the pair is
drawn uniformly among the ordered pairs with a non-empty answer; a graph with none
resamples.

Ambiguity class ``set``: the alternative convention counts each source as reaching
itself, ``reach(X) ∩ reach(Y)`` (it adds X when Y reaches X, and Y when X reaches Y).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.graphs import reach
from closurebench.schema.enums import Ambiguity
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    SetTask,
    ein_edges,
    not_node,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import desc_matrix, draw, reach_digraph


def _intersect(d: np.ndarray, x: int, y: int) -> list[int]:
    out = d[x] & d[y]
    out[[x, y]] = False
    return [int(v) for v in np.flatnonzero(out)]


def _pairs(d: np.ndarray) -> list[tuple[int, int]]:
    """Every ``(x, y)``, ``x != y``, with a non-empty intersection, in ``(x, y)`` order.

    One matrix product instead of ``n * (n - 1)`` calls of :func:`_intersect` (which made
    sampling Θ(n³) in Python: 1.2 s at n = 200). ``d`` is :func:`desc_matrix` (diagonal
    clear), so ``(d @ d.T)[x, y]`` never counts ``v = x`` or ``v = y``.

    Example:
        >>> d = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)
        >>> _pairs(d) == [(x, y) for x in range(3) for y in range(3)
        ...               if x != y and _intersect(d, x, y)]
        True
    """
    di = d.astype(np.int64)
    count = di @ di.T
    np.fill_diagonal(count, 0)
    return [(int(x), int(y)) for x, y in np.argwhere(count > 0)]


class SetIntersect(SetTask):
    """The nodes both X and Y reach, X and Y excluded.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (1, 2), (1, 3), (3, 1)))
        >>> s = ClosureStructure("set_intersect", g, (("X", 0), ("Y", 1)))
        >>> SetIntersect().solve(s), SetIntersect().alternative(s, [2, 3])
        ([2, 3], [1, 2, 3])
    """

    name: ClassVar[str] = "set_intersect"
    level: ClassVar[int] = 1
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.SET
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = (
        "Which {nouns} can both {X} and {Y} reach {path}? Do not include {X} or {Y} themselves."
    )
    implicit_template: ClassVar[str | None] = "Which {nouns} can both {X} and {Y} reach {path}?"
    conventions: ClassVar[tuple[str, ...]] = ("Do not include", "themselves")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        d = desc_matrix(graph)
        pairs = _pairs(d)
        x, y = draw(g, pairs, self.name, "pair X, Y")
        return ClosureStructure(self.name, graph, (("X", x), ("Y", y)))

    def solve(self, s: ClosureStructure) -> Answer:
        return _intersect(desc_matrix(s.graph), s.anchor("X"), s.anchor("Y"))

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        both = reach(s.graph, s.anchor("X")) & reach(s.graph, s.anchor("Y"))
        return [int(v) for v in np.flatnonzero(both)]

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"D = desc(A, {x}) * desc(A, {y})\n"
            f"Result = D * {not_node(s.n, x)} * {not_node(s.n, y)}\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"answer = (nx.descendants(G, {x}) & nx.descendants(G, {y})) - {{{x}, {y}}}\n"
            "print(json.dumps(sorted(answer)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X, then of Y; their intersection without X and Y."""
        if len(r) < 2:
            return q.on("descendants", node=q.name("Y" if r else "X"))
        both = set(r[0].value) & set(r[1].value) - {q.name("X"), q.name("Y")}
        return Step(answer=q.ordered(both))
