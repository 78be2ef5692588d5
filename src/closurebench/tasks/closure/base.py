"""The ClosureBench task protocol: sample, solve, and prove the answer three ways.

A category is a :class:`ClosureTask`. From a structural generator alone it samples a
:class:`~closurebench.structures.closure.ClosureStructure` (graph, optional second graph,
anchors such as ``X``, ``Y`` and a threshold ``k``; re-exported here), and computes the
reference answer by three independent routes:

1. :meth:`ClosureTask.solve` — the graph core (:mod:`closurebench.graphs`);
2. :meth:`ClosureTask.ein_program` — an Ein program run by :func:`closurebench.ein.run`,
   read back by :meth:`ClosureTask.ein_answer`;
3. :meth:`ClosureTask.python_program` — a Python + NetworkX program, executed, that prints
   its answer as one JSON value.

:func:`verify` runs all three and raises :class:`~closurebench.errors.VerificationError`
naming the instance unless they agree. :func:`sample_verified` draws with bounded
resampling (a task raises :class:`~closurebench.errors.Resample` for an ill-posed draw).
A fourth route is the category's own reference plan, :meth:`ClosureTask.plan`: the
graph-tool calls the reference agent (``--model reader``) makes on the question it read
and how it combines their results (:mod:`closurebench.tasks.closure.plan`).

:meth:`ClosureTask.sample` has a default, the draw most categories share: a graph of
:func:`~closurebench.tasks.closure.sampling.reach_digraph` and every anchor a distinct
node. A category that needs more (an answer to be non-empty, a threshold ``k``, a
family, an undirected graph) overrides it.

Answers are held in node ids, canonically typed per result type (:func:`normalize`):
``boolean`` → ``bool``; ``integer`` → ``int``; ``float`` → ``float`` rounded to 2
decimals; ``set`` → sorted ``tuple`` of ids; ``string`` → one node id (``int``);
``compound`` → ``dict`` with the category's fixed keys, each value normalised.

Example:
    >>> from closurebench.graphs import Graph
    >>> s = ClosureStructure("reach_then_count", Graph(3, ((0, 1), (1, 2))), (("X", 0),))
    >>> s.anchor("X"), s.to_dict()["anchors"]
    (0, {'X': 0})
    >>> normalize("set", [3, 1]), normalize("float", 2.6249999), normalize("boolean", 1.0)
    ((1, 3), 2.62, True)
    >>> run_python("import json\\nprint(json.dumps([1, 2]))")
    [1, 2]
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from closurebench import ein
from closurebench.errors import (
    ConfigError,
    Resample,
    SamplingError,
    VerificationError,
    shorten,
)
from closurebench.graphs import Graph
from closurebench.schema.enums import Ambiguity, ResultType
from closurebench.seeding import SeedPart, rng
from closurebench.structures.closure import ClosureStructure
from closurebench.tasks.closure.plan import Reading, Step, ToolReply
from closurebench.tasks.closure.sampling import distinct_nodes, reach_digraph

__all__ = [
    "RESULT_TYPES",
    "TESTED_MAX_N",
    "WORDINGS",
    "AnchorExcludedSetTask",
    "Answer",
    "ClosureStructure",
    "ClosureTask",
    "SetTask",
    "Verified",
    "answers_equal",
    "check_wording",
    "ein_edges",
    "ein_set",
    "normalize",
    "not_node",
    "python_graph",
    "run_python",
    "sample_verified",
    "verify",
]

#: The largest ``n`` at which every category is tested to generate (at the default
#: densities; ``tests/tasks/test_closure_large_n.py``); ``closurebench categories`` shows it.
TESTED_MAX_N = 100

#: How a question states the source-inclusion convention of an ambiguous category:
#: ``explicit`` in words ("not counting X itself"; the default), or ``implicit``, left
#: unsaid as in the paper (:attr:`ClosureTask.implicit_template`).
WORDINGS: tuple[str, ...] = ("explicit", "implicit")


def check_wording(conventions: str, where: str = "conventions") -> str:
    """Return ``conventions`` if it is one of :data:`WORDINGS`.

    Raises:
        ConfigError: naming the value, where it was given and the choices.

    Example:
        >>> check_wording("implicit")
        'implicit'
        >>> check_wording("paper", "--conventions")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --conventions 'paper' is unknown; choose one of \
explicit, implicit
    """
    if conventions not in WORDINGS:
        raise ConfigError(
            f"{where} {conventions!r} is unknown; choose one of {', '.join(WORDINGS)}"
        )
    return conventions


#: The result type names, in :class:`~closurebench.schema.enums.ResultType` order.
RESULT_TYPES: tuple[str, ...] = tuple(t.value for t in ResultType)

Answer = Any  # bool | int | float | tuple[int, ...] | dict[str, Any]


def normalize(result_type: str, value: Any, keys: Mapping[str, str] | None = None) -> Answer:
    """Canonical typed form of an answer in node ids.

    Args:
        result_type: One of :data:`RESULT_TYPES`.
        value: The raw value (numpy scalars, lists, 0/1 floats are accepted).
        keys: For ``compound``: key -> result type of that key.

    Raises:
        VerificationError: if the value cannot be read as that type (a program bug).

    Example:
        >>> normalize("compound", {"reachable": 1.0, "degree": 2.0},
        ...           {"reachable": "boolean", "degree": "integer"})
        {'degree': 2, 'reachable': True}
    """
    try:
        if result_type == "boolean":
            if isinstance(value, bool | np.bool_):
                return bool(value)
            f = float(value)
            if f not in (0.0, 1.0):
                raise ValueError(f"{shorten(repr(value))} is not 0/1")
            return f == 1.0
        if result_type in ("integer", "string"):
            f = float(value)
            if not f.is_integer():
                raise ValueError(f"{shorten(repr(value))} is not an integer")
            return int(f)
        if result_type == "float":
            f = float(value)
            if not math.isfinite(f):
                raise ValueError(f"{shorten(repr(value))} is not finite")
            return round(f + 0.0, 2) + 0.0
        if result_type == "set":
            items = [int(v) for v in value]
            if len(set(items)) != len(items):
                raise ValueError(f"{shorten(repr(value))} has duplicates")
            return tuple(sorted(items))
        if result_type == "compound":
            if not isinstance(value, Mapping) or keys is None or set(value) != set(keys):
                raise ValueError(
                    f"{shorten(repr(value))} does not have the keys {sorted(keys or {})}"
                )
            return {k: normalize(keys[k], value[k]) for k in sorted(keys)}
    except (TypeError, ValueError) as exc:
        raise VerificationError(
            f"cannot read {shorten(repr(value))} as a {result_type}: {shorten(exc)}"
        ) from None
    raise VerificationError(f"unknown result type {result_type!r}; expected one of {RESULT_TYPES}")


def answers_equal(result_type: str, a: Answer, b: Answer) -> bool:
    """Equality of two normalised answers (floats within 1e-9 before rounding noise).

    Example:
        >>> answers_equal("float", 2.62, 2.62), answers_equal("set", (1, 2), (1, 3))
        (True, False)
    """
    if result_type == "float":
        return abs(float(a) - float(b)) < 1e-9
    if result_type == "compound":
        return isinstance(a, Mapping) and isinstance(b, Mapping) and dict(a) == dict(b)
    return a == b


def ein_edges(graph: Graph) -> str:
    """The ``A = edges([...], n)`` line of an Ein program (undirected edges both ways).

    Example:
        >>> ein_edges(Graph(3, ((0, 1),), directed=False))
        'A = edges([[0,1],[1,0]], 3)'
    """
    pairs: list[tuple[int, int]] = []
    for u, v in graph.edges:
        pairs.append((u, v))
        if not graph.directed:
            pairs.append((v, u))
    body = ",".join(f"[{u},{v}]" for u, v in sorted(pairs))
    return f"A = edges([{body}], {graph.n})"


def ein_set(result: ein.EinResult, n: int, category: str) -> list[int]:
    """The node ids ``i`` with ``value[i] == 1`` of an Ein 0/1 vector of length ``n``.

    Raises:
        VerificationError: if the printed value is not a 0/1 vector of length ``n``.

    Example:
        >>> r = ein.run("// doc\\nResult = vec([0, 1, 1], 3)\\n:print Result")
        >>> ein_set(r, 3, "doc")
        [1, 2]
    """
    value = np.asarray(result.value, dtype=float)
    if value.shape != (n,) or not np.isin(value, (0.0, 1.0)).all():
        raise VerificationError(
            f"{category}: the Ein program printed {shorten(value.tolist())}, "
            f"not a 0/1 vector of length {n}"
        )
    return [i for i in range(n) if value[i] == 1]


def not_node(n: int, x: int) -> str:
    """Ein expression for the 0/1 vector that is 1 everywhere except at node ``x``.

    Example:
        >>> not_node(4, 2)
        '(ones(4) - select(eye(4), 2, 0))'
    """
    return f"(ones({n}) - select(eye({n}), {x}, 0))"


def python_graph(graph: Graph, name: str = "G") -> str:
    """Python lines building ``graph`` as a networkx graph called ``name``.

    Example:
        >>> print(python_graph(Graph(2, ((0, 1),))))
        G = nx.DiGraph()
        G.add_nodes_from(range(2))
        G.add_edges_from([(0, 1)])
    """
    kind = "nx.DiGraph()" if graph.directed else "nx.Graph()"
    edges = ", ".join(f"({u}, {v})" for u, v in graph.edges)
    return (
        f"{name} = {kind}\n{name}.add_nodes_from(range({graph.n}))\n"
        f"{name}.add_edges_from([{edges}])"
    )


def _excerpt(program: str) -> str:
    """A program quoted on one line of an error message (newlines shown as ``⏎``, shortened).

    Example:
        >>> _excerpt("A = 1\\n:print A\\n")
        'A = 1 ⏎ :print A'
    """
    return shorten(" ⏎ ".join(line for line in program.strip().splitlines()))


def _first_line(exc: BaseException) -> str:
    """The first line of an error's message (Ein errors add a source excerpt and a caret)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def run_python(program: str) -> Any:
    """Execute a generated Python program and parse the JSON value it prints last.

    Only the project's own generated programs run here (model-written code goes
    through the sandbox); the program gets a fresh namespace.

    Raises:
        VerificationError: if the program fails or prints no JSON.
    """
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(program, "<python-program>", "exec"), {"__name__": "__main__"})
    except Exception as exc:
        raise VerificationError(
            f"the Python program failed: {type(exc).__name__}: {shorten(exc)}; "
            f"program: {_excerpt(program)}"
        ) from None
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    if not lines:
        raise VerificationError(f"the Python program printed nothing; program: {_excerpt(program)}")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as exc:
        raise VerificationError(
            f"the Python program printed {shorten(repr(lines[-1]))}, not JSON ({exc}); "
            f"program: {_excerpt(program)}"
        ) from None


class ClosureTask(ABC):
    """One ClosureBench category: every fact about it lives on its class.

    Class attributes describe the category; subclasses implement the graph-core
    solver, the two programs and the reference agent's plan (:meth:`plan`), and, where
    the shared draw does not fit, sampling (:meth:`sample`) and reading Ein's output.
    The surface (:mod:`closurebench.surface.closure`) renders and reads questions from
    these attributes alone, the generator writes ``result_type`` and ``ambiguity`` into
    every record, where lenient scoring reads them, and the reference agent
    (:mod:`closurebench.evaluate.reference.plans`) runs :meth:`plan`; nothing else keeps
    a per-category table.

    Attributes:
        name: Category name (``docs/categories.md``).
        level: 1 (atomic), 2 (chain) or 3 (composition).
        result_type: The :class:`~closurebench.schema.enums.ResultType` of the answer.
        ambiguity: The lenient-scoring class (:class:`~closurebench.schema.enums.Ambiguity`
            ``COUNT`` or ``SET``), or ``None`` when the question has one reading.
        kinship: True when the graph is a parent→child kinship DAG (kinship frames only).
        directed: False for the undirected (triangle) categories.
        two_graphs: True when the question gives last year's and this year's graph.
        anchor_names: The anchors the question names, e.g. ``("X", "Y")`` or ``("X", "k")``.
        template: The query sentence, filled with the frame's vocabulary (``{nouns}``,
            ``{noun}``, ``{path}``, ``{base}``, ``{sg}``, ``{links}``, ``{self}``, the
            do-question pair ``{does}``/``{inf}`` ("how many {nouns} {does} {X} {inf}":
            "does A pay", or "can A connect to" for a modal verb; never ``does {X}
            {base}``),
            ``{und_base}``, ``{und_links}``, and for kinship frames ``{parent}``,
            ``{parents}``, ``{children}``, ``{grandparent}``, ``{ancestors}``,
            ``{siblings}``, ``{cousins}``, ``{grandchildren}``) and the anchors (``{X}``,
            ``{Y}`` labels, ``{k}`` and ``{k_nouns}``, the noun in the number ``k`` asks
            for). It states the category's conventions in words.
        implicit_template: For the ambiguous categories (``ambiguity`` set), the same
            query with its source-inclusion statement dropped ("How many {nouns} can {X}
            reach {path}?"): the paper's wording, which leaves that convention implicit
            (its Limitation 5). Generated with ``conventions="implicit"``; the
            reference and alternative answers do not change. ``None`` for a category
            whose question has one reading (its ``template`` is used either way).
        conventions: Phrases of the filled template that state those conventions.
        compound_keys: For compound answers: key -> result type, in the order the
            answer form names them.
        min_n: The smallest graph on which the category can be well posed.
    """

    name: ClassVar[str]
    level: ClassVar[int]
    result_type: ClassVar[ResultType]
    ambiguity: ClassVar[Ambiguity | None] = None
    kinship: ClassVar[bool] = False
    directed: ClassVar[bool] = True
    two_graphs: ClassVar[bool] = False
    anchor_names: ClassVar[tuple[str, ...]] = ()
    template: ClassVar[str]
    implicit_template: ClassVar[str | None] = None
    conventions: ClassVar[tuple[str, ...]] = ()
    compound_keys: ClassVar[Mapping[str, ResultType] | None] = None
    min_n: ClassVar[int] = 4

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        """Draw a structure; raise :class:`~closurebench.errors.Resample` if ill-posed.

        The default is the draw most categories share: a
        :func:`~closurebench.tasks.closure.sampling.reach_digraph` graph, then the
        anchors (:attr:`anchor_names`, in that order) as distinct nodes drawn uniformly.
        A category whose question is not well posed on every such draw, or whose
        anchors include a number (``k``), overrides it.

        Raises:
            ConfigError: if :attr:`anchor_names` includes ``k`` (the default draws nodes).

        Example:
            >>> from closurebench.seeding import rng
            >>> from closurebench.tasks.closure import CLOSURE_TASKS
            >>> s = CLOSURE_TASKS["path_and_compare"].sample(rng(0, "doc"), 5, 0.4)
            >>> [k for k, _ in s.anchors], s.anchor("X") != s.anchor("Y")
            (['X', 'Y'], True)
        """
        if "k" in self.anchor_names:
            raise ConfigError(
                f"{self.name}: the default sample draws node anchors only; a category with "
                "the threshold k overrides ClosureTask.sample"
            )
        graph = reach_digraph(g, n, density)
        nodes = distinct_nodes(g, n, len(self.anchor_names))
        return ClosureStructure(self.name, graph, tuple(zip(self.anchor_names, nodes, strict=True)))

    @abstractmethod
    def solve(self, s: ClosureStructure) -> Answer:
        """The answer in node ids, through the graph core (raw; :func:`verify` normalises)."""

    @abstractmethod
    def ein_program(self, s: ClosureStructure) -> str:
        """Ein source computing the answer; starts with ``// <category>``."""

    def ein_answer(self, result: ein.EinResult, s: ClosureStructure) -> Answer:
        """Read the answer (raw, in ids) from the Ein program's result.

        The default reads one printed scalar (booleans print as 0/1, counts and means as
        numbers); set and compound categories override it.
        """
        return float(result.value)

    @abstractmethod
    def python_program(self, s: ClosureStructure) -> str:
        """Python + NetworkX source printing the answer (ids) as one JSON value."""

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """The reference agent's next step on a question of this category (``--model reader``).

        Stateless: given what the agent read and the results of the calls it made so far,
        the next graph-tool call or the final answer in labels
        (:mod:`closurebench.tasks.closure.plan`). Every graph fact must come from a tool
        call; the plan only combines the results (set operations, counts, means, a
        branch). The last call is on the question's first graph, so the structure
        metrics judge the graph the agent read. Each category defines its plan here, and
        :mod:`closurebench.evaluate.reference.plans` runs it for every category: a fourth
        route to the reference answer.

        Args:
            q: The question as the agent read it (structure, labels).
            r: The result of each call made so far (``r[i]`` answers the ``i``-th call).

        Returns:
            The next :class:`~closurebench.tasks.closure.plan.Step`.

        Raises:
            ConfigError: for a category that defines no plan (the reader agent cannot
                answer it).

        Example:
            >>> from closurebench.tasks.closure import CLOSURE_TASKS
            >>> from closurebench.graphs import Graph
            >>> s = ClosureStructure("reach_then_count", Graph(3, ((0, 1),)), (("X", 0),))
            >>> CLOSURE_TASKS["reach_then_count"].plan(Reading(s, ("a", "b", "c")), []).call
            Call(problem_type='descendants', params={'node': 'a'}, second=False)
        """
        raise ConfigError(
            f"{self.name}: the category defines no reference plan (ClosureTask.plan), so "
            "the reader agent cannot answer it"
        )

    def question_template(self, conventions: str = "explicit") -> str:
        """The query template under a wording of :data:`WORDINGS`.

        ``explicit`` is :attr:`template`; ``implicit`` is :attr:`implicit_template` for
        an ambiguous category, else :attr:`template` (nothing is left to drop).

        Raises:
            ConfigError: for a wording other than :data:`WORDINGS`.

        Example:
            >>> from closurebench.tasks.closure import CLOSURE_TASKS
            >>> CLOSURE_TASKS["reach_then_count"].question_template("implicit")
            'How many {nouns} can {X} reach {path}?'
            >>> CLOSURE_TASKS["reachability"].question_template("implicit") == (
            ...     CLOSURE_TASKS["reachability"].template)
            True
        """
        check_wording(conventions)
        if conventions == "implicit" and self.implicit_template is not None:
            return self.implicit_template
        return self.template

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        """The answer under the other source-inclusion convention (ambiguous categories)."""
        return None

    def balance_key(self, answer: Answer) -> bool | None:
        """The boolean a split balances ~50/50 (boolean categories), else ``None``."""
        return bool(answer) if self.result_type is ResultType.BOOLEAN else None

    def balanced(self) -> bool:
        """True when a split balances :meth:`balance_key` (boolean or overriding it)."""
        return (
            self.result_type is ResultType.BOOLEAN
            or type(self).balance_key is not ClosureTask.balance_key
        )

    def norm(self, value: Any) -> Answer:
        """Normalise a raw answer to this category's canonical type."""
        return normalize(self.result_type, value, self.compound_keys)


class SetTask(ClosureTask):
    """A category whose answer is a set of nodes, printed by Ein as a 0/1 vector."""

    result_type: ClassVar[ResultType] = ResultType.SET

    def ein_answer(self, result: ein.EinResult, s: ClosureStructure) -> Answer:
        """The nodes whose entry of the printed vector is 1 (see :func:`ein_set`)."""
        return ein_set(result, s.n, self.name)


class AnchorExcludedSetTask(SetTask):
    """A set that leaves out its anchor ``X``; the other convention counts ``X`` in.

    The alternative-answer rule of the set-ambiguous kinship and reachability categories
    (``ancestor``, ``sibling``, ``cousin``, ``negative_reach``).

    Example:
        >>> from closurebench.graphs import Graph
        >>> class Demo(AnchorExcludedSetTask):
        ...     name = "demo"
        >>> s = ClosureStructure("demo", Graph(3, ((0, 1),)), (("X", 2),))
        >>> Demo.alternative(Demo, s, [0, 1])
        [0, 1, 2]
    """

    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.SET

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        """The answer with ``X`` added."""
        return sorted({*answer, s.anchor("X")})


@dataclass(frozen=True)
class Verified:
    """A structure whose answer three independent routes agree on.

    Attributes:
        structure: The sampled structure.
        answer: The normalised answer in node ids.
        alt_answer: The answer under the other source convention, or ``None``.
        programs: ``{"ein": str, "python": str}``.
        attempts: How many draws it took (1 = the first draw was well posed).
    """

    structure: ClosureStructure
    answer: Answer
    alt_answer: Answer | None
    programs: dict[str, str]
    attempts: int = 1


def verify(task: ClosureTask, s: ClosureStructure, *, attempts: int = 1) -> Verified:
    """Compute the answer by the solver, the Ein program and the Python program.

    Raises:
        VerificationError: if any two routes disagree (naming the category, the
            structure and every route's answer).
    """
    return _confirm(task, s, _solve(task, s), attempts)


#: Optional per-stage timing sink (stage -> seconds, accumulated) for benchmarks;
#: set it with ``TIMINGS.set(d)`` (see ``benchmarks/bench_closure_generate.py``).
TIMINGS: ContextVar[dict[str, float] | None] = ContextVar("closure_timings", default=None)


def _add(timings: dict[str, float] | None, stage: str, t0: float) -> float:
    t1 = time.perf_counter()
    if timings is not None:
        timings[stage] = timings.get(stage, 0.0) + (t1 - t0)
    return t1


def _solve(task: ClosureTask, s: ClosureStructure) -> Answer:
    """Route 1: the graph-core answer, normalised."""
    t0 = time.perf_counter()
    answer = task.norm(task.solve(s))
    _add(TIMINGS.get(), "solve", t0)
    return answer


def _confirm(task: ClosureTask, s: ClosureStructure, solver: Answer, attempts: int) -> Verified:
    """Routes 2 and 3 (Ein, Python) checked against the solver's answer ``solver``."""
    timings = TIMINGS.get()
    t0 = time.perf_counter()
    ein_src = task.ein_program(s)
    try:
        ein_result = ein.run(ein_src)
    except ein.EinError as exc:
        raise VerificationError(
            f"{task.name}: the Ein program failed: {shorten(_first_line(exc))}; "
            f"program: {_excerpt(ein_src)}"
        ) from None
    by_ein = task.norm(task.ein_answer(ein_result, s))
    t0 = _add(timings, "ein", t0)
    py_src = task.python_program(s)
    by_python = task.norm(run_python(py_src))
    _add(timings, "python", t0)
    if not (
        answers_equal(task.result_type, solver, by_ein)
        and answers_equal(task.result_type, solver, by_python)
    ):
        raise VerificationError(
            f"{task.name}: routes disagree on {shorten(s.to_dict())}: "
            f"solver={shorten(repr(solver))}, ein={shorten(repr(by_ein))}, "
            f"python={shorten(repr(by_python))}"
        )
    alt = task.alternative(s, solver)
    return Verified(
        structure=s,
        answer=solver,
        alt_answer=task.norm(alt) if alt is not None else None,
        programs={"ein": ein_src, "python": py_src},
        attempts=attempts,
    )


def sample_verified(
    task: ClosureTask,
    master: int,
    parts: Sequence[SeedPart],
    *,
    n: int,
    density: float,
    want: bool | None = None,
    max_attempts: int = 500,
    accept: Callable[[Verified], bool] | None = None,
) -> Verified:
    """Draw until a well-posed instance verifies (bounded), from seeds derived from ``parts``.

    The solver's answer is checked against ``want`` first; the Ein and Python routes run
    only for a draw that passes (so the returned instance is always verified three ways,
    and a draw rejected for balance costs one solver call).

    Args:
        task: The category.
        master: Master seed.
        parts: Seed path naming this instance (attempt numbers are appended).
        n: Number of nodes (>= 4).
        density: Edge probability ρ.
        want: For balanced categories, the value :meth:`ClosureTask.balance_key` must take.
        max_attempts: Draws before giving up.
        accept: Extra acceptance test (e.g. "no duplicate question"); rejected draws retry.

    Raises:
        SamplingError: after ``max_attempts`` draws, naming the category and parameters.
        VerificationError: when routes disagree (a bug; never retried).
    """
    for attempt in range(max_attempts):
        timings = TIMINGS.get()
        t0 = time.perf_counter()
        g = rng(master, *parts, "attempt", attempt)
        try:
            s = task.sample(g, n, density)
        except Resample:
            _add(timings, "sample", t0)
            continue
        _add(timings, "sample", t0)
        # The cheap solver answer decides the balance first; the Ein and Python routes
        # run only for draws that can be kept (every kept draw is checked all three ways).
        solver = _solve(task, s)
        if want is not None and task.balance_key(solver) not in (None, want):
            continue
        v = _confirm(task, s, solver, attempt + 1)
        if accept is not None and not accept(v):
            continue
        return v
    raise SamplingError(
        f"{task.name}: no well-posed instance in {max_attempts} draws "
        f"(n={n}, density={density:.3f}, want={want}); try a larger n or another density"
    )
