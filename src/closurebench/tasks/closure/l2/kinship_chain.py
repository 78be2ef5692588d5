"""kinship_chain (L2, set, kinship): the grandchildren of X.

Reference: row X of ``A·A``, thresholded (children of X's children). Not in an
ambiguity class (X cannot be its own grandchild in a DAG).

Well-posedness: X is drawn uniformly among the people who have at least one
grandchild; a family tree where nobody has one is resampled. The family spans 3–5
generations (:func:`~closurebench.tasks.closure.kinship.family`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.graphs import Graph
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    SetTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.kinship import children, family
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import draw


def _grandchildren(graph: Graph, x: int) -> set[int]:
    return {gc for c in children(graph, x) for gc in children(graph, c)}


class KinshipChain(SetTask):
    """Grandchildren of X in a parent→child DAG.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(5, ((0, 1), (0, 2), (1, 3), (2, 3), (2, 4)))
        >>> s = ClosureStructure("kinship_chain", g, (("X", 0),))
        >>> KinshipChain().solve(s)
        [3, 4]
    """

    name: ClassVar[str] = "kinship_chain"
    level: ClassVar[int] = 2
    kinship: ClassVar[bool] = True
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Which {nouns} are {X}'s {grandchildren}, that is, {children} of {X}'s {children}?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("of",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = family(g, n, density).graph
        x = draw(g, [v for v in range(n) if _grandchildren(graph, v)], self.name, "grandparent")
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return sorted(_grandchildren(s.graph, s.anchor("X")))

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"A2[i,k] = A[i,j] A[j,k]\nRow = select(A2, {x}, 0)\nResult = gt(Row, 0)\n"
            ":print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"answer = {{g for c in G.successors({x}) for g in G.successors(c)}}\n"
            "print(json.dumps(sorted(answer)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """X's children (``successors``), then theirs."""
        if not r:
            return q.on("successors", node=q.name("X"))
        if not r[0].value:
            return Step(answer=[])
        if len(r) == 1:
            return q.on("successors", node=list(r[0].value))
        return Step(answer=list(r[1].value))
