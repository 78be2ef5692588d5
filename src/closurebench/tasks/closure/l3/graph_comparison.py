"""graph_comparison (L3, integer): nodes X reaches in the second graph but not the first.

Reference: ``|desc₂(X) \\ desc₁(X)|``. Sampling: the first graph is ``G(n, ρ)``; the
second flips each ordered pair of the first independently with probability 0.2
(seeded, so edges are both added and removed); a second graph equal to the first or
without edges is resampled. 0 is a valid answer. Ambiguity class ``count``: X lies in
both ``reach`` sets, so including it in the difference changes nothing; the alternative
follows reach_then_count and counts X itself (answer + 1), the reading a lenient
scorer is meant to forgive.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, desc
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import distinct_nodes, reach_digraph

FLIP_PROBABILITY = 0.2


def ein_edges_named(graph: Graph, name: str) -> str:
    """The edge line of an Ein program, assigning to ``name`` instead of ``A``.

    Example:
        >>> ein_edges_named(Graph(2, ((0, 1),)), "B")
        'B = edges([[0,1]], 2)'
    """
    return f"{name} = " + ein_edges(graph).removeprefix("A = ")


def perturb(g: np.random.Generator, graph: Graph, p: float = FLIP_PROBABILITY) -> Graph:
    """``graph`` with each ordered pair (no self-loops) flipped with probability ``p``.

    Example:
        >>> from closurebench.seeding import rng
        >>> perturb(rng(0, "doc"), Graph(3, ((0, 1),))).n
        3
    """
    adj = graph.adjacency().astype(bool)
    flip = g.random(adj.shape) < p
    np.fill_diagonal(flip, False)
    new = adj ^ flip
    return Graph(graph.n, np.argwhere(new), directed=True)


class GraphComparison(ClosureTask):
    """Count nodes newly reachable from X in the second graph.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g1 = Graph(4, ((0, 1), (2, 3)))
        >>> g2 = Graph(4, ((0, 2), (2, 3)))
        >>> s = ClosureStructure("graph_comparison", g1, (("X", 0),), graph2=g2)
        >>> GraphComparison().solve(s)
        2
    """

    name: ClassVar[str] = "graph_comparison"
    level: ClassVar[int] = 3
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.COUNT
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    two_graphs: ClassVar[bool] = True
    template: ClassVar[str] = (
        "How many {nouns} can {X} reach {path} this year that {X} could not reach "
        "last year? Do not count {X}{self}."
    )
    implicit_template: ClassVar[str | None] = (
        "How many {nouns} can {X} reach {path} this year that {X} could not reach last year?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("this year", "last year", "Do not count")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        graph2 = perturb(g, graph)
        if graph2 == graph or graph2.m == 0:
            raise Resample("the second graph is empty or equal to the first")
        (x,) = distinct_nodes(g, n, 1)
        return ClosureStructure(self.name, graph, (("X", x),), graph2=graph2)

    @staticmethod
    def _second(s: ClosureStructure) -> Graph:
        if s.graph2 is None:
            raise ValueError("graph_comparison needs a second graph (ClosureStructure.graph2)")
        return s.graph2

    def solve(self, s: ClosureStructure) -> Answer:
        x = s.anchor("X")
        return int((desc(self._second(s), x) & ~desc(s.graph, x)).sum())

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        return answer + 1

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"{ein_edges_named(self._second(s), 'B')}\n"
            f"D1 = desc(A, {x})\nD2 = desc(B, {x})\nResult = sum(D2 * (1 - D1))\n"
            ":print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"{python_graph(self._second(s), 'G2')}\n"
            f"new = nx.descendants(G2, {x}) - nx.descendants(G, {x})\n"
            "print(json.dumps(len(new)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X in the second graph, then in the first; the difference."""
        if not r:  # the second graph first: the last call is on the question's first graph
            return q.on("descendants", second=True, node=q.name("X"))
        if len(r) == 1:
            return q.on("descendants", node=q.name("X"))
        return Step(answer=len(set(r[0].value) - set(r[1].value)))
