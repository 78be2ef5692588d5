"""The GRIT task protocol: sample a graph, solve it exactly, verify it by a second route.

Every GRIT task is a :class:`GritTask` with four steps, each a pure function of its
inputs:

1. :meth:`GritTask.sample` draws a :class:`~closurebench.structures.grit.GritStructure` (graph
   and query parameters) from a structural generator;
2. :meth:`GritTask.solve` computes the reference answer with the certified exact solver of
   :mod:`closurebench.graphs.exact`;
3. :meth:`GritTask.verify` recomputes or re-checks it by an independent route (networkx, the
   solver's other ``method=``, or a solution checker) and raises :class:`VerificationError`
   naming the instance on any disagreement;
4. :meth:`GritTask.for_view` turns the view-independent result into the answer a given
   rendered view expects (a name, or an order of names, for BFS and centrality).

A task class also owns its facts (which graphs it is posed on: :attr:`GritTask.directed`,
:attr:`GritTask.weighted`, :attr:`GritTask.complete`; its :attr:`GritTask.param_keys`),
the hooks the surface words a question by (:meth:`GritTask.graph_notes`,
:meth:`GritTask.plain_wording`, :attr:`GritTask.answer_form`, ...) and the judgement of a
model's answer (:meth:`GritTask.judge`). Everything reaches a task through the one
registry :data:`closurebench.tasks.grit.GRIT_TASKS`.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from closurebench.errors import (
    ClosureBenchError,
    ConfigError,
    GraphError,
    Resample,
    SamplingError,
    VerificationError,
)
from closurebench.graphs.exact.check import Verdict
from closurebench.graphs.exact.errors import SolverTimeout
from closurebench.seeding import SeedPart, derive_seed, rng
from closurebench.structures.grit import GritStructure, GritView
from closurebench.tasks.grit.answers import Judgement, is_number, names_list

if TYPE_CHECKING:
    import networkx as nx

    from closurebench.graphs import Graph
    from closurebench.schema import GritInstance

__all__ = [
    "APP_H_DENSITY",
    "CROSS_CHECK_MAX_N",
    "DEFAULT_DENSITY",
    "DEFAULT_DIRECTED_SHARE",
    "DEFAULT_TIME_LIMIT",
    "FEASIBILITY_ONLY",
    "AnswerForm",
    "CertifiedTask",
    "CheckError",
    "ExactRoute",
    "GraphNote",
    "GraphTrait",
    "GritTask",
    "OptimumTask",
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

#: Erdős–Rényi edge probability range (the paper's App. A: ``p in [0.1, 0.3]``).
DEFAULT_DENSITY: tuple[float, float] = (0.1, 0.3)
#: The range whose graphs match the paper's App. H statistics of its test set (mean
#: density ~0.46 over all tasks, complete TSP graphs included; mean edges per size
#: bucket): see :mod:`closurebench.generate.grit`.
APP_H_DENSITY: tuple[float, float] = (0.28, 0.44)
#: Probability that a graph of a task whose direction varies (shortest path) is directed.
DEFAULT_DIRECTED_SHARE = 0.5
#: Seconds an exact solver (and its cross-check) may spend before the graph is resampled.
DEFAULT_TIME_LIMIT = 60.0
#: Default largest ``n`` at which NP-hard answers are re-solved by the solver's alternative
#: method (:attr:`ExactRoute.cross_check_max_n`; colouring's SAT cross-check runs at every n).
CROSS_CHECK_MAX_N = 40


#: A lower bound on every GRIT cost, size and colour count. Passed as ``optimum`` to an exact
#: checker it judges feasibility (and reports the value) without re-solving an NP-hard
#: problem; :meth:`GritTask._check_value` then compares the value with the certified answer.
FEASIBILITY_ONLY = 0


class AnswerForm(StrEnum):
    """What the answer is, which decides the output instruction of a question."""

    INTEGER = "integer"
    ORDER = "order"
    NODE = "node"


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
        timeouts: How many rejected draws a solver timeout rejected (the rest were
            :class:`Resample`: not well posed).
    """

    structure: GritStructure
    solved: Solved
    attempts: int
    seed: int
    timings: dict[str, float]
    timeouts: int = 0


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
    import networkx as nx  # heavy: only cross-checks need it

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
    from closurebench.graphs import erdos_renyi  # loads scipy: only sampling needs it

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


class GraphTrait(StrEnum):
    """Whether a task's graphs have a property (direction, weights): never, always or either."""

    NEVER = "never"
    ALWAYS = "always"
    EITHER = "either"

    def allows(self, value: bool) -> bool:
        """Whether a graph with (``True``) or without the property fits.

        Example:
            >>> GraphTrait.EITHER.allows(False), GraphTrait.ALWAYS.allows(False)
            (True, False)
        """
        return self is GraphTrait.EITHER or value is (self is GraphTrait.ALWAYS)


class GraphNote(StrEnum):
    """A statement a question makes about its graph before listing the edges."""

    #: Whether the edges are one-way or two-way (tasks whose direction varies).
    DIRECTION = "direction"
    #: What the value after each edge means (weighted graphs that are not complete).
    WEIGHT = "weight"
    #: That every pair is listed once with the same value both ways (complete graphs).
    COMPLETE = "complete"


class GritTask(ABC):
    """One GRIT task: its facts, sampling, exact solving, verification, answers and judging.

    Class attributes (the task's facts, read by the structure check, the surface and the
    scorer through the registry):

    Attributes:
        name: The task's name (its key in ``GRIT_TASKS`` and the records' ``task``).
        view_invariant: Whether the answer is the same in every view (False: it is a name
            or names).
        directed: Whether its graphs are directed.
        weighted: Whether its graphs carry integer weights.
        complete: Whether its graphs are complete (every pair of nodes joined).
        param_keys: The exact query parameter keys.
        answer_form: The kind of answer (for the output instruction).
        states_neighbour_order: Whether a question states a neighbour order (BFS), which
            each view words by its naming scheme.
        defined_param: A parameter whose meaning the question defines in a note (the
            centrality kind), or ``None``.
        tool_problem: The graph tool's ``problem_type`` that answers the task (the
            reference agent's one call), or ``None`` for the task's own name.
    """

    name: ClassVar[str]
    view_invariant: ClassVar[bool] = True
    directed: ClassVar[GraphTrait] = GraphTrait.NEVER
    weighted: ClassVar[GraphTrait] = GraphTrait.NEVER
    complete: ClassVar[bool] = False
    param_keys: ClassVar[tuple[str, ...]] = ()
    answer_form: ClassVar[AnswerForm] = AnswerForm.INTEGER
    states_neighbour_order: ClassVar[bool] = False
    defined_param: ClassVar[str | None] = None
    tool_problem: ClassVar[str | None] = None

    # ------------------------------------------------------------------ structures
    def structure(
        self,
        n: int,
        directed: bool,
        weighted: bool,
        edges: Iterable[Any],
        params: Mapping[str, Any] | Iterable[tuple[str, Any]] = (),
    ) -> GritStructure:
        """Build a structure of this task and check it against the task's rules.

        Raises:
            ConfigError: a disallowed directed/weighted combination or wrong parameters.
            GraphError: a malformed edge, or a graph that should be complete and is not.
        """
        return self.validate(GritStructure(self.name, n, directed, weighted, edges, params))

    def validate(self, s: GritStructure) -> GritStructure:
        """Check ``s`` against this task's facts; return it unchanged.

        Raises:
            ConfigError: a structure of another task, a disallowed directed/weighted
                combination, or missing/unknown/invalid parameters.
            GraphError: a graph that should be complete and is not.
        """
        if s.task != self.name:
            raise ConfigError(f"structure of task {s.task!r} given to task {self.name!r}")
        if not self.directed.allows(s.directed):
            kind = "undirected" if s.directed else "directed"
            raise ConfigError(
                f"task {self.name!r} is {kind} in GRIT; pass directed={not s.directed}"
            )
        if not self.weighted.allows(s.weighted):
            if s.weighted:
                raise ConfigError(f"task {self.name!r} is unweighted in GRIT; pass weighted=False")
            raise ConfigError(f"task {self.name!r} needs weighted=True (its edges have costs)")
        if self.complete and s.m != s.n * (s.n - 1) // 2:
            raise GraphError(
                f"a {self.name} graph must be complete: n={s.n} needs "
                f"{s.n * (s.n - 1) // 2} edges, got {s.m}; state every pairwise weight"
            )
        keys = [k for k, _ in s.params]
        if set(keys) != set(self.param_keys):
            raise ConfigError(
                f"task {self.name!r} takes params {list(self.param_keys)}, got {sorted(keys)}; "
                "pass exactly those keys"
            )
        self._validate_params(s)
        return s

    def _validate_params(self, s: GritStructure) -> None:  # noqa: B027 - optional hook
        """Task-specific parameter rules (keys are already checked); default: none."""

    def sample_params(self, g: np.random.Generator, n: int) -> dict[str, Any]:
        """Draw the query parameters for a graph on ``n`` nodes; default: none."""
        return {}

    # ------------------------------------------------------------------ wording hooks
    @property
    def states_direction(self) -> bool:
        """Whether a question says if its edges are one-way (the direction varies)."""
        return self.directed is GraphTrait.EITHER

    def plain_wording(self, s: GritStructure) -> bool:
        """Whether ``s`` takes the unweighted (hop-count) wording of a maybe-weighted task."""
        return self.weighted is GraphTrait.EITHER and not s.weighted

    def graph_notes(self, s: GritStructure) -> tuple[GraphNote, ...]:
        """The statements about the graph that come before its edges, in order.

        Example:
            >>> from closurebench.tasks.grit import GRIT_TASKS
            >>> t = GRIT_TASKS["tsp"]
            >>> t.graph_notes(t.structure(2, False, True, [(0, 1, 3)]))
            (<GraphNote.COMPLETE: 'complete'>,)
        """
        notes = [GraphNote.DIRECTION] if self.states_direction else []
        if self.complete:
            notes.append(GraphNote.COMPLETE)
        elif s.weighted:
            notes.append(GraphNote.WEIGHT)
        return tuple(notes)

    # ------------------------------------------------------------------ reference answers
    @property
    def tool_problem_type(self) -> str:
        """The graph tool's ``problem_type`` the reference agent calls for this task.

        The call carries the graph the question states and the query parameters (node
        parameters as the tool's ``start``/``end``); the tool's value is the answer.

        Example:
            >>> from closurebench.tasks.grit import GRIT_TASKS
            >>> GRIT_TASKS["vertex_cover"].tool_problem_type
            'vertex_cover'
        """
        return self.tool_problem or self.name

    def networkx_answer(self, names: Sequence[str], params: Mapping[str, Any]) -> str | None:
        """A Python expression computing the answer with NetworkX, as a model would write it.

        The reference program (``--model oracle-program``) builds the view's graph as
        ``G`` (``nx.Graph`` or ``nx.DiGraph`` over the display ``names``, a ``weight`` on
        every edge) and prints this expression; ``None`` (the default: an exact solver for
        an NP-hard task is not what a model would write) prints the certified answer.

        Args:
            names: The view's display names, by node id.
            params: The record's query parameters (node parameters as ids).

        Example:
            >>> from closurebench.tasks.grit import GRIT_TASKS
            >>> GRIT_TASKS["tsp"].networkx_answer(["a", "b"], {}) is None
            True
        """
        return None

    # ------------------------------------------------------------------ protocol
    def sample(
        self,
        g: np.random.Generator,
        n: int,
        p: float,
        *,
        directed_share: float = DEFAULT_DIRECTED_SHARE,
    ) -> GritStructure:
        """Draw a structure with ``n`` nodes and edge probability ``p`` from ``g``.

        ``directed_share`` is the probability that the graph is directed, for a task
        whose direction varies (:attr:`directed` is ``EITHER``); others ignore it.
        Default: a connected undirected Erdős–Rényi graph, then :meth:`sample_params`.
        """
        graph = connected_graph(g, n, p)
        return self.structure(n, False, False, list(graph.edges), self.sample_params(g, n))

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
        self, s: GritStructure, solved: Solved, view: GritView, *, where: str
    ) -> tuple[Any, Any]:
        """``(answer, solution)`` for one rendered view; default: the view-independent ones."""
        return solved.answer, solved.solution

    @abstractmethod
    def judge(self, record: GritInstance, value: Any, *, lenient: bool = False) -> Judgement:
        """Judge an extracted answer ``value`` (not ``None``, not a boolean) to ``record``.

        Args:
            record: The instance the answer is for.
            value: The decoded answer value (untrusted; never raises on it).
            lenient: Also accept what the task's lenient rule accepts (BFS: any valid
                order), as lenient-only.
        """

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


class OptimumTask(GritTask):
    """A task whose answer is an optimal value (cost, size, colour count).

    An answer is either that number, or a solution that the task's checker finds valid
    and optimal (:meth:`judge_solution`), so any optimal solution is correct even when it
    differs from the stored one.
    """

    answer_form = AnswerForm.INTEGER

    @property
    def expected(self) -> str:
        """The format-error reason for an answer that is neither a number nor a solution."""
        return f"expected a number or a solution for {self.name}"

    def judge(self, record: GritInstance, value: Any, *, lenient: bool = False) -> Judgement:
        """A number equal to the optimum, or a valid optimal solution."""
        if is_number(value):
            answer = record.answer
            # exact comparison: a 400-digit integer is just not the optimum (no float(): it
            # would overflow, and it rounds integers past 2**53)
            ok = isinstance(answer, int | float) and value == answer
            return Judgement.correct_if(ok, value, f"{value} differs from the optimum {answer}")
        if isinstance(value, str) and len(names_list(value) or []) < 2:
            return Judgement.format_error(value, self.expected)
        return self.judge_solution(record, value)

    @abstractmethod
    def judge_solution(self, record: GritInstance, value: Any) -> Judgement:
        """Judge a candidate solution (not a number) with the exact checker."""


@dataclass(frozen=True)
class ExactRoute:
    """How a certified task is solved and checked by :mod:`closurebench.graphs.exact`.

    Attributes:
        solver: ``solver(n, edges, *, time_limit, method)`` → a result with ``.value``,
            ``.solution`` and ``.certificate``.
        checker: ``checker(n, edges, candidate, *, optimum)`` → a
            :class:`~closurebench.graphs.exact.check.Verdict`.
        methods: ``(primary, cross-check)`` solver methods.
        quantity: What the answer counts, plural (for disagreement messages).
        cross_check_max_n: Largest ``n`` at which the cross-check method runs (``None``:
            every ``n``; the cross-check is fast enough at every GRIT size).
    """

    solver: Callable[..., Any]
    checker: Callable[..., Verdict]
    methods: tuple[str, str]
    quantity: str
    cross_check_max_n: int | None = CROSS_CHECK_MAX_N


class CertifiedTask(OptimumTask):
    """An NP-hard minimisation on a connected undirected graph, certified exactly.

    Solved by the primary method of its :class:`ExactRoute` (with a certificate), verified
    by the checker (valid with exactly ``answer``) and, for ``n`` up to the route's
    ``cross_check_max_n``, re-solved by the independent second method, which must agree.
    """

    route: ClassVar[ExactRoute]

    def exact(self, s: GritStructure, method: str, time_limit: float) -> Any:
        """The exact solver's result by ``method``."""
        return self.route.solver(s.n, edge_list(s), time_limit=time_limit, method=method)

    def solve(self, s: GritStructure, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Solved:
        """The primary method's value, witness and certificate."""
        r = self.exact(s, self.route.methods[0], time_limit)
        return Solved(
            answer=int(r.value), solution=list(r.solution), certificate=r.certificate.as_dict()
        )

    def check(self, s: GritStructure, solution: Any) -> int:
        """A feasible solution (checked without re-solving); returns its value."""
        return checked(self.route.checker(s.n, edge_list(s), solution, optimum=FEASIBILITY_ONLY))

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        """The witness is valid with ``answer``; the second method agrees (up to its max n)."""
        self._check_value(s, solved, where)
        limit = self.route.cross_check_max_n
        if limit is None or s.n <= limit:
            first, second = self.route.methods
            alt = self.exact(s, second, time_limit)
            what = f"{self.route.quantity} ({first} vs {second})"
            self._agree(where, what, solved.answer, int(alt.value))


def _draw_n_p(g: np.random.Generator, density: Sequence[float]) -> float:
    """The Erdős–Rényi ``p`` of one draw, uniform in ``density``.

    Raises:
        ConfigError: for a range outside ``0 < lo <= hi <= 1``.
    """
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
    directed_share: float = DEFAULT_DIRECTED_SHARE,
    time_limit: float = DEFAULT_TIME_LIMIT,
    max_attempts: int = 50,
    where: str | None = None,
    report: Callable[[int, str, int], None] | None = None,
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
        directed_share: Probability that a graph of a task whose direction varies is
            directed (0: never; drawn either way, so the seeds' use does not change).
        time_limit: Seconds per exact solve before resampling.
        max_attempts: Draws before giving up.
        where: Name used in error messages (default: the seed path).
        report: Told ``(attempt, step, timeouts so far)`` as each step starts (step is
            ``"sampling"``, ``"solving"`` or ``"cross-checking"``), for a live display.

    Raises:
        SamplingError: no well-posed, provable instance in ``max_attempts`` draws.
        VerificationError: the two routes disagree (never resampled: it is a bug).
    """
    where = where or "/".join(str(x) for x in parts)
    timings = {"sample": 0.0, "solve": 0.0, "verify": 0.0}
    reasons: list[str] = []
    timeouts = 0

    def say(attempt: int, step: str) -> None:
        if report is not None:
            report(attempt + 1, step, timeouts)

    for attempt in range(max_attempts):
        seed_parts = (*parts, "attempt", attempt)
        g = rng(master, *seed_parts)
        t0 = time.perf_counter()
        say(attempt, "sampling")
        p = _draw_n_p(g, density)
        s = task.sample(g, n, p, directed_share=directed_share)
        t1 = time.perf_counter()
        timings["sample"] += t1 - t0
        try:
            say(attempt, "solving")
            solved = task.solve(s, time_limit=time_limit)
            t2 = time.perf_counter()
            timings["solve"] += t2 - t1
            say(attempt, "cross-checking")
            task.verify(s, solved, where=f"{where} (attempt {attempt})", time_limit=time_limit)
            timings["verify"] += time.perf_counter() - t2
        except (SolverTimeout, Resample) as exc:
            timings["solve"] += time.perf_counter() - t1
            timeouts += isinstance(exc, SolverTimeout)
            reasons.append(f"{type(exc).__name__}: {exc}")
            continue
        seed = derive_seed(master, *seed_parts)
        return SampledInstance(s, solved, attempt + 1, seed, timings, timeouts)
    raise SamplingError(
        f"{where}: no well-posed {task.name} instance with n={n} in {max_attempts} attempts "
        f"(last reasons: {reasons[-3:]}); widen the density range or raise max_attempts"
    )
