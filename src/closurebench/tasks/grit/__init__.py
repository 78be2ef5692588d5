"""The six GRIT tasks and their registry table :data:`GRIT_TASKS`.

Every task-specific behaviour (structure rules, sampling, solving, verification, the
wording hooks of its questions, the graph-tool problem the reference agent calls, the
NetworkX line of the reference program, the judgement of answers) is a method or
attribute of a :class:`GritTask` subclass; callers reach it only through this table (or
:func:`get`), so adding a task is one module plus one line here (and its scenario module
in :mod:`closurebench.surface.grit.scenarios`, named after the task, with its scenarios'
wording; a task whose query has a parameter that is not a node, or that states a
neighbour order, gives that wording there too, as a ``QueryWording``).

Example:
    >>> list(GRIT_TASKS)
    ['shortest_path', 'graph_coloring', 'tsp', 'vertex_cover', 'bfs', 'centrality']
    >>> get("tsp").complete, get("bfs").param_keys
    (True, ('source',))
"""

from __future__ import annotations

from closurebench.errors import ConfigError
from closurebench.tasks.grit.answers import Judgement, Rejected, resolve_name
from closurebench.tasks.grit.base import (
    AnswerForm,
    CheckError,
    GraphNote,
    GraphTrait,
    GritTask,
    Resample,
    SampledInstance,
    Solved,
    VerificationError,
    sample_solved,
)
from closurebench.tasks.grit.bfs import BfsTask
from closurebench.tasks.grit.centrality import CENTRALITIES, CentralityTask
from closurebench.tasks.grit.graph_coloring import GraphColoringTask
from closurebench.tasks.grit.shortest_path import ShortestPathTask
from closurebench.tasks.grit.tsp import TspTask
from closurebench.tasks.grit.vertex_cover import VertexCoverTask

__all__ = [
    "CENTRALITIES",
    "GRIT_TASKS",
    "AnswerForm",
    "CheckError",
    "GraphNote",
    "GraphTrait",
    "GritTask",
    "Judgement",
    "Rejected",
    "Resample",
    "SampledInstance",
    "Solved",
    "VerificationError",
    "get",
    "resolve_name",
    "sample_solved",
]

#: The one table of GRIT tasks, in the spec's order (name -> task). Every caller looks a
#: task up here at call time, so a task registered later (a test's toy) is seen everywhere.
GRIT_TASKS: dict[str, GritTask] = {
    t.name: t
    for t in (
        ShortestPathTask(),
        GraphColoringTask(),
        TspTask(),
        VertexCoverTask(),
        BfsTask(),
        CentralityTask(),
    )
}


def get(name: str) -> GritTask:
    """The registered task called ``name``.

    Raises:
        ConfigError: naming the unknown task and the known ones.

    Example:
        >>> get("centrality").defined_param
        'centrality'
        >>> get("pagerank")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: task 'pagerank' is not a GRIT task; use one of \
('shortest_path', 'graph_coloring', 'tsp', 'vertex_cover', 'bfs', 'centrality')
    """
    try:
        return GRIT_TASKS[name]
    except (KeyError, TypeError):
        raise ConfigError(
            f"task {name!r} is not a GRIT task; use one of {tuple(GRIT_TASKS)}"
        ) from None
