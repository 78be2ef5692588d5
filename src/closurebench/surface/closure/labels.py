"""Label pools for ClosureBench questions, extended deterministically for large ``n``.

Four pools: capital letters (``A``..``Z``, then ``A1``..``Z1``, ``A2``..), personal names
(``Alice``..``Vic``, then two-word names such as ``Ada Park`` whose first word is never a
label on its own), server ids (``srv-00``..``srv-29``, then ``srv-30``, ...), and animal
names (``ant``..``zebu``, then colour-prefixed animals such as ``red ant``). No label is
a prefix word of another label, none contains ``,``, ``.``, ``|``, quotes or the word
``and``, so the reader can resolve labels against the declared node list.

Example:
    >>> from closurebench.seeding import rng
    >>> pool_labels("letters", 28)[-3:]
    ('Z', 'A1', 'B1')
    >>> pool_labels("names", 24)[21:]
    ('Vic', 'Ada Park', 'Bea Park')
    >>> labels = labels_for("servers", 5, rng(0, "doc"))
    >>> len(set(labels)), all(x.startswith("srv-") for x in labels)
    (5, True)
"""

from __future__ import annotations

import numpy as np

from closurebench.errors import ConfigError

__all__ = ["LABEL_POOLS", "labels_for", "pool_labels"]

LABEL_POOLS: tuple[str, ...] = ("letters", "names", "servers", "animals")

_LETTERS = tuple(chr(ord("A") + i) for i in range(26))
_NAMES = (
    "Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Ken",
    "Liam", "Mallory", "Nina", "Oscar", "Peggy", "Quinn", "Rupert", "Sybil", "Trent", "Uma",
    "Vic",
)  # fmt: skip
# First words of extended names: never labels on their own.
_GIVEN = (
    "Ada", "Bea", "Cyd", "Dov", "Eli", "Fay", "Gil", "Hal", "Ida", "Jo", "Kai", "Lou", "Max",
    "Ned", "Ola", "Pip", "Rae", "Sal", "Ted", "Una", "Val", "Wes", "Xia", "Yul", "Zed",
)  # fmt: skip
_SURNAMES = (
    "Park", "Reed", "Stone", "Hale", "Moss", "Frost", "Lane", "Wood", "Cole", "Nash", "Shaw",
    "Pike", "Ross", "Webb", "Dunn", "Kerr",
)  # fmt: skip
_ANIMALS = (
    "ant", "bear", "cat", "deer", "eagle", "fox", "gnu", "hare", "ibis", "jay", "kiwi", "lynx",
    "mole", "newt", "owl", "puma", "quail", "robin", "seal", "tern", "urchin", "viper", "wren",
    "xerus", "yak", "zebu",
)  # fmt: skip
_COLOURS = (
    "red", "blue", "green", "grey", "gold", "black", "white", "brown", "pink", "teal", "amber",
    "olive", "ivory", "coral", "jade", "rust",
)  # fmt: skip


def pool_labels(pool: str, n: int) -> tuple[str, ...]:
    """The first ``n`` labels of ``pool``, in canonical order (base pool, then extensions).

    Args:
        pool: One of :data:`LABEL_POOLS`.
        n: How many labels (``>= 0``).

    Raises:
        ConfigError: on an unknown pool or a negative ``n``.

    Example:
        >>> pool_labels("servers", 31)[-2:], pool_labels("animals", 27)[-1]
        (('srv-29', 'srv-30'), 'red ant')
    """
    if pool not in LABEL_POOLS:
        raise ConfigError(f"unknown label pool {pool!r}; choose one of {LABEL_POOLS}")
    if n < 0:
        raise ConfigError(f"n={n} must be >= 0")
    out: list[str] = []
    i = 0
    while len(out) < n:
        out.append(_nth(pool, i))
        i += 1
    return tuple(out)


def _nth(pool: str, i: int) -> str:
    """Label number ``i`` of ``pool``'s infinite canonical sequence."""
    if pool == "letters":
        q, r = divmod(i, 26)
        return _LETTERS[r] + (str(q) if q else "")
    if pool == "servers":
        return f"srv-{i:02d}"
    if pool == "names":
        if i < len(_NAMES):
            return _NAMES[i]
        q, r = divmod(i - len(_NAMES), len(_GIVEN))
        surname = _SURNAMES[q % len(_SURNAMES)]
        rounds = q // len(_SURNAMES)
        return f"{_GIVEN[r]} {surname}" + (f"-{_SURNAMES[rounds - 1]}" if rounds else "")
    q, r = divmod(i, len(_ANIMALS))
    if q == 0:
        return _ANIMALS[r]
    colour = _COLOURS[(q - 1) % len(_COLOURS)]
    rounds = (q - 1) // len(_COLOURS)
    return f"{colour} {_ANIMALS[r]}" + (str(rounds + 1) if rounds else "")


def labels_for(pool: str, n: int, g: np.random.Generator) -> tuple[str, ...]:
    """``n`` distinct labels from ``pool`` in a seeded order.

    When ``n`` fits the base pool, a random subset of it in random order; otherwise a
    random order of the first ``n`` labels of the extended pool.

    Args:
        pool: One of :data:`LABEL_POOLS`.
        n: Number of labels.
        g: The surface generator.

    Example:
        >>> from closurebench.seeding import rng
        >>> labels_for("letters", 4, rng(1, "x")) == labels_for("letters", 4, rng(1, "x"))
        True
    """
    base = {"letters": 26, "names": len(_NAMES), "servers": 30, "animals": 26}
    if pool not in base:
        raise ConfigError(f"unknown label pool {pool!r}; choose one of {LABEL_POOLS}")
    candidates = pool_labels(pool, max(n, base[pool]))
    idx = g.permutation(len(candidates))[:n]
    return tuple(candidates[int(i)] for i in idx)
