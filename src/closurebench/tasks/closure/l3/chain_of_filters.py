"""chain_of_filters (L3, set): nodes X can reach, with out-degree ≥ k, that can reach Y.

Reference: ``desc(X) ∩ {outdeg ≥ k} ∩ ancestors(Y) \\ {X, Y}`` (three filters
intersected; a node "can reach Y" by a path of length ≥ 1). Well-posedness: with X ≠ Y,
the candidates ``desc(X) ∩ ancestors(Y) \\ {X, Y}`` must be non-empty (else resample);
every candidate has out-degree ≥ 1, and ``k`` is drawn uniformly in
``1..max outdeg over the candidates``, so the answer is non-empty. Not ambiguous.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, desc, out_degrees, reach_in
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    SetTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply, degrees
from closurebench.tasks.closure.sampling import distinct_nodes, reach_digraph


def _between(graph: Graph, x: int, y: int) -> np.ndarray:
    mask = desc(graph, x) & reach_in(graph, y)
    mask[[x, y]] = False
    return mask


class ChainOfFilters(SetTask):
    """Nodes on the way from X to Y with out-degree at least k.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(5, ((0, 1), (0, 2), (1, 3), (1, 4), (2, 3)))
        >>> s = ClosureStructure("chain_of_filters", g, (("X", 0), ("Y", 3), ("k", 2)))
        >>> ChainOfFilters().solve(s)
        [1]
    """

    name: ClassVar[str] = "chain_of_filters"
    level: ClassVar[int] = 3
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y", "k")
    template: ClassVar[str] = (
        "Which {nouns} meet all three conditions: {X} can reach them {path}; they {base} "
        "at least {k} other {k_nouns} directly; and they can reach {Y} {path}? "
        "Do not include {X} or {Y} themselves."
    )
    conventions: ClassVar[tuple[str, ...]] = ("at least", "Do not include", "themselves")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        x, y = distinct_nodes(g, n, 2)
        between = _between(graph, x, y)
        if not between.any():
            raise Resample("no node lies on a path from X to Y")
        k = 1 + int(g.integers(int(out_degrees(graph)[between].max())))
        return ClosureStructure(self.name, graph, (("X", x), ("Y", y), ("k", k)))

    def solve(self, s: ClosureStructure) -> Answer:
        x, y, k = s.anchor("X"), s.anchor("Y"), s.anchor("k")
        keep = _between(s.graph, x, y) & (out_degrees(s.graph) >= k)
        return [int(v) for v in np.flatnonzero(keep)]

    def ein_program(self, s: ClosureStructure) -> str:
        x, y, k = s.anchor("X"), s.anchor("Y"), s.anchor("k")
        # desc(A, X) excludes X; desc(transpose(A), Y) excludes Y.
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"D = desc(A, {x})\nO = sum(A, 1)\nU = desc(transpose(A), {y})\n"
            f"Result = D * ge(O, {k}) * U\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y, k = s.anchor("X"), s.anchor("Y"), s.anchor("k")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"cand = (nx.descendants(G, {x}) & nx.ancestors(G, {y})) - {{{x}, {y}}}\n"
            f"print(json.dumps(sorted(v for v in cand if G.out_degree(v) >= {k})))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X, ``ancestors`` of Y, every ``out_degree``; filter."""
        if not r:
            return q.on("descendants", node=q.name("X"))
        if len(r) == 1:
            return q.on("ancestors", node=q.name("Y"))
        if len(r) == 2:
            return q.on("out_degree")
        deg = degrees(r[2])
        reach_y = set(r[1].value)
        keep = {
            v
            for v in r[0].value
            if deg[v] >= q.anchor("k") and v in reach_y and v not in (q.name("X"), q.name("Y"))
        }
        return Step(answer=q.ordered(keep))
