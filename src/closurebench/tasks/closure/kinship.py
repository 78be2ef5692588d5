"""Kinship helpers shared by the kinship categories (ancestor, sibling, cousin,
kinship_chain, kinship_complex).

A kinship graph has an edge ``p -> c`` when ``p`` is a parent of ``c``
(:func:`closurebench.graphs.kinship_dag`, at most two parents, at most
:data:`MAX_CHILDREN` children). :func:`family` draws it as the spec says: 3–5
generations (:data:`GENERATIONS`, never more than ``n``) from the structural seed, and
ρ as the probability of each allowed further parent → child link, so lineages reach the
paper's 4-level example and beyond and the density knob shapes the family.
:func:`link_density` is the family's actual density in that sense.

Example:
    >>> from closurebench.seeding import rng
    >>> k = family(rng(0, "doc"), 10, 0.3)
    >>> 3 <= k.generations <= 5, max(len(parents(k.graph, v)) for v in range(10)) <= 2
    (True, True)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from closurebench.graphs import Graph, KinshipGraph, in_degrees, kinship_dag
from closurebench.structures.closure import ClosureStructure
from closurebench.tasks.closure.sampling import draw

__all__ = [
    "GENERATIONS",
    "MAX_CHILDREN",
    "children",
    "family",
    "lineage_depth",
    "link_density",
    "parents",
    "sample_kinship",
]

#: The numbers of generations a family may span (drawn uniformly, capped at ``n``).
GENERATIONS: tuple[int, int] = (3, 5)

#: Cap on the children of one parent (``docs/categories.md``: ``max_children`` = 3).
MAX_CHILDREN = 3


def family(g: np.random.Generator, n: int, density: float) -> KinshipGraph:
    """A family of ``n`` people: 3–5 generations drawn from ``g``, links at density ρ.

    Args:
        g: The structural generator (draws the generation count, then the family).
        n: Number of people (``>= 3``).
        density: ρ, the probability of each allowed further parent → child link.

    Example:
        >>> from closurebench.seeding import rng
        >>> sorted({family(rng(s, "doc"), 8, 0.3).generations for s in range(30)})
        [3, 4, 5]
    """
    lo, hi = GENERATIONS
    gens = int(g.integers(lo, min(hi, n) + 1))
    return kinship_dag(g, n, generations=gens, max_children=MAX_CHILDREN, link_prob=density)


def lineage_depth(graph: Graph) -> int:
    """The number of generations of a family: people on its longest line of descent.

    Example:
        >>> lineage_depth(Graph(4, ((0, 1), (1, 2), (3, 2))))
        3
    """
    return int(_depths(graph).max(initial=-1)) + 1


def _depths(graph: Graph) -> np.ndarray:
    """Length of the longest path from a founder to each person (a DAG's generations)."""
    depth = np.zeros(graph.n, dtype=np.int64)
    indeg = in_degrees(graph).copy()
    out: dict[int, list[int]] = {}
    for u, v in graph.edges:
        out.setdefault(int(u), []).append(int(v))
    frontier = [v for v in range(graph.n) if indeg[v] == 0]
    while frontier:
        u = frontier.pop()
        for v in out.get(u, ()):
            depth[v] = max(depth[v], depth[u] + 1)
            indeg[v] -= 1
            if indeg[v] == 0:
                frontier.append(v)
    return depth


def link_density(graph: Graph, max_parents: int = 2) -> float:
    """A family's actual link density: the share of allowed further parent links present.

    A person of generation ``g >= 1`` (generation = :func:`lineage_depth`-style depth)
    has one parent and may have ``min(max_parents, size of generation g - 1) - 1``
    more; this is the share of those allowed further links that exist, what ρ sets in
    :func:`family`. 0.0 for a family that allows none.

    Example:
        >>> link_density(Graph(5, ((0, 2), (1, 2), (0, 3), (1, 4))))
        0.3333333333333333
    """
    depth = _depths(graph)
    sizes = np.bincount(depth, minlength=1)
    indeg = in_degrees(graph)
    allowed = sum(min(max_parents, int(sizes[d - 1])) - 1 for d in depth.tolist() if d > 0)
    present = int(np.clip(indeg - 1, 0, None).sum())
    return present / allowed if allowed else 0.0


def parents(graph: Graph, x: int) -> set[int]:
    """The parents of ``x`` (sources of edges into ``x``).

    Example:
        >>> parents(Graph(3, ((0, 2), (1, 2))), 2)
        {0, 1}
    """
    return {int(u) for u, v in graph.edges if v == x}


def children(graph: Graph, p: int) -> set[int]:
    """The children of ``p`` (targets of edges out of ``p``).

    Example:
        >>> children(Graph(3, ((0, 1), (0, 2))), 0)
        {1, 2}
    """
    return {int(v) for u, v in graph.edges if u == p}


def sample_kinship(
    g: np.random.Generator,
    n: int,
    category: str,
    answer: Callable[[Graph, int], set[int]],
    density: float,
) -> ClosureStructure:
    """A family (:func:`family`) and an anchor ``X`` drawn uniformly among people with a
    non-empty answer.

    Raises:
        Resample: if nobody in the drawn family has a non-empty answer.

    Example:
        >>> from closurebench.seeding import rng
        >>> s = sample_kinship(rng(0, "doc"), 6, "sibling", lambda gr, x: parents(gr, x), 0.3)
        >>> bool(parents(s.graph, s.anchor("X")))
        True
    """
    graph = family(g, n, density).graph
    x = draw(
        g, [x for x in range(n) if answer(graph, x)], category, "anchor with a non-empty answer"
    )
    return ClosureStructure(category, graph, (("X", x),))
