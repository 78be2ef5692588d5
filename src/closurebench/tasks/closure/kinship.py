"""Kinship helpers shared by the kinship categories (L1 ancestor/sibling/cousin, L2 chain).

A kinship graph has an edge ``p -> c`` when ``p`` is a parent of ``c``
(:func:`closurebench.graphs.kinship_dag`, ``max_children=3``, at most two parents).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from closurebench.graphs import Graph, kinship_dag
from closurebench.structures.closure import ClosureStructure
from closurebench.tasks.closure.sampling import draw

__all__ = ["children", "parents", "sample_kinship"]


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
) -> ClosureStructure:
    """A kinship DAG and an anchor ``X`` drawn uniformly among people with a non-empty answer.

    Raises:
        Resample: if nobody in the drawn family has a non-empty answer.

    Example:
        >>> from closurebench.seeding import rng
        >>> s = sample_kinship(rng(0, "doc"), 6, "sibling", lambda gr, x: parents(gr, x))
        >>> bool(parents(s.graph, s.anchor("X")))
        True
    """
    graph = kinship_dag(g, n, max_children=3).graph
    x = draw(
        g, [x for x in range(n) if answer(graph, x)], category, "anchor with a non-empty answer"
    )
    return ClosureStructure(category, graph, (("X", x),))
