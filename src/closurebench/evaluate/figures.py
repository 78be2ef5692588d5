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
response; callers leave it out) as JSON objects, in the form the results file holds or
the report loads.

Example:
    >>> recs = [{"suite": "grit", "outcome": "strict_correct", "mode": "program-python",
    ...          "extra": {"exec_outcome": "ok", "exec_seconds": 0.5}},
    ...         {"suite": "grit", "outcome": "no_answer", "mode": "program-python",
    ...          "extra": {"exec_outcome": "timeout", "error_class": "execution"}}]
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
from closurebench.schema.enums import Outcome
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

#: The top-level result fields the figures read.
_FIGURE_FIELDS: tuple[str, ...] = (
    "id",
    "outcome",
    "strict",
    "lenient",
    "mode",
    "harness_deaths",
    "suite",
    "level",
    "naming",
    "form",
)

_LENIENT_OUTCOMES = (Outcome.STRICT_CORRECT, Outcome.LENIENT_ONLY)


class FiguresError(ClosureBenchError, ValueError):
    """A result's mode details cannot be read (the message names the result)."""


def is_strict(rec: Mapping[str, Any]) -> bool:
    """Whether a result is correct under strict scoring.

    Example:
        >>> is_strict({"outcome": "strict_correct"}), is_strict({"outcome": "lenient_only"})
        (True, False)
    """
    if rec.get("strict") is not None:
        return bool(rec["strict"])
    return rec.get("outcome") == Outcome.STRICT_CORRECT


def is_lenient(rec: Mapping[str, Any]) -> bool:
    """Whether a result is correct under lenient scoring (the reported accuracy).

    Example:
        >>> is_lenient({"outcome": "lenient_only"}), is_lenient({"outcome": "wrong"})
        (True, False)
    """
    if rec.get("lenient") is not None:
        return bool(rec["lenient"])
    return rec.get("outcome") in _LENIENT_OUTCOMES


def harness_gave_up(rec: Mapping[str, Any]) -> bool:
    """Whether a result was given up on because the harness died handling its reply.

    Example:
        >>> harness_gave_up({"outcome": "wrong", "harness_deaths": {"count": 2, "gave_up": True}})
        True
        >>> harness_gave_up({"outcome": "wrong", "harness_deaths": None})
        False
    """
    deaths = rec.get("harness_deaths")
    return isinstance(deaths, Mapping) and bool(deaths.get("gave_up"))


def result_suite(rec: Mapping[str, Any]) -> str | None:
    """The suite of a result: its ``suite``, else inferred from its fields (old files).

    A result without ``suite`` is ClosureBench when it carries ``level``, GRIT when it
    carries ``naming`` or ``form``; None otherwise.

    Example:
        >>> result_suite({"suite": "grit"}), result_suite({"level": 2}), result_suite({})
        ('grit', 'closure', None)
    """
    if rec.get("suite"):
        return str(rec["suite"])
    if rec.get("level") is not None:
        return "closure"
    if rec.get("naming") or rec.get("form"):
        return "grit"
    return None


def _extra(rec: Mapping[str, Any]) -> Mapping[str, Any]:
    extra = rec.get("extra")
    return extra if isinstance(extra, Mapping) else {}


def is_agent_result(rec: Mapping[str, Any]) -> bool:
    """Whether a result comes from an agent mode (``extra`` has an agent key).

    Example:
        >>> is_agent_result({"extra": {"structure": None}}), is_agent_result({"extra": {}})
        (True, False)
    """
    extra = _extra(rec)
    return any(k in extra for k in AGENT_EXTRA_KEYS)


def is_program_result(rec: Mapping[str, Any]) -> bool:
    """Whether a result counts as a program-mode response (:func:`program_figures`).

    It does when its ``extra`` has an execution outcome, or when a program mode gave it
    up because the harness died running its program (:func:`harness_gave_up`).

    Example:
        >>> is_program_result({"extra": {"exec_outcome": "ok"}})
        True
        >>> dead = {"harness_deaths": {"count": 2, "gave_up": True}, "extra": {}}
        >>> is_program_result({**dead, "mode": "program-ein"}), is_program_result(dead)
        (True, False)
    """
    if harness_gave_up(rec) and str(rec.get("mode") or "").startswith("program"):
        return True
    return _extra(rec).get("exec_outcome") is not None


def figure_view(rec: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the figures read of a result, or None when it is neither program nor agent.

    Keeps :data:`FIGURE_EXTRA_KEYS` of ``extra`` and the few top-level fields the figures
    read, so a long run's summary holds small dicts (no trajectories, no programs).

    Example:
        >>> figure_view({"outcome": "wrong", "extra": {"exec_outcome": "ok", "program": "…"}})
        {'outcome': 'wrong', 'extra': {'exec_outcome': 'ok'}}
        >>> figure_view({"outcome": "wrong", "extra": {}}) is None
        True
    """
    if not (is_program_result(rec) or is_agent_result(rec)):
        return None
    out = {k: rec[k] for k in _FIGURE_FIELDS if k in rec}
    extra = _extra(rec)
    out["extra"] = {k: extra[k] for k in FIGURE_EXTRA_KEYS if k in extra}
    return out


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


def extra_numbers(records: Iterable[Mapping[str, Any]], key: str) -> list[float]:
    """The numeric values of ``extra[key]`` over the results that record one.

    Example:
        >>> extra_numbers([{"extra": {"rounds": 2}}, {"extra": {"rounds": True}}, {}], "rounds")
        [2.0]
    """
    out = []
    for rec in records:
        value = _extra(rec).get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out.append(float(value))
    return out


def _mean(xs: Sequence[float]) -> float | None:
    return math.fsum(xs) / len(xs) if xs else None


def program_figures(records: Iterable[Mapping[str, Any]]) -> ProgramFigures:
    """Execution rate, §4.5 error classes and execution failures of program-mode results.

    Results that are no program-mode response (:func:`is_program_result`) are not
    counted. One given up because the harness died running its program is a failed
    execution, ``harness_died``, of class ``execution``.

    Example:
        >>> recs = [{"outcome": "strict_correct", "extra": {"exec_outcome": "ok"}},
        ...         {"outcome": "wrong", "extra": {"exec_outcome": "ok",
        ...          "error_class": "graph_reading", "exec_seconds": 0.2}},
        ...         {"outcome": "no_answer", "extra": {"exec_outcome": "timeout",
        ...          "error_class": "execution"}}]
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
        if harness_gave_up(rec) and str(rec.get("mode") or "").startswith("program"):
            x: Mapping[str, Any] = {"exec_outcome": "harness_died", "error_class": "execution"}
        else:
            x = _extra(rec)
        outcome = str(x["exec_outcome"])
        if outcome == "ok":
            executed += 1
            if x.get("exec_seconds") is not None:
                seconds.append(float(x["exec_seconds"]))
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


def _score(rec: Mapping[str, Any]) -> StructureScore | None:
    data = _extra(rec).get("structure")
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise FiguresError(f"result {rec.get('id')!r}: extra.structure is not an object")
    try:
        return StructureScore.from_json(data)
    except ValueError as exc:
        raise FiguresError(f"result {rec.get('id')!r}: {exc}") from None


def structure_figures(records: Sequence[Mapping[str, Any]]) -> StructureFigures:
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
        >>> agg = structure_figures([{"extra": {"structure": s}}, {"extra": {"structure": None}}])
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


def agent_outcome(rec: Mapping[str, Any]) -> str:
    """How an agent episode ended (``extra.agent_outcome``; :data:`UNKNOWN_OUTCOME` if unsaid).

    Example:
        >>> agent_outcome({"extra": {"agent_outcome": "max_rounds"}}), agent_outcome({})
        ('max_rounds', 'unknown')
    """
    value = _extra(rec).get("agent_outcome")
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


def agent_figures(records: Sequence[Mapping[str, Any]]) -> AgentFigures:
    """Rounds and tool calls per episode, structure recovery and episode ends of agent results.

    Args:
        records: Agent-mode results (:func:`is_agent_result`).

    Raises:
        FiguresError: a result's ``extra.structure`` is not a structure score.

    Example:
        >>> recs = [{"extra": {"structure": None, "rounds": 1, "tool_calls": 0,
        ...                    "agent_outcome": "answered"}},
        ...         {"extra": {"structure": None, "rounds": 3, "tool_calls": 2,
        ...                    "agent_outcome": "token_limit"}}]
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


def suite_figures(records: Sequence[Mapping[str, Any]]) -> SuiteFigures | None:
    """The program and agent figures of one suite's results; None when there are neither.

    Raises:
        FiguresError: an agent result's ``extra.structure`` is not a structure score.

    Example:
        >>> suite_figures([{"outcome": "wrong", "extra": {}}]) is None
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


def summary_figures(records: Iterable[Mapping[str, Any]]) -> SummaryFigures:
    """The mode figures of answered results, per suite (``summary.json``'s ``figures``).

    Results without a suite (:func:`result_suite`) are not counted.

    Raises:
        FiguresError: an agent result's ``extra.structure`` is not a structure score.

    Example:
        >>> summary_figures([{"suite": "closure", "outcome": "wrong", "extra": {}}])
        SummaryFigures(closure=None, grit=None)
    """
    by: dict[str, list[Mapping[str, Any]]] = {"closure": [], "grit": []}
    for rec in records:
        suite = result_suite(rec)
        if suite in by:
            by[suite].append(rec)
    return SummaryFigures(closure=suite_figures(by["closure"]), grit=suite_figures(by["grit"]))
