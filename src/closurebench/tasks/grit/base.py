"""The GRIT task protocol: sample a graph, solve it exactly, verify it by a second route.

Every GRIT task is a :class:`GritTask` with four steps, each a pure function of its
inputs:

1. :meth:`GritTask.sample` draws a :class:`~closurebench.surface.grit.GritStructure` (graph
   and query parameters) from a structural generator;
2. :meth:`GritTask.solve` computes the reference answer with the certified exact solver of
   :mod:`closurebench.graphs.exact`;
3. :meth:`GritTask.verify` recomputes or re-checks it by an independent route (networkx, the
   solver's other ``method=``, or a solution checker) and raises :class:`VerificationError`
   naming the instance on any disagreement;
4. :meth:`GritTask.for_view` turns the view-independent result into the answer a given
   rendered view expects (a name, or an order of names, for BFS and centrality).

:func:`sample_solved` runs steps 1-3 with bounded resampling: a graph that the solver cannot
prove in time (:class:`~closurebench.graphs.exact.errors.SolverTimeout`) or whose query is
not well posed (:class:`Resample`, e.g. a centrality tie) is redrawn from the next attempt's
seed; after ``max_attempts`` a :class:`~closurebench.errors.SamplingError` is raised.

Example:
    >>> from closurebench.tasks.grit import GRIT_TASKS
    >>> r = sample_solved(GRIT_TASKS["vertex_cover"], 0, ("doc",), n=6, density=(0.3, 0.5))
    >>> r.structure.n, r.solved.answer == len(r.solved.solution), r.solved.certificate["gap"]
    (6, True, 0)
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import networkx as nx
import numpy as np

from closurebench.errors import (
    ClosureBenchError,
    ConfigError,
    Resample,
    SamplingError,
    VerificationError,
)
from closurebench.graphs import Graph, erdos_renyi
from closurebench.graphs.exact.check import Verdict
from closurebench.graphs.exact.errors import SolverTimeout
from closurebench.seeding import SeedPart, derive_seed, rng
from closurebench.surface.grit import GritStructure, RenderedQuestion

__all__ = [
    "DEFAULT_DENSITY",
    "DEFAULT_TIME_LIMIT",
    "FEASIBILITY_ONLY",
    "CheckError",
    "GritTask",
    "Resample",
    "SampledInstance",
    "Solved",
    "VerificationError",
    "checked",
    "connected_graph",
    "edge_list",
    "sample_solved",
    "to_nx",
]

#: Erdős–Rényi edge probability range (the paper's ``p in [0.1, 0.3]``).
DEFAULT_DENSITY: tuple[float, float] = (0.1, 0.3)
#: Seconds an exact solver (and its cross-check) may spend before the graph is resampled.
DEFAULT_TIME_LIMIT = 60.0
#: Largest ``n`` at which NP-hard answers are re-solved by the solver's alternative method.
CROSS_CHECK_MAX_N = 40


#: A lower bound on every GRIT cost, size and colour count. Passed as ``optimum`` to an exact
#: checker it judges feasibility (and reports the value) without re-solving an NP-hard
#: problem; :meth:`GritTask._check_value` then compares the value with the certified answer.
FEASIBILITY_ONLY = 0


class CheckError(ClosureBenchError, ValueError):
    """A solution does not pass its task's checker (invalid, or not of the claimed value)."""


@dataclass(frozen=True)
class Solved:
    """A view-independent exact result.

    Attributes:
        answer: The reference answer in node ids (an int cost/size/count, a node id for
            centrality, a tuple of ids for BFS in numeric neighbour order).
        solution: One optimal witness in node ids (path, colouring, tour, cover, order,
            node), or ``None``.
        certificate: ``{"method", "bound", "gap"}`` for NP-hard tasks, else ``None``.
        extra: Task-specific data kept for verification (not serialised).
    """

    answer: Any
    solution: Any
    certificate: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class SampledInstance:
    """What :func:`sample_solved` returns.

    Attributes:
        structure: The graph and query.
        solved: The exact, verified result.
        attempts: How many draws it took (1 = first draw).
        seed: The structural seed of the accepted draw.
        timings: Seconds spent per stage (``sample``, ``solve``, ``verify``), all attempts.
    """

    structure: GritStructure
    solved: Solved
    attempts: int
    seed: int
    timings: dict[str, float]


def checked(verdict: Verdict, *, optimal: bool = False) -> Any:
    """The value of a valid :class:`~closurebench.graphs.exact.check.Verdict`.

    Raises:
        CheckError: with the verdict's reason, if it is invalid (or, with ``optimal``, not
            fully correct).

    Example:
        >>> from closurebench.graphs.exact.check import check_cover
        >>> checked(check_cover(3, [(0, 1), (1, 2)], [1]))
        1
        >>> checked(check_cover(3, [(0, 1), (1, 2)], [0]))
        Traceback (most recent call last):
        ...
        closurebench.tasks.grit.base.CheckError: cover leaves edge (1, 2) uncovered
    """
    if not verdict.valid or (optimal and not verdict.optimal):
        raise CheckError(verdict.reason)
    return verdict.value


def edge_list(s: GritStructure) -> list[tuple[int, int, int]]:
    """The structure's edges as ``(u, v, w)`` triples (``w == 1`` when unweighted)."""
    return [tuple(e) for e in s.edges]  # type: ignore[misc]


def to_nx(s: GritStructure) -> nx.Graph | nx.DiGraph:
    """Build a networkx graph (``weight`` attribute on every edge) for cross-checks."""
    g: nx.Graph | nx.DiGraph = nx.DiGraph() if s.directed else nx.Graph()
    g.add_nodes_from(range(s.n))
    for u, v, w in s.edges:
        g.add_edge(u, v, weight=w)
    return g


def connected_graph(g: np.random.Generator, n: int, p: float, *, directed: bool = False) -> Graph:
    """Erdős–Rényi ``G(n, p)`` rejection-sampled for (strong, if directed) connectivity.

    ``p`` is raised to at least ``ln(n) / n`` (the connectivity threshold) so that small
    graphs are drawn in a few attempts; at ``n <= 2`` the graph is a single edge/arc pair.

    Example:
        >>> from closurebench.seeding import rng
        >>> gr = connected_graph(rng(0, "doc"), 8, 0.1)
        >>> gr.n, gr.directed
        (8, False)
    """
    if n < 2:
        raise ConfigError(f"n={n} is too small for a GRIT graph; use n >= 2")
    p_eff = min(1.0, max(p, math.log(n) / n))
    return erdos_renyi(
        g,
        n,
        p_eff,
        directed=directed,
        require="strong" if directed else "connected",
        max_attempts=2000,
    )


class GritTask(ABC):
    """One GRIT task: sampling, exact solving, independent verification, per-view answers."""

    name: ClassVar[str]
    #: Whether the answer is the same in every view (False: it is a name or names).
    view_invariant: ClassVar[bool] = True

    @abstractmethod
    def sample(self, g: np.random.Generator, n: int, p: float) -> GritStructure:
        """Draw a structure with ``n`` nodes and edge probability ``p`` from ``g``."""

    @abstractmethod
    def solve(self, s: GritStructure, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Solved:
        """Exact answer with a witness (and certificate for NP-hard tasks).

        Raises:
            SolverTimeout: optimality not proven within ``time_limit``.
            Resample: the query is not well posed on this graph.
        """

    @abstractmethod
    def check(self, s: GritStructure, solution: Any) -> Any:
        """Validate ``solution`` on ``s`` independently of the solver; return its value.

        Raises:
            CheckError: naming what is wrong.
        """

    @abstractmethod
    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        """Confirm ``solved`` by a second route.

        Raises:
            VerificationError: naming ``where`` and both values.
            SolverTimeout: the alternative method could not finish (the graph is resampled).
        """

    def for_view(
        self, s: GritStructure, solved: Solved, view: RenderedQuestion, *, where: str
    ) -> tuple[Any, Any]:
        """``(answer, solution)`` for one rendered view; default: the view-independent ones."""
        return solved.answer, solved.solution

    # ------------------------------------------------------------------ shared helpers
    def _check_value(self, s: GritStructure, solved: Solved, where: str) -> None:
        """The stored solution passes the checker and its value equals the answer."""
        try:
            value = self.check(s, solved.solution)
        except CheckError as exc:
            raise VerificationError(f"{where}: stored solution fails the checker: {exc}") from exc
        if value != solved.answer:
            raise VerificationError(
                f"{where}: stored solution has value {value!r} but the answer is {solved.answer!r}"
            )
        cert = solved.certificate
        if cert is not None and (cert.get("gap") != 0 or cert.get("bound") != solved.answer):
            raise VerificationError(
                f"{where}: certificate {cert!r} does not prove the answer {solved.answer!r} "
                "(need gap == 0 and bound == answer)"
            )

    @staticmethod
    def _agree(where: str, what: str, ours: Any, theirs: Any) -> None:
        if ours != theirs:
            raise VerificationError(
                f"{where}: {what} disagree: exact solver says {ours!r}, second route says "
                f"{theirs!r}; this is a solver bug, report the instance"
            )


def _draw_n_p(g: np.random.Generator, density: Sequence[float]) -> float:
    lo, hi = float(density[0]), float(density[1])
    if not 0.0 < lo <= hi <= 1.0:
        raise ConfigError(f"density range {tuple(density)!r} is invalid; need 0 < lo <= hi <= 1")
    return float(g.uniform(lo, hi)) if hi > lo else lo


def sample_solved(
    task: GritTask,
    master: int,
    parts: tuple[SeedPart, ...],
    *,
    n: int,
    density: Sequence[float] = DEFAULT_DENSITY,
    time_limit: float = DEFAULT_TIME_LIMIT,
    max_attempts: int = 50,
    where: str | None = None,
) -> SampledInstance:
    """Sample, solve and verify one instance, resampling (bounded) when needed.

    Attempt ``a`` draws from ``rng(master, *parts, "attempt", a)``, so the accepted
    instance depends only on the seeds (and, in the unlikely event of a timeout, on time).

    Args:
        task: The task.
        master: Master seed.
        parts: Seed path of this graph (e.g. ``("grit", "test", 17)``).
        n: Number of nodes.
        density: ``(lo, hi)`` range of the Erdős–Rényi ``p`` (ignored by TSP).
        time_limit: Seconds per exact solve before resampling.
        max_attempts: Draws before giving up.
        where: Name used in error messages (default: the seed path).

    Raises:
        SamplingError: no well-posed, provable instance in ``max_attempts`` draws.
        VerificationError: the two routes disagree (never resampled: it is a bug).
    """
    where = where or "/".join(str(x) for x in parts)
    timings = {"sample": 0.0, "solve": 0.0, "verify": 0.0}
    reasons: list[str] = []
    for attempt in range(max_attempts):
        seed_parts = (*parts, "attempt", attempt)
        g = rng(master, *seed_parts)
        t0 = time.perf_counter()
        p = _draw_n_p(g, density)
        s = task.sample(g, n, p)
        t1 = time.perf_counter()
        timings["sample"] += t1 - t0
        try:
            solved = task.solve(s, time_limit=time_limit)
            t2 = time.perf_counter()
            timings["solve"] += t2 - t1
            task.verify(s, solved, where=f"{where} (attempt {attempt})", time_limit=time_limit)
            timings["verify"] += time.perf_counter() - t2
        except (SolverTimeout, Resample) as exc:
            timings["solve"] += time.perf_counter() - t1
            reasons.append(f"{type(exc).__name__}: {exc}")
            continue
        return SampledInstance(s, solved, attempt + 1, derive_seed(master, *seed_parts), timings)
    raise SamplingError(
        f"{where}: no well-posed {task.name} instance with n={n} in {max_attempts} attempts "
        f"(last reasons: {reasons[-3:]}); widen the density range or raise max_attempts"
    )
