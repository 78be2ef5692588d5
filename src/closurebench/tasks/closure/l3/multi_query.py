"""multi_query (L3, compound): can X reach Y, and what is X's out-degree.

Reference: ``{"reachable": has_path(X, Y), "degree": outdeg(X)}`` with X ≠ Y. The split
balances the ``reachable`` half (:meth:`MultiQuery.balance_key`). Not ambiguous.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from closurebench import ein
from closurebench.errors import VerificationError
from closurebench.graphs import has_path, out_degrees
from closurebench.schema.enums import ResultType
from closurebench.tasks.closure.base import (
    Answer,
    ClosureStructure,
    ClosureTask,
    ein_edges,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


class MultiQuery(ClosureTask):
    """Two primitives, one compound answer.

    Example:
        >>> from closurebench.graphs import Graph
        >>> g = Graph(3, ((0, 1), (0, 2)))
        >>> s = ClosureStructure("multi_query", g, (("X", 1), ("Y", 2)))
        >>> MultiQuery().solve(s)
        {'reachable': False, 'degree': 0}
    """

    name: ClassVar[str] = "multi_query"
    level: ClassVar[int] = 3
    result_type: ClassVar[ResultType] = ResultType.COMPOUND
    anchor_names: ClassVar[tuple[str, ...]] = ("X", "Y")
    template: ClassVar[str] = (
        "Answer two questions. First, can {X} reach {Y} {path}? Second, how many {nouns} "
        "{does} {X} {inf} directly (direct {links} only)?"
    )
    conventions: ClassVar[tuple[str, ...]] = ("First", "Second", "directly")
    compound_keys: ClassVar[Mapping[str, ResultType] | None] = {
        "reachable": ResultType.BOOLEAN,
        "degree": ResultType.INTEGER,
    }

    def solve(self, s: ClosureStructure) -> Answer:
        x, y = s.anchor("X"), s.anchor("Y")
        return {"reachable": has_path(s.graph, x, y), "degree": int(out_degrees(s.graph)[x])}

    def balance_key(self, answer: Answer) -> bool | None:
        return bool(answer["reachable"])

    def ein_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\n"
            f"Reachable = has_path(A, {x}, {y})\nDegree = sum(select(A, {x}, 0))\n"
            ":print Reachable\n:print Degree\n"
        )

    def ein_answer(self, result: ein.EinResult, s: ClosureStructure) -> Answer:
        printed = dict(result.printed)
        if set(printed) != {"Reachable", "Degree"}:
            raise VerificationError(f"multi_query: Ein printed {sorted(printed)}")
        return {"reachable": float(printed["Reachable"]), "degree": float(printed["Degree"])}

    def python_program(self, s: ClosureStructure) -> str:
        x, y = s.anchor("X"), s.anchor("Y")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f'answer = {{"reachable": nx.has_path(G, {x}, {y}), "degree": G.out_degree({x})}}\n'
            "print(json.dumps(answer))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """``reachability`` X to Y, then X's ``out_degree``."""
        if not r:
            return q.on("reachability", start=q.name("X"), end=q.name("Y"))
        if len(r) == 1:
            return q.on("out_degree", node=q.name("X"))
        return Step(answer={"reachable": bool(r[0].value), "degree": int(r[1].value)})
