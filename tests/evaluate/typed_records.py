"""Small typed instance records for harness tests (the runner takes typed records).

``closure_instance(id, question, answer)`` builds a valid
:class:`~closurebench.schema.ClosureInstance` around the fields a test cares about;
every other field gets a fixed, valid value. ``result(outcome, ...)`` does the same for a
:class:`~closurebench.schema.ResultRecord`, and ``results(rows)`` validates result rows
written as JSON objects.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from closurebench.schema import ClosureInstance, GritInstance, ResultRecord, parse_result


def result(outcome: str, **fields: Any) -> ResultRecord:
    """A result with ``outcome`` (id ``r`` and mode ``direct`` unless given; ``strict``
    and ``lenient`` as the outcome implies unless given)."""
    return ResultRecord.model_validate({"id": "r", "mode": "direct", "outcome": outcome, **fields})


def results(rows: Iterable[dict[str, Any]]) -> list[ResultRecord]:
    """Result rows (JSON objects, as a results file holds them) validated; a row without
    ``id`` or ``mode`` gets ``r<i>`` and ``direct``."""
    return [parse_result({"id": f"r{i}", "mode": "direct", **row}) for i, row in enumerate(rows)]


def closure_instance(
    id: str, question: str, answer: Any = 1, *, result_type: str = "integer", **fields: Any
) -> ClosureInstance:
    """A ClosureBench instance whose reply ``{"answer": <answer>}`` is strictly correct."""
    base: dict[str, Any] = {
        "id": id,
        "suite": "closure",
        "split": "heldout",
        "category": "count_reachable",
        "level": 1,
        "result_type": result_type,
        "n": 2,
        "density": 0.5,
        "structural_seed": 1,
        "surface_seed": 2,
        "label_pool": "letters",
        "labels": ["A", "B"],
        "domain": "generic",
        "style": "plain",
        "encoding": "nl",
        "question": question,
        "answer": answer,
        "answer_ids": answer,
        "alt_answer": None,
        "ambiguity": None,
        "graph": {"directed": True, "n": 2, "edges": [[0, 1]]},
        "graph2": None,
        "anchors": {"X": 0},
        "programs": {},
        "version": "0.1.0",
    }
    base.update(fields)
    return ClosureInstance.model_validate(base)


def grit_instance(id: str, question: str, answer: Any = "0", **fields: Any) -> GritInstance:
    """A GRIT instance (a two-node BFS view) with the fields a test overrides."""
    base: dict[str, Any] = {
        "id": id,
        "suite": "grit",
        "split": "test",
        "task": "bfs",
        "graph_id": "g",
        "view": "standard/canonical",
        "form": "standard",
        "naming": "canonical",
        "scenario": "s",
        "n": 2,
        "question": question,
        "answer": answer,
        "solution": [0, 1],
        "certificate": None,
        "graph": {"directed": False, "weighted": False, "n": 2, "edges": [[0, 1, 1]]},
        "names": ["0", "1"],
        "aliases": {},
        "params": {"source": 0},
        "seed": {"structure": 1, "surface": 2},
        "version": "0.1.0",
    }
    base.update(fields)
    return GritInstance.model_validate(base)
