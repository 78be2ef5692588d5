"""Render a :class:`GritStructure` as question text in one scenario, form and naming scheme.

Two forms:

* ``standard``: a plain statement in the scenario's vocabulary — the node list, a short
  header saying what each line means (direction and weight where relevant), one edge per
  line in listing order (``A -- B: 4 ms``; ``A -> B`` for one-way edges), then the
  question, the BFS rule or centrality definition where relevant, and the output format.
* ``realistic``: a first-person narrative — an opening that may name the source and
  target, the node list as a sentence, alias statements, one sentence per edge from the
  scenario's templates in shuffled order and orientation, 1-3 distractor sentences
  inserted among them, then a closing, the question, the rule and the format.

Every random choice (names, template choice, order, aliases used in mentions,
distractors) comes from the ``rng`` argument, so the same generator state gives
byte-identical text. The text is built only from the scenario tables and
:mod:`~closurebench.surface.grit.scenarios.frames`; :mod:`~closurebench.surface.grit.reader`
parses it back independently. What differs between tasks comes from the task class's
wording hooks (:meth:`~closurebench.tasks.grit.GritTask.graph_notes`,
:meth:`~closurebench.tasks.grit.GritTask.plain_wording`, ``answer_form``,
``states_neighbour_order``, ``defined_param``).

Example:
    >>> from closurebench.seeding import rng
    >>> s = GritStructure("shortest_path", 3, True, True, [(0, 1, 4), (1, 2, 3)],
    ...                   {"source": 0, "target": 2})
    >>> q = render(s, "sp_datacenter_latency", "standard", "canonical", rng(0))
    >>> print(q.question)  # doctest: +NORMALIZE_WHITESPACE
    A data-centre network has 3 servers, numbered 0 to 2.
    <BLANKLINE>
    Each line below describes a direct network link between two servers. Links are one-way:
    each goes from the server on the left to the server on the right. The value after each
    link is its latency.
    server 0 -> server 1: 4 ms
    server 1 -> server 2: 3 ms
    <BLANKLINE>
    What is the minimum total latency of a route from server 0 to server 2? Give your
    answer as a single integer.
    >>> q.names, q.view
    (['0', '1', '2'], 'standard/canonical')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from closurebench.errors import ConfigError
from closurebench.structures.grit import GritStructure
from closurebench.surface.grit import scenarios as registry
from closurebench.surface.grit.naming import NAMINGS, Naming, make_names
from closurebench.surface.grit.scenarios import frames as F
from closurebench.surface.grit.scenarios.base import Scenario
from closurebench.tasks.grit import GraphNote

__all__ = ["FORMS", "RenderedQuestion", "render"]

FORMS: tuple[str, ...] = ("standard", "realistic")
_SLOT = re.compile(r"\{([A-Za-z_]+)\}")
_REFS = ("a", "b", "s", "t")
_PARAGRAPH = 8  # edge sentences per paragraph in the realistic form


@dataclass(frozen=True)
class RenderedQuestion:
    """One view of a structure: the text plus what a scorer needs to read answers.

    Satisfies :class:`~closurebench.structures.grit.GritView` (what a task needs to give
    this view's answer).

    Attributes:
        question: The full question text.
        names: Display name of node ``i`` at index ``i`` (numeric names as digits only).
        aliases: ``{alias: node id}`` stated in the text (mixed naming only).
        form, naming, scenario: The view's coordinates (scenario id).
        listing: Node ids in the order the text lists them.
        tie_break: BFS only: ``numeric``, ``alphabetical`` or ``listed``; else ``None``.
    """

    question: str
    names: list[str]
    aliases: dict[str, int]
    form: str
    naming: str
    scenario: str
    listing: tuple[int, ...]
    tie_break: str | None = None

    @property
    def view(self) -> str:
        """``"<form>/<naming>"`` as in the instance record."""
        return f"{self.form}/{self.naming}"

    @property
    def neighbour_order(self) -> tuple[int, ...] | None:
        """BFS only: node ids from first to last in the stated neighbour order."""
        return self.listing if self.tie_break else None


class _Writer:
    """Fills templates for one view; owns the view's generator."""

    def __init__(self, sc: Scenario, nm: Naming, g: np.random.Generator) -> None:
        self.sc, self.nm, self.g = sc, nm, g
        self.vocab = sc.vocabulary()
        self.alias = nm.alias_of()

    def ref(self, node: int) -> str:
        name = self.nm.names[node]
        if node in self.alias and self.g.random() < 0.5:
            name = self.alias[node]
        return f"{self.sc.node} {name}" if self.nm.numeric else name

    def weight(self, w: int) -> str:
        return self.sc.unit.replace("{w}", str(w)).replace("{pl}", "" if w == 1 else "s")

    def fill(self, template: str, line: bool = False, /, **values: object) -> str:
        def sub(m: re.Match) -> str:
            key = m.group(1)
            if key in _REFS:
                return self.ref(int(values[key]))  # type: ignore[call-overload]
            if key in values:
                return str(values[key])
            if key in self.vocab:
                return self.vocab[key]
            raise ConfigError(f"template {template!r} has unfilled slot {{{key}}}")

        text = _SLOT.sub(sub, template)
        if not line and self.nm.numeric and template.startswith(tuple(f"{{{r}}}" for r in _REFS)):
            text = text[:1].upper() + text[1:]
        return text

    def pick(self, options: tuple[str, ...]) -> str:
        return options[int(self.g.integers(0, len(options)))]

    def listed(self) -> str:
        items = [self.nm.names[i] for i in self.nm.listing]
        if len(items) <= 2:
            return " and ".join(items)
        return ", ".join(items[:-1]) + ", and " + items[-1]

    def declaration(self, realistic: bool) -> str:
        n = len(self.nm.names)
        frames: tuple[str, ...]
        if self.nm.scheme == "canonical":
            frames = F.LIST_NUMBERED if realistic else (F.INTRO_NUMBERED,)
        elif self.nm.scheme == "random":
            frames = F.LIST_IDS if realistic else (F.INTRO_IDS,)
        else:
            frames = F.LIST_NAMED if realistic else (F.INTRO_NAMED,)
        return self.fill(self.pick(frames), n=n, last=n - 1, list=self.listed())

    def alias_sentences(self, realistic: bool) -> list[str]:
        frames = F.ALIAS_REALISTIC if realistic else F.ALIAS_STANDARD
        out = []
        turn = [int(k) for k in self.g.permutation(len(frames))]  # vary consecutive wording
        for k, (alias, node) in enumerate(sorted(self.nm.aliases.items(), key=lambda kv: kv[1])):
            name = self.nm.names[node]  # the alias statement always uses the listed name
            frame = frames[turn[k % len(turn)]].replace("{a}", name).replace("{alias}", alias)
            out.append(self.fill(frame))
        return out

    def query_sentences(self, s: GritStructure, realistic: bool) -> list[str]:
        sc, task = self.sc, self.sc.task_class
        if task.plain_wording(s):
            ask = self.pick(sc.ask_plain) if realistic else sc.ask_standard_plain
        else:
            ask = self.pick(sc.ask) if realistic else sc.ask_standard
        out = [self.fill(ask, **_param_slots(sc, s))]
        if sc.query.order_rule is not None:
            order = self.fill(F.BFS_ORDER[self.nm.rule])
            rule = sc.query.order_rule[1 if realistic else 0]
            out.append(self.fill(rule, order=order))
        if task.defined_param is not None:
            out.append(self.fill(sc.query.definition(str(s.param(task.defined_param)))))
        out.append(self.fill(F.INSTRUCTION[(task.answer_form, self.nm.numeric)]))
        return out


def _param_slots(sc: Scenario, s: GritStructure) -> dict[str, object]:
    """The structure's query parameters by the template slot that states them."""
    return {sc.query.slot(key): value for key, value in s.params}


def _edge_templates(sc: Scenario, s: GritStructure) -> tuple[str, ...]:
    if s.directed:
        return sc.arcs if s.weighted else sc.arcs_plain
    if sc.task_class.plain_wording(s):
        return sc.links_plain
    return sc.links


def _standard(s: GritStructure, w: _Writer) -> str:
    head = [w.declaration(False), *w.alias_sentences(False)]
    header = [w.fill(F.STANDARD_HEADER)]
    notes = {
        GraphNote.DIRECTION: F.DIRECTION_STANDARD[s.directed],
        GraphNote.WEIGHT: F.WEIGHT_STANDARD,
        GraphNote.COMPLETE: F.TSP_NOTE_STANDARD,
    }
    header += [w.fill(notes[note]) for note in w.sc.task_class.graph_notes(s)]
    pos = {node: k for k, node in enumerate(w.nm.listing)}
    edges = []
    for u, v, wt in s.edges:
        if not s.directed and pos[v] < pos[u]:
            u, v = v, u
        edges.append((pos[u], pos[v], u, v, wt))
    line = F.STANDARD_LINE[(s.directed, s.weighted)]
    lines = [w.fill(line, True, a=u, b=v, wt=w.weight(wt)) for _, _, u, v, wt in sorted(edges)]
    body = " ".join(header) + ("\n" + "\n".join(lines) if lines else "")
    return "\n\n".join([" ".join(head), body, " ".join(w.query_sentences(s, False))])


def _realistic(s: GritStructure, w: _Writer) -> str:
    sc, g = w.sc, w.g
    opening = w.fill(w.pick(sc.opening), **_param_slots(sc, s))
    head = [opening, w.declaration(True), *w.alias_sentences(True)]
    notes = {  # the realistic form states the weight's meaning in its edge sentences
        GraphNote.DIRECTION: F.DIRECTION_REALISTIC[s.directed],
        GraphNote.COMPLETE: F.TSP_NOTE_REALISTIC,
    }
    for note in sc.task_class.graph_notes(s):
        if note in notes:
            head.append(w.fill(w.pick(notes[note])))
    templates = _edge_templates(sc, s)
    sentences = []
    for k in g.permutation(len(s.edges)):
        u, v, wt = s.edges[int(k)]
        if not s.directed and g.random() < 0.5:
            u, v = v, u
        sentences.append(w.fill(w.pick(templates), a=u, b=v, wt=w.weight(wt), w=wt))
    n_distract = min(int(g.integers(1, 4)), len(sc.distractors))
    for k in g.choice(len(sc.distractors), size=n_distract, replace=False):
        sentences.insert(int(g.integers(0, len(sentences) + 1)), sc.distractors[int(k)])
    body = [" ".join(sentences[i : i + _PARAGRAPH]) for i in range(0, len(sentences), _PARAGRAPH)]
    tail = ([w.pick(sc.closing)] if sc.closing else []) + w.query_sentences(s, True)
    return "\n\n".join([" ".join(head), *body, " ".join(tail)])


def render(
    structure: GritStructure,
    scenario: str | Scenario,
    form: str,
    naming: str | Naming,
    rng: np.random.Generator,
) -> RenderedQuestion:
    """Render one view of ``structure``.

    Args:
        structure: The graph and query.
        scenario: A scenario id or :class:`Scenario` of the structure's task.
        form: ``"standard"`` or ``"realistic"``.
        naming: A scheme in :data:`~closurebench.surface.grit.naming.NAMINGS` (names are
            drawn from ``rng``) or a ready :class:`Naming` for ``structure.n`` nodes.
        rng: The view's generator (consumed).

    Raises:
        ConfigError: on an unknown form/naming, a scenario of another task, or a naming
            of the wrong size.
    """
    sc = registry.get(scenario)
    if sc.task != structure.task:
        raise ConfigError(
            f"scenario {sc.id!r} is for task {sc.task!r}, not {structure.task!r}; pick one "
            f"of {[x.id for x in registry.for_task(structure.task)]}"
        )
    if form not in FORMS:
        raise ConfigError(f"form {form!r} is not one of {FORMS}")
    if isinstance(naming, Naming):
        nm = naming
    elif naming in NAMINGS:
        nm = make_names(
            naming, structure.n, sc.name_pool(structure.n), rng, held_out=sc.split == "ood"
        )
    else:
        raise ConfigError(f"naming {naming!r} is not one of {NAMINGS}")
    if len(nm.names) != structure.n:
        raise ConfigError(f"naming has {len(nm.names)} names for n={structure.n}; redraw it")
    writer = _Writer(sc, nm, rng)
    text = _standard(structure, writer) if form == "standard" else _realistic(structure, writer)
    return RenderedQuestion(
        question=text,
        names=list(nm.names),
        aliases=dict(nm.aliases),
        form=form,
        naming=nm.scheme,
        scenario=sc.id,
        listing=nm.listing,
        tie_break=nm.rule if sc.task_class.states_neighbour_order else None,
    )
