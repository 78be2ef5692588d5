"""Scoring a GRIT response: ``<answer>``/``\\boxed{}``/JSON extraction, then the task's judge.

This module only extracts the answer value and dispatches: the judgement belongs to the
record's task class (:meth:`closurebench.tasks.grit.GritTask.judge`, found through
:data:`~closurebench.tasks.grit.GRIT_TASKS`). Names are mapped to node ids through the
record's ``names`` and ``aliases`` (exact first; then case- and whitespace-insensitive,
only when that match is unambiguous: :func:`resolve_name`). In short:

* value tasks (``shortest_path``, ``tsp``, ``vertex_cover``, ``graph_coloring``): a number is
  compared with the reference cost / size / colour count; a solution (path, tour, cover,
  colouring as ``{name: colour}``, as colour classes ``[[names], ...]`` or as a list of
  colours in node order) is checked with the exact checkers for validity *and* optimality,
  so any optimal solution is correct even when it differs from the stored one;
* ``bfs``: the order of names must be the stated one (strict); with ``lenient_bfs`` any
  valid BFS order is ``lenient_only`` (the spec's lenient mode);
* ``centrality``: the node (name, alias, or a one-element list of it).

A wrong value type (a string for a cost, an object for an order, a boolean anywhere) is a
``format_error``; a well-typed answer naming unknown nodes is ``wrong``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from closurebench.schema.enums import ExtractStatus, Outcome
from closurebench.scoring.extract import UNHOLDABLE, extract_answer, holdable
from closurebench.scoring.outcome import Score, safely
from closurebench.tasks.grit import get, resolve_name

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["resolve_name", "score_grit", "score_grit_value"]


def score_grit(
    record: GritInstance, response_text: str | None, *, lenient_bfs: bool = False
) -> Score:
    """Score one GRIT response against its instance record (see the module docstring).

    Args:
        record: The GRIT instance (its ``task`` picks the judge).
        response_text: The model's raw output (untrusted; never raises on it).
        lenient_bfs: Accept any valid BFS order as ``lenient_only`` (the lenient rule of
            the task; only BFS has one).

    Returns:
        The :class:`Score`.

    Raises:
        ConfigError: the record's task is not a registered GRIT task.
    """
    get(record.task)  # an unknown task is the record's error: raised, never scored
    return safely(_score_text, record, response_text, lenient_bfs)


def _score_text(record: GritInstance, response_text: str | None, lenient_bfs: bool) -> Score:
    got = extract_answer(response_text, grit=True)
    if got.status is not ExtractStatus.OK:
        return Score.fail(Outcome(got.status))
    return _score_value(record, got.value, lenient_bfs)


def score_grit_value(record: GritInstance, value: Any, *, lenient_bfs: bool = False) -> Score:
    """Score an already-extracted answer ``value`` (a number, names, a colouring...).

    What :func:`score_grit` does after extraction; a program mode scores a program's
    printed value with it. A value :func:`~closurebench.scoring.extract.holdable` rejects
    (a non-finite number, an integer too long to print, nesting deeper than
    :data:`~closurebench.scoring.extract.MAX_DEPTH`) is a ``format_error``; so is an
    unexpected exception (:func:`~closurebench.scoring.outcome.safely`).

    Raises:
        ConfigError: the record's task is not a registered GRIT task.
    """
    get(record.task)
    return safely(_score_value, record, value, lenient_bfs)


def _score_value(record: GritInstance, value: Any, lenient_bfs: bool) -> Score:
    task = get(record.task)
    if isinstance(value, bool) or value is None:
        return Score.fail(
            Outcome.FORMAT_ERROR, value, f"{value!r} is not an answer to a {task.name} question"
        )
    if not holdable(value):
        return Score.fail(Outcome.FORMAT_ERROR, None, UNHOLDABLE)
    judged = task.judge(record, value, lenient=lenient_bfs)
    if judged.malformed:
        return Score.fail(Outcome.FORMAT_ERROR, judged.value, judged.reason)
    return Score.decide(judged.strict, judged.lenient, judged.value, judged.reason)
