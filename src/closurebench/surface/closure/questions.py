"""Question wording shared by render and read: frame vocabulary and answer forms.

A category's query sentence is its task's :attr:`~closurebench.tasks.closure.ClosureTask.template`
(the task states its conventions in words), or, for an ambiguous category asked with
``conventions="implicit"``, its ``implicit_template`` (the source-inclusion statement
left out, as in the paper); this module fills it with a frame's vocabulary
(:func:`vocabulary`; a do-question takes ``{does}`` and ``{inf}``, :func:`do_support`, so
a modal verb inverts: "How many hosts can A connect to directly?") and the anchors:
``{X}``, ``{Y}`` (node labels), ``{k}`` (threshold) and ``{k_nouns}`` (the node noun in
the number ``k`` asks for, :func:`k_nouns`). The answer form (:func:`answer_form`) may
follow the question (a generation knob; off by default). The reader matches the same
filled templates, so this module is the surface data shared by render and read.

Example:
    >>> from closurebench.surface.closure.frames import FRAMES
    >>> from closurebench.tasks.closure import CLOSURE_TASKS
    >>> v = vocabulary(FRAMES["fraud_detection"])
    >>> print(CLOSURE_TASKS["reach_then_count"].template.format(X="A", **v))
    How many accounts can A reach through a chain of payments, not counting A itself?
    >>> print(answer_form(CLOSURE_TASKS["reachability"]))
    Answer with a JSON object {"answer": true} or {"answer": false}.
"""

from __future__ import annotations

from closurebench.errors import ConfigError
from closurebench.schema.enums import ResultType
from closurebench.surface.closure.frames import Frame
from closurebench.tasks.closure import CLOSURE_TASKS, ClosureTask

__all__ = [
    "ANSWER_FORMS",
    "MODALS",
    "SECTIONS",
    "answer_form",
    "do_support",
    "k_nouns",
    "task_for",
    "vocabulary",
]

#: The answer form of each scalar result type (a compound form is built from its keys).
ANSWER_FORMS: dict[str, str] = {
    "integer": 'Answer with a JSON object {"answer": <number>}.',
    "float": 'Answer with a JSON object {"answer": <number>}.',
    "boolean": 'Answer with a JSON object {"answer": true} or {"answer": false}.',
    "set": (
        'Answer with a JSON object {"answer": [...]} holding the list of names '
        "(an empty list if there are none)."
    ),
    "string": 'Answer with a JSON object {"answer": "<name>"}.',
}

# How a compound answer form shows a member of each result type.
_MEMBER_FORMS: dict[str, str] = {
    "boolean": "true or false",
    "integer": "<number>",
    "float": "<number>",
    "set": "[...]",
    "string": '"<name>"',
}

# Section headers of a two-graph question (format with the frame's ``links``).
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
    does, inf = do_support(fwd[1])
    out = {
        "self": "" if frame.person else " itself",
        "noun": frame.noun,
        "nouns": frame.nouns,
        "links": frame.links,
        "sg": fwd[0],
        "base": fwd[1],
        "does": does,
        "inf": inf,
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


#: Modal verbs: a verb phrase starting with one is questioned by inversion ("can A
#: connect to"), never with "does" ("does A can connect to").
MODALS = ("can", "could", "will", "would", "should", "may", "might", "must")


def do_support(base: str) -> tuple[str, str]:
    """The auxiliary and the bare verb that question ``base`` with a singular subject.

    ``How many accounts {does} A {inf} directly?``: ``("does", base)`` for an ordinary
    verb; for a phrase led by a modal, the modal itself and the rest, so that the
    question inverts the modal instead of adding "does".

    Example:
        >>> do_support("pay"), do_support("can connect to")
        (('does', 'pay'), ('can', 'connect to'))
    """
    head, _, rest = base.partition(" ")
    if head in MODALS and rest:
        return head, rest
    return "does", base


def k_nouns(frame: Frame, k: int) -> str:
    """The node noun in the number ``k`` asks for (``1 other account``, ``2 other accounts``).

    Example:
        >>> from closurebench.surface.closure.frames import FRAMES
        >>> k_nouns(FRAMES["banking"], 1), k_nouns(FRAMES["banking"], 3)
        ('bank', 'banks')
    """
    return frame.noun if k == 1 else frame.nouns


def task_for(category: str) -> ClosureTask:
    """The registered task of ``category`` (its wording, result type and flags).

    Raises:
        ConfigError: naming the category and the registered ones.

    Example:
        >>> task_for("sibling").kinship
        True
    """
    task = CLOSURE_TASKS.get(category)
    if task is None:
        raise ConfigError(
            f"unknown closure category {category!r}; choose one of {', '.join(CLOSURE_TASKS)}"
        )
    return task


def answer_form(task: ClosureTask) -> str:
    """The sentence after the query that says how to answer ``task``'s question.

    A compound answer names the task's :attr:`~ClosureTask.compound_keys` in order.

    Example:
        >>> print(answer_form(task_for("multi_query")))
        Answer with a JSON object {"answer": {"reachable": true or false, "degree": <number>}}.
    """
    if task.result_type is ResultType.COMPOUND:
        members = ", ".join(
            f'"{key}": {_MEMBER_FORMS[rtype]}' for key, rtype in (task.compound_keys or {}).items()
        )
        return f'Answer with a JSON object {{"answer": {{{members}}}}}.'
    return ANSWER_FORMS[task.result_type]
