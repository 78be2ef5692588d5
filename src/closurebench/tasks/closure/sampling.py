"""Shared sampling helpers for the ClosureBench categories (pure, seeded).

Graphs are Erdős–Rényi ``G(n, ρ)`` (:func:`digraph`). A category whose question needs
unreachable pairs (``can X reach Y?`` answered *no*, the nodes X cannot reach, two
different strongly connected groups) draws with :func:`reach_digraph` instead: the same
``G(n, ρ)`` while such pairs are common, and, once ``G(n, ρ)`` is almost surely strongly
connected (large ``n`` at the usual densities: at ``n = 100`` every node reaches every
other), ``G(n, ρ)`` with a planted order of blocks (:func:`block_digraph`), so that
those questions stay well posed at any size. The draw adapts; the answers do not.
Graphs of at most :data:`PLAIN_MAX_N` nodes (the default sizes) always draw plain
``G(n, ρ)``, so existing datasets regenerate byte for byte.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from closurebench.errors import Resample
from closurebench.graphs import Graph, erdos_renyi, tc

__all__ = [
    "PLAIN_MAX_N",
    "STRONGLY_CONNECTED_ODDS",
    "block_digraph",
    "desc_matrix",
    "digraph",
    "distinct_nodes",
    "draw",
    "mostly_strongly_connected",
    "reach_digraph",
]

#: Graphs of at most this many nodes always take the plain ``G(n, ρ)`` draw, so datasets
#: of the default sizes (n 4..10) come out byte-identical at any density.
PLAIN_MAX_N = 10

#: :func:`mostly_strongly_connected` holds when ``G(n, ρ)`` has fewer than this many nodes
#: without in- or out-edges on average. Below it, rejection sampling rarely finds an
#: unreachable pair (200 draws see about four). The default knobs (n ≤ 10, ρ ≤ 0.5) stay
#: above it (at least 0.039 at n = 10, ρ = 0.5), so their draws are plain ``G(n, ρ)``.
STRONGLY_CONNECTED_ODDS = 0.02


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


def mostly_strongly_connected(n: int, density: float) -> bool:
    """True when ``G(n, ρ)`` is almost surely strongly connected.

    The usual obstruction to strong connectivity is a node with no in-edge or no
    out-edge; ``G(n, ρ)`` has ``2 n (1 - ρ)^(n - 1)`` of them on average. Below
    :data:`STRONGLY_CONNECTED_ODDS` unreachable pairs are too rare to sample.

    Example:
        >>> mostly_strongly_connected(10, 0.5), mostly_strongly_connected(100, 0.1)
        (False, True)
    """
    return 2 * n * (1.0 - density) ** (n - 1) < STRONGLY_CONNECTED_ODDS


def block_digraph(g: np.random.Generator, n: int, density: float) -> Graph:
    """``G(n, ρ)`` with a planted order: nodes fall in 2–4 blocks, no edge points back.

    The nodes are shuffled and cut into 2–4 non-empty blocks; every ordered pair
    ``(u, v)``, ``u != v``, whose block of ``v`` is not before the block of ``u`` is an
    edge with probability ``ρ``. Later blocks cannot reach earlier ones, so unreachable
    pairs, several strongly connected groups and nodes reaching different numbers of
    nodes exist at any ``n``, while each block is as dense as ``G(n, ρ)``. Node ids carry
    no trace of the order. No edges → :class:`Resample`.

    Example:
        >>> from closurebench.graphs import has_path
        >>> from closurebench.seeding import rng
        >>> graph = block_digraph(rng(0, "doc"), 30, 0.5)
        >>> graph.n, all(has_path(graph, u, v) for u in range(30) for v in range(30))
        (30, False)
    """
    blocks = min(int(g.integers(2, 5)), n)
    cuts = np.sort(g.choice(np.arange(1, n), size=blocks - 1, replace=False))
    block = np.empty(n, dtype=np.int64)
    for b, part in enumerate(np.split(g.permutation(n), cuts)):
        block[part] = b
    keep = (g.random((n, n)) < density) & (block[:, None] <= block[None, :])
    np.fill_diagonal(keep, False)
    graph = Graph(n, tuple((int(u), int(v)) for u, v in np.argwhere(keep)))
    if graph.m == 0:
        raise Resample("the drawn graph has no edges")
    return graph


def reach_digraph(g: np.random.Generator, n: int, density: float) -> Graph:
    """The graph of a category that needs unreachable pairs.

    :func:`digraph` (plain ``G(n, ρ)``) unless ``n`` exceeds :data:`PLAIN_MAX_N` and
    :func:`mostly_strongly_connected` holds; then :func:`block_digraph`. Graphs of the
    default sizes (n ≤ 10) always take the plain draw, so their datasets never change
    (a dense small graph can still leave such a category without a well-posed draw:
    lower the density).

    Example:
        >>> from closurebench.seeding import rng
        >>> reach_digraph(rng(0, "doc"), 6, 0.4) == digraph(rng(0, "doc"), 6, 0.4)
        True
    """
    if n > PLAIN_MAX_N and mostly_strongly_connected(n, density):
        return block_digraph(g, n, density)
    return digraph(g, n, density)
