"""The structure plan's reference keys are kept per process and change no record."""

from __future__ import annotations

import pytest

from closurebench.generate import closure
from closurebench.generate.closure import ClosureConfig, StructurePlan, generate_records
from closurebench.generate.io import canonical_json


@pytest.fixture
def empty_cache(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[object, ...], frozenset[str]]:
    cache: dict[tuple[object, ...], frozenset[str]] = {}
    monkeypatch.setattr(closure, "_REFERENCE_KEYS", cache)
    return cache


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, int]]:
    """Every structure drawn from now on, as (split, category, index)."""
    drawn: list[tuple[str, str, int]] = []
    real = StructurePlan._next

    def counted(self: StructurePlan, split: str, category: str, index: int, *a: object) -> object:
        drawn.append((split, category, index))
        return real(self, split, category, index, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(StructurePlan, "_next", counted)
    return drawn


def test_a_second_plan_reuses_the_higher_splits_keys(
    empty_cache: dict[tuple[object, ...], frozenset[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ClosureConfig(split="finetune", seed=11, count=4, categories=("reachability",))
    drawn = _counting(monkeypatch)
    first = generate_records(config)
    # The first plan drew heldout's and train's 50 reference structures, then its own 4.
    assert sorted({s for s, _, _ in drawn}) == ["finetune", "heldout", "train"]
    assert len(empty_cache) == 2
    drawn.clear()
    second = generate_records(config)
    assert {s for s, _, _ in drawn} == {"finetune"} and len(drawn) == 4
    assert [canonical_json(r.to_json()) for r in second] == [
        canonical_json(r.to_json()) for r in first
    ]
    # Another seed or range is another entry, never a reuse.
    drawn.clear()
    generate_records(ClosureConfig(split="finetune", seed=11, count=1, n_max=8,
                                   categories=("reachability",)))  # fmt: skip
    assert {s for s, _, _ in drawn} == {"finetune", "heldout", "train"}
    assert len(empty_cache) == 4


def test_the_cached_keys_are_the_ones_a_fresh_plan_draws(
    empty_cache: dict[tuple[object, ...], frozenset[str]],
) -> None:
    config = ClosureConfig(split="train", seed=5)
    for category in ("graph_comparison", "cousin"):
        cached = StructurePlan(config).reference_keys("heldout", category)
        assert len(cached) == closure.reference_count("heldout")
        # A plan given timings (a benchmark) never reads the cache: it draws them itself.
        fresh = StructurePlan(config, timings={}).reference_keys("heldout", category)
        assert fresh == cached
        # A plan that draws the heldout split itself leaves the same keys.
        empty_cache.clear()
        plan = StructurePlan(ClosureConfig(split="heldout", seed=5))
        for i in range(closure.reference_count("heldout")):
            plan.draw("heldout", category, i)
        assert list(empty_cache.values()) == [cached]


def test_the_cache_is_bounded(
    empty_cache: dict[tuple[object, ...], frozenset[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(closure, "_REFERENCE_KEYS_MAX", 3)
    for k in range(5):
        closure._remember_reference_keys((k,), frozenset({str(k)}))
    assert list(empty_cache) == [(2,), (3,), (4,)]
