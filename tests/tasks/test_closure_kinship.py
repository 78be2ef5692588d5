"""Kinship families: 3–5 generations, ρ as the link density (issue 11, point 4).

Checked on the kinship instances of a real default heldout split (the kinship categories
of ``closurebench generate closure --split heldout --seed 0``), not on hand-made records.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from scipy.stats import spearmanr

from closurebench.graphs import Graph, in_degrees, kinship_dag
from closurebench.schema import ClosureInstance
from closurebench.seeding import rng
from closurebench.tasks.closure import CLOSURE_TASKS, ClosureStructure
from closurebench.tasks.closure.base import verify
from closurebench.tasks.closure.kinship import (
    GENERATIONS,
    family,
    lineage_depth,
    link_density,
)
from closurebench.tasks.closure.l3.kinship_complex import founders

KINSHIP = tuple(name for name, task in CLOSURE_TASKS.items() if task.kinship)


@pytest.fixture(scope="module")
def heldout(
    default_closure_split: Callable[[str], list[ClosureInstance]],
) -> list[ClosureInstance]:
    records = default_closure_split("heldout")  # the full default heldout split, seed 0
    return [r for r in records if r.category in KINSHIP]


def _graph(record: ClosureInstance) -> Graph:
    return Graph(record.graph.n, [tuple(e) for e in record.graph.edges])


def test_lineage_depths_three_to_five_all_occur(heldout: list[ClosureInstance]) -> None:
    # the heldout split's 1,300 instances dealt round-robin over the categories
    total, names = 1300, list(CLOSURE_TASKS)
    share = {c: total // len(names) + (i < total % len(names)) for i, c in enumerate(names)}
    assert len(heldout) == sum(share[c] for c in KINSHIP)
    depths = {lineage_depth(_graph(r)) for r in heldout}
    assert depths == {3, 4, 5}
    for name in KINSHIP:  # every category sees deep families, not only one
        assert {lineage_depth(_graph(r)) for r in heldout if r.category == name} >= {4, 5}


def test_families_keep_the_kinship_shape(heldout: list[ClosureInstance]) -> None:
    for r in heldout:
        graph = _graph(r)
        indeg = in_degrees(graph)
        outdeg = np.bincount([u for u, _ in graph.edges], minlength=graph.n)
        assert indeg.max() <= 2 and outdeg.max() <= 3, r.id
        # answers stay triple-verified: the solver, Ein and Python agree again here
        task = CLOSURE_TASKS[r.category]
        v = verify(task, ClosureStructure(r.category, graph, tuple(r.anchors.items())))
        assert task.norm(r.answer_ids) == v.answer, r.id


def test_recorded_density_tracks_the_link_density(heldout: list[ClosureInstance]) -> None:
    pairs = np.array([(r.density, link_density(_graph(r))) for r in heldout])
    rho, actual = pairs[:, 0], pairs[:, 1]
    assert spearmanr(rho, actual).statistic > 0.25
    bins = np.digitize(rho, [0.2, 0.3, 0.4])
    means = [actual[bins == b].mean() for b in range(4)]
    assert all(a < b for a, b in itertools.pairwise(means)), means
    assert means[-1] - means[0] > 0.1, means


def test_kinship_complex_anchor_has_one_founder(heldout: list[ClosureInstance]) -> None:
    for r in heldout:
        if r.category == "kinship_complex":
            assert len(founders(_graph(r), r.anchors["X"])) == 1, r.id


def test_family_draws_three_to_five_generations_capped_by_n() -> None:
    lo, hi = GENERATIONS
    seen = {n: {family(rng(s, "gens", n), n, 0.3).generations for s in range(60)} for n in (4, 10)}
    assert seen[4] == {3, 4}
    assert seen[10] == set(range(lo, hi + 1))


def test_link_prob_is_the_share_of_allowed_further_links() -> None:
    def mean_density(p: float) -> float:
        return float(
            np.mean(
                [
                    link_density(kinship_dag(rng(s, "rho"), 12, generations=3, link_prob=p).graph)
                    for s in range(80)
                ]
            )
        )

    low, mid, high = mean_density(0.1), mean_density(0.3), mean_density(0.5)
    assert low < mid < high
    assert abs(mid - 0.3) < 0.08
    forest = kinship_dag(rng(0, "forest"), 12, generations=4, link_prob=0.0).graph
    assert in_degrees(forest).max() == 1
