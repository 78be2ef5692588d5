"""GRIT TSP: the cost of a cheapest tour of a complete metric graph.

Nodes are distinct points on a 100 x 100 grid; weights are the ceiling of the Euclidean
distance (integers >= 1, metric). Solved by :func:`closurebench.graphs.exact.tsp.tsp`
(Held-Karp bound + HiGHS with subtour cuts, certified). Verified by the tour checker
(Hamiltonian cycle whose cost equals the answer, certificate bound == answer, gap 0) and,
for ``n <= HELD_KARP_MAX_N``, by an independent Held-Karp dynamic programme. A model may
answer with the cost or with any optimal tour (closed or not, either direction).

Example:
    >>> from closurebench.seeding import rng
    >>> t = TspTask()
    >>> s = t.sample(rng(0, "doc"), 6, 0.0)
    >>> r = t.solve(s)
    >>> t.check(s, r.solution) == r.answer == held_karp(t.matrix(s))
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from closurebench.graphs.exact.check import check_tour
from closurebench.graphs.exact.tsp import tsp
from closurebench.structures.grit import GritStructure
from closurebench.tasks.grit import base as b
from closurebench.tasks.grit.answers import Judgement, Rejected, read_node_list

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["GRID", "HELD_KARP_MAX_N", "TspTask", "held_karp"]

#: Side of the integer grid the points are drawn on.
GRID = 100
#: Largest ``n`` cross-checked by the exact Held-Karp dynamic programme.
HELD_KARP_MAX_N = 10


def held_karp(w: list[list[int]]) -> int:
    """Optimal tour cost by the Held-Karp dynamic programme (``O(2^n n^2)``; small n only)."""
    n = len(w)
    if n <= 1:
        return 0
    if n == 2:
        return 2 * w[0][1]
    full = 1 << (n - 1)  # subsets of nodes 1..n-1
    inf = float("inf")
    dp = [[inf] * n for _ in range(full)]
    for j in range(1, n):
        dp[1 << (j - 1)][j] = w[0][j]
    for mask in range(1, full):
        row = dp[mask]
        for j in range(1, n):
            c = row[j]
            if c == inf:
                continue
            for k in range(1, n):
                bit = 1 << (k - 1)
                if not mask & bit:
                    nc = c + w[j][k]
                    if nc < dp[mask | bit][k]:
                        dp[mask | bit][k] = nc
    return int(min(dp[full - 1][j] + w[j][0] for j in range(1, n)))


class TspTask(b.OptimumTask):
    """Optimal tour cost on a complete metric graph (exact, certified)."""

    name = "tsp"
    weighted = b.GraphTrait.ALWAYS
    complete = True

    def sample(
        self,
        g: np.random.Generator,
        n: int,
        p: float,
        *,
        directed_share: float = b.DEFAULT_DIRECTED_SHARE,
    ) -> GritStructure:
        """Complete graph on ``n`` distinct grid points (``p`` is ignored)."""
        from closurebench.graphs import metric_complete  # loads scipy: only sampling needs it

        graph = metric_complete(g, n, grid=GRID).graph
        edges = [(u, v, w) for (u, v), w in zip(graph.edges, graph.weights or (), strict=True)]
        return self.structure(n, False, True, edges)

    @staticmethod
    def matrix(s: GritStructure) -> list[list[int]]:
        """The symmetric weight matrix."""
        w = [[0] * s.n for _ in range(s.n)]
        for u, v, c in s.edges:
            w[u][v] = w[v][u] = c
        return w

    def solve(self, s: GritStructure, *, time_limit: float = b.DEFAULT_TIME_LIMIT) -> b.Solved:
        """Certified optimal tour (starting at node 0, not repeating it)."""
        r = tsp(self.matrix(s), time_limit=time_limit)
        return b.Solved(
            answer=int(r.value), solution=list(r.tour), certificate=r.certificate.as_dict()
        )

    def check(self, s: GritStructure, solution: Any) -> int:
        """A Hamiltonian cycle (listed once, without repeating the start); returns its cost."""
        cost = b.checked(check_tour(self.matrix(s), solution, optimum=b.FEASIBILITY_ONLY))
        if len(solution) != s.n:
            raise b.CheckError(f"tour lists {len(solution)} nodes; list each of the {s.n} once")
        return cost

    def verify(self, s: GritStructure, solved: b.Solved, *, where: str, time_limit: float) -> None:
        """Checker + closed certificate; Held-Karp agrees for small ``n``."""
        self._check_value(s, solved, where)
        if s.n <= HELD_KARP_MAX_N:
            self._agree(
                where, "tour costs (milp vs held-karp)", solved.answer, held_karp(self.matrix(s))
            )

    def judge_solution(self, record: GritInstance, value: Any) -> Judgement:
        """A tour of names visiting every node once, of optimal cost."""
        ids = read_node_list(record, value, self.expected)
        if isinstance(ids, Rejected):
            return ids.judgement(value)
        n = record.graph.n
        w = [[0.0] * n for _ in range(n)]
        for u, v, weight in record.graph.edges:
            w[u][v] = w[v][u] = weight
        verdict = check_tour(w, ids, optimum=cast(int, record.answer))
        return Judgement.of_verdict(verdict, value)
