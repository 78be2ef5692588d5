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

__all__ = ["select_instances"]


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
