"""ClosureBench Level 1 — the 11 atomic categories, in the spec's table order.

Example:
    >>> [t.name for t in L1_TASKS][:3], len(L1_TASKS)
    (['triangle_count', 'reachability', 'negative_reach'], 11)
"""

from __future__ import annotations

from closurebench.tasks.closure.base import ClosureTask
from closurebench.tasks.closure.l1.ancestor import Ancestor
from closurebench.tasks.closure.l1.cousin import Cousin
from closurebench.tasks.closure.l1.degree_count import DegreeCount
from closurebench.tasks.closure.l1.max_degree import MaxDegree
from closurebench.tasks.closure.l1.negative_reach import NegativeReach
from closurebench.tasks.closure.l1.reachability import Reachability
from closurebench.tasks.closure.l1.scc_same import SccSame
from closurebench.tasks.closure.l1.set_difference import SetDifference
from closurebench.tasks.closure.l1.set_intersect import SetIntersect
from closurebench.tasks.closure.l1.sibling import Sibling
from closurebench.tasks.closure.l1.triangle_count import TriangleCount

__all__ = [
    "L1_TASKS",
    "Ancestor",
    "Cousin",
    "DegreeCount",
    "MaxDegree",
    "NegativeReach",
    "Reachability",
    "SccSame",
    "SetDifference",
    "SetIntersect",
    "Sibling",
    "TriangleCount",
]

L1_TASKS: tuple[ClosureTask, ...] = (
    TriangleCount(),
    Reachability(),
    NegativeReach(),
    DegreeCount(),
    MaxDegree(),
    SccSame(),
    SetIntersect(),
    SetDifference(),
    Ancestor(),
    Sibling(),
    Cousin(),
)
