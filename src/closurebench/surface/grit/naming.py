"""The four GRIT naming schemes: display names, aliases, listing order and BFS tie-break.

* ``canonical``: node ``i`` is called ``"i"`` (written "server 3" in text); listed 0..n-1.
* ``random``: distinct high-entropy integers in 1..10000 (written "server 8392"; held out:
  10001..99999); listed in increasing numeric order.
* ``semantic``: distinct names from the scenario's pool ("Oak Street", "Alice Moreno");
  listed in alphabetical order (case-insensitive).
* ``mixed``: heterogeneous identifiers — short hashes (``n7f3a``), hex codes (``0x9A2F``),
  garbled strings (``qz_r7``), bare numbers, codes (``loc_B12``) and names from the pool —
  listed in a random but fixed order. About one node in six also gets an *alias* of a
  different kind; the text states it (``Note: n7f3a is also referred to as 'North
  Yard'.``) and later mentions may use either name.

The BFS neighbour-order rule follows the scheme: ``numeric`` for canonical and random,
``alphabetical`` for semantic, ``listed`` for mixed (heterogeneous names have no natural
order, so the rule is "the order in which the nodes are listed above"). In every scheme
the node list is printed in exactly that order, so the rule can be checked by eye.

Held-out identifiers (``held_out=True``, what the OOD scenarios use): the OOD split's
identifiers are realisations no other split can draw, as the paper's OOD split promises
("identifier realizations not observed during training"). Semantic names come from the
held-out scenarios' own pools (disjoint from the in-distribution pools); random IDs and the
generated kinds of mixed identifiers use disjoint formats: random IDs and bare numbers in
10001..99999 (in distribution: 1..10000 and 10..9999), hashes ``n`` + 6 hex digits (4),
hex codes ``0x`` + 6 (4), garbled strings of 4 consonants, a separator and 3 characters
(2-3 and 2), codes ``prefix_L`` + 100..999 (1..99). Each held-out format differs from every
in-distribution format in length, range or alphabet, so no identifier (ignoring case) can
be drawn on both sides; ``closurebench check-overlap`` counts any that are.

Names never contain commas, periods, colons, quotes, "--", "->" or the word "and", so a
list "A, B, and C" and the sentence frames split unambiguously; all names and aliases of
an instance are distinct ignoring case.

Example:
    >>> from closurebench.seeding import rng
    >>> nm = make_names("random", 4, ("A", "B", "C", "D"), rng(0, "doc"))
    >>> nm.rule, nm.numeric, len(set(nm.names))
    ('numeric', True, 4)
    >>> [int(nm.names[i]) for i in nm.listing] == sorted(int(x) for x in nm.names)
    True
    >>> make_names("canonical", 3, (), rng(0)).names
    ('0', '1', '2')
    >>> mx = make_names("mixed", 12, tuple(f"Site {c}" for c in "ABCDEFGHIJKL"), rng(1))
    >>> all(0 <= i < 12 for i in mx.aliases.values()) and bool(mx.aliases)
    True
    >>> all(10000 < int(x) < 100000 for x in make_names("random", 5, (), rng(2), True).names)
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from closurebench.errors import ConfigError

__all__ = ["NAMINGS", "Naming", "make_names"]

NAMINGS: tuple[str, ...] = ("canonical", "random", "semantic", "mixed")
RULES = {"canonical": "numeric", "random": "numeric", "semantic": "alphabetical", "mixed": "listed"}

_HEX = "0123456789abcdef"
_CONS = "bcdfghjklmnpqrstvwxz"
_CODE_PREFIX = ("loc", "pt", "node", "unit", "site", "ref", "tmp", "obj", "src", "grp")
_KINDS = ("hash", "hex", "garbled", "number", "code", "name")
_KIND_P = np.array([0.2, 0.15, 0.2, 0.15, 0.15, 0.15])
_FORBIDDEN = (",", ".", ":", ";", "'", '"', "?", "!", "(", ")", "--", "->", "\n")


@dataclass(frozen=True)
class Naming:
    """Display names of one view.

    Attributes:
        scheme: One of :data:`NAMINGS`.
        names: Display name of node ``i`` at index ``i``.
        aliases: ``{alias: node id}`` (mixed scheme only; read-only mapping).
        listing: Node ids in the order the text lists them (= BFS tie-break order).
        rule: BFS tie-break rule: ``numeric``, ``alphabetical`` or ``listed``.
    """

    scheme: str
    names: tuple[str, ...]
    listing: tuple[int, ...]
    rule: str
    aliases: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    @property
    def numeric(self) -> bool:
        """True when names are numbers written as ``"<noun> <number>"`` in the text."""
        return self.scheme in ("canonical", "random")

    def alias_of(self) -> dict[int, str]:
        """``{node id: alias}`` (each aliased node has exactly one alias)."""
        return {node: alias for alias, node in self.aliases.items()}


@dataclass(frozen=True)
class _Formats:
    """The generated identifier formats of one side (in distribution or held out)."""

    hex_digits: int  # of a hash (after "n") and of a hex code (after "0x")
    garbled_head: tuple[int, int]  # consonants before the separator: low, high (exclusive)
    garbled_tail: int
    numbers: tuple[int, int]  # bare numbers of mixed naming: low, high (exclusive)
    codes: tuple[int, int]  # the number of a code
    random_ids: tuple[int, int]  # random naming: low, high (inclusive)


_IN_DISTRIBUTION = _Formats(4, (2, 4), 2, (10, 10000), (1, 100), (1, 10000))
_HELD_OUT = _Formats(6, (4, 5), 3, (10001, 100000), (100, 1000), (10001, 99999))


def _hash(g: np.random.Generator, f: _Formats) -> str:
    return "n" + "".join(_HEX[int(i)] for i in g.integers(0, 16, size=f.hex_digits))


def _hex(g: np.random.Generator, f: _Formats) -> str:
    return "0x" + "".join(_HEX[int(i)] for i in g.integers(0, 16, size=f.hex_digits)).upper()


def _garbled(g: np.random.Generator, f: _Formats) -> str:
    size = int(g.integers(*f.garbled_head))
    head = "".join(_CONS[int(i)] for i in g.integers(0, len(_CONS), size=size))
    if g.random() < 0.3:
        head = head.upper()
    sep = "_-#"[int(g.integers(0, 3))]
    tail = "".join((_CONS + "0123456789")[int(i)] for i in g.integers(0, 30, size=f.garbled_tail))
    return f"{head}{sep}{tail}"


def _code(g: np.random.Generator, f: _Formats) -> str:
    prefix = _CODE_PREFIX[int(g.integers(0, len(_CODE_PREFIX)))]
    letter = "ABCDEFGHJKLMNPQRSTUVWXYZ"[int(g.integers(0, 24))]
    return f"{prefix}_{letter}{int(g.integers(*f.codes))}"


def _one(kind: str, g: np.random.Generator, pool: list[str], f: _Formats) -> str:
    if kind == "hash":
        return _hash(g, f)
    if kind == "hex":
        return _hex(g, f)
    if kind == "garbled":
        return _garbled(g, f)
    if kind == "number":
        return str(int(g.integers(*f.numbers)))
    if kind == "code":
        return _code(g, f)
    if pool:
        return pool.pop()
    return _code(g, f)


def _mixed(n: int, pool: tuple[str, ...], g: np.random.Generator, f: _Formats) -> Naming:
    names_pool = [pool[int(i)] for i in g.permutation(len(pool))]
    seen: set[str] = set()
    names: list[str] = []
    kinds: list[str] = []
    for _ in range(n):
        kind = _KINDS[int(g.choice(len(_KINDS), p=_KIND_P))]
        name = _one(kind, g, names_pool, f)
        while name.casefold() in seen:
            name = _one(kind, g, names_pool, f)
        seen.add(name.casefold())
        names.append(name)
        kinds.append(kind)
    k = max(1, n // 6) if n >= 2 else 0
    aliases: dict[str, int] = {}
    for node in sorted(int(i) for i in g.choice(n, size=k, replace=False)):
        choices = [c for c in ("name", "code", "hash") if c != kinds[node]]
        kind = choices[int(g.integers(0, len(choices)))]
        alias = _one(kind, g, names_pool, f)
        while alias.casefold() in seen:
            alias = _one(kind, g, names_pool, f)
        seen.add(alias.casefold())
        aliases[alias] = node
    listing = tuple(int(i) for i in g.permutation(n))
    return Naming("mixed", tuple(names), listing, "listed", MappingProxyType(aliases))


def make_names(
    scheme: str, n: int, pool: tuple[str, ...], g: np.random.Generator, held_out: bool = False
) -> Naming:
    """Draw the display names of one view.

    Args:
        scheme: One of :data:`NAMINGS`.
        n: Number of nodes.
        pool: Semantic names (at least ``n`` distinct ones for ``semantic``; ``mixed``
            draws some names and aliases from it and falls back to codes).
        g: The view's generator; the result is a pure function of its state.
        held_out: Draw random IDs and generated mixed identifiers in the held-out formats
            (see the module docstring; the OOD scenarios' views), disjoint from the
            in-distribution ones. ``False`` draws exactly what it drew before 0.3.

    Raises:
        ConfigError: on an unknown scheme, ``n`` outside 1..10000, or a short pool.
    """
    if scheme not in NAMINGS:
        raise ConfigError(f"naming {scheme!r} is not one of {NAMINGS}")
    if not 1 <= n <= 10000:
        raise ConfigError(f"n={n} cannot be named; use 1 <= n <= 10000")
    if scheme == "canonical":
        return Naming(scheme, tuple(str(i) for i in range(n)), tuple(range(n)), "numeric")
    formats = _HELD_OUT if held_out else _IN_DISTRIBUTION
    if scheme == "random":
        lo, hi = formats.random_ids
        ids = [int(x) + lo for x in g.choice(hi - lo + 1, size=n, replace=False)]
        listing = tuple(sorted(range(n), key=lambda i: ids[i]))
        return Naming(scheme, tuple(str(x) for x in ids), listing, "numeric")
    distinct = list(dict.fromkeys(p for p in pool if p.casefold()))
    if len({p.casefold() for p in distinct}) != len(distinct):
        raise ConfigError("the name pool has names equal up to case; make them distinct")
    if scheme == "semantic":
        if len(distinct) < n:
            raise ConfigError(f"pool has {len(distinct)} names, fewer than n={n}; extend it")
        names = tuple(distinct[int(i)] for i in g.choice(len(distinct), size=n, replace=False))
        listing = tuple(sorted(range(n), key=lambda i: (names[i].casefold(), names[i])))
        return Naming(scheme, names, listing, "alphabetical")
    out = _mixed(n, tuple(distinct), g, formats)
    bad = [x for x in (*out.names, *out.aliases) if any(f in x for f in _FORBIDDEN)]
    if bad:  # pragma: no cover - generators above never produce these
        raise ConfigError(f"mixed names {bad} contain forbidden characters")
    return out
