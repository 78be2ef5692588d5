"""GRIT centrality: which node has the highest degree, closeness or betweenness centrality.

The exact rational scores of :func:`closurebench.graphs.exact.centrality.centrality` decide
the argmax; a graph whose maximum is tied is resampled (:class:`Resample`), so the answer
is unique. networkx's ``degree_centrality`` / ``closeness_centrality`` /
``betweenness_centrality`` must agree on every score (to 1e-9) and on the argmax. The
record's ``answer`` is the winner's display name in the view; ``solution`` its node id.

Example:
    >>> from closurebench.seeding import rng
    >>> t = CentralityTask()
    >>> s = t.sample(rng(1, "doc"), 8, 0.4)
    >>> s.param("centrality") in ("degree", "closeness", "betweenness")
    True
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from closurebench.graphs.exact.centrality import centrality
from closurebench.graphs.exact.check import check_centrality
from closurebench.surface.grit import CENTRALITIES, GritStructure, RenderedQuestion
from closurebench.tasks.grit.base import (
    DEFAULT_TIME_LIMIT,
    GritTask,
    Resample,
    Solved,
    VerificationError,
    checked,
    connected_graph,
    edge_list,
    to_nx,
)

__all__ = ["CentralityTask", "nx_scores"]

_NX = {
    "degree": nx.degree_centrality,
    "closeness": nx.closeness_centrality,
    "betweenness": nx.betweenness_centrality,
}


def nx_scores(s: GritStructure) -> list[float]:
    """The networkx scores of the structure's centrality kind (unweighted)."""
    scores = _NX[s.param("centrality")](to_nx(s))
    return [float(scores[i]) for i in range(s.n)]


class CentralityTask(GritTask):
    """Argmax of a centrality measure; unique maximum guaranteed by resampling."""

    name = "centrality"
    view_invariant = False

    def sample(self, g: np.random.Generator, n: int, p: float) -> GritStructure:
        """Connected undirected graph and a uniformly chosen centrality kind."""
        graph = connected_graph(g, n, p)
        kind = CENTRALITIES[int(g.integers(0, len(CENTRALITIES)))]
        return GritStructure(self.name, n, False, False, list(graph.edges), {"centrality": kind})

    def solve(self, s: GritStructure, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Solved:
        """Exact scores and argmax.

        Raises:
            Resample: the maximum is shared by several nodes.
        """
        r = centrality(s.n, edge_list(s), s.param("centrality"))
        if not r.unique:
            raise Resample(f"{s.param('centrality')} centrality maximum is tied")
        return Solved(answer=r.argmax, solution=r.argmax, extra={"scores": r.scores})

    def check(self, s: GritStructure, solution: Any) -> int:
        """The node is a maximiser of the exact scores; returns it."""
        checked(check_centrality(s.n, edge_list(s), s.param("centrality"), solution), optimal=True)
        return int(solution)

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        """networkx scores equal the exact ones (1e-9) and give the same argmax."""
        theirs = nx_scores(s)
        ours = solved.extra.get("scores") or ()
        bad = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if abs(a - b) > 1e-9]
        if bad:
            i = bad[0]
            raise VerificationError(
                f"{where}: centrality score of node {i} disagrees: exact {ours[i]!r}, "
                f"networkx {theirs[i]!r}"
            )
        self._agree(where, "centrality argmax", solved.answer, int(np.argmax(theirs)))
        self._check_value(s, solved, where)

    def for_view(
        self, s: GritStructure, solved: Solved, view: RenderedQuestion, *, where: str
    ) -> tuple[Any, Any]:
        """The winner's display name in this view, and its id."""
        return view.names[solved.answer], solved.answer
