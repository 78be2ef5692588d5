"""ancestor (L1, set, kinship): all ancestors of X.

Reference: column X of ``tc(A)`` on the parent→child DAG. Well-posedness: X is drawn
among the people with at least one parent, so the answer is non-empty (a family with
no such person resamples). Ambiguity class ``set``: the alternative convention counts X
among its own line, ``answer ∪ {X}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.graphs import Graph, reach_in
from closurebench.tasks.closure.base import (
    AnchorExcludedSetTask,
    Answer,
    ClosureStructure,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.kinship import sample_kinship
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


def ancestors(graph: Graph, x: int) -> set[int]:
    """The ancestors of ``x`` (everyone with a path to ``x``), ``x`` excluded.

    Example:
        >>> sorted(ancestors(Graph(4, ((0, 1), (1, 2), (3, 2))), 2))
        [0, 1, 3]
    """
    up = reach_in(graph, x)
    up[x] = False
    return {int(v) for v in np.flatnonzero(up)}


class Ancestor(AnchorExcludedSetTask):
    """All ancestors of X in a family tree.

    Example:
        >>> g = Graph(4, ((0, 1), (1, 2), (3, 2)))
        >>> s = ClosureStructure("ancestor", g, (("X", 2),))
        >>> Ancestor().solve(s), Ancestor().alternative(s, [0, 1, 3])
        ([0, 1, 3], [0, 1, 2, 3])
    """

    name: ClassVar[str] = "ancestor"
    level: ClassVar[int] = 1
    kinship: ClassVar[bool] = True
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Which {nouns} are {X}'s {ancestors}, that is, {X}'s {parents}, their {parents}, "
        "and so on? Do not include {X}{self}."
    )
    implicit_template: ClassVar[str | None] = (
        "Which {nouns} are {X}'s {ancestors}, that is, {X}'s {parents}, their {parents}, and so on?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("Do not include",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        return sample_kinship(g, n, self.name, ancestors, density)

    def solve(self, s: ClosureStructure) -> Answer:
        return sorted(ancestors(s.graph, s.anchor("X")))

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"T = tc(A)\nResult = select(T, {x}, 1)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"print(json.dumps(sorted(nx.ancestors(G, {x}))))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """One ``ancestors`` call at X."""
        return q.on("ancestors", node=q.name("X")) if not r else Step(answer=list(r[0].value))
