"""Trivial answer-free baselines: the floor any model must beat.

:func:`trivial_reply` answers every question with a fixed, type-appropriate guess
chosen from the question's result type alone — it never sees the graph or the
reference answer: ``false`` for yes/no questions, ``1`` for counts, ``[]`` for sets,
the first node named in the question for "which node" questions, ``1.0`` for
averages. On a balanced split the boolean categories score 50 %; the rest score
only when the guess happens to be right. The quickstart evaluates it, offline, to
exercise the whole harness; point ``closurebench eval`` at a real model instead.

Example:
    >>> trivial_reply({"suite": "closure", "result_type": "set", "question": "x"})
    '{"answer": []}'
    >>> trivial_reply({"suite": "closure", "result_type": "string", "labels": ["B", "A"],
    ...                "question": "There are 2 nodes: A, B."})
    '{"answer": "A"}'
    >>> trivial_reply({"suite": "grit", "task": "tsp", "question": "q"})
    '<answer>0</answer>'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["trivial_reply"]

_GUESS: dict[str, Any] = {
    "boolean": False,
    "integer": 1,
    "float": 1.0,
    "set": [],
    "compound": {"reachable": False, "degree": 1},
}


def _first_named(record: Mapping[str, Any]) -> str:
    labels = list(record.get("labels") or record.get("names") or [])
    question = str(record.get("question", ""))
    positions = [(question.find(lab), lab) for lab in labels if question.find(lab) >= 0]
    return min(positions)[1] if positions else (labels[0] if labels else "")


def trivial_reply(record: Mapping[str, Any]) -> str:
    """The baseline's reply text for one instance record (see the module docstring)."""
    if record.get("suite") == "grit":
        guess = _first_named(record) if record.get("task") == "centrality" else "0"
        return f"<answer>{guess}</answer>"
    rtype = str(record.get("result_type"))
    guess = _first_named(record) if rtype == "string" else _GUESS.get(rtype, 0)
    return json.dumps({"answer": guess}, ensure_ascii=False)
