"""Question sentences of the 26 ClosureBench categories, stating their conventions in words.

Each template is filled with a frame's vocabulary (:func:`vocabulary`) and the anchors:
``{X}``, ``{Y}`` (node labels), ``{k}`` (threshold) and ``{k_nouns}`` (the node noun in
the number ``k`` asks for). The answer form (:data:`ANSWER_FORMS`) follows the question.
The reader matches the same templates, so this module is data shared by render and read.

Example:
    >>> from closurebench.surface.closure.frames import FRAMES
    >>> v = vocabulary(FRAMES["fraud_detection"])
    >>> print(QUESTIONS["reach_then_count"].format(X="A", **v))
    How many accounts can A reach through a chain of payments, not counting A itself?
    >>> print(ANSWER_FORMS["boolean"])
    Answer with a JSON object {"answer": true} or {"answer": false}.
"""

from __future__ import annotations

from closurebench.surface.closure.frames import Frame

__all__ = [
    "ANSWER_FORMS",
    "CATEGORY_ANCHORS",
    "CATEGORY_RESULT_TYPES",
    "CONVENTIONS",
    "KINSHIP_CATEGORIES",
    "QUESTIONS",
    "UNDIRECTED_CATEGORIES",
    "k_nouns",
    "vocabulary",
]

CATEGORY_RESULT_TYPES: dict[str, str] = {
    "triangle_count": "integer", "reachability": "boolean", "negative_reach": "set",
    "degree_count": "integer", "max_degree": "string", "scc_same": "boolean",
    "set_intersect": "set", "set_difference": "set", "ancestor": "set", "sibling": "set",
    "cousin": "set", "reach_then_count": "integer", "reach_then_filter": "set",
    "kinship_chain": "set", "triangle_in_subgraph": "integer", "path_and_compare": "boolean",
    "scc_then_count": "integer", "degree_then_reach": "boolean",
    "intersect_then_size": "integer", "multi_query": "compound", "conditional": "integer",
    "aggregate_over_set": "float", "kinship_complex": "integer", "graph_comparison": "integer",
    "chain_of_filters": "set", "mixed_domain": "float",
}  # fmt: skip

CATEGORY_ANCHORS: dict[str, tuple[str, ...]] = {
    "triangle_count": (), "reachability": ("X", "Y"), "negative_reach": ("X",),
    "degree_count": ("X",), "max_degree": (), "scc_same": ("X", "Y"),
    "set_intersect": ("X", "Y"), "set_difference": ("X", "Y"), "ancestor": ("X",),
    "sibling": ("X",), "cousin": ("X",), "reach_then_count": ("X",),
    "reach_then_filter": ("X", "k"), "kinship_chain": ("X",), "triangle_in_subgraph": ("X",),
    "path_and_compare": ("X", "Y"), "scc_then_count": ("X",), "degree_then_reach": ("X",),
    "intersect_then_size": ("X", "Y"), "multi_query": ("X", "Y"), "conditional": ("X", "Y"),
    "aggregate_over_set": ("X",), "kinship_complex": ("X",), "graph_comparison": ("X",),
    "chain_of_filters": ("X", "Y", "k"), "mixed_domain": ("X",),
}  # fmt: skip

KINSHIP_CATEGORIES = frozenset(
    {"ancestor", "sibling", "cousin", "kinship_chain", "kinship_complex"}
)
UNDIRECTED_CATEGORIES = frozenset({"triangle_count", "triangle_in_subgraph"})

QUESTIONS: dict[str, str] = {
    "triangle_count": (
        "How many groups of three {nouns} are there in which every two of the three "
        "{und_base} each other? Count each group of three once."
    ),
    "reachability": "Can {X} reach {Y} {path}?",
    "negative_reach": "Which {nouns} can {X} not reach {path}? Do not include {X}{self}.",
    "degree_count": (
        "How many {nouns} does {X} {base} directly? Count only direct {links} from {X}, "
        "not longer chains."
    ),
    "max_degree": (
        "Which {noun} {sg} the largest number of other {nouns} directly? "
        "Count only direct {links}; exactly one {noun} has the largest number."
    ),
    "scc_same": (
        "Can {X} and {Y} each reach the other {path}, that is, can {X} reach {Y} "
        "and can {Y} also reach {X}?"
    ),
    "set_intersect": (
        "Which {nouns} can both {X} and {Y} reach {path}? Do not include {X} or {Y} themselves."
    ),
    "set_difference": (
        "Which {nouns} can {X} reach {path} that {Y} cannot reach? "
        "Do not include {X} or {Y} themselves."
    ),
    "ancestor": (
        "Which {nouns} are {X}'s {ancestors}, that is, {X}'s {parents}, their {parents}, "
        "and so on? Do not include {X}{self}."
    ),
    "sibling": (
        "Which {nouns} are {X}'s {siblings}, that is, share at least one {parent} with {X}? "
        "Do not include {X}{self}."
    ),
    "cousin": (
        "Which {nouns} are {X}'s {cousins}, that is, share at least one {grandparent} "
        "with {X} but no {parent} with {X}? Do not include {X}{self}."
    ),
    "reach_then_count": "How many {nouns} can {X} reach {path}, not counting {X}{self}?",
    "reach_then_filter": (
        "Which {nouns} that {X} can reach {path} {base} at least {k} other {k_nouns} "
        "directly? Do not include {X}{self}."
    ),
    "kinship_chain": (
        "Which {nouns} are {X}'s {grandchildren}, that is, {children} of {X}'s {children}?"
    ),
    "triangle_in_subgraph": (
        "Consider {X} together with every {noun} connected to {X} through a chain of "
        "{und_links}, {X}{self} included. Among these {nouns}, how many groups of three "
        "are there in which every two of the three {und_base} each other? "
        "Count each group of three once."
    ),
    "path_and_compare": (
        "Are both of these true: {X} can reach {Y} {path}, and {X} can reach strictly more "
        "{nouns} than {Y} can? When counting, do not count the starting {noun}."
    ),
    "scc_then_count": (
        "How many {nouns} are in {X}'s mutually reachable group, that is, {X} and every "
        "{noun} that {X} can reach {path} and that can also reach {X} back? "
        "Include {X}{self} in the count."
    ),
    "degree_then_reach": (
        "Consider the {noun} that {sg} the largest number of other {nouns} directly "
        "(exactly one {noun} does, and it is not {X}). Can that {noun} reach {X} {path}?"
    ),
    "intersect_then_size": (
        "How many {nouns} can both {X} and {Y} reach {path}, not counting {X} or {Y} themselves?"
    ),
    "multi_query": (
        "Answer two questions. First, can {X} reach {Y} {path}? Second, how many {nouns} "
        "does {X} {base} directly (direct {links} only)?"
    ),
    "conditional": (
        "If {X} can reach {Y} {path}, how many {nouns} can {X} reach in total, "
        "not counting {X}{self}? If {X} cannot reach {Y}, answer -1."
    ),
    "aggregate_over_set": (
        "Consider the {nouns} that {X} can reach {path}, not counting {X}{self}. "
        "On average, how many {nouns} does each of them {base} directly? "
        "Round to 2 decimal places."
    ),
    "kinship_complex": (
        "{X} has exactly one earliest ancestor, an ancestor with no {parents} listed. "
        "How many {nouns} belong to the lineage formed by that earliest ancestor and all "
        "of its descendants? Include the earliest ancestor in the count."
    ),
    "graph_comparison": (
        "How many {nouns} can {X} reach {path} this year that {X} could not reach "
        "last year? Do not count {X}{self}."
    ),
    "chain_of_filters": (
        "Which {nouns} meet all three conditions: {X} can reach them {path}; they {base} "
        "at least {k} other {k_nouns} directly; and they can reach {Y} {path}? "
        "Do not include {X} or {Y} themselves."
    ),
    "mixed_domain": (
        "Consider {X}'s mutually reachable group: {X}{self} included, and every {noun} "
        "that {X} can reach {path} and that can also reach {X} back. On average, how many "
        "{nouns} does a member of this group {base} directly? Round to 2 decimal places."
    ),
}

# Phrases (after filling) that state each category's convention; tests check them.
CONVENTIONS: dict[str, tuple[str, ...]] = {
    "triangle_count": ("each group of three once",),
    "reachability": ("reach",),
    "negative_reach": ("Do not include",),
    "degree_count": ("directly", "not longer chains"),
    "max_degree": ("exactly one",),
    "scc_same": ("each reach the other",),
    "set_intersect": ("Do not include", "themselves"),
    "set_difference": ("Do not include", "themselves"),
    "ancestor": ("Do not include",),
    "sibling": ("Do not include",),
    "cousin": ("but no", "Do not include"),
    "reach_then_count": ("not counting",),
    "reach_then_filter": ("at least", "Do not include"),
    "kinship_chain": ("of",),
    "triangle_in_subgraph": ("included", "each group of three once"),
    "path_and_compare": ("strictly more", "do not count the starting"),
    "scc_then_count": ("in the count",),
    "degree_then_reach": ("exactly one",),
    "intersect_then_size": ("not counting", "themselves"),
    "multi_query": ("First", "Second", "directly"),
    "conditional": ("not counting", "answer -1"),
    "aggregate_over_set": ("not counting", "2 decimal places"),
    "kinship_complex": ("in the count",),
    "graph_comparison": ("this year", "last year", "Do not count"),
    "chain_of_filters": ("at least", "Do not include", "themselves"),
    "mixed_domain": ("included", "2 decimal places"),
}

ANSWER_FORMS: dict[str, str] = {
    "integer": 'Answer with a JSON object {"answer": <number>}.',
    "float": 'Answer with a JSON object {"answer": <number>}.',
    "boolean": 'Answer with a JSON object {"answer": true} or {"answer": false}.',
    "set": (
        'Answer with a JSON object {"answer": [...]} holding the list of names '
        "(an empty list if there are none)."
    ),
    "string": 'Answer with a JSON object {"answer": "<name>"}.',
    "compound": (
        'Answer with a JSON object {"answer": {"reachable": true or false, "degree": <number>}}.'
    ),
}

# Section headers of graph_comparison (format with the frame's ``links``).
SECTIONS = ("Last year's {links}:", "This year's {links}:")


def vocabulary(frame: Frame, kinship: bool = False) -> dict[str, str]:
    """Template fields of ``frame`` (kinship vocabulary where the frame has one).

    Args:
        frame: The domain frame.
        kinship: Whether a kinship category asks (kept for callers; same fields).

    Example:
        >>> from closurebench.surface.closure.frames import FRAMES
        >>> vocabulary(FRAMES["academia"], kinship=True)["parents"]
        'advisors'
    """
    del kinship  # questions use the general verb; kinship templates use kin nouns only
    fwd = frame.fwd
    out = {
        "self": "" if frame.person else " itself",
        "noun": frame.noun,
        "nouns": frame.nouns,
        "links": frame.links,
        "sg": fwd[0],
        "base": fwd[1],
        "path": frame.path,
        "und_sg": frame.und[0],
        "und_base": frame.und[1],
        "und_links": frame.und_links,
    }
    if frame.kin is not None:
        kin = frame.kin
        out.update(
            parent=kin.parent, parents=kin.parents, children=kin.children,
            grandparent=kin.grandparent, ancestors=kin.ancestors, siblings=kin.siblings,
            cousins=kin.cousins, grandchildren=kin.grandchildren,
        )  # fmt: skip
    return out


def k_nouns(frame: Frame, k: int) -> str:
    """The node noun in the number ``k`` asks for (``1 other account``, ``2 other accounts``).

    Example:
        >>> from closurebench.surface.closure.frames import FRAMES
        >>> k_nouns(FRAMES["banking"], 1), k_nouns(FRAMES["banking"], 3)
        ('bank', 'banks')
    """
    return frame.noun if k == 1 else frame.nouns
