"""Read a rendered ClosureBench question back into its structure; certify round trips.

Written independently of :mod:`~closurebench.surface.closure.render`: it shares only the
data (frames, answer forms, and the category task's template, anchors and flags) and
parses the text on its own:

1. paragraphs: the first declares the nodes ("There are 5 accounts: A, B, C, D, E.");
   the plural noun identifies the frame; node ``i`` is the ``i``-th declared label;
2. the last paragraph must match the category's question template in full, optionally
   followed by its answer form (questions generated with answer hints), a label slot
   matching exactly one declared label; it yields the task's anchors (``X``, ``Y``, ``k``).
   An ambiguous category's question may be worded either way (:data:`WORDINGS`): with
   its source-inclusion statement (``template``) or without it (``implicit_template``,
   the paper's wording); :func:`read_wording` says which, and ``conventions=`` accepts
   only one;
3. every paragraph in between holds a graph (headed "Last year's ...:" / "This year's
   ...:" for a two-graph task such as ``graph_comparison``): JSON lines, a ``|``-table, or sentences
   ``<labels> <verb> <labels>.`` where the verb is one of the frame's forward, reversed,
   synonym or mutual verbs; a sentence must parse exactly one way.

Anything unreadable, ambiguous or inconsistent raises :class:`ReadError`.

Example:
    >>> text = ("There are 3 accounts: A, B, C.\\n\\nA pays B and C. C is paid by B.\\n\\n"
    ...         "How many accounts can A reach through a chain of payments, not counting "
    ...         "A itself?")
    >>> s = read_closure(text, "reach_then_count")
    >>> s.graph.edges, s.anchors
    (((0, 1), (0, 2), (1, 2)), (('X', 0),))
    >>> hinted = text + ' Answer with a JSON object {"answer": <number>}.'
    >>> read_closure(hinted, "reach_then_count") == s
    True
    >>> implicit = text.removesuffix(", not counting A itself?") + "?"
    >>> read_closure(implicit, "reach_then_count") == s, read_wording(implicit, "reach_then_count")
    (True, 'implicit')
    >>> read_closure(implicit, "reach_then_count", conventions="explicit")
    Traceback (most recent call last):
    ...
    closurebench.surface.closure.reader.ReadError: query 'How many accounts can A reach \
through a chain of payments?' does not match the reach_then_count template (explicit wording)
"""

from __future__ import annotations

import json
import re

from closurebench.errors import ClosureBenchError
from closurebench.graphs import Graph
from closurebench.structures.closure import ClosureStructure
from closurebench.surface.closure.frames import FRAMES, Frame
from closurebench.surface.closure.questions import (
    SECTIONS,
    answer_form,
    vocabulary,
)
from closurebench.tasks.closure import CLOSURE_TASKS, ClosureTask
from closurebench.tasks.closure.base import WORDINGS, check_wording

__all__ = ["ReadError", "RoundTripError", "certify", "read_closure", "read_wording"]


class ReadError(ClosureBenchError, ValueError):
    """The text could not be read as a ClosureBench question of the given category."""


class RoundTripError(ClosureBenchError):
    """Reading a rendered question did not recover exactly the rendered structure."""


_DECL = re.compile(r"There are (\d+) ([^:]+): (.*?)\.(?: |$)")


def _labels_list(text: str, known: dict[str, int]) -> list[int] | None:
    """Node ids of an English list of labels (``A``, ``A and B``, ``A, B, and C``)."""
    text = text.strip()
    if text in known:
        return [known[text]]
    if ", and " in text:
        head, last = text.rsplit(", and ", 1)
        items = [*head.split(", "), last]
        if len(items) < 3:
            return None
    else:
        items = text.split(" and ")
        if len(items) != 2:
            return None
    if not all(x in known for x in items):
        return None
    return [known[x] for x in items]


def _verbs(frame: Frame, kinship: bool, undirected: bool) -> list[tuple[str, bool]]:
    """(verb phrase, reversed?) pairs a graph sentence of this frame may use."""
    if undirected:
        table = [(frame.und, False)]
    elif kinship and frame.kin is not None:
        table = [(frame.kin.fwd, False), (frame.kin.rev, True)]
        table += [(s, False) for s in frame.kin.syns]
    else:
        table = [(frame.fwd, False), (frame.rev, True)] + [(s, False) for s in frame.syns]
    out = {(form, rev) for verb, rev in table for form in verb}
    return sorted(out, key=lambda p: (-len(p[0]), p[0], p[1]))


def _sentence(s: str, known: dict[str, int], verbs: list[tuple[str, bool]]) -> set[tuple]:
    """Edges stated by one sentence; raises :class:`ReadError` unless exactly one parse."""
    parses = set()
    for verb, rev in verbs:
        needle = f" {verb} "
        start = s.find(needle)
        while start >= 0:
            left = _labels_list(s[:start], known)
            right = _labels_list(s[start + len(needle) :], known)
            if left is not None and right is not None:
                if len(left) != 1 and len(right) != 1:
                    pass
                else:
                    pairs = {(b, a) if rev else (a, b) for a in left for b in right}
                    parses.add(frozenset(pairs))
            start = s.find(needle, start + 1)
    if len(parses) != 1:
        kind = "no" if not parses else "more than one"
        raise ReadError(f"sentence {s!r} has {kind} reading as an edge statement")
    return set(next(iter(parses)))


def _graph(
    body: str, labels: list[str], verbs: list[tuple[str, bool]], empty: str
) -> list[tuple[int, int]]:
    """Edges of one graph paragraph body (JSON line, ``|`` table or sentences)."""
    known = {x: i for i, x in enumerate(labels)}
    body = body.strip()
    edges: list[tuple[int, int]] = []
    if body.startswith("{"):
        data = json.loads(body)
        if data.get("nodes") != labels:
            raise ReadError(f"JSON nodes {data.get('nodes')} differ from declared {labels}")
        for pair in data["edges"]:
            if len(pair) != 2 or pair[0] not in known or pair[1] not in known:
                raise ReadError(f"JSON edge {pair!r} names an undeclared node")
            edges.append((known[pair[0]], known[pair[1]]))
        return edges
    if body.startswith("|"):
        rows = [
            [c.strip() for c in line.strip().strip("|").split("|")] for line in body.split("\n")
        ]
        if rows[0][1:] != labels or [r[0] for r in rows[1:]] != labels:
            raise ReadError("matrix header or row labels differ from the declared nodes")
        for i, row in enumerate(rows[1:]):
            if len(row) != len(labels) + 1 or any(c not in ("0", "1") for c in row[1:]):
                raise ReadError(f"matrix row {row!r} is not {len(labels)} entries of 0/1")
            edges += [(i, j) for j, c in enumerate(row[1:]) if c == "1"]
        return edges
    if body == empty:
        return edges
    for s in (x.strip() for x in body.split(".")):
        if s:
            edges += sorted(_sentence(s, known, verbs))
    return edges


_SLOT = re.compile(r"@@(\w+)@@")


def _query_parts(task: ClosureTask, vocab: dict[str, str], template: str) -> list[str]:
    """The task's filled ``template`` as ``[text, slot, text, ..., slot, text]``.

    Slots are the task's anchors: ``k`` (digits), any other (one declared label), and
    ``kn`` (the frame's plural or singular noun) where ``k`` is one of them.

    Raises:
        ReadError: when the template names a field that is neither vocabulary nor one
            of the task's anchors (a task definition bug).
    """
    marks = {name: f"@@{name}@@" for name in task.anchor_names}
    if "k" in task.anchor_names:
        marks["k_nouns"] = "@@kn@@"
    try:
        filled = template.format(**vocab, **marks)
    except KeyError as exc:
        raise ReadError(
            f"{task.name}: the template names {exc.args[0]!r}, which is neither frame "
            f"vocabulary nor one of its anchors {list(task.anchor_names)}; add it to "
            "anchor_names or fix the template"
        ) from None
    return _SLOT.split(filled)


def _match_query(
    parts: list[str], text: str, labels: list[str], frame: Frame
) -> dict[str, str] | None:
    """Full match of ``text`` against :func:`_query_parts`, or ``None``.

    A backtracking matcher with exactly the semantics of the regular expression
    ``text (?P<X>L1|L2|...) text (?P=X) ... (?P<k>\\d+) ... (?:nouns|noun) text``: a
    label slot tries the declared labels longest first (ties in string order), a
    repeated slot must repeat its first value, ``k`` takes the longest run of digits
    first, the noun slot tries the plural first; the first full match wins. (Compiling
    that expression anew for every question's labels was most of the reader's time.)
    """
    alts = sorted(labels, key=lambda x: (-len(x), x))
    nouns = (frame.nouns, frame.noun)
    end = len(text)
    last = len(parts) - 1

    def step(i: int, pos: int, bound: dict[str, str]) -> dict[str, str] | None:
        lit = parts[i]
        if not text.startswith(lit, pos):
            return None
        pos += len(lit)
        if i == last:
            return bound if pos == end else None
        name = parts[i + 1]
        if name == "kn":
            candidates: list[str] | tuple[str, ...] = nouns
        elif name in bound:
            candidates = (bound[name],)
        elif name == "k":
            stop = pos
            while stop < end and text[stop].isdecimal():
                stop += 1
            candidates = [text[pos:j] for j in range(stop, pos, -1)]
        else:
            candidates = alts
        for value in candidates:
            if text.startswith(value, pos):
                got = step(
                    i + 2,
                    pos + len(value),
                    bound if name == "kn" or name in bound else {**bound, name: value},
                )
                if got is not None:
                    return got
        return None

    return step(0, 0, {})


def read_closure(
    question: str, category: str, *, conventions: str | None = None
) -> ClosureStructure:
    """Recover the :class:`ClosureStructure` stated by ``question``.

    Args:
        question: The full rendered text.
        category: The category it asks.
        conventions: Accept only this wording of the query (``"explicit"`` or
            ``"implicit"``, :data:`WORDINGS`); ``None`` accepts either.

    Raises:
        ReadError: when the text cannot be read unambiguously (or not in the wording
            asked for).
        ConfigError: for an unknown ``conventions``.
    """
    return _read(question, category, conventions)[0]


def read_wording(question: str, category: str) -> str:
    """The wording ``question``'s query is in: ``"explicit"`` or ``"implicit"``.

    A category with one reading has one template, read as ``"explicit"``.

    Raises:
        ReadError: when the text cannot be read as a ``category`` question.

    Example:
        >>> text = ("There are 2 accounts: A, B.\\n\\nA pays B.\\n\\n"
        ...         "Which accounts can A not reach through a chain of payments?")
        >>> read_wording(text, "negative_reach")
        'implicit'
    """
    return _read(question, category, None)[1]


def _read(question: str, category: str, conventions: str | None) -> tuple[ClosureStructure, str]:
    """The structure ``question`` states and the wording its query matched."""
    wordings = WORDINGS if conventions is None else (check_wording(conventions),)
    task = CLOSURE_TASKS.get(category)
    if task is None:
        raise ReadError(
            f"unknown closure category {category!r}; choose one of {', '.join(CLOSURE_TASKS)}"
        )
    paras = [p for p in question.split("\n\n") if p.strip()]
    if len(paras) < 3:
        raise ReadError(f"expected >= 3 paragraphs, found {len(paras)}")
    m = _DECL.match(paras[0])
    if m is None:
        raise ReadError(f"no node declaration at the start: {paras[0][:80]!r}")
    n, nouns = int(m.group(1)), m.group(2)
    labels = m.group(3).split(", ")
    if len(labels) != n or len(set(labels)) != n:
        raise ReadError(f"declared {n} {nouns} but listed {labels}")
    frames = [f for f in FRAMES.values() if f.nouns == nouns]
    if len(frames) != 1:
        raise ReadError(f"node noun {nouns!r} names {len(frames)} frames")
    frame = frames[0]
    kinship = task.kinship
    undirected = not task.directed
    verbs = _verbs(frame, kinship, undirected)
    links = frame.und_links if undirected else frame.links

    graphs: list[list[tuple[int, int]]] = []
    comparison = task.two_graphs
    for i, para in enumerate(paras[1:-1]):
        if comparison:
            head = SECTIONS[i].format(links=links) if i < 2 else "\0"
            if not para.startswith(head):
                raise ReadError(f"graph section {i} does not start with {head!r}")
            para = para[len(head) :]
        graphs.append(_graph(para, labels, verbs, f"There are no {links}."))
    if len(graphs) != (2 if comparison else 1):
        raise ReadError(f"found {len(graphs)} graph sections for {category}")

    vocab = vocabulary(frame, kinship)
    templates: dict[str, str] = {}  # wording -> template; one entry per distinct template
    for wording in wordings:
        template = task.question_template(wording)
        if template not in templates.values():
            templates[wording] = template
    q: dict[str, str] | None = None
    matched = ""
    for wording, template in templates.items():
        parts = _query_parts(task, vocab, template)
        q = _match_query(parts, paras[-1], labels, frame)
        if q is None:  # the question may end with the category's answer form (a hint)
            q = _match_query(
                [*parts[:-1], f"{parts[-1]} {answer_form(task)}"], paras[-1], labels, frame
            )
        if q is not None:
            matched = wording
            break
    if q is None:
        raise ReadError(
            f"query {paras[-1]!r} does not match the {category} template "
            f"({' or '.join(templates)} wording)"
        )
    if sorted(q) != sorted(task.anchor_names):
        raise ReadError(
            f"{category}: the query states the anchors {sorted(q)}, not the task's "
            f"{list(task.anchor_names)}"
        )
    known = {x: i for i, x in enumerate(labels)}
    anchors = tuple(
        (name, int(value) if name == "k" else known[value]) for name, value in q.items()
    )

    def build(edges: list[tuple[int, int]]) -> Graph:
        if undirected:
            edges = sorted({(min(e), max(e)) for e in edges})
        elif len(set(edges)) != len(edges):
            raise ReadError(f"an edge is stated twice in {edges}")
        return Graph(n, edges, directed=not undirected)

    structure = ClosureStructure(
        category=category,
        graph=build(graphs[0]),
        anchors=anchors,
        graph2=build(graphs[1]) if comparison else None,
    )
    return structure, matched


def certify(structure: ClosureStructure, rendered: object) -> None:
    """Raise :class:`RoundTripError` unless reading ``rendered`` gives back ``structure``.

    The question must read back in the wording it was rendered in (``rendered``'s
    ``conventions``; ``"explicit"`` when it has none).

    Args:
        structure: The structure that was rendered.
        rendered: A :class:`~closurebench.surface.closure.render.RenderedClosure` (or
            anything with ``question`` and ``labels``, optionally ``conventions``).

    Raises:
        RoundTripError: naming the first difference (or the read error).
    """
    text: str = rendered.question  # type: ignore[attr-defined]
    wording = str(getattr(rendered, "conventions", "explicit"))
    try:
        got = read_closure(text, structure.category, conventions=wording)
    except ReadError as exc:
        raise RoundTripError(f"{structure.category}: cannot read back: {exc}") from exc
    for what, a, b in (
        ("labels", tuple(getattr(rendered, "labels", ())), None),
        ("graph.n", structure.graph.n, got.graph.n),
        ("graph.directed", structure.graph.directed, got.graph.directed),
        ("graph.edges", structure.graph.edges, got.graph.edges),
        ("graph2", structure.graph2, got.graph2),
        ("anchors", structure.anchors, got.anchors),
    ):
        if what == "labels":
            m = _DECL.match(text)
            if m is not None and a and tuple(m.group(3).split(", ")) != a:
                raise RoundTripError(f"{structure.category}: declared labels differ from {a}")
            continue
        if a != b:
            raise RoundTripError(f"{structure.category}: {what} differs: rendered {a}, read {b}")
