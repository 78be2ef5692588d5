"""The 26 ClosureBench categories, registered in one table (``docs/categories.md``).

``CLOSURE_TASKS`` maps each category name to its :class:`ClosureTask` instance, in
the spec's order: the 11 atomic (L1), 8 chain (L2) and 7 composition (L3) categories.
Each category's facts (result type, ambiguity class, anchors, query template, flags,
alternative-answer rule), its programs and its reference agent's plan
(:meth:`ClosureTask.plan`) live on its class in one module; adding a category is that
module plus one line in its level's tuple (and its tests). :class:`ClosureStructure` lives in
:mod:`closurebench.structures.closure` and is re-exported here.

Example:
    >>> len(CLOSURE_TASKS), [sum(t.level == lv for t in CLOSURE_TASKS.values()) for lv in (1, 2, 3)]
    (26, [11, 8, 7])
"""

from __future__ import annotations

from closurebench.structures.closure import ClosureStructure
from closurebench.tasks.closure.base import ClosureTask, Verified
from closurebench.tasks.closure.l1 import L1_TASKS
from closurebench.tasks.closure.l2 import L2_TASKS
from closurebench.tasks.closure.l3 import L3_TASKS

__all__ = ["CLOSURE_TASKS", "ClosureStructure", "ClosureTask", "Verified"]

CLOSURE_TASKS: dict[str, ClosureTask] = {t.name: t for t in (*L1_TASKS, *L2_TASKS, *L3_TASKS)}
