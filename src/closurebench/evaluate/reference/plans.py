"""The reference agent on ClosureBench questions (``--model reader``) runs each category's plan.

The agent reads the question with the independent reader
(:func:`closurebench.surface.closure.reader.read_closure`), then answers it the way a
tool-using model would: every graph fact comes from a graph-tool call on the graph it
read (descendants, ancestors, one-step successors/predecessors, out-degrees, SCCs,
reachability, triangles), one call per turn, and the agent only combines the tool's
results (set differences, counts, means, a branch). It is a fourth route to every
ClosureBench answer, independent of the graph core, the Ein program and the NetworkX
program that made it, so the reference agent scoring 100 % checks the tool and the
generator against each other.

Which calls to make and how to combine them is the category's own knowledge: its
:meth:`~closurebench.tasks.closure.base.ClosureTask.plan`, written against the plain
types of :mod:`closurebench.tasks.closure.plan` (a category sits below the reader and
the tool and imports neither). This module is the adapter between the two: it reads the
record into a :class:`~closurebench.tasks.closure.plan.Reading`, asks the category's
plan for the next step, and encodes the step's
:class:`~closurebench.tasks.closure.plan.Call` as the tool's JSON call
(:func:`closure_call`); the tool's results go back to the plan as they are. No table
here lists the categories: a new category's plan arrives with its module.

:func:`closure_step` is stateless: given the results of the calls made so far it gives
the next call, or the answer. The last call of every plan is on the question's (first)
graph, so the structure metrics judge the graph the agent read.

Example:
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> rec = generate_records(ClosureConfig(count=1, categories=("reach_then_count",)))[0]
    >>> step = closure_step(rec, [])
    >>> step.call["problem_type"], step.answer is None
    ('descendants', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from closurebench.errors import ConfigError
from closurebench.graphs import Graph
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.plan import Call, Reading

__all__ = ["Step", "closure_call", "closure_step"]


@dataclass(frozen=True)
class Step:
    """The next move: a tool ``call`` (the tool's JSON call), or the final ``answer``.

    Exactly one is set.
    """

    call: dict[str, Any] | None = None
    answer: Any = None


def closure_call(
    problem_type: str, graph: Graph, names: Sequence[str], **params: Any
) -> dict[str, Any]:
    """A tool call on ``graph`` with nodes named ``names`` (every node a key, listed order).

    Example:
        >>> call = closure_call("descendants", Graph(2, ((0, 1),)), ["a", "b"], node="a")
        >>> call["graph"]["data"], call["parameters"]
        ({'a': {'b': 1}, 'b': {}}, {'node': 'a'})
    """
    data: dict[str, dict[str, int]] = {name: {} for name in names}
    for u, v in graph.edges:
        data[names[u]][names[v]] = 1
    return {
        "problem_type": problem_type,
        "graph": {
            "type": "adjacency_list",
            "data": data,
            "directed": bool(graph.directed),
            "weighted": False,
        },
        "parameters": params,
    }


def _encode(q: Reading, call: Call, category: str) -> dict[str, Any]:
    """The tool's JSON call for a plan's ``call`` on the graph ``q`` read."""
    graph = q.structure.graph2 if call.second else q.structure.graph
    if graph is None:
        raise ConfigError(f"{category}: the plan asks about a second graph the question lacks")
    return closure_call(call.problem_type, graph, q.names, **call.params)


def closure_step(record: Any, results: Sequence[Any]) -> Step:
    """The reference agent's next step on a ClosureBench ``record``: its category's plan.

    Args:
        record: The instance (its question, category and labels are read).
        results: The :class:`~closurebench.tools.ToolResult` of each call made so far.

    Returns:
        The next tool call, or the answer.

    Raises:
        ReadError: if the question cannot be read as its category's
            (:class:`~closurebench.surface.closure.reader.ReadError`).
        ConfigError: if the category defines no plan.
    """
    from closurebench.surface.closure.reader import read_closure

    category = str(record.category)
    q = Reading(read_closure(str(record.question), category), tuple(str(x) for x in record.labels))
    step = CLOSURE_TASKS[category].plan(q, results)
    if step.call is None:
        return Step(answer=step.answer)
    return Step(call=_encode(q, step.call, category))
