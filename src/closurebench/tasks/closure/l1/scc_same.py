"""scc_same (L1, boolean): can X and Y each reach the other (X ≠ Y).

Reference: ``has_path(X, Y) ∧ has_path(Y, X)``. Well-posedness: X ≠ Y; the graph has an
edge. To let a split balance the answer ~50/50 at any density, a fair coin from the
structural generator decides whether the pair is drawn inside one strongly connected
component of size ≥ 2 or across two components; no such pair resamples.
No ambiguity class.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import scc_labels
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import reach_digraph


class SccSame(ClosureTask):
    """Are X and Y mutually reachable?

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(3, ((0, 1), (1, 2), (2, 0)))
        >>> t = SccSame()
        >>> t.solve(ClosureStructure(t.name, g, (("X", 0), ("Y", 2))))
        True
        >>> t.solve(ClosureStructure(t.name, Graph(3, ((0, 1), (1, 2))), (("X", 0), ("Y", 2))))
        False
    """

    name: ClassVar[str] = "scc_same"
    level: ClassVar[int] = 1
    result_type: ClassVar[ResultType] = ResultType.BOOLEAN
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = (
        "Can {X} and {Y} each reach the other {path}, that is, can {X} reach {Y} "
        "and can {Y} also reach {X}?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("each reach the other",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        graph = reach_digraph(g, n, density)
        _, labels = scc_labels(graph)
        same = labels[:, None] == labels[None, :]
        want_same = g.random() < 0.5
        mask = same if want_same else ~same
        np.fill_diagonal(mask, False)
        pairs = np.argwhere(mask)
        if len(pairs) == 0:
            raise Resample(f"{self.name}: no pair with same-component={want_same}")
        x, y = (int(v) for v in pairs[g.integers(len(pairs))])
        return ClosureStructure(self.name, graph, (("X", x), ("Y", y)))

    def solve(self, s: ClosureStructure) -> Answer:
        _, labels = scc_labels(s.graph)
        return bool(labels[s.anchor("X")] == labels[s.anchor("Y")])

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"Result = has_path(A, {x}, {y}) * has_path(A, {y}, {x})\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"answer = any({{{x}, {y}}} <= c for c in nx.strongly_connected_components(G))\n"
            "print(json.dumps(answer))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """X's ``scc``; whether Y is in it."""
        if not r:
            return q.on("scc", node=q.name("X"))
        return Step(answer=q.name("Y") in r[0].value)
