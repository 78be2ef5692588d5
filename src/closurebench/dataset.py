"""The procedural-dataset API that RL trainers plug into (reasoning-gym's shape).

``create_dataset(name, seed=..., size=..., **config)`` returns a sequence whose item
``i`` is regenerated on demand from ``(seed, i)`` alone — no file, no state — as a
dict with ``question``, ``answer`` (the reference as a canonical JSON string) and
``metadata`` (the full instance record as a plain JSON dict, ``ClosureInstance.to_json()``
or ``GritInstance.to_json()``); :meth:`ProceduralDataset.record` gives the typed record.

``score_answer(answer, entry)`` gives 1.0 when the answer is strictly correct for the
entry and 0.0 otherwise; it never raises on the answer. As in reasoning-gym, ``answer``
is an already-extracted answer string, so a bare JSON value (``3``, ``true``, ``["a"]``,
``{"degree": 2, "reachable": true}``) is the answer, and
``score_answer(entry["answer"], entry) == 1.0`` for every entry (``docs/categories.md``,
"Evaluation"). A model reply in the evaluation form (``{"answer": ...}``, alone or
embedded in text) is read too, and text that is no JSON at all is a bare string answer
(a node label). Strictness is the evaluation's own check:
:func:`~closurebench.scoring.score_closure_value` (Algorithm 1, strict mode).

``name`` is ``"closure"`` (all 26 categories, interleaved) or one category name, or
``"grit"`` (all 6 tasks) or ``"grit:<task>"`` (one task) for GRIT.
Item ``i`` is the ``i``-th record of the split its configuration names (``train`` by
default) up to the surface redraws a split makes to keep question texts distinct: the
same structures (so no structure of the default ``heldout`` split appears in a ``train``
dataset, and a category's most common answer stays at or under 40 %), the same
questions. ``answer_hints=True`` ends each question with its answer form (the paper's
questions carry none).

GRIT datasets are the split of ``ceil(size / 8)`` base graphs that
:class:`~closurebench.generate.grit.GritConfig` names (``split="train"`` by default, the
other fields as ``**config``): item ``i`` is view ``i % 8`` (forms x namings, the file's
order) of graph ``i // 8``, made by the split generator's own per-graph step, so it equals
the ``i``-th record of ``closurebench generate grit`` with the same arguments and
``--count ceil(size / 8)``, up to the redraws a split makes when a graph's structure
repeats an earlier graph's (only tiny graphs, n = 4, can). ``score_answer`` judges a GRIT
entry with the task's checker (:func:`~closurebench.scoring.score_grit_value`): the
answer string is a JSON value, an ``<answer>`` block, or names separated by commas.

Example:
    >>> ds = create_dataset("reach_then_count", seed=3, size=4)
    >>> item = ds[2]
    >>> item == create_dataset("reach_then_count", seed=3, size=4)[2]
    True
    >>> score_answer(item["answer"], item), score_answer("no idea", item)
    (1.0, 0.0)
    >>> score_answer('{"answer": ' + item["answer"] + '}', item["metadata"])
    1.0
    >>> grit = create_dataset("grit:bfs", seed=1, size=2)
    >>> grit.record(1).task, grit.record(1).view, score_answer(grit[1]["answer"], grit[1])
    ('bfs', 'standard/random', 1.0)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from closurebench.errors import ConfigError
from closurebench.schema.enums import ExtractStatus
from closurebench.scoring import extract_answer, parse_block, score_closure_value, score_grit_value

if TYPE_CHECKING:  # the generator (Ein, scipy) and pydantic load on first use, not on import
    from closurebench.generate.closure import ClosureConfig
    from closurebench.generate.grit import GritConfig
    from closurebench.schema.instances import ClosureInstance, GritInstance

__all__ = ["ProceduralDataset", "create_dataset", "score_answer"]

#: What :func:`score_answer` accepts as an entry.
Entry: TypeAlias = "Mapping[str, Any] | ClosureInstance | GritInstance"

#: Views of one GRIT base graph (2 forms x 4 namings): the items one graph gives.
GRIT_VIEWS = 8
#: GRIT graphs a dataset keeps generated (a graph's 8 views are consecutive items).
_GRIT_CACHE = 4


class ProceduralDataset(Sequence[dict[str, Any]]):
    """A fixed-size, lazily generated, index-addressable dataset (either suite).

    Attributes:
        name: The name it was created with (``"closure"``, a category, ``"grit"``,
            ``"grit:<task>"``).
        config: The split configuration items come from (``ClosureConfig`` or
            ``GritConfig``).
        size: Number of items.
    """

    def __init__(self, name: str, config: ClosureConfig | GritConfig, size: int) -> None:
        from closurebench.generate.closure import ClosureConfig, StructurePlan

        self.name = name
        self.config = config
        self.size = size
        if isinstance(config, ClosureConfig):
            self._categories = config.selected()
            self._plan = StructurePlan(config)
        else:
            from closurebench.generate.grit import plan

            self._jobs = plan(config)
            self._graphs: dict[int, list[GritInstance]] = {}

    def __len__(self) -> int:
        return self.size

    def _index(self, index: int) -> int:
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"dataset indices are ints, got {type(index).__name__}")
        if index < 0:
            index += self.size
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} out of range for a dataset of {self.size} items")
        return index

    def record(self, index: int) -> ClosureInstance | GritInstance:
        """The typed instance record of item ``index`` (what its ``metadata`` holds).

        Raises:
            TypeError: for an index that is not an int.
            IndexError: for an index out of range.
        """
        index = self._index(index)
        from closurebench.generate.closure import ClosureConfig, generate_instance

        if isinstance(self.config, ClosureConfig):
            cats = self._categories
            return _as_record(
                generate_instance(
                    self.config, cats[index % len(cats)], index // len(cats), plan=self._plan
                ),
                f"{self.name}[{index}]",
            )
        return self._grit_graph(index // GRIT_VIEWS)[index % GRIT_VIEWS]

    def _grit_graph(self, graph: int) -> list[GritInstance]:
        """The 8 views of GRIT graph ``graph`` (the last few graphs stay generated)."""
        from closurebench.generate.grit import generate_graph

        views = self._graphs.get(graph)
        if views is None:
            views = generate_graph(self._jobs[graph]).records
            if len(self._graphs) >= _GRIT_CACHE:
                self._graphs.pop(next(iter(self._graphs)))
            self._graphs[graph] = views
        return views

    def __getitem__(self, index: int) -> dict[str, Any]:  # type: ignore[override]
        record = self.record(index)
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
        name: ``"closure"`` or a category name; ``"grit"`` or ``"grit:<task>"``.
        seed: Master seed.
        size: Number of items.
        **config: Fields of :class:`~closurebench.generate.closure.ClosureConfig`
            (``split`` defaults to ``"train"``; ``n_min``, ``n_max``, ``density_min``,
            ``density_max``, ``levels``, ``encodings``, ``answer_hints``), or for GRIT of
            :class:`~closurebench.generate.grit.GritConfig` (``split`` defaults to
            ``"train"``; ``n_min``, ``n_max``, ``regime``, ``density_min``,
            ``density_max``, ``directed_share``, ``time_limit``, ``layout``; ``tasks``
            with ``"grit"`` only).

    Raises:
        ConfigError: for an unknown name or invalid configuration.

    Example:
        >>> create_dataset("grit:dfs")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: unknown dataset 'grit:dfs': no GRIT task 'dfs'; use 'grit' or 'grit:<task>' with a task of: shortest_path, graph_coloring, tsp, vertex_cover, bfs, centrality
    """  # noqa: E501
    from closurebench.generate.closure import ClosureConfig
    from closurebench.tasks.closure import CLOSURE_TASKS

    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ConfigError(f"size {size!r} must be a whole number, at least 1")
    if name == "grit" or name.startswith("grit:"):
        return _grit_dataset(name, seed, size, config)
    if name != "closure" and name not in CLOSURE_TASKS:
        raise ConfigError(
            f"unknown dataset {name!r}; use 'closure' or a category: {', '.join(CLOSURE_TASKS)}"
            "; or 'grit' or 'grit:<task>'"
        )
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


#: GritConfig fields a GRIT dataset does not take from ``**config`` (set from the name,
#: the seed and the size, or meaningless for items made one graph at a time).
_GRIT_FIXED = ("seed", "count", "workers")


def _grit_dataset(name: str, seed: int, size: int, config: dict[str, Any]) -> ProceduralDataset:
    """The GRIT procedural dataset ``name`` (``"grit"`` or ``"grit:<task>"``)."""
    from closurebench.generate.grit import GritConfig
    from closurebench.tasks.grit import GRIT_TASKS

    fields: dict[str, Any] = {"split": "train", **config}
    fixed = sorted(set(fields) & set(_GRIT_FIXED))
    if fixed:
        raise ConfigError(
            f"{name}: {', '.join(fixed)} cannot be set (the seed is create_dataset's, the "
            f"graphs are ceil(size / {GRIT_VIEWS}), items are made one graph at a time)"
        )
    if name != "grit":
        task = name.removeprefix("grit:")
        if task not in GRIT_TASKS:
            raise ConfigError(
                f"unknown dataset {name!r}: no GRIT task {task!r}; use 'grit' or "
                f"'grit:<task>' with a task of: {', '.join(GRIT_TASKS)}"
            )
        if "tasks" in fields:
            raise ConfigError(f"{name}: pass tasks only with name='grit'")
        fields["tasks"] = (task,)
    elif fields.get("tasks") is not None:
        fields["tasks"] = tuple(fields["tasks"])
    try:
        cfg = GritConfig(**fields, seed=seed, count=-(-size // GRIT_VIEWS))
    except TypeError as exc:
        raise ConfigError(f"unknown dataset option: {exc}") from None
    return ProceduralDataset(name, cfg, size)


def _as_instance(record: Entry, where: str) -> ClosureInstance | GritInstance:
    """``record`` as a typed instance of either suite (validated when it is a JSON dict).

    Raises:
        DatasetFileError: when the dict is not a valid instance (names ``where`` and the
            field).
    """
    from closurebench.schema.instances import ClosureInstance, GritInstance, parse_instance

    if isinstance(record, ClosureInstance | GritInstance):
        return record
    return parse_instance(record, where)


def _as_record(record: Entry, where: str) -> ClosureInstance:
    """``record`` as a typed ClosureBench instance (validated when it is a JSON dict).

    Raises:
        DatasetFileError: when the dict is not a valid instance (names ``where`` and the
            field).
        ConfigError: when it is a valid instance of another suite.
    """
    from closurebench.schema.instances import ClosureInstance

    parsed = _as_instance(record, where)
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


def _grit_value(answer: str) -> tuple[bool, Any]:
    """``(found, value)`` of an already-extracted GRIT answer string.

    A JSON value is the answer (an ``{"answer": ...}`` object gives its field); else an
    ``<answer>`` block or ``\\boxed{}`` in the text; else the text as an answer block
    reads it (names separated by commas or arrows, a bare name).

    Example:
        >>> _grit_value("7"), _grit_value("<answer>a, b</answer>"), _grit_value("Elm, Oak")
        ((True, 7), (True, ['a', 'b']), (True, ['Elm', 'Oak']))
        >>> _grit_value(' "Poplar Lane" '), _grit_value("Poplar Lane"), _grit_value("")
        ((True, 'Poplar Lane'), (True, 'Poplar Lane'), (False, None))
    """
    text = answer.strip()
    if not text:
        return False, None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        got = extract_answer(text, grit=True)
        if got.status is not ExtractStatus.OK:
            got = parse_block(text)
        return True, got.value if got.status is ExtractStatus.OK else text
    if isinstance(value, dict) and "answer" in value:
        return True, value["answer"]
    return True, value


def score_answer(answer: str | None, entry: Entry) -> float:
    """1.0 if ``answer`` is strictly correct for ``entry``, else 0.0 (never raises on it).

    Args:
        answer: The already-extracted answer string (see the module docstring), or
            ``None`` (no answer: 0.0).
        entry: An item of :func:`create_dataset`, or a raw instance record (its JSON
            dict, a :class:`~closurebench.schema.ClosureInstance` or a
            :class:`~closurebench.schema.GritInstance`).

    Raises:
        DatasetFileError: when ``entry`` is not a valid instance.
    """
    from closurebench.schema.instances import GritInstance

    meta = entry if not isinstance(entry, Mapping) else entry.get("metadata", entry)
    record = _as_instance(meta, "score_answer entry")
    if answer is None:
        return 0.0
    if isinstance(record, GritInstance):
        found, value = _grit_value(answer)
        return 1.0 if found and score_grit_value(record, value).strict else 0.0
    found, value = _answer_value(answer)
    if not found:
        return 0.0
    return 1.0 if score_closure_value(record, value).strict else 0.0
