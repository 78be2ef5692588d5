"""Shared sampling helpers for the ClosureBench categories (pure, seeded)."""

from __future__ import annotations

from typing import Any

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, erdos_renyi, tc

__all__ = ["desc_matrix", "digraph", "distinct_nodes", "draw"]


def digraph(g: np.random.Generator, n: int, density: float, *, directed: bool = True) -> Graph:
    """An Erdős–Rényi graph with edge probability ``density``; no edges → :class:`Resample`.

    Example:
        >>> from closurebench.seeding import rng
        >>> digraph(rng(0, "doc"), 6, 0.4).n
        6
    """
    graph = erdos_renyi(g, n, density, directed=directed)
    if graph.m == 0:
        raise Resample("the drawn graph has no edges")
    return graph


def distinct_nodes(g: np.random.Generator, n: int, k: int) -> tuple[int, ...]:
    """``k`` distinct node ids drawn uniformly.

    Example:
        >>> from closurebench.seeding import rng
        >>> len(set(distinct_nodes(rng(0, "doc"), 5, 2)))
        2
    """
    return tuple(int(v) for v in g.choice(n, size=k, replace=False))


def draw(g: np.random.Generator, candidates: list[Any], category: str, what: str) -> Any:
    """One of ``candidates`` drawn uniformly; none → :class:`~closurebench.errors.Resample`.

    Example:
        >>> from closurebench.seeding import rng
        >>> draw(rng(0, "doc"), [(1, 2)], "doc", "pair")
        (1, 2)
    """
    if not candidates:
        raise Resample(f"{category}: the drawn graph has no well-posed {what}")
    return candidates[int(g.integers(len(candidates)))]


def desc_matrix(graph: Graph) -> np.ndarray:
    """Boolean matrix whose row ``x`` is ``desc(x)`` (strict closure, diagonal cleared).

    Example:
        >>> desc_matrix(Graph(2, ((0, 1), (1, 0)))).astype(int).tolist()
        [[0, 1], [1, 0]]
    """
    d = tc(graph)
    np.fill_diagonal(d, False)
    return d
