"""ClosureBench Level 2 (chain): two primitives composed, in the spec's table order."""

from __future__ import annotations

from closurebench.tasks.closure.base import ClosureTask
from closurebench.tasks.closure.l2.degree_then_reach import DegreeThenReach
from closurebench.tasks.closure.l2.intersect_then_size import IntersectThenSize
from closurebench.tasks.closure.l2.kinship_chain import KinshipChain
from closurebench.tasks.closure.l2.path_and_compare import PathAndCompare
from closurebench.tasks.closure.l2.reach_then_count import ReachThenCount
from closurebench.tasks.closure.l2.reach_then_filter import ReachThenFilter
from closurebench.tasks.closure.l2.scc_then_count import SccThenCount
from closurebench.tasks.closure.l2.triangle_in_subgraph import TriangleInSubgraph

__all__ = [
    "L2_TASKS",
    "DegreeThenReach",
    "IntersectThenSize",
    "KinshipChain",
    "PathAndCompare",
    "ReachThenCount",
    "ReachThenFilter",
    "SccThenCount",
    "TriangleInSubgraph",
]

L2_TASKS: tuple[ClosureTask, ...] = (
    ReachThenCount(),
    ReachThenFilter(),
    KinshipChain(),
    TriangleInSubgraph(),
    PathAndCompare(),
    SccThenCount(),
    DegreeThenReach(),
    IntersectThenSize(),
)
