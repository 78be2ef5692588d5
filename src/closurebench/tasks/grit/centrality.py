"""GRIT centrality: which node has the highest degree, closeness or betweenness centrality.

The exact rational scores of :func:`closurebench.graphs.exact.centrality.centrality` decide
the argmax; a graph whose maximum is tied is resampled (:class:`Resample`), so the answer
is unique. networkx's ``degree_centrality`` / ``closeness_centrality`` /
``betweenness_centrality`` must agree on every score (to 1e-9) and on the argmax. The
record's ``answer`` is the winner's display name in the view; ``solution`` its node id.
A model answers with the name (or an alias, or a one-element list of it).

Example:
    >>> from closurebench.seeding import rng
    >>> t = CentralityTask()
    >>> s = t.sample(rng(1, "doc"), 8, 0.4)
    >>> s.param("centrality") in ("degree", "closeness", "betweenness")
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from closurebench.errors import ConfigError
from closurebench.graphs.exact.centrality import CENTRALITY_KINDS, centrality
from closurebench.graphs.exact.check import check_centrality
from closurebench.structures.grit import GritStructure, GritView
from closurebench.tasks.grit import base as b
from closurebench.tasks.grit.answers import Judgement, resolve_name

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["CENTRALITIES", "CentralityTask", "nx_scores"]

#: The centrality kinds a centrality question may ask about (sampled uniformly, in order).
CENTRALITIES: tuple[str, ...] = CENTRALITY_KINDS


def nx_scores(s: GritStructure) -> list[float]:
    """The networkx scores of the structure's centrality kind (unweighted)."""
    import networkx as nx  # heavy: only cross-checks need it

    measure = {
        "degree": nx.degree_centrality,
        "closeness": nx.closeness_centrality,
        "betweenness": nx.betweenness_centrality,
    }[s.param("centrality")]
    scores = measure(b.to_nx(s))
    return [float(scores[i]) for i in range(s.n)]


class CentralityTask(b.GritTask):
    """Argmax of a centrality measure; unique maximum guaranteed by resampling."""

    name = "centrality"
    view_invariant = False
    param_keys = ("centrality",)
    answer_form = b.AnswerForm.NODE
    defined_param = "centrality"

    def _validate_params(self, s: GritStructure) -> None:
        kind = s.param("centrality")
        if kind not in CENTRALITIES:
            raise ConfigError(f"centrality {kind!r} is not supported; use one of {CENTRALITIES}")

    def sample_params(self, g: np.random.Generator, n: int) -> dict[str, Any]:
        """A uniformly chosen centrality kind."""
        return {"centrality": CENTRALITIES[int(g.integers(0, len(CENTRALITIES)))]}

    def solve(self, s: GritStructure, *, time_limit: float = b.DEFAULT_TIME_LIMIT) -> b.Solved:
        """Exact scores and argmax.

        Raises:
            Resample: the maximum is shared by several nodes.
        """
        r = centrality(s.n, b.edge_list(s), s.param("centrality"))
        if not r.unique:
            raise b.Resample(f"{s.param('centrality')} centrality maximum is tied")
        return b.Solved(answer=r.argmax, solution=r.argmax, extra={"scores": r.scores})

    def check(self, s: GritStructure, solution: Any) -> int:
        """The node is a maximiser of the exact scores; returns it."""
        verdict = check_centrality(s.n, b.edge_list(s), s.param("centrality"), solution)
        b.checked(verdict, optimal=True)
        return int(solution)

    def verify(self, s: GritStructure, solved: b.Solved, *, where: str, time_limit: float) -> None:
        """networkx scores equal the exact ones (1e-9) and give the same argmax."""
        theirs = nx_scores(s)
        ours = solved.extra.get("scores") or ()
        bad = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if abs(a - b) > 1e-9]
        if bad:
            i = bad[0]
            raise b.VerificationError(
                f"{where}: centrality score of node {i} disagrees: exact {ours[i]!r}, "
                f"networkx {theirs[i]!r}"
            )
        self._agree(where, "centrality argmax", solved.answer, int(np.argmax(theirs)))
        self._check_value(s, solved, where)

    def for_view(
        self, s: GritStructure, solved: b.Solved, view: GritView, *, where: str
    ) -> tuple[Any, Any]:
        """The winner's display name in this view, and its id."""
        return view.names[solved.answer], solved.answer

    def judge(self, record: GritInstance, value: Any, *, lenient: bool = False) -> Judgement:
        """One node name (or alias, or a one-element list of it): the most central node."""
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, str | int) or isinstance(value, bool):
            return Judgement.format_error(value, "expected one node name")
        node = resolve_name(record, value)
        if node is None:
            return Judgement(False, False, value, f"unknown node {value!r}")
        target = record.solution
        if target is None:
            target = resolve_name(record, record.answer)
        ok = node == target
        return Judgement.correct_if(ok, value, f"{value!r} is not the most central node")
