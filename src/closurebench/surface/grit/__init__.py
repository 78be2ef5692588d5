"""GRIT text surface: scenarios, naming schemes, renderer and reader.

The structure type lives below this package (:mod:`closurebench.structures.grit`) and the
task facts in the task classes (:mod:`closurebench.tasks.grit`); ``GritStructure``,
``TASKS`` and ``CENTRALITIES`` are re-exported here for existing imports.

Example:
    >>> from closurebench.seeding import rng
    >>> s = GritStructure("vertex_cover", 3, False, False, [(0, 1), (1, 2)])
    >>> q = render(s, "vc_campus_patrols", "realistic", "mixed", rng(0))
    >>> certify(s, q)  # raises RoundTripError if the reader disagrees
    >>> read(q.question, "vertex_cover", q.scenario, q.names) == s
    True
"""

from closurebench.structures.grit import GritStructure
from closurebench.surface.grit.naming import NAMINGS, Naming, make_names
from closurebench.surface.grit.reader import (
    ReadError,
    ReadView,
    RoundTripError,
    certify,
    read,
    read_view,
)
from closurebench.surface.grit.render import FORMS, RenderedQuestion, render
from closurebench.surface.grit.scenarios import SCENARIOS, Scenario, in_distribution, ood
from closurebench.tasks.grit import CENTRALITIES, GRIT_TASKS

#: The GRIT task names, in registry order (a view of :data:`~closurebench.tasks.grit.GRIT_TASKS`).
TASKS: tuple[str, ...] = tuple(GRIT_TASKS)

__all__ = [
    "CENTRALITIES",
    "FORMS",
    "NAMINGS",
    "SCENARIOS",
    "TASKS",
    "GritStructure",
    "Naming",
    "ReadError",
    "ReadView",
    "RenderedQuestion",
    "RoundTripError",
    "Scenario",
    "certify",
    "in_distribution",
    "make_names",
    "ood",
    "read",
    "read_view",
    "render",
]
