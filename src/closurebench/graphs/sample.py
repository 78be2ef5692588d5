"""Seeded graph samplers.

Every sampler takes a :class:`numpy.random.Generator` (build one with
:func:`closurebench.seeding.rng`) and draws all of its randomness from it, so the
same generator state always yields the same graph. Nothing here touches global random
state.

Decisions (``docs/categories.md``):

* Erdős–Rényi is drawn as ``m ~ Binomial(N, p)`` followed by ``m`` distinct pairs chosen
  uniformly among the ``N`` possible ones. That is exactly ``G(n, p)`` (each pair present
  independently with probability ``p``) but costs ``O(m)`` instead of ``O(n²)``, so
  ``n = 5,000`` takes milliseconds.
* Connectivity is a keyword of the ER samplers: ``require="connected"`` (undirected:
  connected; directed: weakly connected) or ``require="strong"`` (strongly connected; for
  undirected graphs the same as ``"connected"``). It is plain rejection sampling, which
  draws from ``G(n, p)`` conditioned on the property, with a bounded number of attempts.
* Kinship DAGs link parents only to the **next** generation, so a person's generation is
  the length of every path from a root to them, and roots are exactly generation 0.
  Every person below the roots has a first parent; each further parent slot is filled
  with probability ``link_prob`` (under the parent and child caps, the count rounded at
  random so that it is exact in expectation), so the density knob shapes families too.
* Metric complete graphs use the **ceiling** of the Euclidean distance between distinct
  grid points (computed exactly in integers). Ceiling keeps the triangle inequality:
  ``ceil(d(a,c)) <= ceil(d(a,b) + d(b,c)) <= ceil(d(a,b)) + ceil(d(b,c))``; rounding to
  the nearest integer does not (``(0,0),(1,1),(2,2)`` gives 1 + 1 < 3). Manhattan
  distance is available too.

Example:
    >>> from closurebench.seeding import rng
    >>> g = erdos_renyi(rng(0, "doc"), 8, 0.3, require="strong")
    >>> g == erdos_renyi(rng(0, "doc"), 8, 0.3, require="strong")
    True
    >>> g.n, g.directed
    (8, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.sparse.csgraph import connected_components

from closurebench.errors import ConfigError, SamplingError
from closurebench.graphs.convert import to_scipy_sparse
from closurebench.graphs.types import Graph

__all__ = [
    "KinshipGraph",
    "MetricGraph",
    "Require",
    "erdos_renyi",
    "erdos_renyi_out_degree",
    "kinship_dag",
    "metric_complete",
    "planted_triangles",
    "weighted",
]

Require = Literal["connected", "strong"] | None

DEFAULT_MAX_ATTEMPTS = 1000


# --------------------------------------------------------------------------- validation
def _check_rng(rng: object) -> None:
    if not isinstance(rng, np.random.Generator):
        raise ConfigError(
            f"rng must be a numpy.random.Generator, got {type(rng).__name__} {rng!r}; "
            "build one with closurebench.seeding.rng(master, ...)"
        )


def _check_int(name: str, value: object, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ConfigError(f"{name}={value!r} must be an int")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng_txt = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise ConfigError(f"{name}={v} is out of range; pass an int {rng_txt}")
    return v


def _check_prob(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ConfigError(f"{name}={value!r} must be a number in [0, 1]")
    p = float(value)
    if not 0.0 <= p <= 1.0:  # also rejects NaN
        raise ConfigError(f"{name}={value!r} is out of range; pass a probability in [0, 1]")
    return p


def _check_require(require: object) -> None:
    if require not in (None, "connected", "strong"):
        raise ConfigError(
            f"require={require!r} is not understood; use None, 'connected' or 'strong'"
        )


# --------------------------------------------------------------------------- helpers
def _satisfies(graph: Graph, require: Require) -> bool:
    if require is None or graph.n <= 1:
        return True
    adj = to_scipy_sparse(graph, weighted=False)
    connection = "strong" if (require == "strong" and graph.directed) else "weak"
    ncomp, _ = connected_components(adj, directed=graph.directed, connection=connection)
    return ncomp == 1


def _decode_pairs(k: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """Map indices ``0..N-1`` to distinct pairs: ordered ``u != v`` or unordered ``u < v``."""
    if directed:
        u, r = np.divmod(k, n - 1)
        v = r + (r >= u)
        return np.stack([u, v], axis=1)
    # Lower-triangle order: k = i(i-1)/2 + j with 0 <= j < i. Float sqrt, then an exact fix-up.
    i = np.floor((1.0 + np.sqrt(1.0 + 8.0 * k)) / 2.0).astype(np.int64)
    i -= (i * (i - 1) // 2) > k
    i += ((i + 1) * i // 2) <= k
    j = k - i * (i - 1) // 2
    return np.stack([j, i], axis=1)


def _er_once(rng: np.random.Generator, n: int, p: float, directed: bool) -> Graph:
    total = n * (n - 1) if directed else n * (n - 1) // 2
    if total == 0 or p == 0.0:
        return Graph(n, (), directed=directed)
    m = int(rng.binomial(total, p))
    k = np.sort(rng.choice(total, size=m, replace=False, shuffle=False).astype(np.int64))
    return Graph(n, _decode_pairs(k, n, directed), directed=directed)


def _er(
    rng: np.random.Generator,
    n: int,
    p: float,
    directed: bool,
    require: Require,
    max_attempts: int,
    params: str,
) -> Graph:
    _check_require(require)
    max_attempts = _check_int("max_attempts", max_attempts, 1)
    if require is None or n <= 1:
        return _er_once(rng, n, p, directed)
    if p > 0.0:
        for _ in range(max_attempts):
            g = _er_once(rng, n, p, directed)
            if _satisfies(g, require):
                return g
    kind = "connected undirected"
    if directed:
        kind = "strongly connected directed" if require == "strong" else "weakly connected directed"
    hint = math.log(n) / (n - 1)
    raise SamplingError(
        f"no {kind} graph in {max_attempts} attempts with {params}; raise the density "
        f"(connectivity needs roughly density >= ln(n)/(n-1) = {hint:.3f}) or max_attempts"
    )


# --------------------------------------------------------------------------- Erdős–Rényi
def erdos_renyi(
    rng: np.random.Generator,
    n: int,
    density: float,
    *,
    directed: bool = True,
    require: Require = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> Graph:
    """Erdős–Rényi ``G(n, p)``: every possible pair is an edge independently with ``p = density``.

    Directed: each ordered pair ``(u, v)``, ``u != v``. Undirected: each unordered pair.
    No self-loops.

    Args:
        rng: The source of randomness.
        n: Number of nodes, ``>= 1``.
        density: Edge probability ``p`` in ``[0, 1]``.
        directed: Directed or undirected.
        require: ``None``, ``"connected"`` (weakly connected when directed) or ``"strong"``
            (strongly connected); enforced by rejection sampling.
        max_attempts: Attempts before giving up when ``require`` is set.

    Returns:
        The sampled :class:`Graph`.

    Raises:
        ConfigError: on a bad parameter (names the value and the valid range).
        SamplingError: if no graph with the required connectivity was drawn in
            ``max_attempts`` attempts (raise ``density``).

    Example:
        >>> from closurebench.seeding import rng
        >>> g = erdos_renyi(rng(0, "doc"), 6, 0.5, directed=False, require="connected")
        >>> g.n, g.directed, all(u < v for u, v in g.edges)
        (6, False, True)
        >>> erdos_renyi(rng(0, "doc"), 6, 1.0).m
        30
    """
    _check_rng(rng)
    n = _check_int("n", n, 1)
    p = _check_prob("density", density)
    return _er(rng, n, p, bool(directed), require, max_attempts, f"n={n}, density={p}")


def erdos_renyi_out_degree(
    rng: np.random.Generator,
    n: int,
    out_degree: float,
    *,
    directed: bool = True,
    require: Require = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> Graph:
    """Erdős–Rényi with ``p = out_degree / (n - 1)``: expected out-degree ``out_degree``.

    For undirected graphs ``out_degree`` is the expected degree. Convenient for benchmarks
    that grow ``n`` at a fixed average degree.

    Raises:
        ConfigError: if ``n < 2`` or ``out_degree`` is outside ``[0, n - 1]``.
        SamplingError: as :func:`erdos_renyi`.

    Example:
        >>> from closurebench.seeding import rng
        >>> g = erdos_renyi_out_degree(rng(0, "doc"), 2000, 5.0)
        >>> 4.5 < g.m / g.n < 5.5
        True
    """
    _check_rng(rng)
    n = _check_int("n", n, 2)
    if isinstance(out_degree, bool) or not isinstance(
        out_degree, int | float | np.integer | np.floating
    ):
        raise ConfigError(f"out_degree={out_degree!r} must be a number in [0, n-1]")
    d = float(out_degree)
    if not 0.0 <= d <= n - 1:
        raise ConfigError(
            f"out_degree={out_degree!r} is out of range for n={n}; pass a value in [0, {n - 1}]"
        )
    p = min(1.0, d / (n - 1))
    return _er(rng, n, p, bool(directed), require, max_attempts, f"n={n}, out_degree={d}")


def planted_triangles(
    rng: np.random.Generator, n: int, density: float, *, triangles: int = 1
) -> Graph:
    """Undirected ``G(n, p)`` plus ``triangles`` planted triangles on distinct node triples.

    The missing edges of each planted triple are added, so the result has at least
    ``triangles`` triangles (the ER part may contribute more).

    Raises:
        ConfigError: if ``n < 3`` or ``triangles`` is outside ``[0, C(n, 3)]``.

    Example:
        >>> from closurebench.seeding import rng
        >>> from closurebench.graphs.measures import triangle_count
        >>> triangle_count(planted_triangles(rng(0, "doc"), 6, 0.0, triangles=2)) >= 2
        True
    """
    _check_rng(rng)
    n = _check_int("n", n, 3)
    p = _check_prob("density", density)
    total = math.comb(n, 3)
    t = _check_int("triangles", triangles, 0, total)
    base = _er_once(rng, n, p, directed=False)
    if t == 0:
        return base
    if total <= 4096:
        combos = np.array(
            [(a, b, c) for a in range(n) for b in range(a + 1, n) for c in range(b + 1, n)],
            dtype=np.int64,
        )
        triples = combos[np.sort(rng.choice(total, size=t, replace=False))]
    else:  # collisions are rare here (t <= total, total large): reject repeats
        seen: set[tuple[int, ...]] = set()
        rows: list[tuple[int, ...]] = []
        while len(rows) < t:
            tri = tuple(sorted(rng.choice(n, size=3, replace=False).tolist()))
            if tri not in seen:
                seen.add(tri)
                rows.append(tri)
        triples = np.array(rows, dtype=np.int64)
    extra = np.concatenate([triples[:, [0, 1]], triples[:, [0, 2]], triples[:, [1, 2]]])
    keys = np.unique(np.concatenate([base.edge_array(), extra]) @ np.array([n, 1]))
    return Graph(n, np.stack(np.divmod(keys, n), axis=1), directed=False)


# --------------------------------------------------------------------------- kinship
@dataclass(frozen=True, slots=True)
class KinshipGraph:
    """A parent→child DAG with the generation of every person.

    Attributes:
        graph: Directed :class:`Graph`, edge ``p -> c`` when ``p`` is a parent of ``c``.
        generation: ``generation[v]`` (0 for roots); every edge goes from generation
            ``g`` to ``g + 1``.
    """

    graph: Graph
    generation: tuple[int, ...]

    @property
    def generations(self) -> int:
        """Number of generations."""
        return max(self.generation, default=-1) + 1


def _default_generations(n: int) -> int:
    # Three generations (grandparents, cousins) for the benchmark's small n, deeper for large n.
    return min(n, max(3, round(math.log2(n)) - 1))


def _generation_sizes(rng: np.random.Generator, n: int, gens: int, c: int) -> list[int]:
    """Sizes s_0..s_{G-1} summing to n with s_{g+1} <= c * s_g, each drawn uniformly
    among the values that keep the rest feasible (a size s with k generations after it can
    hold at most s * (c + c^2 + ... + c^k) later people). Every generation holds at least
    two people (a couple, so that a second parent is possible) when ``n >= 2 * gens``,
    else at least one."""
    least = 2 if n >= 2 * gens else 1
    sizes: list[int] = []
    remaining = n
    prev = None
    for g in range(gens):
        after = gens - g - 1
        reach = sum(c**i for i in range(1, after + 1))  # exact Python ints
        lo = max(least, -(-remaining // (1 + reach)))
        top = remaining - least * after
        hi = top if prev is None else min(c * prev, top)
        s = int(rng.integers(lo, hi + 1))
        sizes.append(s)
        remaining -= s
        prev = s
    return sizes


def _family_links(
    rng: np.random.Generator,
    sizes: list[int],
    max_parents: int,
    max_children: int,
    p: float,
) -> list[tuple[int, int]]:
    """Parent -> child links of a family with the given generation sizes (ids in order).

    Every person below generation 0 first gets one parent from the generation before (a
    uniformly random free child slot, so no parent exceeds ``max_children``). A person
    has ``min(max_parents, size of the generation before) - 1`` further parent slots, the
    allowed further links; each is filled with probability ``p``: the number filled is
    ``p`` times the number of slots, rounded up or down at random so that its expectation
    is exact, and the filled slots are the first ones, in a random order, for which a
    parent with a free child slot exists (that parent is drawn uniformly among them).
    Fixing the count, rather than tossing a coin per slot, keeps a small family's share
    of filled slots close to ``p``.
    """
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(starts[-1])
    gen = np.repeat(np.arange(len(sizes)), sizes)
    load = np.zeros(n, dtype=np.int64)
    mine: list[set[int]] = [set() for _ in range(n)]
    links: list[tuple[int, int]] = []
    for g in range(1, len(sizes)):
        lo, hi = int(starts[g - 1]), int(starts[g])
        slots = np.repeat(np.arange(lo, hi), max_children)
        first = rng.choice(slots, size=sizes[g], replace=False, shuffle=True)
        for child, parent in zip(range(hi, int(starts[g + 1])), first.tolist(), strict=True):
            load[parent] += 1
            mine[child].add(parent)
            links.append((parent, child))
    # A person's further parent slots: as many as the generation before can fill.
    extra = [min(max_parents, sizes[gen[v] - 1]) - 1 for v in range(int(starts[1]), n)]
    optional = np.repeat(np.arange(int(starts[1]), n), extra)
    want = math.floor(p * optional.size + rng.random())
    filled = 0
    for child in rng.permutation(optional).tolist():
        if filled >= want:
            break
        lo, hi = int(starts[gen[child] - 1]), int(starts[gen[child]])
        free = [lo + int(q) for q in np.flatnonzero(load[lo:hi] < max_children)]
        free = [q for q in free if q not in mine[child]]
        if not free:
            continue
        parent = free[int(rng.integers(len(free)))]
        load[parent] += 1
        mine[child].add(parent)
        links.append((parent, child))
        filled += 1
    return links


def kinship_dag(
    rng: np.random.Generator,
    n: int,
    *,
    generations: int | None = None,
    max_parents: int = 2,
    max_children: int = 3,
    link_prob: float = 0.5,
) -> KinshipGraph:
    """A family tree: people in generations, edges parent → child into the next generation.

    Construction: generation sizes are drawn so that every generation fits under the caps.
    Each person of generation ``g >= 1`` first gets one parent from generation ``g - 1``
    (a uniformly random free "child slot", so no parent exceeds ``max_children``). Each
    further parent slot (``max_parents - 1`` per person, fewer when generation ``g - 1``
    has fewer people) is then filled with probability
    ``link_prob`` by a parent from the generation before with a free child slot: the
    number of filled slots is ``link_prob`` times the number of slots, randomly rounded
    (exact in expectation, so a small family's density follows the knob rather than a
    handful of coin tosses), taken in a random order, skipping slots no parent can fill.
    So ``link_prob`` is the density knob of a family: at 0 every family is a forest, at 1
    every person has as many parents as the caps allow. Node ids are then shuffled so
    that they carry no information about generations.

    Invariants: every non-root has ``1..max_parents`` parents, every parent has at most
    ``max_children`` children, edges go from generation ``g`` to ``g + 1`` (so the graph is
    acyclic, and every path from a root to a person has the person's generation as its
    length), and the roots are exactly generation 0.

    Args:
        rng: The source of randomness.
        n: Number of people, ``>= 1``.
        generations: Number of generations in ``[1, n]``; default 3 for ``n <= 22``, then
            ``round(log2 n) - 1`` (never more than ``n``). The ClosureBench kinship
            categories draw 3–5 from the structural seed.
        max_parents: Cap on parents per person, ``>= 1`` (the spec uses 2).
        max_children: Cap on children per person, ``>= 1`` (the spec default is 3).
        link_prob: Probability of each allowed parent → child link beyond a person's
            first parent, in ``[0, 1]``, i.e. the expected share of filled further
            parent slots (ClosureBench passes the instance's ρ).

    Raises:
        ConfigError: on a bad parameter, e.g. more generations than people.

    Example:
        >>> from closurebench.seeding import rng
        >>> k = kinship_dag(rng(0, "doc"), 10)
        >>> k.generations, len(k.generation), k.graph.directed
        (3, 10, True)
        >>> all(k.generation[c] == k.generation[p] + 1 for p, c in k.graph.edges)
        True
        >>> forest = kinship_dag(rng(0, "doc"), 10, generations=5, link_prob=0.0)
        >>> forest.graph.m == 10 - forest.generation.count(0)  # one parent each
        True
    """
    _check_rng(rng)
    n = _check_int("n", n, 1)
    max_parents = _check_int("max_parents", max_parents, 1)
    max_children = _check_int("max_children", max_children, 1)
    q = _check_prob("link_prob", link_prob)
    if generations is None:
        gens = _default_generations(n)
    else:
        is_int = isinstance(generations, int | np.integer) and not isinstance(generations, bool)
        if is_int and int(generations) > n:
            raise ConfigError(
                f"generations={generations} is impossible with n={n} people (each "
                f"generation needs at least one person); pass generations <= {n}"
            )
        gens = _check_int("generations", generations, 1, n)

    sizes = _generation_sizes(rng, n, gens, max_children)
    gen_of = np.repeat(np.arange(gens), sizes)
    links = _family_links(rng, sizes, max_parents, max_children, q)

    perm = rng.permutation(n)  # old id -> new id
    generation = np.empty(n, dtype=np.int64)
    generation[perm] = gen_of
    pairs = np.asarray(links, dtype=np.int64).reshape(-1, 2)
    graph = Graph(n, perm[pairs], directed=True)
    return KinshipGraph(graph, tuple(generation.tolist()))


# --------------------------------------------------------------------------- metric
@dataclass(frozen=True, slots=True)
class MetricGraph:
    """A complete undirected graph whose integer weights are a metric on grid points.

    Attributes:
        graph: Complete undirected weighted :class:`Graph`.
        points: ``points[v] == (x, y)``, distinct integer grid points.
        distance: ``"euclidean"`` (ceiling of the Euclidean distance) or ``"manhattan"``.
    """

    graph: Graph
    points: tuple[tuple[int, int], ...]
    distance: str


def _ceil_sqrt(s: np.ndarray) -> np.ndarray:
    """Exact ``ceil(sqrt(s))`` for non-negative int64 ``s`` (float guess, integer fix-up)."""
    r = np.floor(np.sqrt(s.astype(np.float64))).astype(np.int64)
    r -= r * r > s
    r += (r + 1) * (r + 1) <= s
    return r + (r * r < s)


def metric_complete(
    rng: np.random.Generator,
    n: int,
    *,
    grid: int = 100,
    distance: Literal["euclidean", "manhattan"] = "euclidean",
) -> MetricGraph:
    """``n`` distinct points on the ``grid x grid`` integer lattice and their complete graph.

    Weights are ``ceil(Euclidean distance)`` (default) or the Manhattan distance; both are
    integers ``>= 1`` satisfying the triangle inequality on every triple (see the module
    docstring for why the ceiling, not rounding).

    Args:
        rng: The source of randomness.
        n: Number of points, in ``[1, grid**2]``.
        grid: Coordinates are in ``0..grid-1``; ``>= 1``.
        distance: ``"euclidean"`` or ``"manhattan"``.

    Raises:
        ConfigError: on a bad parameter (e.g. more points than grid cells).

    Example:
        >>> from closurebench.seeding import rng
        >>> mg = metric_complete(rng(0, "doc"), 5, grid=10)
        >>> mg.graph.m, len(set(mg.points)), min(mg.graph.weights) >= 1
        (10, 5, True)
    """
    _check_rng(rng)
    grid = _check_int("grid", grid, 1)
    n = _check_int("n", n, 1, grid * grid)
    if distance not in ("euclidean", "manhattan"):
        raise ConfigError(
            f"distance={distance!r} is not understood; use 'euclidean' or 'manhattan'"
        )
    cells = rng.choice(grid * grid, size=n, replace=False).astype(np.int64)
    x, y = np.divmod(cells, grid)
    u, v = np.triu_indices(n, 1)
    dx, dy = x[u] - x[v], y[u] - y[v]
    w = _ceil_sqrt(dx * dx + dy * dy) if distance == "euclidean" else np.abs(dx) + np.abs(dy)
    graph = Graph(n, np.stack([u, v], axis=1), directed=False, weights=w.tolist())
    points = tuple(zip(x.tolist(), y.tolist(), strict=True))
    return MetricGraph(graph, points, distance)


# --------------------------------------------------------------------------- weights
def weighted(rng: np.random.Generator, graph: Graph, low: int = 1, high: int = 10) -> Graph:
    """Return ``graph`` with integer weights drawn uniformly from ``low..high`` (inclusive).

    Existing weights are replaced.

    Raises:
        ConfigError: if ``low``/``high`` are not ints with ``low <= high``.

    Example:
        >>> from closurebench.seeding import rng
        >>> g = weighted(rng(0, "doc"), erdos_renyi(rng(0, "g"), 6, 0.5))
        >>> g.weighted and all(1 <= w <= 10 for w in g.weights)
        True
    """
    _check_rng(rng)
    if not isinstance(graph, Graph):
        raise ConfigError(f"graph must be a closurebench Graph, got {type(graph).__name__}")
    low = _check_int("low", low, -(2**62))
    high = _check_int("high", high, low, 2**62)
    w = rng.integers(low, high, size=graph.m, endpoint=True)
    return Graph(graph.n, graph.edge_array(), directed=graph.directed, weights=w.tolist())
