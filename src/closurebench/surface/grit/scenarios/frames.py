"""Scenario-independent sentence frames of GRIT questions (data only).

Frames are templates with ``{slot}`` placeholders, filled from a scenario's vocabulary and
the instance. Both the renderer and the reader use these tables (the reader compiles them
into patterns); nothing here is code that either side depends on for its logic.

Slots:

* node references: ``{a}``, ``{b}`` (endpoints of an edge), ``{s}``, ``{t}`` (source and
  target), ``{alias}`` (an alias, always in single quotes where it is introduced);
* weights: ``{wt}`` (a weight with the scenario's unit, e.g. ``4 ms``), ``{w}`` (bare);
* query words: ``{kind}`` (centrality kind), ``{order}`` (a BFS order phrase below);
* declarations: ``{list}`` (names joined as "A, B, and C"), ``{n}``, ``{last}`` (``n - 1``);
* vocabulary: ``{node}``, ``{nodes}``, ``{a_node}`` (with its article: "an intersection"),
  ``{edge}``, ``{edges}``, ``{weight}``, ``{setting}``, ``{meaning}``, ``{adjacent}``; a
  capitalised slot name (``{Nodes}``) means the value with its first letter capitalised.

A template never starts with a node reference whose name could be altered by
capitalisation; numeric names are written as ``"<node> <number>"`` (``server 17``) and
that noun is capitalised at the start of a sentence.

Example:
    >>> sorted(BFS_ORDER)
    ['alphabetical', 'listed', 'numeric']
    >>> STANDARD_LINE[(True, True)]
    '{a} -> {b}: {wt}'
"""

from __future__ import annotations

__all__ = [
    "ALIAS_REALISTIC",
    "ALIAS_STANDARD",
    "BFS_ORDER",
    "DIRECTION_REALISTIC",
    "DIRECTION_STANDARD",
    "INSTRUCTION",
    "INTRO_IDS",
    "INTRO_NAMED",
    "INTRO_NUMBERED",
    "LIST_IDS",
    "LIST_NAMED",
    "LIST_NUMBERED",
    "PARAM_SLOT",
    "STANDARD_HEADER",
    "STANDARD_LINE",
    "TSP_NOTE_REALISTIC",
    "TSP_NOTE_STANDARD",
    "WEIGHT_STANDARD",
]

# -- node declarations ---------------------------------------------------------------
# Standard form: first sentence. Semantic and mixed names are listed; canonical names are
# 0..n-1 ("numbered"); random ids are listed as "IDs".
INTRO_NAMED = "{Setting} has {n} {nodes}: {list}."
INTRO_NUMBERED = "{Setting} has {n} {nodes}, numbered 0 to {last}."
INTRO_IDS = "{Setting} has {n} {nodes}, with the IDs {list}."

# Realistic form: one of these, after the opening.
LIST_NAMED = (
    "The {nodes} involved are {list}.",
    "There are {n} {nodes} to think about: {list}.",
    "For reference, the {nodes} are {list}.",
)
LIST_NUMBERED = (
    "There are {n} {nodes}, numbered 0 to {last}.",
    "We number the {nodes} from 0 to {last}.",
)
LIST_IDS = (
    "There are {n} {nodes}, with the IDs {list}.",
    "The {nodes} have the IDs {list}.",
)

# -- aliases (mixed naming) ---------------------------------------------------------------
ALIAS_STANDARD = ("Note: {a} is also referred to as '{alias}'.",)
ALIAS_REALISTIC = (
    "Keep in mind that {a} also goes by '{alias}'.",
    "Some of my notes call {a} '{alias}' instead.",
    "Note that {a} is sometimes called '{alias}'.",
)

# -- standard-form edge list -----------------------------------------------------------
STANDARD_HEADER = "Each line below describes {meaning}."
DIRECTION_STANDARD = {
    False: "{Edges} can be used in both directions.",
    True: "{Edges} are one-way: each goes from the {node} on the left to the {node} on the right.",
}
WEIGHT_STANDARD = "The value after each {edge} is its {weight}."
TSP_NOTE_STANDARD = "Every pair of {nodes} is listed once, and the {weight} is the same both ways."
STANDARD_LINE = {
    (False, False): "{a} -- {b}",
    (False, True): "{a} -- {b}: {wt}",
    (True, False): "{a} -> {b}",
    (True, True): "{a} -> {b}: {wt}",
}
"""Edge line by ``(directed, weighted)``."""

# -- realistic-form notes ----------------------------------------------------------------
DIRECTION_REALISTIC = {
    False: (
        "Every {edge} can be used in both directions.",
        "All of the {edges} work both ways.",
    ),
    True: (
        "Every {edge} is one-way, so it can only be used in the direction I give.",
        "All of the {edges} are one-way.",
    ),
}
TSP_NOTE_REALISTIC = (
    "Each {weight} is the same in both directions.",
    "It makes no difference which way round a pair is travelled.",
)

# -- BFS rule ----------------------------------------------------------------------------
BFS_ORDER = {
    "numeric": "in increasing order of their numbers",
    "alphabetical": (
        "in alphabetical order of their names (the order in which the {nodes} are listed above)"
    ),
    "listed": "in the order in which the {nodes} are listed above",
}
"""Tie-break phrase per rule: numeric ids, alphabetical names, or the listed order."""
# -- output format -------------------------------------------------------------------------
INSTRUCTION = {
    ("integer", False): "Give your answer as a single integer.",
    ("integer", True): "Give your answer as a single integer.",
    ("order", False): (
        "List the {nodes} in the order they are visited, separated by commas, using the names "
        "from the list above."
    ),
    (
        "order",
        True,
    ): "List the {nodes} in the order they are visited, as numbers separated by commas.",
    ("node", False): "Answer with the name of the {node} as it appears in the list above.",
    ("node", True): "Answer with the number of the {node}.",
}
"""Output instruction by ``(answer form, numeric_names)``; the form is the task's
:attr:`~closurebench.tasks.grit.GritTask.answer_form` (``integer``, ``order`` or ``node``)."""

# -- query parameters ----------------------------------------------------------------------
PARAM_SLOT = {"source": "s", "target": "t"}
"""The template slot that states each node parameter (a task's other query parameters name
theirs in its scenario module, :class:`~closurebench.surface.grit.scenarios.base.QueryWording`)."""
