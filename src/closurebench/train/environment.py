"""The graph-tool environment of agentic RL: fresh naming views, real tool calls (TRL).

GRAIN §4.3 trains in an *isomorphism-based perturbation environment*: every episode asks
about a training graph under a naming scheme and query style drawn afresh, so the policy
is rewarded for recovering the structure rather than for remembering names. Here that is
an environment class for TRL's ``GRPOTrainer(environment_factory=...)``:

* its public methods are the graph tool's typed functions
  (:data:`closurebench.tools.FUNCTIONS`: ``shortest_path``, ``tsp``, ...; each keeps the
  function's typed signature and Google-style docstring, so TRL builds the same tool
  schema ``transformers.utils.get_json_schema`` gives for the function) plus
  ``graph_tool``, the one function of the ``agent-tools`` evaluation mode (the call of
  paper Table 12: ``problem_type``, ``graph``, ``parameters``). Each returns the graph
  tool's answer as text, exactly what the ``agent-tools`` mode sends back in its ``tool``
  turn (cut at :data:`~closurebench.evaluate.modes.agent.MAX_RESULT_CHARS`), and records
  the call in :attr:`GraphToolEnvironment.calls`;
* ``reset(**row)`` (TRL calls it with the dataset row before each rollout) reads the
  row's ``ground_truth`` and draws a fresh *view* of the same structure
  (:func:`perturb_view`): a GRIT record is re-rendered by the GRIT renderer
  (:func:`closurebench.surface.grit.render` in the row's scenario, with a form and naming
  scheme drawn uniformly from the 2 x 4 of the paper and a new surface seed, then
  certified by the reader, :func:`closurebench.surface.grit.certify`, and its answer
  re-derived for the view as the generator derives it); a ClosureBench record is
  re-worded by :func:`closurebench.generate.reword.reword_record` (new labels, frame,
  style and edge order; answer checked by the three routes). ``reset`` returns the new
  view's question, which TRL appends to the row's last (empty) user turn, and keeps the
  view as :attr:`GraphToolEnvironment.record` / :attr:`GraphToolEnvironment.ground_truth`:
  the reward scores the episode against *this* view's names (see
  :class:`closurebench.train.grpo.TrainingReward`, which reads it through the
  ``environments`` TRL passes to reward functions).

Views are shared within a GRPO group: TRL resets one environment per completion, the
``num_generations`` completions of a prompt consecutively; the shared
:class:`ViewSchedule` gives the ``k``-th block of ``group_size`` resets of a row the same
view ``derive_seed(seed, "grpo-view", id, k)`` — the group's completions answer the same
question (GRPO's baseline compares like with like; ARPO's branches share a prefix), and
each new visit of the row draws a new view. The draws are deterministic in the seed and
the order of resets (a resumed run starts the count again).

Example:
    >>> from closurebench.generate.grit import GritConfig, generate_records
    >>> rec = generate_records(GritConfig(split="train", seed=0, count=1, n_max=6))[0][0]
    >>> env = environment_factory(seed=1, group_size=2)()
    >>> question = env.reset(ground_truth=canonical_json(rec.to_json()))
    >>> env.record.graph == rec.graph and question == env.record.question
    True
    >>> env.record.seed.surface != rec.seed.surface
    True
"""

from __future__ import annotations

import inspect
import json
import re
import threading
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from closurebench.errors import ConfigError
from closurebench.generate.reword import grit_view
from closurebench.jsonl import canonical_json
from closurebench.schema import ClosureInstance, GritInstance
from closurebench.schema.training import instance_from_ground_truth
from closurebench.seeding import derive_seed

__all__ = [
    "GraphToolEnvironment",
    "ViewSchedule",
    "environment_class",
    "environment_factory",
    "perturb_view",
    "tool_names",
]

AnyInstance = ClosureInstance | GritInstance

_SECTION = re.compile(r"\n\s*(Returns|Example|Examples|Raises):\s*\n")


def perturb_view(record: AnyInstance, seed: int) -> AnyInstance:
    """The same structure and query as ``record`` under a surface drawn from ``seed``.

    GRIT: re-rendered in the record's scenario with a form (standard / realistic) and a
    naming scheme (canonical, random, semantic, mixed) drawn uniformly, names and wording
    from a new surface seed; certified by the reader; answer and solution re-derived for
    the view (names, BFS neighbour order). ClosureBench: re-worded (new labels, frame,
    style, edge order) by :func:`~closurebench.generate.reword.reword_record`.

    Raises:
        VerificationError: the record's answer does not follow from its structure.
        RoundTripError: the reader does not recover the new view (a renderer bug).

    Example:
        >>> from closurebench.generate.closure import ClosureConfig, generate_records
        >>> rec = generate_records(ClosureConfig(count=1, categories=("ancestor",)))[0]
        >>> new = perturb_view(rec, 3)
        >>> new.answer_ids == rec.answer_ids and new.question != rec.question
        True
    """
    if isinstance(record, GritInstance):
        return grit_view(record, seed)
    from closurebench.generate.reword import reword_record

    return reword_record(record, seed)


class ViewSchedule:
    """Which view each reset gets: one per block of ``group_size`` resets of a row.

    Args:
        seed: Master seed of the views.
        group_size: Resets that share a view (TRL's ``num_generations``: one GRPO group).
        perturb: False: every reset gets the row's own view (the paper's "w/o diverse
            naming" ablation, Table 5).

    Example:
        >>> sched = ViewSchedule(seed=0, group_size=2)
        >>> [sched.draw_index("row") for _ in range(5)]
        [0, 0, 1, 1, 2]
    """

    def __init__(self, seed: int, group_size: int, *, perturb: bool = True) -> None:
        if group_size < 1:
            raise ConfigError(f"group_size={group_size} must be at least 1")
        self.seed = int(seed)
        self.group_size = int(group_size)
        self.perturb = perturb
        self._resets: dict[str, int] = {}
        self._views: dict[str, tuple[int, AnyInstance]] = {}
        self._lock = threading.Lock()

    def draw_index(self, key: str) -> int:
        """The view index of the next reset of row ``key`` (counts the reset)."""
        with self._lock:
            count = self._resets.get(key, 0)
            self._resets[key] = count + 1
        return count // self.group_size

    def view(self, record: AnyInstance) -> AnyInstance:
        """The view the next reset of ``record`` gets (cached for its group)."""
        if not self.perturb:
            return record
        k = self.draw_index(record.id)
        with self._lock:
            cached = self._views.get(record.id)
        if cached is not None and cached[0] == k:
            return cached[1]
        new = perturb_view(record, derive_seed(self.seed, "grpo-view", record.id, k))
        with self._lock:
            self._views[record.id] = (k, new)  # the latest view of each row
        return new


def _describe(fn: Callable[..., Any]) -> str:
    """``fn``'s docstring with its Returns / Example sections replaced by the text reply."""
    doc = inspect.getdoc(fn) or fn.__name__
    cut = _SECTION.search("\n" + doc)
    body = doc if cut is None else doc[: max(cut.start() - 1, 0)].rstrip()
    return body + "\n\nReturns:\n    The graph tool's answer as text."


def _tool_method(
    name: str, fn: Callable[..., Any], run: Callable[..., str] | None = None
) -> Callable[..., str]:
    """An environment method with ``fn``'s typed signature and docstring.

    The method binds its arguments to ``fn``'s signature, then calls ``run(self, name,
    arguments)`` (default: run ``fn``'s problem type through the graph tool).
    """
    hints = typing.get_type_hints(fn)
    sig = inspect.signature(fn)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values()
    ]

    def method(self: GraphToolEnvironment, *args: Any, **kwargs: Any) -> str:
        bound = sig.bind(*args, **kwargs)
        if run is not None:
            return run(self, name, dict(bound.arguments))
        return self._run_function(name, fn, dict(bound.arguments))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = _describe(fn)
    method.__module__ = __name__
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[self_param, *params], return_annotation=str
    )
    method.__annotations__ = {**{p.name: p.annotation for p in params}, "return": str}
    return method


def graph_tool(
    problem_type: str, graph: dict[str, Any], parameters: dict[str, Any] | None = None
) -> str:
    """Solve a graph problem exactly: the problem type, the graph as an adjacency list, and the parameters.

    Args:
        problem_type: The problem to solve, e.g. ``shortest_path``, ``tsp``,
            ``graph_coloring``, ``vertex_cover``, ``bfs`` or ``centrality``.
        graph: ``{"type": "adjacency_list", "data": {node: {neighbour: weight}},
            "directed": bool, "weighted": bool}``.
        parameters: The problem's parameters (e.g. ``start`` and ``end`` nodes) and the
            ``algorithm``.

    Returns:
        The graph tool's answer as text.
    """  # noqa: E501
    # The environment's ``graph_tool`` method has this signature: the ``agent-tools``
    # mode's one function (paper Table 12's call). Called alone, it runs the call.
    from closurebench.tools import run_tool

    call = {"problem_type": problem_type, "graph": graph, "parameters": parameters or {}}
    return str(run_tool(call).text)


def _run_graph_tool(env: GraphToolEnvironment, name: str, arguments: dict[str, Any]) -> str:
    del name
    call = {
        "problem_type": arguments["problem_type"],
        "graph": arguments["graph"],
        "parameters": arguments.get("parameters") or {},
    }
    return env._run_call("graph_tool", call)


class GraphToolEnvironment:
    """One rollout's environment: a fresh view of the row's graph and the graph tool.

    Built by :func:`environment_factory` (a subclass of :func:`environment_class` carries
    the tool methods). Public state, read by the reward and the tests:

    Attributes:
        record: The view this rollout asks about (None before the first reset).
        ground_truth: ``record`` as canonical JSON (the reward's ``ground_truth``).
        source_id: The id of the row the view was drawn from.
        calls: The tool calls of this rollout: ``{"name", "arguments", "kind", "ok"}``.
    """

    #: Shared by the instances of one factory (set by :func:`environment_factory`).
    schedule: ViewSchedule = ViewSchedule(0, 1)
    #: Characters of a tool answer sent back (the ``agent-tools`` mode's limit).
    max_result_chars: int = 8_000

    def __init__(self) -> None:
        self.record: AnyInstance | None = None
        self.ground_truth: str | None = None
        self.source_id: str | None = None
        self.calls: list[dict[str, Any]] = []

    def reset(self, **row: Any) -> str:
        """Start a rollout of ``row``: draw its view and return the view's question.

        Args:
            **row: The dataset row (TRL passes every column); ``ground_truth`` is read.

        Raises:
            ConfigError: a row without ``ground_truth`` (not a ``closurebench export
                grpo`` file).
        """
        truth = row.get("ground_truth")
        if not isinstance(truth, str):
            raise ConfigError(
                "the graph-tool environment needs the ground_truth column; train on a file "
                "written by `closurebench export grpo`"
            )
        source = instance_from_ground_truth(truth)
        self.record = type(self).schedule.view(source)
        self.ground_truth = canonical_json(self.record.to_json())
        self.source_id = source.id
        self.calls = []
        return str(self.record.question)

    def _finish(self, name: str, arguments: Mapping[str, Any], result: Any) -> str:
        self.calls.append(
            {
                "name": name,
                "arguments": json.loads(json.dumps(arguments, default=str)),
                "kind": result.kind,
                "ok": result.ok,
            }
        )
        text = str(result.text)
        limit = type(self).max_result_chars
        return text if len(text) <= limit else text[:limit] + "\n[... cut ...]"

    def _run_call(self, name: str, call: Mapping[str, Any]) -> str:
        from closurebench.tools import run_tool

        return self._finish(name, call, run_tool(dict(call)))

    def _run_function(self, name: str, fn: Callable[..., Any], arguments: dict[str, Any]) -> str:
        from closurebench.tools import run_tool

        params = dict(inspect.signature(fn).parameters)
        given = dict(arguments)
        graph = given.pop("graph")
        flags = {k: given.pop(k, params[k].default) for k in ("directed", "weighted")}
        call = {
            "problem_type": name,
            "graph": {"type": "adjacency_list", "data": graph, **flags},
            "parameters": {k: v for k, v in given.items() if v is not None},
        }
        return self._finish(name, arguments, run_tool(call))


def tool_names() -> list[str]:
    """Every tool an environment can offer: ``graph_tool`` and the typed functions.

    Example:
        >>> tool_names()[:3]
        ['graph_tool', 'shortest_path', 'graph_coloring']
    """
    from closurebench.tools import FUNCTIONS

    return ["graph_tool", *FUNCTIONS]


def environment_class(tools: Iterable[str] | None = None) -> type[GraphToolEnvironment]:
    """A :class:`GraphToolEnvironment` subclass whose public methods are ``tools``.

    Args:
        tools: Names from :func:`tool_names` (None: all of them). TRL offers every public
            method as a tool, so a smaller set gives a shorter prompt.

    Raises:
        ConfigError: an unknown tool name.
    """
    from closurebench.tools import FUNCTIONS

    names = tool_names() if tools is None else list(dict.fromkeys(tools))
    unknown = [t for t in names if t not in tool_names()]
    if unknown or not names:
        raise ConfigError(
            f"unknown tools {unknown}; choose from {', '.join(tool_names())}"
            if unknown
            else "the environment needs at least one tool"
        )
    members: dict[str, Any] = {}
    for name in names:
        members[name] = (
            _tool_method(name, graph_tool, _run_graph_tool)
            if name == "graph_tool"
            else _tool_method(name, FUNCTIONS[name])
        )
    members["__doc__"] = GraphToolEnvironment.__doc__
    return type("GraphToolEnv", (GraphToolEnvironment,), members)


def environment_factory(
    seed: int,
    group_size: int,
    *,
    tools: Sequence[str] | None = None,
    perturb: bool = True,
    max_result_chars: int | None = None,
) -> Callable[[], GraphToolEnvironment]:
    """TRL's ``environment_factory``: every call makes one environment of a shared class.

    Args:
        seed: Seed of the views (:class:`ViewSchedule`).
        group_size: Consecutive resets of a row sharing a view (``num_generations``).
        tools: The tools offered (see :func:`environment_class`).
        perturb: Draw fresh views (False: the row's own view every time).
        max_result_chars: Characters of a tool answer sent back (default: the
            ``agent-tools`` mode's).
    """
    from closurebench.evaluate.modes.agent import MAX_RESULT_CHARS

    cls = environment_class(tools)
    cls.schedule = ViewSchedule(seed, group_size, perturb=perturb)
    cls.max_result_chars = MAX_RESULT_CHARS if max_result_chars is None else max_result_chars
    return cls
