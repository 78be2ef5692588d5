"""Chance baselines: a valid-typed random answer, and the train split's most common answer.

Both see only what a blind guesser may see: the question's result type (ClosureBench) or
task (GRIT), the entity names the question declares, the number of nodes and, for a
cost, the total edge weight (the largest a path or tour could cost). Neither sees the
graph's structure or the reference answer.

* :func:`random_answer`: uniform over the answer's type, seeded by the instance id (the
  same run gives the same guesses in any process): a yes/no a fair coin, a count uniform
  in ``0..n``, a mean uniform in ``[0, n]`` (two decimals), one entity uniform over the
  declared names, a set a uniform subset, an order a uniform permutation, a cost uniform
  in ``0..total weight``.
* :func:`majority_answer`: the most common answer of the category (task) in the train
  split of the same master seed, for values that mean the same in any instance
  (numbers, yes/no). Names do not carry over between instances, so for a set the most
  common train *size* ``k`` is answered with the first ``k`` declared entities, for one
  entity the first declared one, for an order the declared order. Ties go to the
  smallest value.

Example:
    >>> from types import SimpleNamespace as R
    >>> rec = R(suite="closure", id="x-1", result_type="boolean", labels=["a", "b"], n=2)
    >>> random_answer(rec) in (True, False)
    True
    >>> majority_of([3, 1, 3, 1, 2])
    1
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from closurebench.schema import ResultType
from closurebench.seeding import derive_seed

if TYPE_CHECKING:
    from closurebench.evaluate.modes.base import Mode

__all__ = [
    "MAJORITY_GRIT_GRAPHS",
    "chance_reply",
    "majority_answer",
    "majority_of",
    "random_answer",
]

#: Base graphs of the GRIT train sample the majority is taken over (8 questions each).
MAJORITY_GRIT_GRAPHS = 60


def _rng(record: Any) -> random.Random:
    return random.Random(derive_seed(0, "chance", str(record.id)))


def _names(record: Any) -> list[str]:
    return [str(x) for x in (record.labels if record.suite == "closure" else record.names)]


def _grit_form(record: Any) -> str:
    from closurebench.tasks.grit import GRIT_TASKS

    return str(GRIT_TASKS[str(record.task)].answer_form)


def _random_value(rtype: str, names: list[str], n: int, rng: random.Random) -> Any:
    if rtype == ResultType.BOOLEAN:
        return rng.random() < 0.5
    if rtype == ResultType.INTEGER:
        return rng.randint(0, n)
    if rtype == ResultType.FLOAT:
        return round(rng.uniform(0, n), 2)
    if rtype == ResultType.STRING:
        return rng.choice(names)
    if rtype == ResultType.SET:
        return [x for x in names if rng.random() < 0.5]
    raise ValueError(f"no random answer for result type {rtype!r}")


def _compound_keys(record: Any) -> dict[str, str]:
    from closurebench.tasks.closure import CLOSURE_TASKS

    return {k: str(v) for k, v in (CLOSURE_TASKS[str(record.category)].compound_keys or {}).items()}


def random_answer(record: Any) -> Any:
    """A uniform random answer of the record's type (see the module docstring)."""
    rng = _rng(record)
    names = _names(record)
    n = len(names)
    if record.suite == "grit":
        form = _grit_form(record)
        if form == "node":
            return rng.choice(names)
        if form == "order":
            order = names[:]
            rng.shuffle(order)
            return order
        total = sum(int(e[2]) for e in record.graph.edges) if record.graph.weighted else n
        return rng.randint(0, total)
    rtype = str(record.result_type)
    if rtype == ResultType.COMPOUND:
        return {
            k: _random_value(t, names, n, rng) for k, t in sorted(_compound_keys(record).items())
        }
    return _random_value(rtype, names, n, rng)


def majority_of(values: Iterable[Any]) -> Any:
    """The most common value (ties: the smallest, by its JSON text)."""
    counts = Counter(_key(v) for v in values)
    if not counts:
        return None
    top = max(counts.values())
    import json

    return json.loads(min(k for k, c in counts.items() if c == top))


def _key(value: Any) -> str:
    import json

    return json.dumps(value, sort_keys=True)


@functools.cache
def _closure_table(seed: int) -> dict[str, Any]:
    from closurebench.generate.closure import default_split_records

    by: dict[str, list[Any]] = {}
    for r in default_split_records("train", seed):
        by.setdefault(str(r.category), []).append(_structural(r.answer, str(r.result_type), r))
    return {cat: majority_of(vals) for cat, vals in by.items()}


@functools.cache
def _grit_table(seed: int) -> dict[str, Any]:
    from closurebench.generate.grit import GritConfig, generate_records

    train, _ = generate_records(GritConfig(split="train", seed=seed, count=MAJORITY_GRIT_GRAPHS))
    by: dict[str, list[Any]] = {}
    for r in train:
        if _grit_form(r) == "integer":
            by.setdefault(str(r.task), []).append(r.answer)
    return {task: majority_of(vals) for task, vals in by.items()}


def _structural(answer: Any, rtype: str, record: Any) -> Any:
    """An answer as what carries over between instances: sets by size, names dropped."""
    if rtype == ResultType.SET:
        return len(answer)
    if rtype == ResultType.STRING:
        return None
    if rtype == ResultType.COMPOUND:
        keys = _compound_keys(record)
        return {k: _structural(v, keys.get(k, ""), record) for k, v in answer.items()}
    return answer


def _from_structural(value: Any, rtype: str, names: Sequence[str], record: Any) -> Any:
    if rtype == ResultType.SET:
        return list(names[: int(value or 0)])
    if rtype == ResultType.STRING:
        return names[0] if names else ""
    if rtype == ResultType.COMPOUND and isinstance(value, dict):
        keys = _compound_keys(record)
        return {k: _from_structural(v, keys.get(k, ""), names, record) for k, v in value.items()}
    return value


def majority_answer(record: Any, seed: int = 0) -> Any:
    """The train split's most common answer for the record's category or task."""
    names = _names(record)
    if record.suite == "grit":
        form = _grit_form(record)
        if form == "node":
            return names[0]
        if form == "order":
            return names
        return _grit_table(seed).get(str(record.task), 0)
    rtype = str(record.result_type)
    value = _closure_table(seed).get(str(record.category))
    return _from_structural(value, rtype, names, record)


def chance_reply(record: Any, answer: Any, mode: Mode | str) -> str:
    """The reply text carrying ``answer`` in the form ``mode``'s prompt asks for.

    The form is the mode's own (:meth:`~closurebench.evaluate.modes.Mode.answer_reply`);
    a mode name is looked up in the mode table.

    Example:
        >>> from types import SimpleNamespace as R
        >>> rec = R(suite="closure")
        >>> chance_reply(rec, 3, "direct"), chance_reply(rec, 3, "agent")
        ('{"answer": 3}', '<answer>3</answer>')
    """
    if isinstance(mode, str):
        from closurebench.evaluate.modes import get_mode

        mode = get_mode(mode)
    return mode.answer_reply(record, answer)
