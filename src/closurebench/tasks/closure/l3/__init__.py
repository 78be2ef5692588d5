"""ClosureBench Level 3 (composition): several primitives in one question, spec table order."""

from __future__ import annotations

from closurebench.tasks.closure.base import ClosureTask
from closurebench.tasks.closure.l3.aggregate_over_set import AggregateOverSet
from closurebench.tasks.closure.l3.chain_of_filters import ChainOfFilters
from closurebench.tasks.closure.l3.conditional import Conditional
from closurebench.tasks.closure.l3.graph_comparison import GraphComparison
from closurebench.tasks.closure.l3.kinship_complex import KinshipComplex
from closurebench.tasks.closure.l3.mixed_domain import MixedDomain
from closurebench.tasks.closure.l3.multi_query import MultiQuery

__all__ = [
    "L3_TASKS",
    "AggregateOverSet",
    "ChainOfFilters",
    "Conditional",
    "GraphComparison",
    "KinshipComplex",
    "MixedDomain",
    "MultiQuery",
]

L3_TASKS: tuple[ClosureTask, ...] = (
    MultiQuery(),
    Conditional(),
    AggregateOverSet(),
    KinshipComplex(),
    GraphComparison(),
    ChainOfFilters(),
    MixedDomain(),
)
