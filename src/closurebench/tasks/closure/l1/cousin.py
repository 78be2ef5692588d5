"""cousin (L1, set, kinship): people sharing a grandparent with X but no parent, X excluded.

Reference: the grandchildren of X's grandparents minus X and minus X's (half-)siblings.
Well-posedness: X is drawn among the people with at least one cousin (a family with
none resamples). A cousin needs at least five people (grandparent, two of its
children, X and the cousin), so ``sample`` raises
:class:`~closurebench.errors.ConfigError` for ``n < 5`` (:attr:`Cousin.min_n`).
Ambiguity class ``set``: the alternative convention counts X among its grandparents'
grandchildren, ``answer ∪ {X}`` (siblings stay excluded: the question says "no parent").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import ConfigError
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
from closurebench.tasks.closure.l1.sibling import siblings
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


def cousins(graph: Graph, x: int) -> set[int]:
    """The people sharing a grandparent but no parent with ``x``, ``x`` excluded.

    Example:
        >>> g = Graph(6, ((0, 1), (0, 2), (1, 3), (2, 4), (1, 5)))
        >>> sorted(cousins(g, 3))
        [4]
    """
    grand = {gp for p in parents(graph, x) for gp in parents(graph, p)}
    grandchildren = {c for gp in grand for p in children(graph, gp) for c in children(graph, p)}
    return grandchildren - siblings(graph, x) - {x}


class Cousin(AnchorExcludedSetTask):
    """The cousins of X (a shared grandparent, no shared parent).

    Example:
        >>> g = Graph(6, ((0, 1), (0, 2), (1, 3), (2, 4), (1, 5)))
        >>> s = ClosureStructure("cousin", g, (("X", 3),))
        >>> Cousin().solve(s), Cousin().alternative(s, [4])
        ([4], [3, 4])
    """

    name: ClassVar[str] = "cousin"
    level: ClassVar[int] = 1
    kinship: ClassVar[bool] = True
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Which {nouns} are {X}'s {cousins}, that is, share at least one {grandparent} "
        "with {X} but no {parent} with {X}? Do not include {X}{self}."
    )
    implicit_template: ClassVar[str | None] = (
        "Which {nouns} are {X}'s {cousins}, that is, share at least one {grandparent} "
        "with {X} but no {parent} with {X}?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("but no", "Do not include")
    min_n: ClassVar[int] = 5

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        if n < self.min_n:
            raise ConfigError(
                f"{self.name}: n={n} cannot hold a cousin pair (grandparent, two parents, "
                f"two grandchildren); pass n >= {self.min_n}"
            )
        return sample_kinship(g, n, self.name, cousins, density)

    def solve(self, s: ClosureStructure) -> Answer:
        return sorted(cousins(s.graph, s.anchor("X")))

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"P = select(A, {x}, 1)\nQ[k] = A[k,i] P[i]\n"
            "C[j] = Q[k] A[k,i] A[i,j]\nS[j] = P[i] A[i,j]\n"
            f"Result = gt(C, 0) * eq(S, 0) * {not_node(s.n, x)}\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"parents = set(G.predecessors({x}))\n"
            "grand = {g for p in parents for g in G.predecessors(p)}\n"
            "sibs = {c for p in parents for c in G.successors(p)}\n"
            "kin = {c for g in grand for p in G.successors(g) for c in G.successors(p)}\n"
            f"print(json.dumps(sorted(kin - sibs - {{{x}}})))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """Parents, grandparents, their children, grandchildren, less X and siblings."""
        # parents P, grandparents G, their children C, grandchildren GC, minus X's parents' children
        order = ("predecessors", "predecessors", "successors", "successors")
        if len(r) < 4:
            if r and not r[-1].value:
                return Step(answer=[])
            node = q.name("X") if not r else list(r[-1].value)
            return q.on(order[len(r)], node=node)
        if len(r) == 4:
            return q.on("successors", node=list(r[0].value))  # X and X's siblings
        return Step(answer=q.ordered(set(r[3].value) - set(r[4].value) - {q.name("X")}))
