"""sibling (L1, set, kinship): people sharing at least one parent with X, X excluded.

Reference: the children of X's parents minus X (half-siblings, sharing one parent
only, count). Well-posedness: X is drawn among the people with at least one sibling
(a family with none resamples). Ambiguity class ``set``: the alternative convention
counts X among the children of its parents, ``answer ∪ {X}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.graphs import Graph
from closurebench.tasks.closure.base import (
    AnchorExcludedSetTask,
    Answer,
    ClosureStructure,
    ein_edges,
    not_node,
    python_graph,
)
from closurebench.tasks.closure.kinship import children, parents, sample_kinship
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


def siblings(graph: Graph, x: int) -> set[int]:
    """The people sharing at least one parent with ``x``, ``x`` excluded.

    Example:
        >>> sorted(siblings(Graph(5, ((0, 2), (0, 3), (1, 3), (1, 4))), 3))
        [2, 4]
    """
    return {c for p in parents(graph, x) for c in children(graph, p)} - {x}


class Sibling(AnchorExcludedSetTask):
    """The (half-)siblings of X.

    Example:
        >>> g = Graph(5, ((0, 2), (0, 3), (1, 3), (1, 4)))
        >>> s = ClosureStructure("sibling", g, (("X", 2),))
        >>> Sibling().solve(s), Sibling().alternative(s, [3])
        ([3], [2, 3])
    """

    name: ClassVar[str] = "sibling"
    level: ClassVar[int] = 1
    kinship: ClassVar[bool] = True
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Which {nouns} are {X}'s {siblings}, that is, share at least one {parent} with {X}? "
        "Do not include {X}{self}."
    )
    implicit_template: ClassVar[str | None] = (
        "Which {nouns} are {X}'s {siblings}, that is, share at least one {parent} with {X}?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("Do not include",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        return sample_kinship(g, n, self.name, siblings, density)

    def solve(self, s: ClosureStructure) -> Answer:
        return sorted(siblings(s.graph, s.anchor("X")))

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"P = select(A, {x}, 1)\nS[j] = P[i] A[i,j]\n"
            f"Result = gt(S, 0) * {not_node(s.n, x)}\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"answer = {{c for p in G.predecessors({x}) for c in G.successors(p)}} - {{{x}}}\n"
            "print(json.dumps(sorted(answer)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """X's parents (``predecessors``), then their children less X."""
        if not r:
            return q.on("predecessors", node=q.name("X"))
        if not r[0].value:
            return Step(answer=[])
        if len(r) == 1:
            return q.on("successors", node=list(r[0].value))
        return Step(answer=q.ordered(set(r[1].value) - {q.name("X")}))
