"""Exact maximum clique by branch and bound with a greedy-colouring bound (MCQ/BBMC).

Vertex sets are Python-int bitsets. Vertices are renumbered by non-increasing degree so
that the colouring bound of Tomita's MCQ is computed on low bits first, following San
Segundo's bitset formulation (BBMC). Used as the lower bound of the chromatic number
(``chi >= omega``) and, on the complement, for maximum independent sets (so minimum
vertex covers: ``tau = n - alpha``).

Example:
    >>> adj = adjacency_bitsets(5, [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)])
    >>> sorted(max_clique(adj))
    [0, 1, 2]
    >>> len(max_clique(complement(adj)))  # a maximum independent set, e.g. {0, 3}
    2
"""

from __future__ import annotations

from closurebench.graphs.exact._common import Deadline, adjacency_bitsets, most_connected

__all__ = ["adjacency_bitsets", "complement", "greedy_clique", "max_clique"]

_CHECK_EVERY = 2048


def complement(adj: list[int]) -> list[int]:
    """Adjacency bitsets of the complement graph.

    Example:
        >>> complement([2, 1])
        [0, 0]
    """
    n = len(adj)
    full = (1 << n) - 1
    return [full & ~a & ~(1 << v) for v, a in enumerate(adj)]


def greedy_clique(adj: list[int]) -> list[int]:
    """A maximal clique found greedily (highest remaining degree first).

    Example:
        >>> sorted(greedy_clique([6, 5, 3]))
        [0, 1, 2]
    """
    cand = (1 << len(adj)) - 1
    clique: list[int] = []
    while cand:
        best = most_connected(cand, adj, cand)
        clique.append(best)
        cand &= adj[best]
    return clique


def max_clique(adj: list[int], deadline: Deadline | None = None) -> list[int]:
    """A maximum clique of the graph given by adjacency bitsets.

    Args:
        adj: ``adj[v]`` has bit ``u`` set iff ``u-v`` is an edge (no self-loops).
        deadline: Raises :class:`SolverTimeout` through ``deadline.check`` when spent.

    Returns:
        The vertices of one maximum clique (original ids, sorted).

    Example:
        >>> max_clique([0, 0, 0])
        [0]
    """
    n = len(adj)
    if n == 0:
        return []
    # Renumber by non-increasing degree: bit i of the internal sets is vertex order[i].
    order = sorted(range(n), key=lambda v: (-adj[v].bit_count(), v))
    pos = {v: i for i, v in enumerate(order)}
    radj = [0] * n
    for i, v in enumerate(order):
        a = adj[v]
        bits = 0
        while a:
            low = a & -a
            bits |= 1 << pos[low.bit_length() - 1]
            a ^= low
        radj[i] = bits

    best = [pos[v] for v in greedy_clique(adj)]
    calls = 0

    def expand(clique: list[int], cand: int) -> None:
        nonlocal best, calls
        calls += 1
        if deadline is not None and calls % _CHECK_EVERY == 0:
            deadline.check("in the maximum-clique search")
        # Greedy sequential colouring of cand: a vertex of colour k bounds the clique
        # extension through it by k. Only vertices that could beat the incumbent are kept.
        kmin = len(best) - len(clique)
        verts: list[int] = []
        bounds: list[int] = []
        uncol = cand
        k = 0
        while uncol:
            k += 1
            q = uncol
            while q:
                low = q & -q
                v = low.bit_length() - 1
                q &= ~radj[v] & ~low
                uncol ^= low
                if k > kmin:
                    verts.append(v)
                    bounds.append(k)
        # Vertices of colour <= kmin are not branched on here but stay in cand, as
        # possible members deeper down.
        for idx in range(len(verts) - 1, -1, -1):
            if len(clique) + bounds[idx] <= len(best):
                return
            v = verts[idx]
            new = cand & radj[v]
            clique.append(v)
            if new:
                expand(clique, new)
            elif len(clique) > len(best):
                best = list(clique)
            clique.pop()
            cand &= ~(1 << v)

    expand([], (1 << n) - 1)
    return sorted(order[i] for i in best)
