"""negative_reach (L1, set): which nodes can X not reach (X excluded).

Reference: the complement of ``reach(X)``.

Well-posedness: the graph has an edge and the answer is non-empty: X is drawn uniformly
among the nodes that do not reach every node. A graph where every node reaches all
(e.g. strongly connected) resamples, so dense large graphs (say n >= 14 at rho = 0.5)
rarely yield an instance.

Ambiguity class ``set``: the alternative convention lists X as well (X is "not reached"
when reaching means a path of length >= 1 and X lies on no cycle): ``answer ∪ {X}``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.graphs import reach, tc
from closurebench.tasks.closure.base import (
    AnchorExcludedSetTask,
    Answer,
    ClosureStructure,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import draw, reach_digraph


class NegativeReach(AnchorExcludedSetTask):
    """The nodes X cannot reach, X excluded.

    Example:
        >>> from closurebench.graphs import Graph
        >>> s = ClosureStructure("negative_reach", Graph(4, ((0, 1), (1, 0), (2, 0))), (("X", 0),))
        >>> NegativeReach().solve(s), NegativeReach().alternative(s, (2, 3))
        ([2, 3], [0, 2, 3])
    """

    name: ClassVar[str] = "negative_reach"
    level: ClassVar[int] = 1
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = "Which {nouns} can {X} not reach {path}? Do not include {X}{self}."
    implicit_template: ClassVar[str | None] = "Which {nouns} can {X} not reach {path}?"
    conventions: ClassVar[tuple[str, ...]] = ("Do not include",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        full = tc(graph) | np.eye(n, dtype=bool)
        x = draw(g, [v for v in range(n) if not full[v].all()], self.name, "X")
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return [int(v) for v in np.flatnonzero(~reach(s.graph, s.anchor("X")))]

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"Result = ones({s.n}) - reach(A, {x})\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"answer = set(G.nodes) - nx.descendants(G, {x}) - {{{x}}}\n"
            "print(json.dumps(sorted(answer)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X; the answer is every other node but X."""
        if not r:
            return q.on("descendants", node=q.name("X"))
        return Step(answer=q.ordered(set(q.names) - set(r[0].value) - {q.name("X")}))
