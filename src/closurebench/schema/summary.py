"""The typed mode figures of ``RUN_DIR/summary.json``: what a program or agent run adds up to.

``summary.json`` holds, under ``figures``, one :class:`SuiteFigures` per suite the run's
answered results belong to (:class:`SummaryFigures`): the program-mode figures
(:class:`ProgramFigures`: execution rate, the §4.5 classes of the wrong answers, the
execution failures) when the results ran programs, the agent-mode figures
(:class:`AgentFigures`: rounds and tool calls per episode, structure recovery with its
Table 19 classes, how episodes ended) when they are agent episodes, null otherwise. The
report computes its program and GRAIN tables with the same functions
(:mod:`closurebench.evaluate.figures`), so the two cannot disagree.

Rates that have no denominator (no responses, no episodes) are null, never NaN (JSON has
none).

Example:
    >>> p = ProgramFigures(responses=4, executed=3, exec_rate=75.0, wrong=1,
    ...                    classes={"graph_reading": 1, "logic": 0, "execution": 0},
    ...                    failures={"timeout": 1}, exec_seconds_mean=0.5)
    >>> SummaryFigures(grit=SuiteFigures(program=p)).model_dump(mode="json")["grit"]["agent"]
    >>> ProgramFigures.model_validate(p.model_dump()) == p
    True
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "PROGRAM_ERROR_CLASSES",
    "AgentFigures",
    "ProgramErrorClass",
    "ProgramFigures",
    "StructureFigures",
    "SuiteFigures",
    "SummaryFigures",
    "figures_schema",
]

#: The ClosureBench paper's §4.5 classes of a wrong program answer.
ProgramErrorClass = Literal["graph_reading", "logic", "execution"]

#: :data:`ProgramErrorClass` in table order.
PROGRAM_ERROR_CLASSES: tuple[ProgramErrorClass, ...] = get_args(ProgramErrorClass)


class _Figures(BaseModel):
    # Field docstrings become the fields' descriptions in the JSON Schema (and docs/).
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class ProgramFigures(_Figures):
    """Execution and error analysis of program-mode results (ClosureBench §4.5, Table 6)."""

    responses: int = Field(ge=0)
    """Program-mode responses: every result whose program the sandbox ran (or found none
    to run), and every one recorded wrong because the harness died running its program."""
    executed: int = Field(ge=0)
    """Responses whose program ran to its end (execution outcome ``ok``)."""
    exec_rate: float | None
    """``executed`` in % of ``responses`` (null when there are none)."""
    wrong: int = Field(ge=0)
    """Responses not lenient-correct, whatever their outcome."""
    classes: dict[ProgramErrorClass, int]
    """Wrong responses per §4.5 class: ``graph_reading`` (the program's graph differs from
    the question's), ``logic`` (right graph, wrong answer), ``execution`` (no program, or it
    did not run to its end)."""
    failures: dict[str, int]
    """Failed executions per execution outcome (``no_program``, ``syntax_error``,
    ``runtime_error``, ``timeout``, ...; ``harness_died`` for a reply recorded wrong because
    the harness died running it)."""
    exec_seconds_mean: float | None
    """Mean sandbox wall seconds per executed program (null when none recorded them)."""


class StructureFigures(_Figures):
    """Recovery of the last graph each agent episode submitted (GRAIN Tables 6 and 19).

    Means and rates are over all episodes: one without a tool call counts 0 in each.
    """

    n: int = Field(ge=0)
    """Episodes."""
    node_f1: float | None
    """Mean node-F1, a fraction (null when there are no episodes)."""
    edge_f1: float | None
    """Mean weighted edge-F1, a fraction (an edge matches only with its weight)."""
    s_inv: float | None
    """Mean ``s_inv``: the Jaccard index of the weighted edge tuples, names aligned exactly."""
    s_inv_casefold: float | None
    """Mean ``s_inv`` with case- and whitespace-insensitive name alignment."""
    exact_rate: float | None
    """Share of episodes whose graph was exactly the true one, a fraction."""
    parsed: int = Field(ge=0)
    """Episodes whose last submitted graph parsed (a tool call, not a parse failure)."""
    counts: dict[str, int]
    """Episodes per Table 19 class (``exact``, ``parse_failure``, ``node_mismatch``,
    ``extra_edges``, ``missing_edges``, ``weight_mismatch``, ``mixed``) and ``no_call``
    (the model never called the tool)."""
    shares: dict[str, float | None]
    """``counts`` in % of ``n`` (they sum to 100; null when there are no episodes)."""


class AgentFigures(_Figures):
    """The figures of agent-mode episodes (GRAIN §4.2): effort, structure, how they ended."""

    episodes: int = Field(ge=0)
    """Agent-mode results."""
    rounds_mean: float | None
    """Mean model calls per episode, over the episodes that record them."""
    tool_calls_mean: float | None
    """Mean tool calls per episode, over the episodes that record them."""
    structure: StructureFigures
    """Structure recovery of the episodes' last submitted graphs, with the Table 19 classes."""
    outcomes: dict[str, int]
    """Episodes per end (``extra.agent_outcome``: ``answered``, ``no_answer``,
    ``max_rounds``, ``truncated``, ``token_limit``, ``invalid_call``, ...; ``unknown`` when
    a result does not say)."""
    cut: int = Field(ge=0)
    """Episodes a token limit ended (``truncated`` or ``token_limit``)."""


class SuiteFigures(_Figures):
    """The mode figures of one suite's answered results (null: no such results)."""

    program: ProgramFigures | None = None
    """Program-mode figures, when the results ran programs."""
    agent: AgentFigures | None = None
    """Agent-mode figures, when the results are agent episodes."""


class SummaryFigures(_Figures):
    """``summary.json``'s ``figures``: the mode figures per suite (null: no such results)."""

    closure: SuiteFigures | None = None
    """ClosureBench results."""
    grit: SuiteFigures | None = None
    """GRIT results."""


def figures_schema() -> dict[str, object]:
    """The JSON Schema of ``summary.json``'s ``figures`` object.

    Example:
        >>> sorted(figures_schema()["properties"])
        ['closure', 'grit']
    """
    schema: dict[str, object] = SummaryFigures.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
