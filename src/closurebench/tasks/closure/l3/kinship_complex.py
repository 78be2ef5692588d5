"""kinship_complex (L3, integer, kinship): size of X's lineage.

Reference: ``1 + |desc(root)|`` where ``root`` is X's oldest ancestor. Every non-root
person has a parent, so X's oldest ancestors are exactly the founders (people with no
parent, generation 0) among X's ancestors. Well-posedness: X must have ancestors and
exactly one founding ancestor, so X is drawn uniformly among the people who do (not a
founder, not descended from two founders, e.g. through two parents from different
lines); a family where nobody does is resampled. The family spans 3–5 generations
(:func:`~closurebench.tasks.closure.kinship.family`), so the lineage can run four or five
generations deep (the paper's 4-level example). Ambiguity class ``count``: the
alternative leaves the root out (answer - 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, desc, in_degrees, reach_in
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.kinship import family
from closurebench.tasks.closure.plan import Reading, Step, ToolReply, degrees
from closurebench.tasks.closure.sampling import draw


def founders(graph: Graph, x: int) -> list[int]:
    """X's founding ancestors: ancestors of ``x`` without parents (``x`` excluded).

    Example:
        >>> founders(Graph(4, ((0, 2), (1, 2), (2, 3))), 3)
        [0, 1]
    """
    anc = reach_in(graph, x)
    anc[x] = False
    return [int(v) for v in np.flatnonzero(anc & (in_degrees(graph) == 0))]


def lineage_root(graph: Graph, x: int) -> int:
    """X's unique founding ancestor; :class:`Resample` if there is none or several.

    Example:
        >>> lineage_root(Graph(3, ((0, 1), (1, 2))), 2)
        0
    """
    roots = founders(graph, x)
    if len(roots) != 1:
        raise Resample(f"X has {len(roots)} founding ancestors, not exactly one")
    return roots[0]


class KinshipComplex(ClosureTask):
    """The root of X's line plus all of the root's descendants.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(6, ((0, 1), (0, 2), (1, 3), (2, 3), (4, 5)))
        >>> s = ClosureStructure("kinship_complex", g, (("X", 3),))
        >>> KinshipComplex().solve(s)
        4
    """

    name: ClassVar[str] = "kinship_complex"
    level: ClassVar[int] = 3
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.COUNT
    kinship: ClassVar[bool] = True
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "{X} has exactly one earliest ancestor, an ancestor with no {parents} listed. "
        "How many {nouns} belong to the lineage formed by that earliest ancestor and all "
        "of its descendants? Include the earliest ancestor in the count."
    )
    implicit_template: ClassVar[str | None] = (
        "{X} has exactly one earliest ancestor, an ancestor with no {parents} listed. "
        "How many {nouns} belong to the lineage formed by that earliest ancestor and all "
        "of its descendants?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("in the count",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = family(g, n, density).graph
        ok = [v for v in range(n) if len(founders(graph, v)) == 1]
        x = draw(g, ok, self.name, "person with exactly one founding ancestor")
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return 1 + int(desc(s.graph, lineage_root(s.graph, s.anchor("X"))).sum())

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        return answer - 1

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"Anc = desc(transpose(A), {x})\nFounder = eq(sum(A, 0), 0)\n"
            "Root = argmax(Anc * Founder)\nResult = sum(reach(A, Root))\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"root = next(a for a in nx.ancestors(G, {x}) if G.in_degree(a) == 0)\n"
            "print(json.dumps(1 + len(nx.descendants(G, root))))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """X's ``ancestors``, every ``in_degree`` (the founder), the founder's ``descendants``."""
        if not r:
            return q.on("ancestors", node=q.name("X"))
        if len(r) == 1:
            if not r[0].value:  # X is the oldest of its lineage
                return q.on("descendants", node=q.name("X"))
            return q.on("in_degree")
        if len(r) == 2 and r[0].value:
            indeg = degrees(r[1])
            roots = [a for a in r[0].value if indeg[a] == 0]
            return q.on("descendants", node=roots[0])
        return Step(answer=1 + len(r[-1].value))
