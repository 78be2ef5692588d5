"""Render a :class:`~closurebench.structures.closure.ClosureStructure` as question text.

The category's task (:data:`~closurebench.tasks.closure.CLOSURE_TASKS`) gives the query
template, the result type (answer form) and the kinship / undirected / two-graph flags;
the surface generator ``g`` alone picks, in this order: label pool, labels, frame
(kinship categories draw only kinship-capable frames; the kinship-only frame is kept for
them), presentation style, encoding, edge order, and the per-edge choices of the style.
Every draw is made even when a keyword override fixes the outcome, so forcing one knob
leaves the others unchanged.

Layout (paragraphs separated by a blank line):

1. the node declaration "There are 5 accounts: A, B, C, D, E." listing every node in
   id order (isolated nodes included), then notes (mutual links, two years, encoding);
2. the graph: sentences (``nl``), one JSON line ``{"nodes": [...], "edges": [...]}``
   (``json``) or a labelled 0/1 adjacency table (``matrix``); ``graph_comparison`` has
   two such paragraphs headed "Last year's ...:" and "This year's ...:" (two-graph tasks);
3. the query sentence (identical across encodings and styles); with ``answer_hints``,
   followed by the category's answer form (``Answer with a JSON object {"answer":
   <number>}.``). Off by default: the paper gives no per-category type hint (§3, App. I),
   its system prompt alone asks for ``{"answer": ...}``. ``conventions="implicit"``
   asks an ambiguous category's question without its source-inclusion statement (the
   task's ``implicit_template``, the paper's wording); no surface draw depends on it.

Styles (``nl`` only): ``flat`` (one edge a sentence), ``by_source`` (grouped by source),
``by_target`` (grouped by target, reversed verb), ``mixed`` (each edge forward or
reversed at random), ``varied`` (grouped by source, a verb synonym drawn per source).

Example:
    >>> from closurebench.graphs import Graph
    >>> from closurebench.seeding import rng
    >>> from closurebench.structures.closure import ClosureStructure
    >>> s = ClosureStructure("reach_then_count", Graph(4, ((0, 1), (1, 2))), (("X", 0),))
    >>> r = render_closure(s, g=rng(3, "doc"), encoding="nl", style="flat",
    ...                    domain="fraud_detection", label_pool="letters")
    >>> print(r.question.replace(r.labels[0], "<X>").splitlines()[-1])
    How many accounts can <X> reach through a chain of payments, not counting <X> itself?
    >>> h = render_closure(s, g=rng(3, "doc"), encoding="nl", style="flat",
    ...                    domain="fraud_detection", label_pool="letters", answer_hints=True)
    >>> h.question.removeprefix(r.question)
    ' Answer with a JSON object {"answer": <number>}.'
    >>> i = render_closure(s, g=rng(3, "doc"), encoding="nl", style="flat",
    ...                    domain="fraud_detection", label_pool="letters", conventions="implicit")
    >>> print(i.question.replace(i.labels[0], "<X>").splitlines()[-1])
    How many accounts can <X> reach through a chain of payments?
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from closurebench.errors import ConfigError
from closurebench.graphs import Graph
from closurebench.structures.closure import ClosureStructure
from closurebench.surface.closure.frames import (
    FRAMES,
    Frame,
    Verb,
    general_frames,
    kinship_frames,
)
from closurebench.surface.closure.labels import LABEL_POOLS, labels_for
from closurebench.surface.closure.questions import (
    SECTIONS,
    answer_form,
    k_nouns,
    task_for,
    vocabulary,
)

__all__ = ["ENCODINGS", "STYLES", "RenderedClosure", "render_closure"]

STYLES: tuple[str, ...] = ("flat", "by_source", "by_target", "mixed", "varied")
ENCODINGS: tuple[str, ...] = ("nl", "json", "matrix")


@dataclass(frozen=True)
class RenderedClosure:
    """A rendered question and the surface choices behind it.

    Attributes:
        question: The full question text.
        labels: Label of node ``i`` at index ``i``.
        label_pool: The label pool used.
        domain: The frame key.
        style: The presentation style (drawn for every encoding; applies to ``nl``).
        encoding: ``"nl"``, ``"json"`` or ``"matrix"``.
        conventions: The query's wording, ``"explicit"`` or ``"implicit"``
            (:data:`~closurebench.tasks.closure.base.WORDINGS`).
    """

    question: str
    labels: tuple[str, ...]
    label_pool: str
    domain: str
    style: str
    encoding: str
    conventions: str = "explicit"


def _pick(g: np.random.Generator, options: tuple[str, ...], forced: str | None, what: str) -> str:
    """Draw one of ``options`` (always consuming the draw); ``forced`` overrides it."""
    drawn = options[int(g.integers(len(options)))]
    if forced is None:
        return drawn
    if forced not in options:
        raise ConfigError(f"{what}={forced!r} is not allowed here; choose one of {options}")
    return forced


def _join(items: list[str]) -> str:
    """English list: ``A``, ``A and B``, ``A, B, and C``."""
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _nl(
    edges: list[tuple[int, int]],
    labels: tuple[str, ...],
    style: str,
    verbs: tuple[Verb, Verb, tuple[Verb, ...]],
    g: np.random.Generator,
) -> str:
    """Edge sentences of one graph in ``style`` (edges already in presentation order)."""
    fwd, rev, syns = verbs
    coins = g.integers(2, size=len(edges))
    if style == "flat":
        return " ".join(f"{labels[u]} {fwd[0]} {labels[v]}." for u, v in edges)
    if style == "mixed":
        return " ".join(
            f"{labels[u]} {fwd[0]} {labels[v]}." if c else f"{labels[v]} {rev[0]} {labels[u]}."
            for (u, v), c in zip(edges, coins, strict=True)
        )
    by_target = style == "by_target"
    groups: dict[int, list[int]] = {}
    for u, v in edges:
        head, tail = (v, u) if by_target else (u, v)
        groups.setdefault(head, []).append(tail)
    choices = (fwd, *syns)
    picks = g.integers(len(choices), size=len(groups))
    out = []
    for (head, tails), p in zip(groups.items(), picks, strict=True):
        verb = rev if by_target else (choices[int(p)] if style == "varied" else fwd)
        out.append(f"{labels[head]} {verb[0]} {_join([labels[t] for t in tails])}.")
    return " ".join(out)


def _body(
    graph: Graph,
    labels: tuple[str, ...],
    encoding: str,
    style: str,
    verbs: tuple[Verb, Verb, tuple[Verb, ...]],
    frame: Frame,
    g: np.random.Generator,
) -> str:
    """One graph in ``encoding`` (edge order and orientation drawn from ``g``)."""
    edges = [graph.edges[int(i)] for i in g.permutation(len(graph.edges))]
    if not graph.directed:
        flips = g.integers(2, size=len(edges))
        edges = [(v, u) if f else (u, v) for (u, v), f in zip(edges, flips, strict=True)]
    if encoding == "json":
        data = {"nodes": list(labels), "edges": [[labels[u], labels[v]] for u, v in edges]}
        return json.dumps(data, ensure_ascii=False)
    if encoding == "matrix":
        a = np.zeros((graph.n, graph.n), dtype=int)
        for u, v in edges:
            a[u, v] = 1
            if not graph.directed:
                a[v, u] = 1
        rows = ["| | " + " | ".join(labels) + " |"]
        rows += [f"| {labels[i]} | " + " | ".join(map(str, a[i])) + " |" for i in range(graph.n)]
        return "\n".join(rows)
    if not edges:
        return f"There are no {frame.links}."
    return _nl(edges, labels, style, verbs, g)


def render_closure(
    structure: ClosureStructure,
    *,
    g: np.random.Generator,
    encoding: str | None = None,
    style: str | None = None,
    domain: str | None = None,
    label_pool: str | None = None,
    answer_hints: bool = False,
    conventions: str = "explicit",
) -> RenderedClosure:
    """Render ``structure`` as a question, every surface choice drawn from ``g``.

    Args:
        structure: What to ask (category, graph(s), anchors); the category's task
            gives the wording, the answer form and the frames it may use.
        g: The surface generator; it alone fixes the surface.
        encoding: Force ``"nl"``, ``"json"`` or ``"matrix"``.
        style: Force one of :data:`STYLES`.
        domain: Force a frame (must be allowed for the category).
        label_pool: Force a label pool.
        answer_hints: End the question with the category's answer form (the paper's
            questions do not; the surface draws are the same either way).
        conventions: ``"explicit"`` states the source-inclusion convention in words
            (the task's ``template``); ``"implicit"`` leaves it unsaid, as the paper
            does (the task's ``implicit_template``, where it has one). The surface
            draws are the same either way.

    Raises:
        ConfigError: on an unknown category, a structure whose anchors or graph count
            differ from the task's, a forced value the category does not allow, or an
            unknown ``conventions``.
    """
    task = task_for(structure.category)
    template = task.question_template(conventions)
    if (structure.graph2 is not None) != task.two_graphs:
        raise ConfigError(
            f"{task.name} asks about {'two graphs' if task.two_graphs else 'one graph'}, "
            f"but the structure has graph2={structure.graph2!r}"
        )
    names = sorted(name for name, _ in structure.anchors)
    if names != sorted(task.anchor_names):
        raise ConfigError(
            f"{task.name} names the anchors {list(task.anchor_names)}, but the structure "
            f"has {names}; sample it with the task"
        )
    pool = _pick(g, LABEL_POOLS, label_pool, "label_pool")
    labels = labels_for(pool, structure.n, g)
    frames = kinship_frames() if task.kinship else general_frames()
    frame_key = _pick(g, frames, domain, "domain")
    frame = FRAMES[frame_key]
    sty = _pick(g, STYLES, style, "style")
    enc = _pick(g, ENCODINGS, encoding, "encoding")

    undirected = not task.directed
    vocab = vocabulary(frame, task.kinship)
    if undirected:
        verbs: tuple[Verb, Verb, tuple[Verb, ...]] = (frame.und, frame.und, ())
    elif task.kinship and frame.kin is not None:
        verbs = (frame.kin.fwd, frame.kin.rev, frame.kin.syns)
    else:
        verbs = (frame.fwd, frame.rev, frame.syns)
    links = frame.und_links if undirected else frame.links

    intro = [f"There are {structure.n} {frame.nouns}: {', '.join(labels)}."]
    if undirected:
        intro.append(
            f"All {frame.und_links} are mutual: if one {frame.noun} {frame.und[0]} another, "
            f"the other also {frame.und[0]} the first."
        )
    if structure.graph2 is not None:
        intro.append(f"The {links} are given for last year and for this year.")
    if enc == "json":
        pair = f"u and v {frame.und[1]} each other" if undirected else f"u {verbs[0][0]} v"
        intro.append(f'The {links} are listed in JSON; an edge ["u", "v"] means {pair}.')
    elif enc == "matrix":
        rel = f"u {frame.und[0]} v" if undirected else f"u {verbs[0][0]} v"
        intro.append(
            f"The {links} are given as an adjacency matrix: the entry in row u and column v "
            f"is 1 if {rel}, and 0 otherwise."
        )
    paragraphs = [" ".join(intro)]
    graphs = [structure.graph] if structure.graph2 is None else [structure.graph, structure.graph2]
    for i, graph in enumerate(graphs):
        body = _body(graph, labels, enc, sty, verbs, frame, g)
        if structure.graph2 is not None:
            sep = " " if enc == "nl" else "\n"
            body = SECTIONS[i].format(links=links) + sep + body
        paragraphs.append(body)

    fields = dict(vocab)
    for name, value in structure.anchors:
        fields[name] = str(value) if name == "k" else labels[value]
        if name == "k":
            fields["k_nouns"] = k_nouns(frame, value)
    query = template.format(**fields)
    paragraphs.append(f"{query} {answer_form(task)}" if answer_hints else query)
    return RenderedClosure(
        question="\n\n".join(paragraphs),
        labels=labels,
        label_pool=pool,
        domain=frame_key,
        style=sty,
        encoding=enc,
        conventions=conventions,
    )
