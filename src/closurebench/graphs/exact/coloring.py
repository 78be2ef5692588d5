"""Exact chromatic number, by three independent methods.

* ``"dsatur"``: Brélaz's DSATUR branch and bound. Lower bound: a maximum
  clique (exact, bitset branch and bound), whose vertices are pre-coloured ``0..omega-1``
  (this also breaks the colour symmetry); upper bound: greedy DSATUR. Before the search,
  vertices of degree ``< omega`` are peeled off (they can always be coloured last) and
  connected components are solved separately. The search branches on the uncoloured
  vertex with the most distinct neighbour colours (ties: most uncoloured neighbours,
  then smallest id) and only opens one new colour per node. Exhausting the tree proves
  the answer; the clique alone proves it whenever ``chi == omega``.
* ``"sat"``: CaDiCaL (python-sat) on a k-colourability encoding with the colour symmetry
  broken completely (the maximum clique of largest degree sum first, then colours in
  order of first use), descending from the greedy bound until UNSAT, in child processes
  that are killed at the time limit (:mod:`closurebench.graphs.exact._sat_child`). A
  level that resists a conflict budget gets a tabu search for a colouring, then is split
  into cubes that two children solve at once
  (:mod:`closurebench.graphs.exact._sat_worker`); the colouring returned does not depend
  on timing. CaDiCaL's proof, not the DSATUR tree, closes the bound, so the two methods
  cross-check each other at every ``n``; it is the fast route on large dense graphs.
* ``"ilp"``: a symmetry-broken assignment formulation solved by HiGHS
  (``scipy.optimize.milp``, ``mip_rel_gap=0``, status checked); a third route, practical
  for ``n <= 40`` and sparse graphs.

The default, ``"auto"`` (:func:`auto_method`), runs SAT on graphs with ``n >= 50`` and
edge density ``>= 0.4`` and DSATUR on the rest: where ``benchmarks/bench_exact.py``
measured each ahead (``benchmarks/RESULTS.md``, "Colouring default: auto"). Every method
returns the same, canonical optimal colouring (:func:`canonical_colouring`): the one the
DSATUR search ends with, found for ``"sat"`` and ``"ilp"`` by a DSATUR search told the
certified ``chi`` (no proof needed), so stored and printed colourings do not depend on the
method; ``canonical=False`` returns a method's own colouring instead.

The spec's hard case is density 0.5 at n = 60: ``benchmarks/bench_exact.py`` and
``benchmarks/RESULTS.md`` give the measured medians and worst cases of each method there
(the ILP, and OR-Tools CP-SAT, leave most such graphs unproven within 60 s).

Example:
    >>> c5 = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    >>> r = chromatic_number(5, c5)
    >>> r.chromatic_number, r.colouring, r.clique
    (3, (0, 1, 0, 1, 2), (0, 1))
    >>> chromatic_number(5, c5, method="ilp").chromatic_number
    3
    >>> chromatic_number(5, c5, method="sat").chromatic_number
    3
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from closurebench.graphs.exact._common import (
    DEFAULT_TIME_LIMIT,
    Certificate,
    Deadline,
    adjacency_bitsets,
    most_connected,
    solve_by_method,
)
from closurebench.graphs.exact._highs import solve_binary_milp, sparse_rows
from closurebench.graphs.exact._sat_cubes import heavy_clique
from closurebench.graphs.exact._sat_worker import solve_with_cubes
from closurebench.graphs.exact.clique import max_clique
from closurebench.graphs.exact.errors import SolverError

__all__ = [
    "AUTO_SAT_MIN_DENSITY",
    "AUTO_SAT_MIN_N",
    "COLOURING_METHODS",
    "DEFAULT_COLOURING_METHOD",
    "ColouringResult",
    "auto_method",
    "canonical_colouring",
    "chromatic_number",
    "dsatur_greedy",
]

_CHECK_EVERY = 4096
_MAX_CORE = 800  # DSATUR recursion depth is one frame per vertex


@dataclass(frozen=True, slots=True)
class ColouringResult:
    """An optimal proper colouring.

    Attributes:
        chromatic_number: The fewest colours of any proper colouring.
        colouring: Colour (``0..chi-1``) of node ``i`` at index ``i``; colours are numbered
            in order of first appearance by node id.
        certificate: Proof of optimality.
        clique: A maximum clique (a lower-bound witness: ``chi >= len(clique)``); empty
            for the ILP method.
    """

    chromatic_number: int
    colouring: tuple[int, ...]
    certificate: Certificate
    clique: tuple[int, ...] = ()

    @property
    def value(self) -> int:
        """The reference answer (the chromatic number)."""
        return self.chromatic_number

    @property
    def solution(self) -> tuple[int, ...]:
        """One optimal colouring."""
        return self.colouring


def _relabel(colouring: Sequence[int]) -> tuple[int, ...]:
    """Renumber colours by first appearance, so equal partitions give equal tuples."""
    names: dict[int, int] = {}
    return tuple(names.setdefault(c, len(names)) for c in colouring)


def dsatur_greedy(adj: list[int]) -> list[int]:
    """Greedy DSATUR colouring (an upper bound), as a colour per vertex.

    Example:
        >>> dsatur_greedy(adjacency_bitsets(4, [(0, 1), (1, 2), (2, 3), (3, 0)]))
        [0, 1, 0, 1]
    """
    n = len(adj)
    colour = [-1] * n
    forb = [0] * n  # bitmask of colours used by neighbours
    deg = [a.bit_count() for a in adj]
    for _ in range(n):
        v = max(
            (u for u in range(n) if colour[u] < 0),
            key=lambda u: (forb[u].bit_count(), deg[u], -u),
        )
        c = (~forb[v] & (forb[v] + 1)).bit_length() - 1  # lowest free colour
        colour[v] = c
        a = adj[v]
        while a:
            low = a & -a
            forb[low.bit_length() - 1] |= 1 << c
            a ^= low
    return colour


class _Search:
    """DSATUR branch and bound on one connected core (local ids ``0..n-1``)."""

    def __init__(
        self, adj: list[int], clique: list[int], deadline: Deadline, floor: int = 0
    ) -> None:
        self.n = len(adj)
        self.adj = adj
        self.nbrs = [[u for u in range(self.n) if a >> u & 1] for a in adj]
        # Stop as soon as a colouring with <= lb colours is found: either it matches this
        # core's clique (optimal here) or the floor the rest of the graph already needs.
        self.lb = max(len(clique), floor)
        self.clique = clique
        self.deadline = deadline
        self.calls = 0
        greedy = dsatur_greedy(adj)
        self.best = list(greedy)
        self.best_k = max(greedy) + 1 if greedy else 0
        self.target: int | None = None

    @property
    def open(self) -> bool:
        """Whether the greedy colouring is above the bound (a search is needed)."""
        return self.best_k > self.lb

    def find(self, target: int) -> None:
        """Make :meth:`run` return the first colouring with ``<= target`` colours instead.

        ``target`` must be this core's optimum, or the floor when that is higher (a
        certified number). The tree and its order are those of the optimising search (the
        same arrays, the same branching), and no colouring with at most ``target``
        colours is pruned before the first one is found, so that first colouring is the
        one the optimising search ends with: :func:`canonical_colouring` relies on this.
        """
        self.target = target
        self.lb = max(self.lb, target)

    def run(self) -> list[int]:
        if self.best_k <= self.lb:
            return self.best
        n, k = self.n, self.best_k
        if self.target is not None:
            self.best_k = self.target + 1  # explore only colourings with <= target colours
        self.colour = [-1] * n
        self.cnt = [[0] * k for _ in range(n)]
        self.sat = [0] * n
        # satset[s]: bitset of uncoloured vertices with exactly s distinct neighbour colours.
        self.satset = [0] * (k + 1)
        self.satset[0] = (1 << n) - 1
        self.uncol = (1 << n) - 1
        for c, v in enumerate(self.clique):
            self._assign(v, c)
        self._search(len(self.clique))
        if self.target is not None and self.best_k > self.target:
            raise SolverError(
                f"chromatic_number: no colouring with {self.target} colours exists, but a "
                "method certified that many; the methods disagree (a solver bug)"
            )
        return self.best

    def _assign(self, v: int, c: int) -> None:
        colour, cnt, sat, satset = self.colour, self.cnt, self.sat, self.satset
        bit = 1 << v
        colour[v] = c
        self.uncol &= ~bit
        satset[sat[v]] &= ~bit
        for u in self.nbrs[v]:
            if colour[u] < 0:
                row = cnt[u]
                if row[c] == 0:
                    s = sat[u]
                    b = 1 << u
                    satset[s] &= ~b
                    satset[s + 1] |= b
                    sat[u] = s + 1
                row[c] += 1

    def _unassign(self, v: int, c: int) -> None:
        colour, cnt, sat, satset = self.colour, self.cnt, self.sat, self.satset
        for u in self.nbrs[v]:
            if colour[u] < 0:
                row = cnt[u]
                row[c] -= 1
                if row[c] == 0:
                    s = sat[u]
                    b = 1 << u
                    satset[s] &= ~b
                    satset[s - 1] |= b
                    sat[u] = s - 1
        bit = 1 << v
        colour[v] = -1
        self.uncol |= bit
        satset[sat[v]] |= bit

    def _select(self) -> int:
        """Most saturated uncoloured vertex; ties: most uncoloured neighbours, smallest id."""
        satset = self.satset
        s = len(satset) - 1
        while not satset[s]:
            s -= 1
        cand = satset[s]
        if cand & (cand - 1) == 0:
            return cand.bit_length() - 1
        return most_connected(cand, self.adj, self.uncol)

    def _search(self, used: int) -> None:
        if used >= self.best_k:
            return
        self.calls += 1
        if self.calls % _CHECK_EVERY == 0:
            self.deadline.check(
                f"DSATUR search: best {self.best_k} colours, clique bound {self.lb}"
            )
        if self.uncol == 0:
            self.best = list(self.colour)
            self.best_k = used
            return
        v = self._select()
        row = self.cnt[v]
        c = 0
        while c < used + 1 and c < self.best_k - 1:
            if row[c] == 0:
                self._assign(v, c)
                self._search(max(used, c + 1))
                self._unassign(v, c)
                if self.best_k <= self.lb:
                    return
            c += 1


def _peel(adj: list[int], k: int) -> tuple[list[int], list[int]]:
    """Split off vertices that have degree < k once later-peeled ones are removed.

    Returns ``(core, peeled)``; colouring the core with ``>= k`` colours and then the
    peeled vertices in reverse order never needs a new colour.
    """
    alive = (1 << len(adj)) - 1
    peeled: list[int] = []
    changed = True
    while changed:
        changed = False
        rest = alive
        while rest:
            low = rest & -rest
            v = low.bit_length() - 1
            rest ^= low
            if (adj[v] & alive).bit_count() < k:
                alive &= ~low
                peeled.append(v)
                changed = True
    core = [v for v in range(len(adj)) if alive >> v & 1]
    return core, peeled


def _components(adj: list[int], nodes: list[int]) -> list[list[int]]:
    todo = 0
    for v in nodes:
        todo |= 1 << v
    comps: list[list[int]] = []
    while todo:
        low = todo & -todo
        frontier = seen = low
        while frontier:
            nxt = 0
            while frontier:
                b = frontier & -frontier
                frontier ^= b
                nxt |= adj[b.bit_length() - 1]
            nxt &= todo & ~seen
            seen |= nxt
            frontier = nxt
        todo &= ~seen
        comps.append([v for v in nodes if seen >> v & 1])
    return comps


def _induced(adj: list[int], nodes: list[int]) -> list[int]:
    pos = {v: i for i, v in enumerate(nodes)}
    out = []
    for v in nodes:
        bits = 0
        for u in nodes:
            if adj[v] >> u & 1:
                bits |= 1 << pos[u]
        out.append(bits)
    return out


def _dsatur_colour(
    n: int,
    adj: list[int],
    deadline: Deadline,
    chi: int | None = None,
    core_chi: Callable[[list[int]], int] | None = None,
) -> tuple[tuple[int, ...], list[int]]:
    """The DSATUR colouring (relabelled) and the maximum clique it is bounded by.

    With ``chi`` ``None`` the search optimises (the ``"dsatur"`` method). Given a certified
    ``chi`` it only finds: each core component that greedy DSATUR leaves above the clique
    bound takes the first colouring with at most its target in the same search tree,
    which is the colouring the optimising search would end with
    (:meth:`_Search.find`). The target is ``chi`` when one component is open, else
    ``max(omega, core_chi(component))`` per open component (``core_chi``: the chromatic
    number of an induced subgraph, by the caller's method).
    """
    clique = max_clique(adj, deadline)
    omega = len(clique)
    core, peeled = _peel(adj, omega)
    searches: list[tuple[list[int], list[int], _Search]] = []
    for comp in _components(adj, core):
        if len(comp) > _MAX_CORE:
            raise SolverError(
                f"chromatic_number: a core component has {len(comp)} vertices after peeling; "
                f"the exact search supports up to {_MAX_CORE} (recursion depth)"
            )
        sub = _induced(adj, comp)
        local = {v: i for i, v in enumerate(comp)}
        sub_clique = max_clique(sub, deadline)
        # Prefer the global clique when it lies in this component (a nicer witness).
        if all(v in local for v in clique):
            sub_clique = [local[v] for v in clique]
        searches.append((comp, sub, _Search(sub, sub_clique, deadline, floor=omega)))
    if chi is not None:
        opened = [(sub, search) for _, sub, search in searches if search.open]
        for sub, search in opened:
            if len(opened) == 1:
                search.find(chi)  # chi = max(omega, this component's optimum)
            elif core_chi is None:
                raise SolverError("chromatic_number: several open cores need core_chi")
            else:
                search.find(max(omega, core_chi(sub)))
    colour = [-1] * n
    for comp, _, search in searches:
        for v, c in zip(comp, search.run(), strict=True):
            colour[v] = c
    for v in reversed(peeled):
        used = 0
        a = adj[v]
        while a:
            low = a & -a
            c = colour[low.bit_length() - 1]
            if c >= 0:
                used |= 1 << c
            a ^= low
        colour[v] = (~used & (used + 1)).bit_length() - 1
    colouring = _relabel(colour)
    # Each component's search proved its own optimum, chi >= omega from the clique;
    # peeled vertices never needed a colour beyond max(omega, core colours).
    if any(adj[a] >> b & 1 and colouring[a] == colouring[b] for a in range(n) for b in range(a)):
        raise SolverError("chromatic_number: DSATUR produced an improper colouring")
    if any(not adj[a] >> b & 1 for i, a in enumerate(clique) for b in clique[i + 1 :]):
        raise SolverError(f"chromatic_number: {clique} is not a clique")
    return colouring, clique


def _by_dsatur(n: int, adj: list[int], deadline: Deadline) -> ColouringResult:
    colouring, clique = _dsatur_colour(n, adj, deadline)
    chi = max(colouring, default=-1) + 1
    return ColouringResult(chi, colouring, Certificate("dsatur-bnb", chi), tuple(clique))


def canonical_colouring(
    n: int,
    adj: list[int],
    chi: int,
    deadline: Deadline,
    core_chi: Callable[[list[int]], int] | None = None,
) -> tuple[int, ...]:
    """The canonical optimal colouring of a graph whose chromatic number ``chi`` is certified.

    It is the colouring the ``"dsatur"`` method returns (so the colourings GRIT stored
    before other methods existed are reproduced byte for byte), found without DSATUR's
    proof: given ``chi``, the search stops at the first colouring with ``chi`` colours in
    DSATUR's tree, which is the one the optimising search ends with (it never prunes a
    colouring with ``chi`` colours before finding one). Every method returns this
    colouring, so a stored or printed colouring does not depend on the method.

    Args:
        n: Number of nodes.
        adj: Adjacency bitsets.
        chi: The certified chromatic number (from any method).
        deadline: The call's time budget.
        core_chi: Chromatic number of an induced subgraph (adjacency bitsets), needed
            only when the peeled core has several components that greedy DSATUR leaves
            above the clique bound (each then gets its own target).

    Raises:
        SolverError: ``chi`` is not the chromatic number (no such colouring, or one with
            fewer colours): the method that certified it disagrees with the tree.
        SolverTimeout: the deadline passed.

    Example:
        >>> c5 = adjacency_bitsets(5, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)])
        >>> canonical_colouring(5, c5, 3, Deadline(10.0, "doc"))
        (0, 1, 0, 1, 2)
    """
    colouring, _ = _dsatur_colour(n, adj, deadline, chi, core_chi)
    if max(colouring, default=-1) + 1 != chi:
        raise SolverError(
            f"chromatic_number: a colouring with {max(colouring) + 1} colours exists, but a "
            f"method certified {chi}; the methods disagree (a solver bug)"
        )
    return colouring


def _checked_bounds(
    n: int, keys: list[tuple[int, int]], deadline: Deadline
) -> tuple[list[int], list[int], list[int]]:
    """Adjacency bitsets, a maximum clique and a greedy DSATUR colouring, both checked."""
    adj = adjacency_bitsets(n, keys)
    clique = max_clique(adj, deadline)
    greedy = dsatur_greedy(adj)
    if any(not adj[a] >> b & 1 for i, a in enumerate(clique) for b in clique[i + 1 :]):
        raise SolverError(f"chromatic_number: {clique} is not a clique")
    if any(greedy[a] == greedy[b] for a, b in keys):
        raise SolverError("chromatic_number: the greedy colouring is not proper")
    return adj, clique, greedy


def _ilp_proof(n: int, keys: list[tuple[int, int]], deadline: Deadline) -> ColouringResult:
    """Symmetry-broken assignment ILP solved by HiGHS.

    Binary ``x[v, c]`` (vertex ``v`` takes colour ``c``) and ``y[c]`` (colour ``c`` used)
    for ``c < H``, where ``H`` is the size of a greedy DSATUR colouring (checked proper, so
    ``chi <= H``). Minimise ``sum y``. Symmetry breaking, valid after renumbering colours
    by first use along a vertex order that starts with a maximum clique: the clique's
    vertices get colours ``0..omega-1``, the vertex at position ``p`` only colours ``<= p``,
    and ``y[c] >= y[c+1]``. The clique (checked to be one) also gives ``sum y >= omega``.
    The search that proves the bound is HiGHS's, independent of the DSATUR method.
    """
    _, clique, greedy = _checked_bounds(n, keys, deadline)
    h = max(greedy) + 1
    omega = len(clique)
    members = set(clique)
    order = clique + [v for v in range(n) if v not in members]
    nv = n * h + h

    def x(v: int, c: int) -> int:
        return v * h + c

    lower = np.zeros(nv)
    upper = np.ones(nv)
    for p, v in enumerate(order):
        if p + 1 < h:
            upper[x(v, p + 1) : x(v, h)] = 0.0
    for c, v in enumerate(clique):
        lower[x(v, c)] = 1.0
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    lo: list[float] = []
    hi: list[float] = []

    def add(terms: list[tuple[int, float]], low: float, high: float) -> None:
        r = len(lo)
        for col, coef in terms:
            rows.append(r)
            cols.append(col)
            vals.append(coef)
        lo.append(low)
        hi.append(high)

    y0 = n * h
    for v in range(n):
        add([(x(v, c), 1.0) for c in range(h)], 1.0, 1.0)
        for c in range(h):  # x[v, c] <= y[c]
            add([(x(v, c), 1.0), (y0 + c, -1.0)], -np.inf, 0.0)
    for a, b in keys:
        for c in range(h):  # x[a, c] + x[b, c] <= y[c]
            add([(x(a, c), 1.0), (x(b, c), 1.0), (y0 + c, -1.0)], -np.inf, 0.0)
    for c in range(h - 1):
        add([(y0 + c, 1.0), (y0 + c + 1, -1.0)], 0.0, np.inf)
    add([(y0 + c, 1.0) for c in range(h)], float(omega), np.inf)
    cost = np.zeros(nv)
    cost[y0:] = 1.0
    a_mat = sparse_rows(rows, cols, vals, (len(lo), nv))
    sol = solve_binary_milp(
        "chromatic_number", cost, a_mat, lo, hi, deadline, lower=lower, upper=upper
    )
    x_vc = sol.x[: n * h].reshape(n, h)
    colour = [int(np.argmax(x_vc[v])) for v in range(n)]
    if any(x_vc[v, colour[v]] < 0.5 for v in range(n)) or any(
        colour[a] == colour[b] for a, b in keys
    ):
        raise SolverError("chromatic_number: HiGHS solution is not a proper colouring")
    colouring = _relabel(colour)
    chi = sol.certify(max(colouring) + 1)
    return ColouringResult(chi, colouring, Certificate("highs-milp-assignment", chi), tuple(clique))


def _sat_proof(n: int, keys: list[tuple[int, int]], deadline: Deadline) -> ColouringResult:
    """CaDiCaL on a symmetry-broken k-colourability encoding, in child processes.

    The clique (checked) and a greedy DSATUR colouring (checked proper) bound the search.
    Among the maximum cliques, the one with the largest degree sum is pinned to colours
    ``0..omega-1`` (:func:`~closurebench.graphs.exact._sat_cubes.heavy_clique`; any clique
    makes the symmetry breaking valid, this one makes CaDiCaL's proofs much shorter), then
    the other vertices follow by non-increasing degree. A child
    (:mod:`closurebench.graphs.exact._sat_child`, which documents the encoding) descends
    from the greedy bound until CaDiCaL proves UNSAT; a level that resists a conflict
    budget is split into cubes solved by two children at once
    (:func:`~closurebench.graphs.exact._sat_worker.solve_with_cubes`, which explains why
    the colouring returned does not depend on timing). Children are separate, warm
    processes because CaDiCaL cannot be interrupted in-process: they are killed when
    ``deadline`` is spent. The proof is CaDiCaL's, independent of the DSATUR tree.
    """
    adj, clique, greedy = _checked_bounds(n, keys, deadline)
    clique = heavy_clique(adj, clique, deadline)
    if any(not adj[a] >> b & 1 for i, a in enumerate(clique) for b in clique[i + 1 :]):
        raise SolverError(f"chromatic_number: {clique} is not a clique")
    omega = len(clique)
    members = set(clique)
    rest = sorted((v for v in range(n) if v not in members), key=lambda v: (-adj[v].bit_count(), v))
    job = {"n": n, "edges": keys, "order": clique + rest, "omega": omega, "colouring": greedy}
    if max(greedy, default=-1) + 1 <= omega:
        colour = greedy
    else:
        colour, _ = solve_with_cubes(job, adj, deadline)
    if len(colour) != n or any(colour[a] == colour[b] for a, b in keys):
        raise SolverError("chromatic_number: the SAT colouring is not proper")
    colouring = _relabel(colour)
    chi = max(colouring, default=-1) + 1
    return ColouringResult(chi, colouring, Certificate("sat-cadical195", chi), tuple(clique))


def _edge_keys(adj: list[int]) -> list[tuple[int, int]]:
    """Sorted ``(u, v)``, ``u < v``, of adjacency bitsets."""
    return [(a, b) for a in range(len(adj)) for b in range(a + 1, len(adj)) if adj[a] >> b & 1]


def _canonical_by(
    proof: Callable[[int, list[tuple[int, int]], Deadline], ColouringResult],
) -> Callable[[int, list[tuple[int, int]], Deadline], ColouringResult]:
    """A method that proves ``chi`` by ``proof`` and returns the canonical colouring."""

    def method(n: int, keys: list[tuple[int, int]], deadline: Deadline) -> ColouringResult:
        r = proof(n, keys, deadline)

        def core_chi(sub: list[int]) -> int:
            return proof(len(sub), _edge_keys(sub), deadline).chromatic_number

        adj = adjacency_bitsets(n, keys)
        colouring = canonical_colouring(n, adj, r.chromatic_number, deadline, core_chi)
        return replace(r, colouring=colouring)

    return method


#: ``"auto"`` picks SAT from this many nodes on (and at :data:`AUTO_SAT_MIN_DENSITY`).
AUTO_SAT_MIN_N = 50
#: ``"auto"`` picks SAT from this edge density ``2m / (n (n - 1))`` on (and ``n`` large).
AUTO_SAT_MIN_DENSITY = 0.4


def auto_method(n: int, m: int) -> str:
    """The method ``"auto"`` runs on a graph with ``n`` nodes and ``m`` edges.

    SAT where ``benchmarks/bench_exact.py`` measured it ahead of DSATUR (``n >=``
    :data:`AUTO_SAT_MIN_N` and density ``>=`` :data:`AUTO_SAT_MIN_DENSITY`; section
    "Colouring default: auto" of ``benchmarks/RESULTS.md``), DSATUR below. Both return the
    same (canonical) colouring, so the choice changes only the time and the certificate's
    method.

    Example:
        >>> auto_method(60, 885), auto_method(60, 177), auto_method(30, 218)
        ('sat', 'dsatur', 'dsatur')
    """
    dense = n > 1 and 2 * m >= AUTO_SAT_MIN_DENSITY * n * (n - 1)
    return "sat" if n >= AUTO_SAT_MIN_N and dense else "dsatur"


_Method = Callable[[int, list[tuple[int, int]], Deadline], ColouringResult]


def _dsatur(n: int, keys: list[tuple[int, int]], deadline: Deadline) -> ColouringResult:
    return _by_dsatur(n, adjacency_bitsets(n, keys), deadline)


def _with_auto(methods: dict[str, _Method]) -> dict[str, _Method]:
    def auto(n: int, keys: list[tuple[int, int]], deadline: Deadline) -> ColouringResult:
        return methods[auto_method(n, len(keys))](n, keys, deadline)

    return {"auto": auto, **methods}


_METHODS: dict[str, _Method] = {
    "dsatur": _dsatur,
    "sat": _canonical_by(_sat_proof),
    "ilp": _canonical_by(_ilp_proof),
}
#: The independent methods (each proves the chromatic number its own way).
COLOURING_METHODS: tuple[str, ...] = tuple(_METHODS)
#: The default method: DSATUR or SAT by :func:`auto_method`.
DEFAULT_COLOURING_METHOD = "auto"
_CANONICAL = _with_auto(_METHODS)
_OWN = _with_auto({"dsatur": _dsatur, "sat": _sat_proof, "ilp": _ilp_proof})


def chromatic_number(
    n: int,
    edges: Iterable[Sequence[object]],
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    method: str = DEFAULT_COLOURING_METHOD,
    canonical: bool = True,
) -> ColouringResult:
    """Chromatic number of an undirected graph, with an optimal colouring and certificate.

    Args:
        n: Number of nodes.
        edges: ``(u, v)`` or ``(u, v, w)``; weights are ignored.
        time_limit: Seconds before :class:`SolverTimeout` is raised.
        method: ``"auto"`` (default: ``"sat"`` from 50 nodes at edge density 0.4 on,
            else ``"dsatur"``; :func:`auto_method`), ``"dsatur"`` (branch and bound),
            ``"sat"`` (CaDiCaL, in child processes; the fastest proof on large dense
            graphs) or ``"ilp"`` (HiGHS).
        canonical: Return the canonical optimal colouring (:func:`canonical_colouring`,
            the same for every method; what GRIT stores and the graph tool prints).
            ``False`` skips that search for ``"sat"`` and ``"ilp"`` and returns the
            method's own optimal colouring (a cross-check that needs only the number).

    Returns:
        The chromatic number, one optimal colouring and the certificate (whose method
        names the proof that ran: ``"auto"`` reports ``dsatur-bnb`` or
        ``sat-cadical195``).

    Raises:
        GraphError: malformed input.
        ConfigError: unknown method.
        SolverTimeout: optimality not proven within ``time_limit``.

    Example:
        >>> chromatic_number(4, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]).value
        4
        >>> chromatic_number(3, []).colouring
        (0, 0, 0)
    """
    methods = _CANONICAL if canonical else _OWN
    return solve_by_method("chromatic_number", n, edges, time_limit, method, methods)
