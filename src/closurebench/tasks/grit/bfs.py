"""GRIT BFS: the breadth-first visit order from ``source``, neighbours in the stated order.

The visit order depends on the neighbour-order rule each view states (numeric order of
the ids, alphabetical order of the names, or the order the text lists the nodes), so the
reference is computed per view (:meth:`BfsTask.for_view`) from the rendered question's
``neighbour_order`` and cross-checked against ``networkx.bfs_edges(..., sort_neighbors=...)``.
The record's ``answer`` is the order as display names; ``solution`` the same order as ids.
A model's order is strictly correct only when it is the stated one; under the lenient
rule any valid BFS order is accepted (lenient only).

Example:
    >>> from closurebench.seeding import rng
    >>> t = BfsTask()
    >>> s = t.sample(rng(0, "doc"), 6, 0.4)
    >>> r = t.solve(s)
    >>> sorted(r.answer) == list(range(6)) and r.answer[0] == s.param("source")
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from closurebench.graphs.exact.check import check_bfs_order
from closurebench.graphs.exact.paths import bfs_order
from closurebench.structures.grit import GritStructure, GritView
from closurebench.tasks.grit import base as b
from closurebench.tasks.grit.answers import Judgement, Rejected, read_node_list

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["BfsTask", "nx_bfs_order"]


def nx_bfs_order(s: GritStructure, rank: Sequence[int]) -> list[int]:
    """BFS order by networkx, visiting neighbours by increasing ``rank[node]``."""
    import networkx as nx  # heavy: only cross-checks need it

    edges = nx.bfs_edges(
        b.to_nx(s), s.param("source"), sort_neighbors=lambda ns: sorted(ns, key=rank.__getitem__)
    )
    return [s.param("source"), *(v for _, v in edges)]


class BfsTask(b.GritTask):
    """Breadth-first visit order on a connected undirected graph."""

    name = "bfs"
    view_invariant = False
    param_keys = ("source",)
    answer_form = b.AnswerForm.ORDER
    states_neighbour_order = True

    def sample_params(self, g: np.random.Generator, n: int) -> dict[str, Any]:
        """A random ``source``."""
        return {"source": int(g.integers(0, n))}

    def solve(self, s: GritStructure, *, time_limit: float = b.DEFAULT_TIME_LIMIT) -> b.Solved:
        """The order under numeric id order (views recompute it under their own rule)."""
        order = list(bfs_order(s.n, b.edge_list(s), s.param("source")).order)
        return b.Solved(answer=order, solution=order)

    def check(self, s: GritStructure, solution: Any, rank: Sequence[int] | None = None) -> Any:
        """A valid BFS order (any tie order); with ``rank``, the unique order under it."""
        verdict = check_bfs_order(
            s.n,
            b.edge_list(s),
            s.param("source"),
            solution,
            neighbour_key=rank,
            lenient=rank is None,
        )
        b.checked(verdict, optimal=True)
        return list(solution)

    def verify(self, s: GritStructure, solved: b.Solved, *, where: str, time_limit: float) -> None:
        """networkx BFS in numeric order gives the same order; the checker accepts it."""
        self._agree(where, "BFS orders", solved.answer, nx_bfs_order(s, range(s.n)))
        self._check_value(s, solved, where)

    def for_view(
        self, s: GritStructure, solved: b.Solved, view: GritView, *, where: str
    ) -> tuple[Any, Any]:
        """The order under the view's neighbour rule: (names, ids), cross-checked."""
        listing = view.neighbour_order
        if listing is None or sorted(listing) != list(range(s.n)):
            raise b.CheckError(f"{where}: the view states no usable neighbour order: {listing!r}")
        rank = [0] * s.n
        for r, node in enumerate(listing):
            rank[node] = r
        order = list(bfs_order(s.n, b.edge_list(s), s.param("source"), neighbour_key=rank).order)
        self._agree(where, "per-view BFS orders", order, nx_bfs_order(s, rank))
        self.check(s, order, rank)
        return [view.names[i] for i in order], order

    def judge(self, record: GritInstance, value: Any, *, lenient: bool = False) -> Judgement:
        """The stated order (strict); any valid BFS order when ``lenient`` (lenient only)."""
        ids = read_node_list(record, value, "expected an order of names")
        if isinstance(ids, Rejected):
            return ids.judgement(value)
        g = record.graph
        verdict = check_bfs_order(
            g.n,
            [e[:2] for e in g.edges],
            cast(int, record.params["source"]),
            ids,
            directed=g.directed,
            lenient=True,
        )
        if ids == list(cast(list[int], record.solution)):
            return Judgement(True, True, value)
        reason = verdict.reason or "a valid BFS order, but not with neighbours in the stated order"
        return Judgement(False, lenient and verdict.ok, value, reason)
