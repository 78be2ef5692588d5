"""Choosing what to evaluate: filter by category/task, stratified sample, limit.

Example:
    >>> from types import SimpleNamespace as Rec
    >>> recs = [Rec(id=f"i{k}", stratum="a" if k % 2 else "b", category="a" if k % 2 else "b")
    ...         for k in range(6)]
    >>> [r.id for r in select_instances(recs, categories=["a"], limit=2)]
    ['i1', 'i3']
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from typing import Protocol, TypeVar

from closurebench.errors import ConfigError

_T = TypeVar("_T")

__all__ = ["draw_fewshot", "select_instances"]


class _Selectable(Protocol):
    """What :func:`select_instances` reads of an instance."""

    @property
    def id(self) -> str: ...

    @property
    def stratum(self) -> str: ...


_R = TypeVar("_R", bound=_Selectable)


def select_instances(
    records: Sequence[_R],
    *,
    categories: Sequence[str] | None = None,
    tasks: Sequence[str] | None = None,
    sample: int | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> list[_R]:
    """Filter, sample and limit instances (in that order), keeping file order.

    Args:
        records: Typed instance records.
        categories: Keep only these ClosureBench categories.
        tasks: Keep only these GRIT tasks.
        sample: Draw this many, stratified by category/task (round-robin over the
            strata in a seeded order, each stratum shuffled with the seed).
        limit: Keep the first ``limit`` after filtering and sampling.
        seed: Seed of the sample.

    Returns:
        The selected records.

    Raises:
        ConfigError: for a negative ``sample`` or ``limit``, or a filter matching nothing.
    """
    out = list(records)
    if categories:
        wanted = set(categories)
        out = [r for r in out if getattr(r, "category", None) in wanted]
    if tasks:
        wanted = set(tasks)
        out = [r for r in out if getattr(r, "task", None) in wanted]
    if (categories or tasks) and not out and records:
        raise ConfigError(
            f"no instance matches categories={list(categories or [])} "
            f"tasks={list(tasks or [])}; check the names against the dataset"
        )
    if sample is not None:
        if sample < 0:
            raise ConfigError(f"--sample must be >= 0, got {sample}")
        rng = random.Random(seed)
        groups: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(out):
            groups[str(r.stratum or "")].append(i)
        order = sorted(groups)
        rng.shuffle(order)
        for key in order:
            rng.shuffle(groups[key])
        picked: list[int] = []
        depth = 0
        while len(picked) < min(sample, len(out)):
            for key in order:
                if depth < len(groups[key]) and len(picked) < sample:
                    picked.append(groups[key][depth])
            depth += 1
        out = [out[i] for i in sorted(picked)]
    if limit is not None:
        if limit < 0:
            raise ConfigError(f"--limit must be >= 0, got {limit}")
        out = out[:limit]
    return out


def draw_fewshot(pool: Sequence[_T], evaluated: Sequence[object], k: int, seed: int) -> list[_T]:
    """``k`` few-shot examples from ``pool``, none of them among ``evaluated``.

    The pool is a dataset file apart from the evaluated one (the train split for a
    held-out evaluation). Examples of another suite than the evaluated instances', and
    any whose id or question the evaluated instances hold, are left out; the ``k`` are
    drawn without replacement by a seeded generator and kept in pool order, so the same
    files and seed give the same examples in any process.

    Raises:
        ConfigError: ``k`` below 1, evaluated instances of both suites, or fewer than
            ``k`` usable examples.

    Example:
        >>> from types import SimpleNamespace as Rec
        >>> pool = [Rec(id=f"p{i}", question=f"q{i}", suite="closure") for i in range(5)]
        >>> data = [Rec(id="d0", question="q1", suite="closure")]
        >>> [r.id for r in draw_fewshot(pool, data, 2, seed=0)] == [
        ...     r.id for r in draw_fewshot(pool, data, 2, seed=0)]
        True
        >>> "p1" in {r.id for r in draw_fewshot(pool, data, 4, seed=0)}
        False
    """
    from closurebench.seeding import rng

    if k < 1:
        raise ConfigError(f"--fewshot must be >= 1, got {k}")
    suites = {str(getattr(r, "suite", "")) for r in evaluated}
    if len(suites) != 1:
        raise ConfigError(
            "--fewshot needs instances of one suite; evaluate ClosureBench and GRIT apart"
        )
    ids = {str(getattr(r, "id", "")) for r in evaluated}
    questions = {str(getattr(r, "question", "")) for r in evaluated}
    usable = [
        r
        for r in pool
        if str(getattr(r, "suite", "")) in suites
        and str(getattr(r, "id", "")) not in ids
        and str(getattr(r, "question", "")) not in questions
    ]
    if len(usable) < k:
        raise ConfigError(
            f"--fewshot {k}: the --fewshot-from file has {len(usable)} usable example(s) "
            f"(of the {next(iter(suites))} suite, not among the evaluated instances); pass a "
            "larger file (e.g. the train split) or a smaller --fewshot"
        )
    picked = sorted(rng(seed, "fewshot").choice(len(usable), size=k, replace=False).tolist())
    return [usable[i] for i in picked]
