"""aggregate_over_set (L3, float): mean out-degree over the nodes X can reach (X excluded).

Reference: ``mean(outdeg[desc(X)])``; a draw with empty ``desc(X)`` is resampled.
Rounded to 2 decimals by :func:`~closurebench.tasks.closure.base.normalize`; the three
routes agree before rounding. Ambiguity class ``count``: the alternative includes X in
the set, ``(Σ outdeg[desc(X)] + outdeg(X)) / (|desc(X)| + 1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import desc, out_degrees
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply, degrees, mean
from closurebench.tasks.closure.sampling import distinct_nodes, reach_digraph


class AggregateOverSet(ClosureTask):
    """Average out-degree of X's descendants.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(4, ((0, 1), (1, 2), (1, 3), (2, 3)))
        >>> s = ClosureStructure("aggregate_over_set", g, (("X", 0),))
        >>> t = AggregateOverSet()
        >>> t.solve(s), t.alternative(s, t.solve(s))
        (1.0, 1.0)
    """

    name: ClassVar[str] = "aggregate_over_set"
    level: ClassVar[int] = 3
    result_type: ClassVar[ResultType] = ResultType.FLOAT
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.COUNT
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = (
        "Consider the {nouns} that {X} can reach {path}, not counting {X}{self}. "
        "On average, how many {nouns} {does} each of them {inf} directly? "
        "Round to 2 decimal places."
    )
    implicit_template: ClassVar[str | None] = (
        "Consider the {nouns} that {X} can reach {path}. "
        "On average, how many {nouns} {does} each of them {inf} directly? "
        "Round to 2 decimal places."
    )
    conventions: ClassVar[tuple[str, ...]] = ("not counting", "2 decimal places")

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        (x,) = distinct_nodes(g, n, 1)
        if not desc(graph, x).any():
            raise Resample("X reaches no node")
        return ClosureStructure(self.name, graph, (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return float(out_degrees(s.graph)[desc(s.graph, s.anchor("X"))].mean())

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        x = s.anchor("X")
        d = desc(s.graph, x)
        d[x] = True
        return float(out_degrees(s.graph)[d].mean())

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"D = desc(A, {x})\nO = sum(A, 1)\nResult = sum(O * D) / sum(D)\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"d = nx.descendants(G, {x})\n"
            "print(json.dumps(sum(G.out_degree(v) for v in d) / len(d)))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``descendants`` of X, then every ``out_degree``; their mean over the set."""
        if not r:
            return q.on("descendants", node=q.name("X"))
        if len(r) == 1:
            return q.on("out_degree")
        deg = degrees(r[1])
        return Step(answer=mean([deg[v] for v in r[0].value]))
