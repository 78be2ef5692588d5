"""The procedural-dataset API that RL trainers plug into (reasoning-gym's shape).

``create_dataset(name, seed=..., size=..., **config)`` returns a sequence whose item
``i`` is regenerated on demand from ``(seed, i)`` alone — no file, no state — as a
dict with ``question``, ``answer`` (the reference as a canonical JSON string) and
``metadata`` (the full instance record as a plain JSON dict, ``ClosureInstance.to_json()``).

``score_answer(answer, entry)`` gives 1.0 when the answer is strictly correct for the
entry and 0.0 otherwise; it never raises on the answer. As in reasoning-gym, ``answer``
is an already-extracted answer string, so a bare JSON value (``3``, ``true``, ``["a"]``,
``{"degree": 2, "reachable": true}``) is the answer, and
``score_answer(entry["answer"], entry) == 1.0`` for every entry (``spec/closurebench.md``,
"Evaluation"). A model reply in the evaluation form (``{"answer": ...}``, alone or
embedded in text) is read too, and text that is no JSON at all is a bare string answer
(a node label). Strictness is the evaluation's own check:
:func:`~closurebench.scoring.score_closure_value` (Algorithm 1, strict mode).

``name`` is ``"closure"`` (all 26 categories, interleaved) or one category name.
Item ``i`` is the ``i``-th record of the split its configuration names (``train`` by
default) up to the surface redraws a split makes to keep question texts distinct: the
same structures (so no structure of the default ``heldout`` split appears in a ``train``
dataset, and a category's most common answer stays at or under 40 %), the same
questions. ``answer_hints=True`` ends each question with its answer form (the paper's
questions carry none).

Example:
    >>> ds = create_dataset("reach_then_count", seed=3, size=4)
    >>> item = ds[2]
    >>> item == create_dataset("reach_then_count", seed=3, size=4)[2]
    True
    >>> score_answer(item["answer"], item), score_answer("no idea", item)
    (1.0, 0.0)
    >>> score_answer('{"answer": ' + item["answer"] + '}', item["metadata"])
    1.0
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from closurebench.errors import ConfigError
from closurebench.schema.enums import ExtractStatus
from closurebench.scoring import extract_answer, score_closure_value

if TYPE_CHECKING:  # the generator (Ein, scipy) and pydantic load on first use, not on import
    from closurebench.generate.closure import ClosureConfig
    from closurebench.schema.instances import ClosureInstance

__all__ = ["ProceduralDataset", "create_dataset", "score_answer"]

#: What :func:`score_answer` accepts as an entry.
Entry: TypeAlias = "Mapping[str, Any] | ClosureInstance"


class ProceduralDataset(Sequence[dict[str, Any]]):
    """A fixed-size, lazily generated, index-addressable dataset."""

    def __init__(self, name: str, config: ClosureConfig, size: int) -> None:
        self.name = name
        self.config = config
        self.size = size
        self._categories = config.selected()
        from closurebench.generate.closure import StructurePlan

        self._plan = StructurePlan(config)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> dict[str, Any]:  # type: ignore[override]
        if not isinstance(index, int):
            raise TypeError(f"dataset indices are ints, got {type(index).__name__}")
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} out of range for a dataset of {self.size} items")
        from closurebench.generate.closure import generate_instance

        cats = self._categories
        record = _as_record(
            generate_instance(
                self.config, cats[index % len(cats)], index // len(cats), plan=self._plan
            ),
            f"{self.name}[{index}]",
        )
        return {
            "question": record.question,
            "answer": json.dumps(record.answer, ensure_ascii=False, sort_keys=True),
            "metadata": record.to_json(),
        }

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for i in range(self.size):
            yield self[i]

    def score_answer(self, answer: str | None, entry: Entry) -> float:
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
            ``density_max``, ``levels``, ``encodings``, ``answer_hints``).

    Raises:
        ConfigError: for an unknown name or invalid configuration.
    """
    from closurebench.generate.closure import ClosureConfig
    from closurebench.tasks.closure import CLOSURE_TASKS

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


def _as_record(record: Entry, where: str) -> ClosureInstance:
    """``record`` as a typed ClosureBench instance (validated when it is a JSON dict).

    Raises:
        DatasetFileError: when the dict is not a valid instance (names ``where`` and the
            field).
        ConfigError: when it is a valid instance of another suite.
    """
    from closurebench.schema.instances import ClosureInstance, parse_instance

    if isinstance(record, ClosureInstance):
        return record
    parsed = parse_instance(record, where)
    if not isinstance(parsed, ClosureInstance):
        raise ConfigError(
            f"{where}: a {parsed.suite} instance is not a ClosureBench entry; score GRIT "
            "answers with closurebench.scoring.score_grit"
        )
    return parsed


def _answer_value(answer: str) -> tuple[bool, Any]:
    """``(found, value)`` of an already-extracted answer string.

    A JSON value is the answer (an object whose ``"answer"`` field holds it — the reply
    form — gives that field); text holding a ``{"answer": ...}`` object gives its value;
    other text is a bare string answer.

    Example:
        >>> _answer_value('3'), _answer_value('{"degree": 2}'), _answer_value('{"answer": [1]}')
        ((True, 3), (True, {'degree': 2}), (True, [1]))
        >>> _answer_value(' Alice '), _answer_value('so {"answer": true}.'), _answer_value(' ')
        ((True, 'Alice'), (True, True), (False, None))
    """
    text = answer.strip()
    if not text:
        return False, None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        got = extract_answer(text)
        if got.status is ExtractStatus.OK:
            return True, got.value
        return True, text
    if isinstance(value, dict) and "answer" in value:
        return True, value["answer"]
    return True, value


def score_answer(answer: str | None, entry: Entry) -> float:
    """1.0 if ``answer`` is strictly correct for ``entry``, else 0.0 (never raises on it).

    Args:
        answer: The already-extracted answer string (see the module docstring), or
            ``None`` (no answer: 0.0).
        entry: An item of :func:`create_dataset`, or a raw instance record (its JSON
            dict or a :class:`~closurebench.schema.ClosureInstance`).

    Raises:
        DatasetFileError: when ``entry`` is not a valid ClosureBench instance.
    """
    meta = entry if not isinstance(entry, Mapping) else entry.get("metadata", entry)
    record = _as_record(meta, "score_answer entry")
    if answer is None:
        return 0.0
    found, value = _answer_value(answer)
    if not found:
        return 0.0
    return 1.0 if score_closure_value(record, value).strict else 0.0
