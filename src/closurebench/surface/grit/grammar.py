"""Sentence grammar of GRIT questions, as the reader sees it.

Templates from the scenario tables and :mod:`~closurebench.surface.grit.scenarios.frames`
are split into one-sentence patterns (literal pieces and slots). A pattern is matched
against a sentence by full backtracking over the *declared* names, so every reading is
found: zero readings means the sentence is not part of the grammar, two or more mean it
is ambiguous. Slots read names and aliases (numeric names as ``"<noun> <number>"``),
weights with the scenario's unit, defined values (centrality kinds), BFS order phrases,
aliases in quotes and node lists.

This module belongs to the reader and shares no code with the renderer.

Example:
    >>> sentences("A has 2 nodes: x and y. x -- y: 4 ms")
    ['A has 2 nodes: x and y.', 'x -- y: 4 ms']
    >>> split_list("x, y z, and w")
    ['x', 'y z', 'w']
    >>> from closurebench.surface.grit import scenarios
    >>> sc = scenarios.get("sp_datacenter_latency")
    >>> slots = Slots(sc, vocabulary(sc), None, ["Vega", "Vega 2", "Rigel"])
    >>> pat = Pattern.of("edge", None, "{a} -- {b}: {wt}", vocabulary(sc))
    >>> pat.parses("Vega 2 -- Rigel: 4 ms", slots)
    [{'a': 'Vega 2', 'b': 'Rigel', 'wt': '4 ms'}]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from closurebench.errors import ClosureBenchError
from closurebench.surface.grit import scenarios as registry
from closurebench.surface.grit.scenarios import frames as F
from closurebench.surface.grit.scenarios.base import Scenario

__all__ = [
    "Pattern",
    "ReadError",
    "Slots",
    "grammar",
    "readings",
    "sentences",
    "split_list",
    "vocabulary",
]

_SPLIT = re.compile(r"(?<=[.?!])\s+(?=\S)")
_SLOT = re.compile(r"\{([A-Za-z_]+)\}")
_EDGE_CHARS = r"A-Za-z0-9_#~\-"


class ReadError(ClosureBenchError, ValueError):
    """The text cannot be read unambiguously as a question of the given scenario."""


def sentences(text: str) -> list[str]:
    out: list[str] = []
    for line in text.split("\n"):
        line = line.strip()
        if line:
            out.extend(p.strip() for p in _SPLIT.split(line) if p.strip())
    return out


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def vocabulary(sc: Scenario) -> dict[str, str]:
    raw = {
        "node": sc.node, "nodes": sc.nodes, "edge": sc.edge, "edges": sc.edges,
        "a_node": f"{'an' if sc.node[:1] in 'aeiou' else 'a'} {sc.node}",
        "weight": sc.weight, "setting": sc.setting, "meaning": sc.meaning,
        "adjacent": sc.adjacent,
    }  # fmt: skip
    return raw | {_cap(k): _cap(v) for k, v in raw.items()}


def split_list(text: str) -> list[str]:
    if ", " in text:
        items = text.split(", ")
        if not items[-1].startswith("and "):
            raise ReadError(f"node list {text!r} does not end with ', and <name>'")
        items[-1] = items[-1][4:]
        return items
    return text.split(" and ")


_DIGITS = re.compile(r"\d+")
_REFS = ("a", "b", "s", "t")


class Slots:
    """Candidate readings of a slot at a position of a unit, for one text's names."""

    def __init__(self, sc: Scenario, vocab: dict[str, str], noun: str | None, names) -> None:
        self.noun = noun
        self.by_first: dict[str, list[str]] = {}
        for name in names:
            self.by_first.setdefault(name[:1], []).append(name)
        unit = re.escape(sc.unit or "{w}").replace(re.escape("{w}"), r"(?P<w>\d+)")
        self.unit = re.compile(unit.replace(re.escape("{pl}"), r"(?P<pl>s?)"))
        self.orders = {rule: _expand(phrase, vocab) for rule, phrase in F.BFS_ORDER.items()}
        # The values a non-node query slot can take: its parameter's defined values.
        self.values = {
            slot: tuple(v for v, _ in sc.query.definitions) for _, slot in sc.query.slots
        }

    def ref(self, text: str, pos: int):
        if self.noun is not None:
            head = text[pos : pos + len(self.noun)]
            if head[:1].lower() + head[1:] == self.noun and text.startswith(" ", pos + len(head)):
                m = _DIGITS.match(text, pos + len(head) + 1)
                if m:
                    yield m.group(0), m.end()
            return
        for name in self.by_first.get(text[pos : pos + 1], ()):
            if text.startswith(name, pos):
                yield name, pos + len(name)

    def candidates(self, key: str, text: str, pos: int):
        if key in _REFS:
            yield from self.ref(text, pos)
        elif key == "wt":
            m = self.unit.match(text, pos)
            if m:
                yield m.group(0), m.end()
        elif key in ("w", "n", "last"):
            m = _DIGITS.match(text, pos)
            if m:
                yield m.group(0), m.end()
        elif key in self.values:
            for value in self.values[key]:
                if text.startswith(value, pos):
                    yield value, pos + len(value)
        elif key == "order":
            for rule, phrase in self.orders.items():
                if text.startswith(phrase, pos):
                    yield rule, pos + len(phrase)
        elif key == "alias":
            end = text.find("'", pos)
            if end > pos:
                yield text[pos:end], end
        elif key == "list":
            for end in range(len(text), pos, -1):
                yield text[pos:end], end

    def mentions(self, text: str) -> set[str]:
        """Every node name or alias mentioned in ``text`` (whole-word matches)."""
        if self.noun is not None:
            first = self.noun[0]
            pat = f"[{first.upper()}{first.lower()}]{re.escape(self.noun[1:])} (\\d+)"
            return {m.group(1) for m in re.finditer(pat, text)}
        found = set()
        for pos in range(len(text)):
            if pos and re.match(f"[{_EDGE_CHARS}]", text[pos - 1]):
                continue
            for name, end in self.ref(text, pos):
                if end == len(text) or not re.match(f"[{_EDGE_CHARS}]", text[end]):
                    found.add(name)
        return found


def _expand(template: str, vocab: dict[str, str]) -> str:
    return _SLOT.sub(lambda m: vocab.get(m.group(1), m.group(0)), template)


@dataclass(frozen=True)
class Pattern:
    """A one-sentence template as literal pieces and slots, matched by full backtracking."""

    role: str
    info: object
    pieces: tuple[tuple[bool, str], ...]  # (is_slot, literal text or slot key)
    #: The longest literal piece: a sentence without it cannot match (a cheap pre-filter
    #: that :func:`readings` applies before backtracking; it never changes the readings).
    anchor: str = ""

    @classmethod
    def of(cls, role: str, info: object, template: str, vocab: dict[str, str]) -> Pattern:
        pieces: list[tuple[bool, str]] = []
        for k, piece in enumerate(_SLOT.split(_expand(template, vocab))):
            if k % 2:
                pieces.append((True, piece))
            elif piece:
                pieces.append((False, piece))
        anchor = max((p for is_slot, p in pieces if not is_slot), key=len, default="")
        return cls(role, info, tuple(pieces), anchor)

    def parses(self, text: str, slots: Slots) -> list[dict[str, str]]:
        """All complete readings of ``text`` (more than one means it is ambiguous)."""
        first, last = self.pieces[0], self.pieces[-1]
        if (not first[0] and not text.startswith(first[1])) or (
            not last[0] and not text.endswith(last[1])
        ):
            return []
        out: list[dict[str, str]] = []
        acc: dict[str, str] = {}

        def go(k: int, pos: int) -> None:
            if k == len(self.pieces):
                if pos == len(text):
                    out.append(dict(acc))
                return
            is_slot, value = self.pieces[k]
            if not is_slot:
                if text.startswith(value, pos):
                    go(k + 1, pos + len(value))
                return
            for captured, end in slots.candidates(value, text, pos):
                acc[value] = captured
                go(k + 1, end)
                del acc[value]

        go(0, 0)
        return out


def _unit_templates(sc: Scenario) -> list[tuple[str, object, str]]:
    """(role, info, one-sentence template) for every sentence the scenario may contain."""
    items: list[tuple[str, object, str]] = []

    def add(role: str, info: object, texts) -> None:
        for text in texts:
            for part in sentences(text):
                if (role, info, part) not in items:
                    items.append((role, info, part))

    for (directed, weighted), line in F.STANDARD_LINE.items():
        add("edge", (directed, weighted), [line])
    add("edge", (False, sc.weighted_task), sc.links)
    add("edge", (False, False), sc.links_plain)
    add("edge", (True, True), sc.arcs)
    add("edge", (True, False), sc.arcs_plain)
    add("ask", True, (sc.ask_standard, *sc.ask))
    add("ask", False, (sc.ask_standard_plain, *sc.ask_plain) if sc.ask_plain else ())
    add("opening", None, sc.opening)
    add("narrative", None, (*sc.closing, *sc.distractors))
    add("header", None, (F.STANDARD_HEADER, F.WEIGHT_STANDARD, F.TSP_NOTE_STANDARD))
    add("header", None, F.TSP_NOTE_REALISTIC)
    for directed, text in F.DIRECTION_STANDARD.items():
        add("direction", directed, [text])
    for directed, texts in F.DIRECTION_REALISTIC.items():
        add("direction", directed, texts)
    # Every task's order rules and definitions, not only this one's: such a sentence in
    # another task's question is read, and refused, rather than skipped.
    wordings = registry.query_wordings()
    add("rule", None, [t for q in wordings if q.order_rule for t in q.order_rule])
    for q in wordings:
        for value, text in q.definitions:
            add("definition", value, [text])
    add("instruction", None, tuple(F.INSTRUCTION.values()))
    return items


_DECLARATIONS = (
    [("numbered", t) for t in (F.INTRO_NUMBERED, *F.LIST_NUMBERED)]
    + [("ids", t) for t in (F.INTRO_IDS, *F.LIST_IDS)]
    + [("named", t) for t in (F.INTRO_NAMED, *F.LIST_NAMED)]
)


@lru_cache(maxsize=128)
def grammar(sc: Scenario) -> tuple[dict, tuple, tuple, tuple]:
    """Vocabulary and the declaration, alias and sentence patterns of one scenario (cached)."""
    vocab = vocabulary(sc)
    decl = tuple(Pattern.of("decl", kind, t, vocab) for kind, t in _DECLARATIONS)
    alias = tuple(
        Pattern.of("alias", None, t, vocab) for t in (*F.ALIAS_STANDARD, *F.ALIAS_REALISTIC)
    )
    units = tuple(Pattern.of(r, info, t, vocab) for r, info, t in _unit_templates(sc))
    return vocab, decl, alias, units


def readings(unit: str, patterns, slots: Slots) -> list[tuple[Pattern, dict[str, str]]]:
    out = []
    for pat in patterns:
        if pat.anchor not in unit:  # cannot match: skip the backtracking
            continue
        for gd in pat.parses(unit, slots):
            out.append((pat, gd))
    if len(out) > 1:
        raise ReadError(f"{unit!r} can be read in {len(out)} ways; rename a node to fix it")
    return out
