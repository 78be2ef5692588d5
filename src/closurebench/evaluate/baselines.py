"""Trivial answer-free baselines: the floor any model must beat.

:func:`trivial_reply` answers every question with a fixed, type-appropriate guess
chosen from the question's result type alone — it never sees the graph or the
reference answer: ``false`` for yes/no questions, ``1`` for counts, ``[]`` for sets,
the first node named in the question for "which node" questions, ``1.0`` for
averages, and an object of such guesses for compound answers (its keys from the
category's task); GRIT gets ``0``, or the first node named where the task's answer is
a node. On a balanced split the boolean categories score 50 %; the rest score
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
    >>> trivial_reply(Rec(suite="closure", result_type="compound", category="multi_query",
    ...                   question="q", node_names=[]))
    '{"answer": {"degree": 1, "reachable": false}}'
"""

from __future__ import annotations

import json
from typing import Any

from closurebench.schema import ClosureInstance, GritInstance, ResultType, Suite

__all__ = ["trivial_reply"]

_GUESS: dict[str, Any] = {
    ResultType.BOOLEAN: False,
    ResultType.INTEGER: 1,
    ResultType.FLOAT: 1.0,
    ResultType.SET: [],
}


def _first_named(record: ClosureInstance | GritInstance) -> str:
    labels = list(record.node_names)
    question = str(record.question)
    positions = [(question.find(lab), lab) for lab in labels if question.find(lab) >= 0]
    return min(positions)[1] if positions else (labels[0] if labels else "")


def trivial_reply(record: ClosureInstance | GritInstance) -> str:
    """The baseline's reply text for one typed instance record (see the module docstring)."""
    if record.suite == Suite.GRIT:
        from closurebench.tasks.grit import GRIT_TASKS
        from closurebench.tasks.grit.base import AnswerForm

        task = GRIT_TASKS[str(getattr(record, "task", ""))]
        guess = _first_named(record) if task.answer_form is AnswerForm.NODE else "0"
        return f"<answer>{guess}</answer>"
    rtype = str(getattr(record, "result_type", ""))
    if rtype == ResultType.COMPOUND:
        from closurebench.tasks.closure import CLOSURE_TASKS

        keys = CLOSURE_TASKS[str(getattr(record, "category", ""))].compound_keys or {}
        answer: Any = {key: _GUESS.get(kind, 0) for key, kind in sorted(keys.items())}
    elif rtype == ResultType.STRING:
        answer = _first_named(record)
    else:
        answer = _GUESS.get(rtype, 0)
    return json.dumps({"answer": answer}, ensure_ascii=False)
