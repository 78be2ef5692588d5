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


# ----------------------------- issue 21, point 3: random IDs and mixed identifiers held out


def _drawn(held_out: bool, scheme: str, views: int) -> set[str]:
    from closurebench.seeding import rng
    from closurebench.surface.grit.naming import make_names

    out: set[str] = set()
    for v in range(views):
        nm = make_names(scheme, 40, (), rng(v, "held-out", scheme, int(held_out)), held_out)
        out |= {x.casefold() for x in (*nm.names, *nm.aliases)}
    return out


@pytest.mark.parametrize("scheme", ["random", "mixed"])
def test_held_out_formats_never_meet_the_in_distribution_ones(scheme: str) -> None:
    """Every format of one side, drawn 300 views deep, shares nothing with the other side's."""
    inside, outside = _drawn(False, scheme, 300), _drawn(True, scheme, 300)
    assert len(outside) > 5000 and len(inside) > 5000
    assert not inside & outside
    # The formats in distribution are unchanged; the held-out ones are really different.
    if scheme == "random":
        assert all(1 <= int(x) <= 10000 for x in inside)
        assert all(10001 <= int(x) <= 99999 for x in outside)


@pytest.mark.parametrize("seed", [0, 7])
def test_no_ood_identifier_appears_in_a_train_sample(seed: int) -> None:
    """The measurement issue 21 asks for, small: 0 OOD identifiers in train (canonical aside)."""
    train = generate_records(GritConfig(split="train", seed=seed, count=60, n_min=10))[0]
    out = generate_records(GritConfig(split="ood", seed=seed, count=24, n_max=20))[0]

    def ids(recs: list[GritInstance]) -> set[str]:
        return {
            x.casefold() for r in recs if r.naming != "canonical" for x in (*r.names, *r.aliases)
        }

    shared = ids(out) & ids(train)
    assert len(ids(out)) > 1000
    assert not shared, sorted(shared)[:10]
