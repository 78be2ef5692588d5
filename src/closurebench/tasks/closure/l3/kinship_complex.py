"""kinship_complex (L3, integer, kinship): size of X's lineage.

Reference: ``1 + |desc(root)|`` where ``root`` is X's oldest ancestor. Every non-root
person has a parent, so X's oldest ancestors are exactly the founders (people with no
parent, generation 0) among X's ancestors. Well-posedness: X must have ancestors and
exactly one founding ancestor; a draw where X is itself a founder, or descends from two
founders (e.g. two parents from different lines), is resampled. Ambiguity class
``count``: the alternative leaves the root out (answer - 1).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, desc, in_degrees, kinship_dag, reach_in
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.sampling import distinct_nodes


def lineage_root(graph: Graph, x: int) -> int:
    """X's unique founding ancestor; :class:`Resample` if there is none or several.

    Example:
        >>> lineage_root(Graph(3, ((0, 1), (1, 2))), 2)
        0
    """
    anc = reach_in(graph, x)
    anc[x] = False
    roots = np.flatnonzero(anc & (in_degrees(graph) == 0))
    if roots.size != 1:
        raise Resample(f"X has {roots.size} founding ancestors, not exactly one")
    return int(roots[0])


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
    conventions: ClassVar[tuple[str, ...]] = ("in the count",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = kinship_dag(g, n).graph
        (x,) = distinct_nodes(g, n, 1)
        lineage_root(graph, x)
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
