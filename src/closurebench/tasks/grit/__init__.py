"""The six GRIT tasks and their registry table :data:`GRIT_TASKS`.

Example:
    >>> list(GRIT_TASKS)
    ['shortest_path', 'graph_coloring', 'tsp', 'vertex_cover', 'bfs', 'centrality']
"""

from __future__ import annotations

from types import MappingProxyType

from closurebench.tasks.grit.base import (
    CheckError,
    GritTask,
    Resample,
    SampledInstance,
    Solved,
    VerificationError,
    sample_solved,
)
from closurebench.tasks.grit.bfs import BfsTask
from closurebench.tasks.grit.centrality import CentralityTask
from closurebench.tasks.grit.graph_coloring import GraphColoringTask
from closurebench.tasks.grit.shortest_path import ShortestPathTask
from closurebench.tasks.grit.tsp import TspTask
from closurebench.tasks.grit.vertex_cover import VertexCoverTask

__all__ = [
    "GRIT_TASKS",
    "CheckError",
    "GritTask",
    "Resample",
    "SampledInstance",
    "Solved",
    "VerificationError",
    "sample_solved",
]

#: The one table of GRIT tasks, in the spec's order.
GRIT_TASKS: MappingProxyType = MappingProxyType(
    {
        "shortest_path": ShortestPathTask(),
        "graph_coloring": GraphColoringTask(),
        "tsp": TspTask(),
        "vertex_cover": VertexCoverTask(),
        "bfs": BfsTask(),
        "centrality": CentralityTask(),
    }
)
