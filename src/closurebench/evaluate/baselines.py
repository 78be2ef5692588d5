"""Trivial answer-free baselines: the floor any model must beat.

:func:`trivial_reply` answers every question with a fixed, type-appropriate guess
chosen from the question's result type alone — it never sees the graph or the
reference answer: ``false`` for yes/no questions, ``1`` for counts, ``[]`` for sets,
the first node named in the question for "which node" questions, ``1.0`` for
averages. On a balanced split the boolean categories score 50 %; the rest score
only when the guess happens to be right. The quickstart evaluates it, offline, to
exercise the whole harness; point ``closurebench eval`` at a real model instead.

Example:
    >>> from types import SimpleNamespace as Rec
    >>> trivial_reply(Rec(suite="closure", result_type="set", question="x", node_names=[]))
    '{"answer": []}'
    >>> trivial_reply(Rec(suite="closure", result_type="string", node_names=["B", "A"],
    ...                   question="There are 2 nodes: A, B."))
    '{"answer": "A"}'
    >>> trivial_reply(Rec(suite="grit", task="tsp", question="q", node_names=["x"]))
    '<answer>0</answer>'
"""

from __future__ import annotations

import json
from typing import Any

from closurebench.schema import ClosureInstance, GritInstance, Suite

__all__ = ["trivial_reply"]

_GUESS: dict[str, Any] = {
    "boolean": False,
    "integer": 1,
    "float": 1.0,
    "set": [],
    "compound": {"reachable": False, "degree": 1},
}


def _first_named(record: ClosureInstance | GritInstance) -> str:
    labels = list(record.node_names)
    question = str(record.question)
    positions = [(question.find(lab), lab) for lab in labels if question.find(lab) >= 0]
    return min(positions)[1] if positions else (labels[0] if labels else "")


def trivial_reply(record: ClosureInstance | GritInstance) -> str:
    """The baseline's reply text for one typed instance record (see the module docstring)."""
    if record.suite == Suite.GRIT:
        guess = _first_named(record) if getattr(record, "task", None) == "centrality" else "0"
        return f"<answer>{guess}</answer>"
    rtype = str(getattr(record, "result_type", ""))
    guess = _first_named(record) if rtype == "string" else _GUESS.get(rtype, 0)
    return json.dumps({"answer": guess}, ensure_ascii=False)
