"""The procedural-dataset API that RL trainers plug into (reasoning-gym's shape).

``create_dataset(name, seed=..., size=..., **config)`` returns a sequence whose item
``i`` is regenerated on demand from ``(seed, i)`` alone — no file, no state — as a
dict with ``question``, ``answer`` (the reference as a canonical JSON string) and
``metadata`` (the full instance record). ``score_answer(answer, entry)`` gives 1.0
when the answer text is strictly correct for the entry and 0.0 otherwise; it never
raises on malformed text.

``name`` is ``"closure"`` (all 26 categories, interleaved) or one category name.

Example:
    >>> ds = create_dataset("reach_then_count", seed=3, size=4)
    >>> item = ds[2]
    >>> item == create_dataset("reach_then_count", seed=3, size=4)[2]
    True
    >>> score_answer(item["answer"], item), score_answer("no idea", item)
    (1.0, 0.0)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from closurebench.errors import ConfigError
from closurebench.generate.closure import ClosureConfig, generate_instance
from closurebench.scoring import compare, extract_answer
from closurebench.tasks.closure import CLOSURE_TASKS

__all__ = ["ProceduralDataset", "create_dataset", "score_answer"]


class ProceduralDataset(Sequence[dict[str, Any]]):
    """A fixed-size, lazily generated, index-addressable dataset."""

    def __init__(self, name: str, config: ClosureConfig, size: int) -> None:
        self.name = name
        self.config = config
        self.size = size
        self._categories = config.selected()

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> dict[str, Any]:  # type: ignore[override]
        if not isinstance(index, int):
            raise TypeError(f"dataset indices are ints, got {type(index).__name__}")
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} out of range for a dataset of {self.size} items")
        cats = self._categories
        record = generate_instance(self.config, cats[index % len(cats)], index // len(cats))
        return {
            "question": record["question"],
            "answer": json.dumps(record["answer"], ensure_ascii=False, sort_keys=True),
            "metadata": record,
        }

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(self.size):
            yield self[i]

    def score_answer(self, answer: str | None, entry: Mapping[str, Any]) -> float:
        """Same as :func:`score_answer`."""
        return score_answer(answer, entry)


def create_dataset(
    name: str, *, seed: int = 0, size: int = 500, **config: Any
) -> ProceduralDataset:
    """A procedural dataset of ``size`` items (see the module docstring).

    Args:
        name: ``"closure"`` or a category name.
        seed: Master seed.
        size: Number of items.
        **config: Fields of :class:`~closurebench.generate.closure.ClosureConfig`
            (``split`` defaults to ``"train"``; ``n_min``, ``n_max``, ``density_min``,
            ``density_max``, ``levels``, ``encodings``).

    Raises:
        ConfigError: for an unknown name or invalid configuration.
    """
    if name != "closure" and name not in CLOSURE_TASKS:
        raise ConfigError(
            f"unknown dataset {name!r}; use 'closure' or a category: {', '.join(CLOSURE_TASKS)}"
        )
    if size < 1:
        raise ConfigError(f"size {size} must be at least 1")
    if "categories" in config and name != "closure":
        raise ConfigError("pass categories only with name='closure'")
    fields = {"split": "train", **config, "seed": seed}
    for tup in ("categories", "levels", "encodings"):
        if tup in fields and fields[tup] is not None:
            fields[tup] = tuple(fields[tup])
    if name != "closure":
        fields["categories"] = (name,)
    try:
        cfg = ClosureConfig(**fields)
    except TypeError as exc:
        raise ConfigError(f"unknown dataset option: {exc}") from None
    return ProceduralDataset(name, cfg, size)


def score_answer(answer: str | None, entry: Mapping[str, Any]) -> float:
    """1.0 if ``answer`` (model text) is strictly correct for ``entry``, else 0.0.

    ``entry`` is an item of :func:`create_dataset` or a raw instance record.
    """
    record = entry.get("metadata", entry)
    got = extract_answer(answer)
    if got.status != "ok":
        return 0.0
    return 1.0 if compare(record["result_type"], got.value, record["answer"]) else 0.0
