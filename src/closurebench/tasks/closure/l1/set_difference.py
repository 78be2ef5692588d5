"""set_difference (L1, set): nodes X can reach that Y cannot, X and Y excluded.

Reference: ``desc(X) \\ desc(Y) \\ {X, Y}``.

Well-posedness: X ≠ Y, the graph has an edge, and the answer is non-empty: the pair is
drawn uniformly among the ordered pairs with a non-empty answer; a graph with none
resamples. A dense large graph (say n >= 14 at rho = 0.5) is almost surely strongly
connected, so it rarely yields an instance.

Ambiguity class ``set``: the alternative convention counts each source as reaching
itself, ``reach(X) \\ reach(Y)`` (it adds X when Y cannot reach X; Y is never in it).
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


def _difference(d: np.ndarray, x: int, y: int) -> list[int]:
    out = d[x] & ~d[y]
    out[[x, y]] = False
    return [int(v) for v in np.flatnonzero(out)]


def _pairs(d: np.ndarray) -> list[tuple[int, int]]:
    """Every ``(x, y)``, ``x != y``, with a non-empty difference, in ``(x, y)`` order.

    ``d`` is :func:`desc_matrix` (diagonal clear), so ``#{v : d[x, v], not d[y, v]}``
    counts ``v = y`` exactly when ``d[x, y]`` and never counts ``v = x``.

    Example:
        >>> d = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)
        >>> _pairs(d) == [(x, y) for x in range(3) for y in range(3)
        ...               if x != y and _difference(d, x, y)]
        True
    """
    di = d.astype(np.int64)
    count = di @ (1 - di).T - di
    np.fill_diagonal(count, 0)
    return [(int(x), int(y)) for x, y in np.argwhere(count > 0)]


class SetDifference(SetTask):
    """The nodes X reaches and Y does not, X and Y excluded.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (1, 2), (0, 3)))
        >>> s = ClosureStructure("set_difference", g, (("X", 0), ("Y", 1)))
        >>> SetDifference().solve(s), SetDifference().alternative(s, [3])
        ([3], [0, 3])
    """

    name: ClassVar[str] = "set_difference"
    level: ClassVar[int] = 1
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.SET
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = (
        "Which {nouns} can {X} reach {path} that {Y} cannot reach? "
        "Do not include {X} or {Y} themselves."
    )
    implicit_template: ClassVar[str | None] = (
        "Which {nouns} can {X} reach {path} that {Y} cannot reach?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("Do not include", "themselves")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        d = desc_matrix(graph)
        pairs = _pairs(d)
        x, y = draw(g, pairs, self.name, "pair X, Y")
        return ClosureStructure(self.name, graph, (("X", x), ("Y", y)))

    def solve(self, s: ClosureStructure) -> Answer:
        return _difference(desc_matrix(s.graph), s.anchor("X"), s.anchor("Y"))

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        only = reach(s.graph, s.anchor("X")) & ~reach(s.graph, s.anchor("Y"))
        return [int(v) for v in np.flatnonzero(only)]

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"D = desc(A, {x}) * (ones({s.n}) - desc(A, {y}))\n"
            f"Result = D * {not_node(s.n, x)} * {not_node(s.n, y)}\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"answer = nx.descendants(G, {x}) - nx.descendants(G, {y}) - {{{x}, {y}}}\n"
            "print(json.dumps(sorted(answer)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X, then of Y; the first less the second, X and Y."""
        if len(r) < 2:
            return q.on("descendants", node=q.name("Y" if r else "X"))
        only = set(r[0].value) - set(r[1].value) - {q.name("X"), q.name("Y")}
        return Step(answer=q.ordered(only))
