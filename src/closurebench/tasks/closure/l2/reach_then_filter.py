"""reach_then_filter (L2, set): nodes X can reach whose out-degree is at least k.

Reference: ``desc(X) ∩ {v: outdeg(v) >= k}``. Not in an ambiguity class (X is never
in ``desc(X)``, and the question says so).

Well-posedness: ``k`` is drawn among the out-degree values present in ``desc(X)``
except the smallest, so the answer is non-empty and a proper subset of ``desc(X)``;
a draw where ``desc(X)`` holds fewer than two distinct out-degrees is resampled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import desc, out_degrees
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    SetTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply, degrees
from closurebench.tasks.closure.sampling import distinct_nodes, reach_digraph


class ReachThenFilter(SetTask):
    """Nodes X can reach (X excluded) with out-degree at least k.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (1, 2), (1, 3), (2, 0)))
        >>> s = ClosureStructure("reach_then_filter", g, (("X", 0), ("k", 2)))
        >>> ReachThenFilter().solve(s)
        [1]
    """

    name: ClassVar[str] = "reach_then_filter"
    level: ClassVar[int] = 2
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "k")
    template: ClassVar[str] = (
        "Which {nouns} that {X} can reach {path} {base} at least {k} other {k_nouns} "
        "directly? Do not include {X}{self}."
    )
    conventions: ClassVar[tuple[str, ...]] = ("at least", "Do not include")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        (x,) = distinct_nodes(g, n, 1)
        d = desc(graph, x)
        values = sorted(set(out_degrees(graph)[d].tolist()))
        if len(values) < 2:
            raise Resample("desc(X) has fewer than two distinct out-degrees")
        k = int(values[1 + int(g.integers(len(values) - 1))])
        return ClosureStructure(self.name, graph, (("X", x), ("k", k)))

    def solve(self, s: ClosureStructure) -> Answer:
        keep = desc(s.graph, s.anchor("X")) & (out_degrees(s.graph) >= s.anchor("k"))
        return [int(v) for v in np.flatnonzero(keep)]

    def ein_program(self, s: ClosureStructure) -> str:
        x, k = s.anchor("X"), s.anchor("k")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"D = desc(A, {x})\nO = sum(A, 1)\nResult = D * ge(O, {k})\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, k = s.anchor("X"), s.anchor("k")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"answer = sorted(v for v in nx.descendants(G, {x}) if G.out_degree(v) >= {k})\n"
            "print(json.dumps(answer))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X, then every ``out_degree``; those of degree >= k."""
        if not r:
            return q.on("descendants", node=q.name("X"))
        if len(r) == 1:
            return q.on("out_degree")
        deg = degrees(r[1])
        return Step(answer=[v for v in r[0].value if deg[v] >= q.anchor("k")])
