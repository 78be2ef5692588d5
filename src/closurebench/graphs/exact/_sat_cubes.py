"""Pure helpers of the colouring's SAT method: the pinned clique, tabu search, the cubes.

The SAT encoding (:mod:`closurebench.graphs.exact._sat_child`) pins a clique to colours
``0..omega-1`` and orders the other colours by first use along a vertex order. Which
maximum clique is pinned matters a lot for CaDiCaL: on the hardest benchmark graph
(G(60, 0.5) #18, ``omega = 7``, ``chi = 11``, 94 maximum cliques) the UNSAT call "10
colours?" takes 2.2 s with the maximum clique of largest degree sum and 4.3 s with the
first one found (6.3 s with the worst tried). :func:`heavy_clique` picks the former.

Before a hard level is split, a tabu search (:func:`tabu_colouring`, TabuCol) looks for a
colouring with that many colours: an upper bound only, checked proper by the caller, so it
cannot make the answer wrong; it spares the cube search the satisfiable levels (it finds a
``chi``-colouring of each of the 20 benchmark G(60, 0.5) graphs within 5,400 moves).

A hard level is split into *cubes* (:func:`cubes`): every proper, first-use
consistent colouring of the first ``d`` vertices after the clique. Every model of the
encoding colours those vertices in one of these ways, so the level is UNSAT iff every cube
is; cubes are solved by several children at once (cube and conquer).

Example:
    >>> adj = adjacency_bitsets(4, [(0, 1), (1, 2), (2, 0), (2, 3)])
    >>> heavy_clique(adj, [0, 1, 2])
    [0, 1, 2]
    >>> cubes(adj, [0, 1, 2, 3], 3, 3, target=2)
    [[(3, 0)], [(3, 1)]]
    >>> tabu_colouring(adj, 3, [0, 1, 2, 0], max_moves=100)
    [0, 1, 2, 0]
"""

from __future__ import annotations

import random

from closurebench.graphs.exact._common import Deadline, adjacency_bitsets

__all__ = ["adjacency_bitsets", "cubes", "heavy_clique", "tabu_colouring"]

_CHECK_EVERY = 2048
_MAX_NODES = 200_000  # enumeration nodes before heavy_clique keeps the best found so far


def heavy_clique(adj: list[int], clique: list[int], deadline: Deadline | None = None) -> list[int]:
    """The clique of ``len(clique)`` vertices with the largest degree sum (sorted ids).

    Enumerates the cliques of that size in increasing-id order (each once), pruning a
    branch whose candidates cannot complete one; ties keep the first found. After
    ``_MAX_NODES`` search nodes the best one found so far is kept (a deterministic cut,
    never a timing one). ``clique`` itself is the starting incumbent, so the answer is
    always a clique of that size.

    Args:
        adj: Adjacency bitsets.
        clique: A clique (typically a maximum one); its size is the size searched for.
        deadline: Raises :class:`SolverTimeout` through ``deadline.check`` when spent.

    Returns:
        A clique of ``len(clique)`` vertices, sorted.

    Example:
        >>> path = adjacency_bitsets(4, [(0, 1), (1, 2), (2, 3)])
        >>> heavy_clique(path, [0, 1])  # degree sums 3, 4, 3
        [1, 2]
    """
    size = len(clique)
    deg = [a.bit_count() for a in adj]
    best = sorted(clique)
    best_sum = sum(deg[v] for v in best)
    nodes = 0
    stack: list[tuple[list[int], int, int]] = [([], (1 << len(adj)) - 1, 0)]
    while stack and nodes < _MAX_NODES:
        members, cand, total = stack.pop()
        nodes += 1
        if deadline is not None and nodes % _CHECK_EVERY == 0:
            deadline.check("choosing the SAT method's clique")
        if len(members) == size:
            if total > best_sum:
                best, best_sum = members, total
            continue
        need = size - len(members)
        children: list[tuple[list[int], int, int]] = []
        while cand and cand.bit_count() >= need:
            low = cand & -cand
            v = low.bit_length() - 1
            cand ^= low
            children.append(([*members, v], cand & adj[v], total + deg[v]))
        stack.extend(reversed(children))  # depth first, smallest ids first
    return best


def cubes(
    adj: list[int], order: list[int], omega: int, k: int, *, target: int = 48
) -> list[list[tuple[int, int]]]:
    """Cover the ``k``-colourings of the encoding by partial colourings (cubes).

    For ``d = 1, 2, ...`` (until there are at least ``target`` cubes or no vertex is
    left), the cubes are the colourings of ``order[omega:omega + d]`` that are proper
    together with the pinned clique ``order[:omega]`` (colours ``0..omega-1``) and that
    respect the first-use rule: a vertex takes a colour ``c >= omega`` only if ``c - 1``
    is taken earlier. Every model of the encoding restricts to exactly one cube, so the
    level is unsatisfiable iff every cube is (an empty list means UNSAT outright).

    Args:
        adj: Adjacency bitsets.
        order: All vertices, the pinned clique first.
        omega: The pinned clique's size.
        k: The number of colours.
        target: The fewest cubes wanted.

    Returns:
        The cubes, each a list of ``(vertex, colour)``, in lexicographic order.

    Example:
        >>> tri = adjacency_bitsets(3, [(0, 1), (1, 2)])  # clique (0, 1), then vertex 2
        >>> cubes(tri, [0, 1, 2], 2, 3, target=5)
        [[(2, 0)], [(2, 2)]]
    """
    colour_of = {v: c for c, v in enumerate(order[:omega])}
    # A cube: its assignments, and the number of colours used so far (a prefix 0..m-1).
    out: list[tuple[list[tuple[int, int]], int]] = [([], omega)]
    for v in order[omega:]:
        if len(out) >= target:
            break
        taken = {c for u, c in colour_of.items() if adj[v] >> u & 1}
        grown: list[tuple[list[tuple[int, int]], int]] = []
        for assign, used in out:
            banned = taken | {c for u, c in assign if adj[v] >> u & 1}
            for c in range(min(used + 1, k)):
                if c not in banned:
                    grown.append(([*assign, (v, c)], max(used, c + 1)))
        out = grown
    return [assign for assign, _ in out]


def tabu_colouring(
    adj: list[int],
    k: int,
    start: list[int],
    *,
    max_moves: int,
    seed: int = 0,
    deadline: Deadline | None = None,
) -> list[int] | None:
    """A proper ``k``-colouring by tabu search (Galinier and Hao's TabuCol), or ``None``.

    Starts from ``start`` with colours ``>= k`` redrawn at random, then repeatedly moves
    one conflicting vertex to the colour that lowers the number of conflicting edges most
    (ties drawn at random); the move back is tabu for ``rand(10) + 0.6 * conflicts + 1``
    moves unless it would beat the best count seen. Gives up after ``max_moves`` moves.
    The random draws come from ``random.Random(seed)``, so the answer is a function of the
    arguments (never of timing).

    Args:
        adj: Adjacency bitsets.
        k: Colours allowed (``>= 1``).
        start: A colouring to start from (any colours).
        max_moves: The most moves tried.
        seed: Seed of the random draws.
        deadline: Raises :class:`SolverTimeout` through ``deadline.check`` when spent.

    Returns:
        A proper colouring with colours ``< k``, or ``None`` if none was found.

    Example:
        >>> c5 = adjacency_bitsets(5, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)])
        >>> tabu_colouring(c5, 2, [0, 0, 0, 0, 0], max_moves=1000) is None  # odd cycle
        True
        >>> tabu_colouring(c5, 3, [0, 0, 0, 0, 0], max_moves=1000) is not None
        True
    """
    n = len(adj)
    rnd = random.Random(seed)
    nbrs = [[u for u in range(n) if a >> u & 1] for a in adj]
    col = [c if 0 <= c < k else rnd.randrange(k) for c in start]
    gamma = [[0] * k for _ in range(n)]  # gamma[v][c]: neighbours of v coloured c
    for v in range(n):
        for u in nbrs[v]:
            gamma[v][col[u]] += 1
    conflicts = sum(gamma[v][col[v]] for v in range(n)) // 2
    clash = 0  # bitset of the vertices with a neighbour of their own colour
    for v in range(n):
        if gamma[v][col[v]]:
            clash |= 1 << v
    best = conflicts
    tabu = [[0] * k for _ in range(n)]  # tabu[v][c]: first move at which c is allowed again
    for move in range(max_moves):
        if conflicts == 0:
            return col
        if deadline is not None and move % _CHECK_EVERY == 0:
            deadline.check("in the SAT method's tabu search")
        best_delta = 0
        moves: list[tuple[int, int]] = []
        rest = clash
        while rest:
            low = rest & -rest
            rest ^= low
            v = low.bit_length() - 1
            row, cv = gamma[v], col[v]
            own = row[cv]
            banned = tabu[v]
            for c in range(k):
                if c == cv:
                    continue
                delta = row[c] - own
                if banned[c] > move and conflicts + delta >= best:
                    continue
                if not moves or delta < best_delta:
                    best_delta, moves = delta, [(v, c)]
                elif delta == best_delta:
                    moves.append((v, c))
        if not moves:
            continue
        v, c = moves[rnd.randrange(len(moves))] if len(moves) > 1 else moves[0]
        old = col[v]
        col[v] = c
        conflicts += best_delta
        best = min(best, conflicts)
        tabu[v][old] = move + rnd.randrange(10) + int(0.6 * conflicts) + 1
        for u in nbrs[v]:
            row = gamma[u]
            row[old] -= 1
            row[c] += 1
            cu = col[u]
            if cu == old and not row[old]:
                clash &= ~(1 << u)
            elif cu == c:
                clash |= 1 << u
        if gamma[v][c]:
            clash |= 1 << v
        else:
            clash &= ~(1 << v)
    return col if conflicts == 0 else None
