"""GRIT text surface: structures, scenarios, naming schemes, renderer and reader.

Example:
    >>> from closurebench.seeding import rng
    >>> s = GritStructure("vertex_cover", 3, False, False, [(0, 1), (1, 2)])
    >>> q = render(s, "vc_campus_patrols", "realistic", "mixed", rng(0))
    >>> certify(s, q)  # raises RoundTripError if the reader disagrees
    >>> read(q.question, "vertex_cover", q.scenario, q.names) == s
    True
"""

from closurebench.surface.grit.naming import NAMINGS, Naming, make_names
from closurebench.surface.grit.query import CENTRALITIES, TASKS, GritStructure
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
