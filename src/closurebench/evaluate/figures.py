"""The mode figures of a run, computed once: for ``summary.json`` and for the report.

A program-mode result (``program-ein``, ``program-python``) carries in ``extra`` its
execution outcome (``exec_outcome``), the sandbox seconds (``exec_seconds``) and, when it
is wrong, the §4.5 class (``error_class``); an agent-mode result (``agent``,
``agent-tools``) carries ``structure`` (the score of the last graph it submitted, null
without a tool call), ``rounds``, ``tool_calls`` and ``agent_outcome``. The functions
here add those up into the typed figures of :mod:`closurebench.schema.summary`:

* :func:`program_figures` — execution rate, the classes of the wrong answers, the
  execution failures (:class:`~closurebench.schema.summary.ProgramFigures`);
* :func:`structure_figures` — structure recovery and the Table 19 classes
  (:class:`~closurebench.schema.summary.StructureFigures`);
* :func:`agent_figures` — rounds and tool calls per episode, the structure, how the
  episodes ended (:class:`~closurebench.schema.summary.AgentFigures`);
* :func:`summary_figures` — both, per suite, for ``summary.json``
  (:func:`~closurebench.evaluate.records.summarize` streams the results through
  :func:`figure_view` to keep only what these read).

Every function takes answered results (a result with outcome ``error`` is not a model
response; callers leave it out) as typed :class:`~closurebench.schema.ResultRecord`
objects: the records the results file holds, or the report's
(:class:`~closurebench.report.run.LoadedResult` is one).

Example:
    >>> def program(outcome, **extra):
    ...     return ResultRecord(id=outcome, outcome=outcome, mode="program-python",
    ...                         suite="grit", extra=extra)
    >>> recs = [program("strict_correct", exec_outcome="ok", exec_seconds=0.5),
    ...         program("no_answer", exec_outcome="timeout", error_class="execution")]
    >>> figs = summary_figures(recs)
    >>> figs.closure is None, figs.grit.agent is None
    (True, True)
    >>> p = figs.grit.program
    >>> p.exec_rate, p.wrong, p.classes["execution"], p.failures
    (50.0, 1, 1, {'timeout': 1})
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from closurebench.errors import ClosureBenchError
from closurebench.schema.results import ResultRecord
from closurebench.schema.summary import (
    PROGRAM_ERROR_CLASSES,
    AgentFigures,
    ProgramErrorClass,
    ProgramFigures,
    StructureFigures,
    SuiteFigures,
    SummaryFigures,
)
from closurebench.scoring.structure import StructureScore, aggregate_structure

__all__ = [
    "AGENT_EXTRA_KEYS",
    "AGENT_OUTCOME_ORDER",
    "CUT_OUTCOMES",
    "FIGURE_EXTRA_KEYS",
    "UNKNOWN_OUTCOME",
    "FiguresError",
    "agent_figures",
    "agent_outcome",
    "extra_numbers",
    "figure_view",
    "harness_gave_up",
    "is_agent_result",
    "is_lenient",
    "is_program_result",
    "is_strict",
    "outcome_sort_key",
    "program_figures",
    "result_suite",
    "structure_figures",
    "suite_figures",
    "summary_figures",
]

#: The ``extra`` keys that mark an agent-mode result.
AGENT_EXTRA_KEYS: tuple[str, ...] = ("structure", "tool_calls", "agent_outcome")

#: Known episode ends, in table order (others follow alphabetically).
AGENT_OUTCOME_ORDER: tuple[str, ...] = (
    "answered",
    "no_answer",
    "max_rounds",
    "truncated",
    "token_limit",
    "invalid_call",
)

#: Episode ends that a token limit cut (a call cut mid-reply, or the episode budget spent).
CUT_OUTCOMES: frozenset[str] = frozenset({"truncated", "token_limit"})

#: The episode end of a result that does not record one.
UNKNOWN_OUTCOME = "unknown"

#: The ``extra`` keys the figures read (:func:`figure_view` keeps only these).
FIGURE_EXTRA_KEYS: tuple[str, ...] = (
    "exec_outcome",
    "exec_seconds",
    "error_class",
    "structure",
    "rounds",
    "tool_calls",
    "agent_outcome",
)


class FiguresError(ClosureBenchError, ValueError):
    """A result's mode details cannot be read (the message names the result)."""


def is_strict(rec: ResultRecord) -> bool:
    """Whether a result is correct under strict scoring (its ``strict``, set by the scorer).

    Example:
        >>> is_strict(ResultRecord(id="a", outcome="strict_correct", strict=True, mode="d"))
        True
    """
    return rec.strict


def is_lenient(rec: ResultRecord) -> bool:
    """Whether a result is correct under lenient scoring (the reported accuracy).

    Example:
        >>> is_lenient(ResultRecord(id="a", outcome="lenient_only", lenient=True, mode="d"))
        True
    """
    return rec.lenient


def harness_gave_up(rec: ResultRecord) -> bool:
    """Whether a result was given up on because the harness died handling its reply.

    Example:
        >>> deaths = {"count": 2, "gave_up": True}
        >>> harness_gave_up(ResultRecord(id="a", outcome="wrong", mode="d", harness_deaths=deaths))
        True
        >>> harness_gave_up(ResultRecord(id="a", outcome="wrong", mode="d"))
        False
    """
    return rec.harness_deaths is not None and rec.harness_deaths.gave_up


def result_suite(rec: ResultRecord) -> str | None:
    """The suite of a result: its ``suite``, else inferred from its fields (old files).

    A result without ``suite`` is ClosureBench when it carries ``level``, GRIT when it
    carries ``naming`` or ``form``; None otherwise.

    Example:
        >>> def rec(**meta): return ResultRecord(id="a", outcome="wrong", mode="d", **meta)
        >>> result_suite(rec(suite="grit")), result_suite(rec(level=2)), result_suite(rec())
        ('grit', 'closure', None)
    """
    if rec.suite:
        return rec.suite
    if rec.level is not None:
        return "closure"
    if rec.naming or rec.form:
        return "grit"
    return None


def is_agent_result(rec: ResultRecord) -> bool:
    """Whether a result comes from an agent mode (``extra`` has an agent key).

    Example:
        >>> def rec(**extra): return ResultRecord(id="a", outcome="wrong", mode="d", extra=extra)
        >>> is_agent_result(rec(structure=None)), is_agent_result(rec())
        (True, False)
    """
    return any(k in rec.extra for k in AGENT_EXTRA_KEYS)


def is_program_result(rec: ResultRecord) -> bool:
    """Whether a result counts as a program-mode response (:func:`program_figures`).

    It does when its ``extra`` has an execution outcome, or when a program mode gave it
    up because the harness died running its program (:func:`harness_gave_up`).

    Example:
        >>> is_program_result(ResultRecord(id="a", outcome="wrong", mode="program-ein",
        ...                                extra={"exec_outcome": "ok"}))
        True
        >>> dead = {"count": 2, "gave_up": True}
        >>> def rec(mode): return ResultRecord(id="a", outcome="wrong", mode=mode,
        ...                                    harness_deaths=dead)
        >>> is_program_result(rec("program-ein")), is_program_result(rec("direct"))
        (True, False)
    """
    if harness_gave_up(rec) and rec.mode.startswith("program"):
        return True
    return rec.extra.get("exec_outcome") is not None


def figure_view(rec: ResultRecord) -> ResultRecord | None:
    """What the figures read of a result, or None when it is neither program nor agent.

    The result without its texts and with only :data:`FIGURE_EXTRA_KEYS` in ``extra``,
    so a long run's summary holds small records (no trajectories, no programs).

    Example:
        >>> rec = ResultRecord(id="a", outcome="wrong", mode="program-ein", response="…",
        ...                    extra={"exec_outcome": "ok", "program": "…"})
        >>> view = figure_view(rec)
        >>> view.extra, view.response
        ({'exec_outcome': 'ok'}, '')
        >>> figure_view(ResultRecord(id="a", outcome="wrong", mode="direct")) is None
        True
    """
    if not (is_program_result(rec) or is_agent_result(rec)):
        return None
    extra = {k: rec.extra[k] for k in FIGURE_EXTRA_KEYS if k in rec.extra}
    return rec.model_copy(update={"response": "", "reasoning": None, "extra": extra})


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


def extra_numbers(records: Iterable[ResultRecord], key: str) -> list[float]:
    """The numeric values of ``extra[key]`` over the results that record one.

    Example:
        >>> def rec(**extra): return ResultRecord(id="a", outcome="wrong", mode="d", extra=extra)
        >>> extra_numbers([rec(rounds=2), rec(rounds=True), rec()], "rounds")
        [2.0]
    """
    out = []
    for rec in records:
        value = rec.extra.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out.append(float(value))
    return out


def _mean(xs: Sequence[float]) -> float | None:
    return math.fsum(xs) / len(xs) if xs else None


def program_figures(records: Iterable[ResultRecord]) -> ProgramFigures:
    """Execution rate, §4.5 error classes and execution failures of program-mode results.

    Results that are no program-mode response (:func:`is_program_result`) are not
    counted. One given up because the harness died running its program is a failed
    execution, ``harness_died``, of class ``execution``.

    Example:
        >>> def rec(outcome, **extra):
        ...     return ResultRecord(id="a", outcome=outcome, lenient=outcome == "strict_correct",
        ...                         mode="program-python", extra=extra)
        >>> recs = [rec("strict_correct", exec_outcome="ok"),
        ...         rec("wrong", exec_outcome="ok", error_class="graph_reading", exec_seconds=0.2),
        ...         rec("no_answer", exec_outcome="timeout", error_class="execution")]
        >>> st = program_figures(recs)
        >>> st.executed, st.wrong, st.classes["graph_reading"], st.failures, st.exec_seconds_mean
        (2, 2, 1, {'timeout': 1}, 0.2)
    """
    classes: dict[ProgramErrorClass, int] = dict.fromkeys(PROGRAM_ERROR_CLASSES, 0)
    failures: dict[str, int] = {}
    seconds: list[float] = []
    responses = executed = wrong = 0
    for rec in records:
        if not is_program_result(rec):
            continue
        responses += 1
        if harness_gave_up(rec) and rec.mode.startswith("program"):
            x: Mapping[str, Any] = {"exec_outcome": "harness_died", "error_class": "execution"}
        else:
            x = rec.extra
        outcome = str(x["exec_outcome"])
        if outcome == "ok":
            executed += 1
            exec_seconds = x.get("exec_seconds")
            if isinstance(exec_seconds, int | float):
                seconds.append(float(exec_seconds))
        else:
            failures[outcome] = failures.get(outcome, 0) + 1
        if not is_lenient(rec):
            wrong += 1
            cls = x.get("error_class")
            if cls in classes:
                classes[cls] += 1
    return ProgramFigures(
        responses=responses,
        executed=executed,
        exec_rate=100.0 * executed / responses if responses else None,
        wrong=wrong,
        classes=classes,
        failures=dict(sorted(failures.items())),
        exec_seconds_mean=_mean(seconds),
    )


def _score(rec: ResultRecord) -> StructureScore | None:
    data = rec.extra.get("structure")
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise FiguresError(f"result {rec.id!r}: extra.structure is not an object")
    try:
        return StructureScore.from_json(data)
    except ValueError as exc:
        raise FiguresError(f"result {rec.id!r}: {exc}") from None


def structure_figures(records: Sequence[ResultRecord]) -> StructureFigures:
    """Structure recovery of agent results (GRAIN Tables 6 and 19).

    The means and class shares of
    :func:`~closurebench.scoring.structure.aggregate_structure`. A result whose
    ``extra.structure`` is null (no tool call) counts under ``no_call`` and as 0 in
    every mean.

    Raises:
        FiguresError: a result's ``extra.structure`` is not a structure score.

    Example:
        >>> s = {"node_f1": 1.0, "edge_f1": 0.5, "exact": False, "s_inv": 0.5,
        ...      "cls": "missing_edges"}
        >>> def rec(structure):
        ...     return ResultRecord(id="a", outcome="wrong", mode="agent",
        ...                         extra={"structure": structure})
        >>> agg = structure_figures([rec(s), rec(None)])
        >>> agg.n, agg.edge_f1, agg.parsed, agg.shares["missing_edges"], agg.counts["no_call"]
        (2, 0.25, 1, 50.0, 1)
    """
    scores = [_score(r) for r in records]
    got = [s for s in scores if s is not None]
    agg = aggregate_structure(got, no_call=len(scores) - len(got))
    return StructureFigures(
        n=agg["n"],
        node_f1=_finite(agg["node_f1"]),
        edge_f1=_finite(agg["edge_f1"]),
        s_inv=_finite(agg["s_inv"]),
        s_inv_casefold=_finite(agg["s_inv_casefold"]),
        exact_rate=_finite(agg["exact_rate"]),
        parsed=sum(1 for s in got if s.cls != "parse_failure"),
        counts=agg["counts"],
        shares={k: _finite(v) for k, v in agg["shares"].items()},
    )


def agent_outcome(rec: ResultRecord) -> str:
    """How an agent episode ended (``extra.agent_outcome``; :data:`UNKNOWN_OUTCOME` if unsaid).

    Example:
        >>> def rec(**extra): return ResultRecord(id="a", outcome="wrong", mode="d", extra=extra)
        >>> agent_outcome(rec(agent_outcome="max_rounds")), agent_outcome(rec())
        ('max_rounds', 'unknown')
    """
    value = rec.extra.get("agent_outcome")
    return str(value) if value not in (None, "") else UNKNOWN_OUTCOME


def outcome_sort_key(value: str) -> tuple[int, str]:
    """Sort key of episode ends: :data:`AGENT_OUTCOME_ORDER` first, others alphabetically.

    Example:
        >>> sorted(["zeta", "max_rounds", "answered", "budget"], key=outcome_sort_key)
        ['answered', 'max_rounds', 'budget', 'zeta']
    """
    if value in AGENT_OUTCOME_ORDER:
        return (AGENT_OUTCOME_ORDER.index(value), "")
    return (len(AGENT_OUTCOME_ORDER), value)


def agent_figures(records: Sequence[ResultRecord]) -> AgentFigures:
    """Rounds and tool calls per episode, structure recovery and episode ends of agent results.

    Args:
        records: Agent-mode results (:func:`is_agent_result`).

    Raises:
        FiguresError: a result's ``extra.structure`` is not a structure score.

    Example:
        >>> def rec(rounds, calls, end):
        ...     return ResultRecord(id="a", outcome="wrong", mode="agent", extra={
        ...         "structure": None, "rounds": rounds, "tool_calls": calls, "agent_outcome": end})
        >>> recs = [rec(1, 0, "answered"), rec(3, 2, "token_limit")]
        >>> a = agent_figures(recs)
        >>> a.rounds_mean, a.tool_calls_mean, a.outcomes, a.cut
        (2.0, 1.0, {'answered': 1, 'token_limit': 1}, 1)
    """
    ends: dict[str, int] = {}
    for rec in records:
        end = agent_outcome(rec)
        ends[end] = ends.get(end, 0) + 1
    return AgentFigures(
        episodes=len(records),
        rounds_mean=_mean(extra_numbers(records, "rounds")),
        tool_calls_mean=_mean(extra_numbers(records, "tool_calls")),
        structure=structure_figures(records),
        outcomes={k: ends[k] for k in sorted(ends, key=outcome_sort_key)},
        cut=sum(v for k, v in ends.items() if k in CUT_OUTCOMES),
    )


def suite_figures(records: Sequence[ResultRecord]) -> SuiteFigures | None:
    """The program and agent figures of one suite's results; None when there are neither.

    Raises:
        FiguresError: an agent result's ``extra.structure`` is not a structure score.

    Example:
        >>> suite_figures([ResultRecord(id="a", outcome="wrong", mode="direct")]) is None
        True
    """
    program = program_figures(records)
    agents = [r for r in records if is_agent_result(r)]
    if not program.responses and not agents:
        return None
    return SuiteFigures(
        program=program if program.responses else None,
        agent=agent_figures(agents) if agents else None,
    )


def summary_figures(records: Iterable[ResultRecord]) -> SummaryFigures:
    """The mode figures of answered results, per suite (``summary.json``'s ``figures``).

    Results without a suite (:func:`result_suite`) are not counted.

    Raises:
        FiguresError: an agent result's ``extra.structure`` is not a structure score.

    Example:
        >>> summary_figures([ResultRecord(id="a", outcome="wrong", mode="d", suite="closure")])
        SummaryFigures(closure=None, grit=None)
    """
    by: dict[str, list[ResultRecord]] = {"closure": [], "grit": []}
    for rec in records:
        suite = result_suite(rec)
        if suite in by:
            by[suite].append(rec)
    return SummaryFigures(closure=suite_figures(by["closure"]), grit=suite_figures(by["grit"]))
