"""Naming schemes: unique, deterministic names; consistent aliases and listing order."""

from __future__ import annotations

import re

import pytest

from closurebench.errors import ConfigError
from closurebench.seeding import rng
from closurebench.surface.grit import scenarios
from closurebench.surface.grit.naming import NAMINGS, make_names

POOL = scenarios.get("cen_city_traffic_hubs").name_pool(60)


@pytest.mark.parametrize("scheme", NAMINGS)
@pytest.mark.parametrize("n", [1, 4, 17, 60])
def test_names_are_unique_deterministic_and_listed_by_rule(scheme: str, n: int) -> None:
    a = make_names(scheme, n, POOL, rng(3, scheme, n))
    assert a == make_names(scheme, n, POOL, rng(3, scheme, n))
    everything = [*a.names, *a.aliases]
    assert len({x.casefold() for x in everything}) == len(everything)
    assert sorted(a.listing) == list(range(n))
    assert set(a.aliases.values()) <= set(range(n))
    assert len(set(a.aliases.values())) == len(a.aliases), "one alias per aliased node"
    for x in everything:
        assert not any(bad in x for bad in (",", ".", ":", "'", "--", "->", " and "))
    listed = [a.names[i] for i in a.listing]
    if a.rule == "numeric":
        assert listed == sorted(listed, key=int)
    if a.rule == "alphabetical":
        assert listed == sorted(listed, key=str.casefold)


def test_scheme_specifics() -> None:
    assert make_names("canonical", 5, (), rng(0)).names == ("0", "1", "2", "3", "4")
    rand = make_names("random", 60, (), rng(1))
    assert all(1 <= int(x) <= 10000 for x in rand.names) and rand.numeric
    sem = make_names("semantic", 60, POOL, rng(2))
    assert set(sem.names) <= set(POOL) and not sem.aliases
    kinds = set()
    for seed in range(10):
        mixed = make_names("mixed", 30, POOL, rng(seed, "mixed"))
        assert mixed.aliases and mixed.rule == "listed" and not mixed.numeric
        for x in (*mixed.names, *mixed.aliases):
            kinds.add(
                "number" if x.isdigit()
                else "hex" if x.startswith("0x")
                else "hash" if re.fullmatch(r"n[0-9a-f]{4}", x)
                else "name" if x in POOL
                else "other"
            )  # fmt: skip
    assert kinds == {"number", "hex", "hash", "name", "other"}


def test_bad_requests_fail_clearly() -> None:
    with pytest.raises(ConfigError, match="not one of"):
        make_names("emoji", 3, POOL, rng(0))
    with pytest.raises(ConfigError, match="fewer than n=5"):
        make_names("semantic", 5, ("A", "B"), rng(0))
