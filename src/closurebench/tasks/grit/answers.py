"""Reading a model's GRIT answer value, and the typed :class:`Judgement` a task returns.

An answer value (already extracted from the response text and decoded from JSON) names
nodes by their display names or aliases; :func:`resolve_name` maps one name to its node id
(exact first, then case- and whitespace-insensitive when that is unambiguous).
:func:`names_list` reads a list of names (a JSON list, or a string such as
``"A -> B -> C"`` or ``"A, B, C"``) and :func:`node_ids` maps them to ids. A value that
cannot be read is a :class:`Rejected` (malformed: a format error; otherwise wrong).

Each task's :meth:`~closurebench.tasks.grit.GritTask.judge` returns a :class:`Judgement`;
:func:`closurebench.scoring.grit.score_grit` turns it into a
:class:`~closurebench.scoring.outcome.Score`.

Example:
    >>> from types import SimpleNamespace
    >>> view = SimpleNamespace(names=["Oak", "Elm"], aliases={"Big Elm": 1})
    >>> names_list("Oak -> big elm")
    ['Oak', 'big elm']
    >>> node_ids(view, ["Oak", "big elm"]), node_ids(view, ["Ash"])
    ([0, 1], Rejected(reason="unknown node 'Ash'", malformed=False))
    >>> j = Judgement.correct_if(False, 3, "3 differs from the optimum 4")
    >>> j.strict, j.lenient, j.reason
    (False, False, '3 differs from the optimum 4')
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from closurebench.structures.grit import NodeNames

if TYPE_CHECKING:
    from closurebench.graphs.exact.check import Verdict

__all__ = [
    "Judgement",
    "NameResolver",
    "Rejected",
    "is_number",
    "names_list",
    "node_ids",
    "read_node_list",
    "resolve_name",
]

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Judgement:
    """A task's judgement of one extracted answer value.

    Attributes:
        strict: Correct under strict scoring.
        lenient: Correct under lenient scoring (``strict`` implies ``lenient``).
        value: The answer value as judged (a task may unwrap it, e.g. ``["A"]`` → ``"A"``).
        reason: Why it is not (strictly) correct; empty when it is.
        malformed: The value has the wrong shape for the task (a format error).
    """

    strict: bool
    lenient: bool
    value: Any
    reason: str = ""
    malformed: bool = False

    @classmethod
    def correct_if(cls, ok: bool, value: Any, reason: str = "") -> Judgement:
        """Strictly (and leniently) correct exactly when ``ok``; ``reason`` only when not."""
        return cls(ok, ok, value, "" if ok else reason)

    @classmethod
    def of_verdict(cls, verdict: Verdict, value: Any) -> Judgement:
        """The judgement of a checker's :class:`~closurebench.graphs.exact.check.Verdict`."""
        return cls(verdict.ok, verdict.ok, value, verdict.reason)

    @classmethod
    def format_error(cls, value: Any, reason: str) -> Judgement:
        """A value of the wrong shape for the task."""
        return cls(False, False, value, reason, malformed=True)


@dataclass(frozen=True)
class Rejected:
    """Why an answer value cannot be read as a solution.

    Attributes:
        reason: What is wrong (names the value).
        malformed: True when the value has the wrong shape (a format error); False when it
            is well-formed but wrong (e.g. it names a node the question does not have).
    """

    reason: str
    malformed: bool = False

    def judgement(self, value: Any) -> Judgement:
        """The judgement of ``value`` that was rejected for this reason."""
        if self.malformed:
            return Judgement.format_error(value, self.reason)
        return Judgement(False, False, value, self.reason)


def _norm(name: str) -> str:
    return _WS.sub(" ", name).strip().casefold()


def _name_tables(view: NodeNames) -> tuple[dict[str, int], dict[str, int | None]]:
    exact: dict[str, int] = {}
    loose: dict[str, int | None] = {}
    pairs = [(str(n), i) for i, n in enumerate(view.names or [])]
    pairs += [(str(a), int(i)) for a, i in (view.aliases or {}).items()]
    for name, node in pairs:
        exact.setdefault(name, node)
        key = _norm(name)
        if key in loose and loose[key] != node:
            loose[key] = None  # ambiguous under case/whitespace folding
        else:
            loose.setdefault(key, node)
    return exact, loose


class NameResolver:
    """:func:`resolve_name` for one view, its name tables built once (for many names).

    ``exact=True`` resolves only a name or alias exactly as the view writes it (an
    integer is read as its digits, so ``7`` is still the node named "7"): no trimming, no
    case or whitespace folding.

    Example:
        >>> from types import SimpleNamespace
        >>> view = SimpleNamespace(names=["Oak", "Elm"], aliases={"Big Elm": 1})
        >>> resolve = NameResolver(view)
        >>> resolve("elm"), resolve("Ash"), resolve("big elm")
        (1, None, 1)
        >>> exact = NameResolver(view, exact=True)
        >>> exact("Elm"), exact("elm"), exact(" Elm"), exact("Big Elm")
        (1, None, None, 1)
    """

    def __init__(self, view: NodeNames, *, exact: bool = False) -> None:
        self._exact, self._loose = _name_tables(view)
        self._only_exact = exact

    def __call__(self, name: Any) -> int | None:
        """The node id ``name`` stands for, or ``None`` (see :func:`resolve_name`)."""
        if isinstance(name, bool):
            return None
        if isinstance(name, float) and name.is_integer():
            name = int(name)
        if not isinstance(name, str | int):
            return None
        text = str(name)
        if text in self._exact:
            return self._exact[text]
        if self._only_exact:
            return None
        if text.strip() in self._exact:
            return self._exact[text.strip()]
        return self._loose.get(_norm(text))


def resolve_name(view: NodeNames, name: Any) -> int | None:
    """The node id a name (or alias) stands for in ``view``, or ``None``.

    Exact match first; then case/whitespace-insensitive if that is unambiguous.
    Integers are read as names (``7`` is the node *named* "7"). To resolve many names of
    one view, build one :class:`NameResolver` (this rebuilds the view's tables per call).

    Args:
        view: Anything with ``names`` and ``aliases`` (an instance record, a rendered view).
        name: The name as the model gave it.

    Example:
        >>> from types import SimpleNamespace
        >>> rec = SimpleNamespace(names=["Oak Road", "oak  road ", "Elm"], aliases={"Big Elm": 2})
        >>> [resolve_name(rec, x) for x in ("Oak Road", "ELM", "big elm", "OAK ROAD", 3)]
        [0, 2, 2, None, None]
    """
    return NameResolver(view)(name)


def names_list(value: Any) -> list[Any] | None:
    """A list of names from a JSON list or a separated string; ``None`` for other shapes.

    Example:
        >>> names_list("A -> B, C"), names_list(["A", 1]), names_list({"A": 1})
        (['A', 'B', 'C'], ['A', 1], None)
    """
    if isinstance(value, str):
        parts = re.split(r"->|→|⟶|[,;\n]", value)
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list | tuple):
        return list(value)
    return None


def node_ids(view: NodeNames | NameResolver, names: Sequence[Any]) -> list[int] | Rejected:
    """The node ids of ``names`` in order, or why one of them is unknown.

    ``view`` may be a :class:`NameResolver` already built for the view (linear time in
    ``names`` either way: the view's tables are built once).
    """
    resolve = view if isinstance(view, NameResolver) else NameResolver(view)
    out = []
    for name in names:
        node = resolve(name)
        if node is None:
            return Rejected(f"unknown node {name!r}")
        out.append(node)
    return out


def read_node_list(view: NodeNames, value: Any, expected: str) -> list[int] | Rejected:
    """A list of node ids from an answer value (path, tour, cover, order).

    Args:
        view: The names of the question's view.
        value: The answer value.
        expected: What the task expects, for the format-error reason.
    """
    names = names_list(value)
    if names is None:
        return Rejected(expected, malformed=True)
    return node_ids(view, names)


def is_number(value: Any) -> bool:
    """True for real numbers other than booleans.

    Example:
        >>> is_number(3.5), is_number(True), is_number("3")
        (True, False, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
