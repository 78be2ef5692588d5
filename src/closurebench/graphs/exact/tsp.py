"""Exact symmetric TSP: HiGHS MILP (``scipy.optimize.milp``) with lazy DFJ subtour cuts.

Formulation: one binary ``x_e`` per edge ``e = {i, j}``, degree 2 at every node, and
Dantzig-Fulkerson-Johnson subtour-elimination constraints ``sum_{e in E(S)} x_e <= |S|-1``
added lazily. Cuts are first separated on the LP relaxation (connected components of the
support graph, then a global minimum cut), which is cheap and removes most MILP rounds;
then the MILP is re-solved, with one cut per subtour of the integer solution, until the
solution is a single tour. That tour is optimal for the full TSP, because the last MILP is a
relaxation of it and was solved to a proven zero gap (``mip_rel_gap=0``, status optimal).

The cost is read from the tour and the weight matrix, never from the float objective. For
integer weights the certificate bound is ``ceil(dual_bound - 1e-6)``, which must equal the
tour cost, otherwise :class:`SolverError` is raised.

Before the MILP, a 2-opt/Or-opt tour and reduced-cost fixing against the LP bound shrink
the model from ``n(n-1)/2`` edges to a few per node, which is what makes n = 60 fast. The
comparison with OR-Tools CP-SAT that led to this choice is in the package docstring
(:mod:`closurebench.graphs.exact`).

Example:
    >>> w = [[0, 1, 5, 1], [1, 0, 1, 5], [5, 1, 0, 1], [1, 5, 1, 0]]
    >>> r = tsp(w)
    >>> r.cost, r.tour, r.certificate.as_dict()
    (4, (0, 1, 2, 3), {'method': 'enumeration', 'bound': 4, 'gap': 0})
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from closurebench.errors import GraphError
from closurebench.graphs.exact._common import (
    DEFAULT_TIME_LIMIT,
    Certificate,
    Deadline,
    Number,
    to_number,
)
from closurebench.graphs.exact._highs import sparse_rows, time_options
from closurebench.graphs.exact._tour_heuristics import improved_tour
from closurebench.graphs.exact.errors import SolverError, SolverTimeout

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = ["TspResult", "check_weight_matrix", "tour_cost", "tsp"]

_ENUMERATE_UP_TO = 8  # n <= this: brute force over (n-1)!/2 tours (<= 2,520)


@dataclass(frozen=True, slots=True)
class TspResult:
    """An optimal tour.

    Attributes:
        cost: Tour length (an int when all weights are whole numbers).
        tour: Every node once, starting at node 0; the return edge to 0 is implied.
            Of the two directions, the one with ``tour[1] < tour[-1]`` is given.
        certificate: Proof of optimality.
    """

    cost: Number
    tour: tuple[int, ...]
    certificate: Certificate

    @property
    def value(self) -> Number:
        """The reference answer (the optimal cost)."""
        return self.cost

    @property
    def solution(self) -> tuple[int, ...]:
        """One optimal tour (open form, starting at 0)."""
        return self.tour


def check_weight_matrix(weights: object) -> list[list[Number]]:
    """Validate a symmetric square weight matrix and return it as nested lists.

    The diagonal is ignored.

    Raises:
        GraphError: not square, non-numeric, non-finite, or not symmetric.

    Example:
        >>> check_weight_matrix([[0, 2], [2.0, 0]])
        [[0, 2], [2, 0]]
    """
    if isinstance(weights, np.ndarray):
        rows = weights.tolist()
    elif isinstance(weights, Sequence) and not isinstance(weights, str | bytes):
        rows = list(weights)
    else:
        raise GraphError(f"weights={weights!r} is not a matrix; pass an n x n list of lists")
    n = len(rows)
    if n == 0:
        raise GraphError("weights is empty; a tour needs at least one node")
    out: list[list[Number]] = []
    for i, row in enumerate(rows):
        if (
            isinstance(row, str | bytes)
            or not isinstance(row, Sequence | np.ndarray)
            or len(row) != n
        ):
            raise GraphError(
                f"row {i} of weights is {row!r}; weights must be a square n x n matrix"
            )
        out.append([0 if i == j else to_number(row[j], f"weights[{i}][{j}]") for j in range(n)])
    for i in range(n):
        for j in range(i + 1, n):
            if out[i][j] != out[j][i]:
                raise GraphError(
                    f"weights[{i}][{j}]={out[i][j]} but weights[{j}][{i}]={out[j][i]}; "
                    "the TSP here is symmetric, so give a symmetric matrix"
                )
    return out


def tour_cost(weights: Sequence[Sequence[Number]], tour: Sequence[int]) -> Number:
    """Cost of the closed tour ``tour`` (return edge included).

    Example:
        >>> tour_cost([[0, 1, 2], [1, 0, 3], [2, 3, 0]], [0, 1, 2])
        6
    """
    if len(tour) < 2:
        return 0
    return sum(weights[a][b] for a, b in zip(tour, [*tour[1:], tour[0]], strict=True))


def _canonical(tour: list[int]) -> tuple[int, ...]:
    k = tour.index(0)
    tour = tour[k:] + tour[:k]
    if len(tour) > 2 and tour[1] > tour[-1]:
        tour = [tour[0], *reversed(tour[1:])]
    return tuple(tour)


def _enumerate(w: list[list[Number]]) -> TspResult:
    n = len(w)
    best_tour: tuple[int, ...] = tuple(range(n))
    best_cost = tour_cost(w, best_tour)
    for perm in itertools.permutations(range(1, n)):
        if n > 2 and perm[0] > perm[-1]:
            continue  # each undirected tour once
        tour = (0, *perm)
        cost = tour_cost(w, tour)
        if cost < best_cost:
            best_cost, best_tour = cost, tour
    cost, tour = best_cost, best_tour
    return TspResult(
        cost=cost, tour=_canonical(list(tour)), certificate=Certificate("enumeration", cost)
    )


def _components(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    groups: dict[int, list[int]] = {}
    for v in range(n):
        groups.setdefault(find(v), []).append(v)
    return list(groups.values())


def _min_cut(n: int, cap: np.ndarray) -> tuple[float, list[int]]:
    """Stoer-Wagner global minimum cut of a dense symmetric capacity matrix."""
    w = cap.astype(float).copy()
    members = [[v] for v in range(n)]
    active = list(range(n))
    best_val, best_set = math.inf, [0]
    while len(active) > 1:
        act = np.array(active)
        conn = np.zeros(n)
        used = np.zeros(n, dtype=bool)
        order = []
        for _ in range(len(active)):
            cand = act[~used[act]]
            v = int(cand[np.argmax(conn[cand])])
            used[v] = True
            order.append(v)
            conn += w[v]
        s, t = order[-2], order[-1]
        if conn[t] < best_val:  # the cut of the phase: t against everything else
            best_val, best_set = float(conn[t]), list(members[t])
        members[s].extend(members[t])
        w[s, :] += w[t, :]
        w[:, s] += w[:, t]
        w[s, s] = 0.0
        w[t, :] = 0.0
        w[:, t] = 0.0
        active.remove(t)
    return best_val, best_set


class _Model:
    """Edge variables over ``pairs`` (all edges, or those surviving reduced-cost fixing)
    and a growing set of subtour cuts, stored as node sets."""

    def __init__(self, w: list[list[Number]], pairs: list[tuple[int, int]]) -> None:
        n = len(w)
        self.n = n
        self.pairs = pairs
        self.index = {p: k for k, p in enumerate(pairs)}
        self.c = np.array([float(w[i][j]) for i, j in pairs])
        m = len(pairs)
        rows = np.repeat(np.arange(m), 2)
        cols = np.array(pairs, dtype=np.int64).reshape(-1)
        self.degree = sparse_rows(cols, rows, np.ones(2 * m), (n, m))
        self.cuts: list[list[int]] = []
        self._seen: set[frozenset[int]] = set()

    def add_cut(self, subset: Sequence[int]) -> bool:
        """Record ``E(S) <= |S| - 1`` for the smaller side of the cut; False if known."""
        s = set(subset)
        if len(s) > self.n - len(s):
            s = set(range(self.n)) - s
        key = frozenset(s)
        if len(s) < 2 or key in self._seen:
            return False
        self._seen.add(key)
        self.cuts.append(sorted(s))
        return True

    def _cut_matrix(self) -> tuple[csr_matrix, np.ndarray]:
        m = len(self.pairs)
        rows: list[int] = []
        cols: list[int] = []
        for r, nodes in enumerate(self.cuts):
            for a, b in itertools.combinations(nodes, 2):
                k = self.index.get((a, b))
                if k is not None:
                    rows.append(r)
                    cols.append(k)
        a = sparse_rows(rows, cols, np.ones(len(cols)), (len(self.cuts), m))
        return a, np.array([len(c) - 1.0 for c in self.cuts])

    def solve_lp(self, time_limit: float) -> Any:
        """LP relaxation (HiGHS via linprog, which also returns reduced costs)."""
        from scipy.optimize import linprog  # heavy: only solving needs it

        a_ub, b_ub = self._cut_matrix() if self.cuts else (None, None)
        options = time_options(time_limit)
        return linprog(
            self.c,
            A_ub=a_ub,
            b_ub=b_ub,
            A_eq=self.degree,
            b_eq=np.full(self.n, 2.0),
            bounds=(0.0, 1.0),
            method="highs",
            options=options,
        )

    def solve_milp(self, time_limit: float) -> Any:
        """The MILP with the current cuts, to a proven zero gap."""
        from scipy.optimize import Bounds, LinearConstraint, milp  # heavy: only solving needs it

        m = len(self.pairs)
        constraints = [LinearConstraint(self.degree, 2.0, 2.0)]
        if self.cuts:
            a, rhs = self._cut_matrix()
            constraints.append(LinearConstraint(a, -np.inf, rhs))
        options = time_options(time_limit, mip_rel_gap=0.0, presolve=True)
        return milp(
            self.c,
            integrality=np.ones(m),
            bounds=Bounds(0.0, 1.0),
            constraints=constraints,
            options=options,
        )


def _separate(model: _Model, x: np.ndarray) -> bool:
    """Add subtour cuts violated by the LP point ``x``; True if any was added."""
    n = model.n
    support = [model.pairs[k] for k in np.flatnonzero(x > 1e-6)]
    comps = _components(n, support)
    if len(comps) > 1:
        added = False
        for comp in comps:
            added |= model.add_cut(comp)
        return added
    cap = np.zeros((n, n))
    for k in np.flatnonzero(x > 1e-9):
        i, j = model.pairs[k]
        cap[i, j] = cap[j, i] = x[k]
    val, side = _min_cut(n, cap)
    return val < 2.0 - 1e-6 and model.add_cut(side)


def _lp_bound(model: _Model, deadline: Deadline, max_rounds: int = 100) -> Any:
    """Cut rounds on the LP; returns the last optimal LP result (a valid relaxation)."""
    last = None
    for _ in range(max_rounds):
        if deadline.expired():
            break
        res = model.solve_lp(deadline.remaining())
        if getattr(res, "status", 4) != 0:
            break
        last = res
        if not _separate(model, np.asarray(res.x)):
            break
    return last


def tsp(weights: object, *, time_limit: float = DEFAULT_TIME_LIMIT) -> TspResult:
    """Optimal tour of a symmetric complete graph, with a certificate.

    Steps: (1) a 2-opt/Or-opt tour gives an upper bound ``UB``; (2) LP rounds with subtour
    cuts give the Held-Karp bound ``LB`` and reduced costs ``d_e``; (3) every edge with
    ``LB + d_e`` above the best cost that could still beat ``UB`` is fixed to 0 (any tour
    through it costs at least that); (4) the MILP on the remaining edges is re-solved with
    lazy subtour cuts, to a proven zero gap, until its solution is one tour or its bound
    reaches ``UB``. The better of that tour and the ``UB`` tour is optimal.

    Args:
        weights: ``n x n`` symmetric matrix (list of lists or numpy array); the diagonal
            is ignored. Need not be metric.
        time_limit: Seconds before :class:`SolverTimeout` is raised.

    Returns:
        The optimal cost, one optimal tour (starting at 0) and the certificate.

    Raises:
        GraphError: malformed matrix.
        SolverTimeout: optimality not proven within ``time_limit``.
        SolverError: HiGHS reported an unexpected status or an inconsistent bound.

    Example:
        >>> pts = [(0, 0), (3, 0), (3, 4), (0, 4), (1, 2), (2, 2), (5, 5), (6, 1), (4, 7), (7, 3)]
        >>> w = [[round(((a - c) ** 2 + (b - d) ** 2) ** 0.5) for c, d in pts] for a, b in pts]
        >>> r = tsp(w)
        >>> r.cost == tour_cost(w, r.tour), r.certificate.method, r.certificate.gap
        (True, 'highs-lp+dfj', 0)
    """
    w = check_weight_matrix(weights)
    deadline = Deadline(time_limit, "tsp")
    n = len(w)
    if n <= _ENUMERATE_UP_TO:
        return _enumerate(w)
    integer = all(isinstance(x, int) for row in w for x in row)
    scale = max(1.0, max(abs(float(x)) for row in w for x in row))
    # Slack for HiGHS's float duals: fixing an edge needs LB + d_e above the threshold by
    # this much (integer weights: 1e-3 of the unit spacing, far above the 1e-7 tolerances).
    tol = 1e-3 if integer else 1e-6 * scale * n

    best_tour = improved_tour(np.array(w, dtype=float))
    best_cost = tour_cost(w, best_tour)
    # Only tours strictly cheaper than this can still improve on the heuristic tour.
    target = best_cost - 1 if integer else best_cost

    def bound_closes(lb: float) -> bool:
        return (math.ceil(lb - 1e-6) if integer else lb + tol) >= best_cost

    all_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    full = _Model(w, all_pairs)
    lp = _lp_bound(full, deadline)
    deadline.check("during the LP cut rounds")
    keep = all_pairs
    if lp is not None:
        lb = float(lp.fun)
        if bound_closes(lb):
            return _result(w, best_tour, "highs-lp+dfj", lb, integer)
        reduced = np.asarray(lp.lower.marginals)
        keep = [p for p, r in zip(all_pairs, reduced, strict=True) if lb + r <= target + tol]
    model = _Model(w, keep)
    for cut in full.cuts:
        model.add_cut(cut)
    while True:
        deadline.check("while separating subtour cuts")
        res = model.solve_milp(deadline.remaining())
        status = getattr(res, "status", 4)
        if status == 2:
            # No tour avoids the fixed edges (so none beats UB): the heuristic tour is optimal.
            return _result(w, best_tour, "highs-milp+dfj", float(best_cost), integer)
        if status == 1:
            raise SolverTimeout("tsp", deadline.time_limit, f"HiGHS: {res.message}")
        if status != 0:
            raise SolverError(f"tsp: HiGHS returned status {status}: {res.message}")
        dual = float(res.mip_dual_bound)
        if bound_closes(dual):
            return _result(w, best_tour, "highs-milp+dfj", dual, integer)
        chosen = [model.pairs[k] for k in np.flatnonzero(np.asarray(res.x) > 0.5)]
        comps = _components(n, chosen)
        if len(comps) == 1:
            return _result(w, _tour_from_edges(n, chosen), "highs-milp+dfj", dual, integer)
        for comp in comps:
            model.add_cut(comp)


def _result(
    w: list[list[Number]], tour: Sequence[int], method: str, bound: float, integer: bool
) -> TspResult:
    """Package a tour whose optimality has been proven by ``bound``; re-check the gap."""
    tour_t = _canonical(list(tour))
    if sorted(tour_t) != list(range(len(w))):
        raise SolverError(f"tsp: internal tour {tour_t} is not a permutation of the nodes")
    cost = tour_cost(w, tour_t)
    proven: Number = math.ceil(bound - 1e-6) if integer else bound
    if integer and proven < cost:
        raise SolverError(f"tsp: tour cost {cost} is above the proven bound {bound}; gap open")
    if not integer and cost - bound > 1e-6 * max(1.0, abs(float(cost))):
        raise SolverError(f"tsp: tour cost {cost} is above the proven bound {bound}; gap open")
    return TspResult(cost=cost, tour=tour_t, certificate=Certificate(method, min(proven, cost)))


def _tour_from_edges(n: int, chosen: list[tuple[int, int]]) -> tuple[int, ...]:
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for a, b in chosen:
        nbrs[a].append(b)
        nbrs[b].append(a)
    if len(chosen) != n or any(len(x) != 2 for x in nbrs):
        raise SolverError(f"tsp: HiGHS solution is not a 2-regular edge set: {chosen}")
    tour = [0]
    prev, cur = -1, 0
    while True:
        a, b = nbrs[cur]
        nxt = a if a != prev else b
        if nxt == 0:
            break
        tour.append(nxt)
        prev, cur = cur, nxt
    if len(tour) != n:
        raise SolverError(f"tsp: HiGHS solution has a subtour: {tour}")
    return tuple(tour)
