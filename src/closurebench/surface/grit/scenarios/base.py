"""The :class:`Scenario` record: one real-world framing of a GRIT task, as pure data.

A scenario supplies vocabulary (node and edge nouns, the weight word and unit), sentence
templates for the realistic form (edge sentences, questions, a first-person opening and
closing, distractors) and a pool of semantic names. Slots are documented in
:mod:`closurebench.surface.grit.scenarios.frames`. Scenarios validate themselves on
construction so that a typo in a template fails at import time, naming the scenario.

Example:
    >>> s = Scenario(
    ...     id="demo", task="vertex_cover", split="ood", title="Demo", setting="a park",
    ...     node="gate", nodes="gates", edge="path", edges="paths",
    ...     meaning="a path between two gates", pool="city",
    ...     ask_standard="How few gates can cover every path?",
    ...     ask=("How few gates do I need?",), links=("A path joins {a} and {b}.",),
    ...     opening=("I run a park.",), distractors=("It rained.", "I slept.", "Tea is nice."))
    >>> s.vocabulary()["Nodes"]
    'Gates'
    >>> len(s.name_pool(70)) >= 70
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from closurebench.errors import ConfigError
from closurebench.structures.grit import NODE_PARAMS
from closurebench.surface.grit.scenarios.frames import PARAM_SLOT
from closurebench.surface.grit.scenarios.names import POOLS, extend
from closurebench.tasks.grit import GRIT_TASKS, GraphTrait, GritTask

__all__ = ["SPLITS", "QueryWording", "Scenario", "check_name"]

SPLITS = ("in_distribution", "ood")

_SLOT = re.compile(r"\{([A-Za-z_]+)\}")
_VOCAB = {"node", "nodes", "a_node", "edge", "edges", "weight", "setting", "meaning", "adjacent"}
_VOCAB_ALL = _VOCAB | {v[0].upper() + v[1:] for v in _VOCAB}
_NAME_OK = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9 \-]*[A-Za-z0-9])?")


def check_name(name: str) -> str | None:
    """Return why ``name`` is unusable as a node name, or ``None`` if it is fine.

    Example:
        >>> check_name("Oak Street") is None
        True
        >>> check_name("Arts and Crafts")
        "contains ' and ', which would split a list"
    """
    if not _NAME_OK.fullmatch(name):
        return "must be ASCII letters, digits, single spaces and hyphens"
    if "  " in name:
        return "has a double space"
    if name.isdigit():
        return "is a bare number (numbers are reserved for numeric naming)"
    if f" {name} ".casefold().find(" and ") >= 0:
        return "contains ' and ', which would split a list"
    return None


#: Slots the reader reads as something else (a query parameter's slot must not be one).
_RESERVED_SLOTS = frozenset({"a", "b", "s", "t", "w", "wt", "n", "last", "order", "alias"})


@dataclass(frozen=True)
class QueryWording:
    """What a task's questions state about the query beyond the ask, in a scenario's words.

    A task's scenario module defines it once and gives it to each of its scenarios
    (``Scenario(query=...)``), so a task with a new kind of query parameter brings its
    wording along: the template slot that names the parameter in the ask, the sentence
    that defines each of its values (the task's ``defined_param``), and the sentences that
    state a neighbour order (``states_neighbour_order``). Pairs, not dicts, so that a
    scenario stays hashable.

    Attributes:
        slots: ``(parameter, slot)`` for each query parameter that is not a node (the node
            parameters ``source`` and ``target`` always read ``{s}`` and ``{t}``).
        definitions: ``(value, sentence)`` per value of the task's ``defined_param``.
        order_rule: The standard and realistic sentence stating the neighbour order
            (slots ``{a_node}``, ``{node}``, ``{adjacent}``, ``{order}``), or None.

    Example:
        >>> q = QueryWording(slots=(("centrality", "kind"),),
        ...                  definitions=(("degree", "Degree counts {edges}."),))
        >>> q.slot("centrality"), q.slot("source"), q.definition("degree")
        ('kind', 's', 'Degree counts {edges}.')
    """

    slots: tuple[tuple[str, str], ...] = ()
    definitions: tuple[tuple[str, str], ...] = ()
    order_rule: tuple[str, str] | None = None

    def slot(self, param: str) -> str:
        """The template slot that states query parameter ``param``.

        Raises:
            ConfigError: ``param`` has no slot (name it in ``slots``).
        """
        if param in PARAM_SLOT:
            return PARAM_SLOT[param]
        for name, slot in self.slots:
            if name == param:
                return slot
        raise ConfigError(
            f"query parameter {param!r} has no template slot; add ({param!r}, SLOT) to the "
            "scenario module's QueryWording(slots=...)"
        )

    def definition(self, value: str) -> str:
        """The sentence defining ``value`` of the task's defined parameter.

        Raises:
            ConfigError: ``value`` has no definition.
        """
        for name, text in self.definitions:
            if name == value:
                return text
        raise ConfigError(
            f"no definition of {value!r}; the scenario module's QueryWording(definitions=...) "
            f"defines {[n for n, _ in self.definitions]}"
        )


@dataclass(frozen=True)
class Scenario:
    """One scenario of one task (see module docstring; slots in ``frames``).

    Attributes:
        id: Unique snake_case id.
        task: The GRIT task (a key of ``GRIT_TASKS``).
        split: ``"in_distribution"`` (paper Table 8) or ``"ood"`` (held out).
        title: Short human title.
        setting: Subject of the standard intro, with article ("a data-centre network").
        node, nodes, edge, edges: Singular/plural nouns; numeric names read "<node> 17".
        meaning: What one standard edge line describes ("a direct link between two servers").
        pool: Key of the semantic name pool in ``names.POOLS``.
        ask_standard: The standard-form question (SP: weighted variant).
        ask: Realistic question alternatives.
        links: Realistic undirected edge sentences (weighted iff the task is weighted).
        opening, closing: Realistic narrative alternatives before the graph / before the
            question (closing may be empty).
        distractors: Sentences that say nothing about the graph (no names, no digits).
        weight, unit: Weight word and unit format (``"{w} ms"``, ``"${w}"``,
            ``"{w} minute{pl}"``); weighted tasks only.
        adjacent: BFS only: how a neighbour relates to a node ("directly connected to it").
        links_plain, arcs, arcs_plain, ask_standard_plain, ask_plain: only for tasks whose
            direction or weights vary (shortest path): unweighted, directed and
            directed-unweighted variants.
        query: The task's query wording (:class:`QueryWording`): slots of its non-node
            query parameters, definitions of its defined parameter's values, its
            neighbour-order rule.
    """

    id: str
    task: str
    split: str
    title: str
    setting: str
    node: str
    nodes: str
    edge: str
    edges: str
    meaning: str
    pool: str
    ask_standard: str
    ask: tuple[str, ...]
    links: tuple[str, ...]
    opening: tuple[str, ...]
    distractors: tuple[str, ...]
    closing: tuple[str, ...] = ()
    weight: str = ""
    unit: str = ""
    adjacent: str = "directly connected to it"
    links_plain: tuple[str, ...] = ()
    arcs: tuple[str, ...] = ()
    arcs_plain: tuple[str, ...] = ()
    ask_standard_plain: str = ""
    ask_plain: tuple[str, ...] = ()
    query: QueryWording = QueryWording()

    def __post_init__(self) -> None:
        where = f"scenario {self.id!r}"
        if self.task not in GRIT_TASKS:
            raise ConfigError(f"{where}: task {self.task!r} is not one of {tuple(GRIT_TASKS)}")
        if self.split not in SPLITS:
            raise ConfigError(f"{where}: split {self.split!r} is not one of {SPLITS}")
        if self.pool not in POOLS:
            raise ConfigError(f"{where}: name pool {self.pool!r} is not one of {sorted(POOLS)}")
        weighted = self.weighted_task
        if weighted != bool(self.weight and self.unit):
            raise ConfigError(f"{where}: set weight and unit exactly for weighted tasks")
        if self.unit and "{w}" not in self.unit:
            raise ConfigError(f"{where}: unit {self.unit!r} must contain '{{w}}'")
        keys = self.task_class.param_keys
        self._check_query(where, keys)
        refs = {PARAM_SLOT[k] for k in keys if k in NODE_PARAMS}
        query = {self.query.slot(k) for k in keys if k not in NODE_PARAMS}
        w = {"w", "wt"} if weighted else set()
        self._check("ask_standard", (self.ask_standard,), refs | query, refs | query)
        self._check("ask", self.ask, refs | query, refs | query)
        self._check("links", self.links, {"a", "b"} | w, {"a", "b"} | w, any_of_w=bool(w))
        self._check("opening", self.opening, set(), refs)
        self._check("closing", self.closing, set(), set())
        self._check("distractors", self.distractors, set(), set())
        if not (self.ask and self.links and self.opening and len(self.distractors) >= 3):
            raise ConfigError(f"{where}: needs ask, links, opening and at least 3 distractors")
        sp = (self.links_plain, self.arcs, self.arcs_plain, self.ask_plain)
        task = self.task_class
        if task.directed is GraphTrait.EITHER or task.weighted is GraphTrait.EITHER:
            if not all(sp) or not self.ask_standard_plain:
                raise ConfigError(f"{where}: {self.task} needs all directed/plain variants")
            ab = {"a", "b"}
            self._check("links_plain", self.links_plain, ab, ab)
            self._check("arcs", self.arcs, ab | w, ab | w, any_of_w=True)
            self._check("arcs_plain", self.arcs_plain, ab, ab)
            self._check("ask_standard_plain", (self.ask_standard_plain,), refs, refs)
            self._check("ask_plain", self.ask_plain, refs, refs)
        elif any(sp) or self.ask_standard_plain:
            raise ConfigError(
                f"{where}: plain/directed variants are only for tasks whose direction or "
                f"weights vary; {self.task} has neither"
            )
        for text in self.distractors:
            if any(ch.isdigit() for ch in text):
                raise ConfigError(f"{where}: distractor {text!r} has a digit; spell it out")
        for name in POOLS[self.pool]:
            why = check_name(name)
            if why:
                raise ConfigError(f"{where}: name {name!r} in pool {self.pool!r} {why}")

    def _check_query(self, where: str, keys: tuple[str, ...]) -> None:
        """The query wording fits the task: a slot per non-node parameter, definitions
        exactly when the task defines a parameter, an order rule exactly when it states one."""
        task, q = self.task_class, self.query
        for param, slot in q.slots:
            if param not in keys or param in NODE_PARAMS:
                raise ConfigError(f"{where}: query slot for {param!r}, not a query parameter")
            if slot in _RESERVED_SLOTS:
                raise ConfigError(f"{where}: query slot {{{slot}}} is a slot the renderer fills")
        for param in keys:
            if param not in NODE_PARAMS:
                q.slot(param)  # raises, naming the parameter
                if param != task.defined_param:  # the reader reads its values from those
                    raise ConfigError(
                        f"{where}: query parameter {param!r} is not a node, so the question "
                        f"must define its values: make it the task's defined_param"
                    )
        if (task.defined_param is None) != (not q.definitions):
            raise ConfigError(
                f"{where}: definitions are needed exactly when the task defines a parameter "
                f"(defined_param={task.defined_param!r})"
            )
        if task.states_neighbour_order != (q.order_rule is not None):
            raise ConfigError(
                f"{where}: an order rule is needed exactly when the task states a neighbour "
                f"order (states_neighbour_order={task.states_neighbour_order})"
            )

    def _check(
        self,
        field: str,
        texts: tuple[str, ...],
        required: set[str],
        allowed: set[str],
        any_of_w: bool = False,
    ) -> None:
        for text in texts:
            slots = set(_SLOT.findall(text))
            bad = slots - allowed - _VOCAB_ALL
            need = required - {"w", "wt"}
            missing = need - slots
            if any_of_w and not slots & {"w", "wt"}:
                missing.add("w or wt")
            if bad or missing:
                raise ConfigError(
                    f"scenario {self.id!r}: {field} template {text!r} has unknown slots "
                    f"{sorted(bad)} / misses {sorted(missing)}; fix the template"
                )
            edge_fields = ("links", "links_plain", "arcs", "arcs_plain")
            if text.startswith(("{a}", "{b}", "{s}", "{t}")) and field not in edge_fields:
                raise ConfigError(
                    f"scenario {self.id!r}: {field} template {text!r} starts with a name; "
                    "only edge sentences may"
                )
            if any(ch.isdigit() for ch in _SLOT.sub("", text)):
                raise ConfigError(
                    f"scenario {self.id!r}: {field} template {text!r} has a digit; spell "
                    "numbers out (digits are reserved for names and weights)"
                )
            if any(mark in text for mark in ("e.g.", "i.e.", "etc.", "\n")):
                raise ConfigError(f"scenario {self.id!r}: {text!r} would confuse sentence splits")

    @property
    def task_class(self) -> GritTask:
        """The registered task this scenario words."""
        return GRIT_TASKS[self.task]

    @property
    def weighted_task(self) -> bool:
        """Whether the task's graphs may carry weights."""
        return self.task_class.weighted is not GraphTrait.NEVER

    def vocabulary(self) -> dict[str, str]:
        """The vocabulary slot values, plain and capitalised."""
        base = {
            "node": self.node,
            "nodes": self.nodes,
            "a_node": ("an " if self.node[0] in "aeiou" else "a ") + self.node,
            "edge": self.edge,
            "edges": self.edges,
            "weight": self.weight,
            "setting": self.setting,
            "meaning": self.meaning,
            "adjacent": self.adjacent,
        }
        out = dict(base)
        for key, value in base.items():
            out[key[0].upper() + key[1:]] = value[:1].upper() + value[1:]
        return out

    def name_pool(self, n: int) -> tuple[str, ...]:
        """At least ``n`` distinct semantic names for this scenario (the pool, extended)."""
        return extend(POOLS[self.pool], n)
