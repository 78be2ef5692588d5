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

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from closurebench.errors import ClosureBenchError

__all__ = [
    "PROGRAM_ERROR_CLASSES",
    "AgentFigures",
    "HarnessDeathCounts",
    "LatencyStats",
    "ProgramErrorClass",
    "ProgramFigures",
    "RunSummary",
    "StructureFigures",
    "SuiteFigures",
    "SummaryCounts",
    "SummaryFigures",
    "TokenTotals",
    "figures_schema",
    "parse_summary",
    "summary_schema",
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


class _Part(BaseModel):
    # Later versions may add keys: a reader keeps the ones it does not know.
    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)


class SummaryCounts(_Part):
    """How many results the summary covers."""

    total: int = Field(0, ge=0)
    """Results of the selected instances (answered and in error)."""
    answered: int = Field(0, ge=0)
    """Results with a model response: the accuracies' denominator."""
    errors: int = Field(0, ge=0)
    """Results that ended in error (a failed request; no model response)."""
    selected: int | None = Field(None, ge=0)
    """Instances the last command selected (absent in a summary of results alone)."""
    outside_selection: int | None = Field(None, ge=0)
    """Results in the folder outside that selection (absent when there are none)."""


class TokenTotals(_Part):
    """Token usage as the servers reported it."""

    prompt_total: int = 0
    """Prompt tokens over all results."""
    completion_total: int = 0
    """Generated tokens over all results (reasoning tokens included)."""
    prompt_mean: float | None = None
    """Prompt tokens per answered result."""
    completion_mean: float | None = None
    """Generated tokens per answered result."""
    per_correct_strict: float | None = None
    """Generated tokens per strictly correct answer (the paper's cost measure)."""
    per_correct_lenient: float | None = None
    """Generated tokens per leniently correct answer."""
    reasoning_total: int = 0
    """Reasoning tokens the servers reported (part of the generated tokens)."""
    reasoning_reported: int = 0
    """Results whose server reported reasoning tokens."""
    reasoning_mean: float | None = None
    """Reasoning tokens per such result."""


class LatencyStats(_Part):
    """Seconds per answered result."""

    mean: float | None = None
    """Mean latency."""
    p90: float | None = None
    """90th percentile latency."""


class HarnessDeathCounts(_Part):
    """Results whose reply a harness process died while handling."""

    recorded_wrong: int = 0
    """Given up after too many deaths and answered ``wrong`` (in every denominator)."""
    survived: int = 0
    """Handled again and finished."""
    examples: list[str] = Field(default_factory=list)
    """Up to three ids of the results recorded wrong."""


class RunSummary(_Part):
    """``RUN_DIR/summary.json``: one run's counts, accuracies, usage and mode figures.

    Written by :func:`closurebench.evaluate.records.write_summary` and read by the report
    through :func:`parse_summary`, both through this model. A mode adds the facts of how
    it ran (``sandbox``, ``agent``, ``endpoints``, ...) as further top-level keys.
    """

    counts: SummaryCounts = Field(default_factory=SummaryCounts)
    """How many results the summary covers."""
    complete: bool = False
    """Every selected instance has a model result and the run was not stopped early."""
    error_examples: list[str] = Field(default_factory=list)
    """Up to three distinct error messages of the results in error."""
    strict_accuracy: float | None = None
    """Strictly correct / answered (null: nothing answered)."""
    lenient_accuracy: float | None = None
    """Leniently correct (the paper's Algorithm 1) / answered."""
    strict_correct: int = 0
    """Strictly correct answers."""
    lenient_correct: int = 0
    """Leniently correct answers."""
    outcomes: dict[str, int] = Field(default_factory=dict)
    """Results per outcome class (``error`` included)."""
    tokens: TokenTotals = Field(default_factory=TokenTotals)
    """Token usage."""
    latency_s: LatencyStats = Field(default_factory=LatencyStats)
    """Latency of the answered results."""
    harness_deaths: HarnessDeathCounts = Field(default_factory=HarnessDeathCounts)
    """Results a harness process died on."""
    mode: str | None = None
    """The prompting mode of the results."""
    settings: dict[str, Any] | None = None
    """The generation settings of the first result."""
    suites: list[str] = Field(default_factory=list)
    """The suites the results belong to."""
    figures: SummaryFigures | None = None
    """The mode figures per suite (null: unreadable; ``figures_error`` says why)."""
    figures_error: str | None = None
    """Why ``figures`` is null, when it could not be computed."""
    selected_ids: list[str] | None = None
    """The last command's selection, when the folder holds results outside it."""
    aborted: str | None = None
    """Why the run stopped early (null: it did not)."""
    run: dict[str, int] | None = None
    """The run's counters (requests, retries, cache hits, ...)."""
    adaptations: list[dict[str, Any]] | None = None
    """Settings changes a server's refusals caused."""

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the keys that were set, in the model's types."""
        return self.model_dump(mode="json", exclude_unset=True)


def parse_summary(obj: object, where: str) -> RunSummary:
    """Validate a ``summary.json`` object (parsed JSON).

    Raises:
        ClosureBenchError: Not a ``summary.json`` record (the message names the field).

    Example:
        >>> s = parse_summary({"counts": {"total": 2, "answered": 2, "errors": 0},
        ...                    "strict_accuracy": 0.5, "sandbox": {"warm": True}}, "s.json")
        >>> s.counts.answered, s.strict_accuracy, s.model_extra
        (2, 0.5, {'sandbox': {'warm': True}})
        >>> s.to_json()["counts"]  # the keys that were given, and only those
        {'total': 2, 'answered': 2, 'errors': 0}
        >>> try:
        ...     parse_summary({"counts": {"total": -1}}, "run/summary.json")
        ... except ClosureBenchError as exc:
        ...     print(exc)
        run/summary.json: not a summary.json record: field 'counts.total': Input should be greater than or equal to 0 (got -1)
    """  # noqa: E501
    from closurebench.schema.instances import describe_validation_error

    try:
        return RunSummary.model_validate(obj)
    except ValidationError as exc:
        raise ClosureBenchError(
            f"{where}: not a summary.json record: {describe_validation_error(exc)}"
        ) from None


def summary_schema() -> dict[str, object]:
    """The JSON Schema of ``summary.json``.

    Example:
        >>> schema = summary_schema()
        >>> schema["additionalProperties"], "counts" in schema["properties"]
        (True, True)
    """
    schema: dict[str, object] = RunSummary.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
