"""Issue 11, point 12: the OOD split uses identifiers unseen in the other splits (paper §5)."""

from __future__ import annotations

import pytest

from closurebench.generate.grit import GritConfig, generate_records
from closurebench.schema import GritInstance
from closurebench.surface.grit.scenarios import in_distribution, ood


def _pool_names(scenarios: tuple) -> set[str]:
    # 200 covers the pools' numbered extensions well beyond the largest split's n (60)
    return {name.casefold() for s in scenarios for name in s.name_pool(200)}


def test_ood_name_pools_are_disjoint_from_in_distribution_ones() -> None:
    """By construction: no name (or numbered variant) of an OOD pool is in another pool."""
    assert not _pool_names(ood()) & _pool_names(in_distribution())


@pytest.mark.parametrize("seed", [0, 7])
def test_no_ood_display_name_appears_in_the_test_split(seed: int) -> None:
    test = generate_records(GritConfig(split="test", seed=seed, count=24, n_max=16))[0]
    out = generate_records(GritConfig(split="ood", seed=seed, count=24, n_max=16))[0]
    seen = {x.casefold() for r in test for x in (*r.names, *r.aliases)}
    pools = _pool_names(ood())

    def semantic(r: GritInstance) -> set[str]:
        names = {x.casefold() for x in (*r.names, *r.aliases)}
        # semantic views: every name; mixed views: the names drawn from the pools
        return names if r.naming == "semantic" else names & pools

    ood_names = set().union(*(semantic(r) for r in out))
    assert len(ood_names) > 100  # the check covers many names, both forms
    assert {r.form for r in out if r.naming == "semantic"} == {"standard", "realistic"}
    assert not ood_names & seen
