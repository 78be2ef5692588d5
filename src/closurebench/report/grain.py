"""GRAIN agent-mode tables: structure recovery, its decomposition, efficiency, episode ends.

An agent-mode result (the model writes ``<graph>`` tool calls, GRAIN §4.2) carries in
``extra``: ``structure`` — :meth:`~closurebench.scoring.structure.StructureScore.to_json`
of the *last* graph the model submitted, or null when it never called the tool —
``rounds`` (model calls), ``tool_calls`` and ``agent_outcome`` (how the episode ended:
``answered``, ``no_answer``, ``max_rounds``, ``truncated``, ``token_limit``, ...). A result
is an agent result when its ``extra`` has one of those keys (:func:`is_agent_result`); every table
here is over the agent results of a run, one row per run that has any (runs without
are left out), and :func:`grain_tables` returns none when no run has any.

* :func:`grain_structure_table` (GRAIN Table 6): node-F1, weighted edge-F1, mean
  ``s_inv`` and the exact-graph rate over *all* agent results: an episode without a tool
  call recovered no structure and counts 0 in each (as the paper's rates are over all
  2,760 examples); the "Called" column gives the share that submitted a graph.
* :func:`grain_structure_by_task_table`, :func:`grain_structure_by_size_table`
  (Table 20, panel A: |V| buckets) and :func:`grain_structure_by_density_table` (Table
  20, panel B: the paper's density tertiles, :data:`DENSITY_TERTILES`) break the same
  down, GRIT only. A GRIT result records its graph's density (``2|E| / (|V|(|V|-1))``,
  :attr:`~closurebench.schema.GritGraph.density`); older results get it from the
  dataset file (``closurebench report --dataset``).
* :func:`grain_decomposition_table` (Table 19): share of each class of
  :data:`~closurebench.scoring.structure.STRUCTURE_CLASSES`, plus "No call".
* :func:`grain_efficiency_table` (the rounds/tokens/latency comparison of GRAIN Table 4):
  rounds and tool calls per episode, completion tokens and latency per answer (mean and
  p90), and accuracy.
* :func:`grain_episode_table`: how episodes ended (share per ``agent_outcome``), and how
  many a token limit cut (:data:`CUT_OUTCOMES`).

The figures are computed by :mod:`closurebench.evaluate.figures`
(:func:`~closurebench.evaluate.figures.agent_figures`,
:func:`~closurebench.evaluate.figures.structure_figures`), the functions that write them
into the run's ``summary.json``, so the report and the summary cannot disagree.

Accuracy per task, per naming scheme and per form of an agent run is already in the GRIT
tables every run gets (:func:`~closurebench.report.tables.grit_task_table`,
:func:`~closurebench.report.tables.grit_naming_table`,
:func:`~closurebench.report.tables.grit_form_table`); it is not repeated here.

Example:
    >>> from pathlib import Path
    >>> from closurebench.report.aggregate import LoadedResult, Run
    >>> ok = {"node_f1": 1.0, "edge_f1": 1.0, "exact": True, "s_inv": 1.0, "cls": "exact"}
    >>> def rec(outcome, **extra):
    ...     return LoadedResult(id=outcome, outcome=outcome, mode="agent", suite="grit",
    ...                         task="bfs", extra=extra)
    >>> recs = [rec("strict_correct", structure=ok, rounds=2, tool_calls=1),
    ...         rec("no_answer", structure=None, rounds=4, tool_calls=0)]
    >>> t = grain_structure_table([Run(Path("."), "m · agent", "m", "agent", recs)])
    >>> t.header
    ['Run', 'Node-F1', 'Edge-F1', 's_inv', 'Exact', 'Called', 'N']
    >>> t.rows[0]
    ['m · agent', '50.00', '50.00', '0.500', '50.00 [9.45, 90.55]', '50.0', '2']
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from closurebench.evaluate.figures import (
    AGENT_EXTRA_KEYS,
    AGENT_OUTCOME_ORDER,
    CUT_OUTCOMES,
    FiguresError,
    agent_figures,
    extra_numbers,
    is_agent_result,
    outcome_sort_key,
    structure_figures,
)
from closurebench.report.aggregate import (
    SIZE_BINS,
    Rate,
    ReportError,
    Run,
    accuracy,
    bin_label,
    group_by,
    group_by_bin,
    latency_stats,
    percentile,
    suite_records,
)
from closurebench.report.run import LoadedResult
from closurebench.report.table import Table
from closurebench.report.table import num as _num
from closurebench.schema.summary import AgentFigures, StructureFigures
from closurebench.scoring.structure import NO_CALL, STRUCTURE_CLASSES

__all__ = [
    "AGENT_EXTRA_KEYS",
    "AGENT_OUTCOME_ORDER",
    "CUT_OUTCOMES",
    "DENSITY_TERTILES",
    "STRUCTURE_HEADERS",
    "agent_records",
    "grain_decomposition_table",
    "grain_efficiency_table",
    "grain_episode_table",
    "grain_structure_by_density_table",
    "grain_structure_by_size_table",
    "grain_structure_by_task_table",
    "grain_structure_table",
    "grain_tables",
    "is_agent_result",
    "structure_summary",
]

#: GRAIN Table 20 panel B's density tertiles: ``(label, lo, hi)``, ``lo <= density < hi``
#: (the last one closed): Low ``< 0.314``, Mid ``0.314–0.415``, High ``>= 0.415``.
DENSITY_TERTILES: tuple[tuple[str, float, float], ...] = (
    ("Low (<0.314)", 0.0, 0.314),
    ("Mid (0.314–0.415)", 0.314, 0.415),
    ("High (≥0.415)", 0.415, 1.0),
)

#: Column headers of the decomposition classes (GRAIN Table 19's wording).
STRUCTURE_HEADERS: dict[str, str] = {
    "exact": "Exact",
    "parse_failure": "Parse / format failure",
    "node_mismatch": "Node-set mismatch",
    "extra_edges": "Extra edges only",
    "missing_edges": "Missing edges only",
    "weight_mismatch": "Weight mismatch only",
    "mixed": "Mixed",
    NO_CALL: "No call",
}


def agent_records(records: Sequence[LoadedResult]) -> list[LoadedResult]:
    """The agent-mode results among ``records`` (:func:`is_agent_result`)."""
    return [r for r in records if is_agent_result(r)]


def structure_summary(records: Sequence[LoadedResult], where: str = "results") -> StructureFigures:
    """:func:`~closurebench.evaluate.figures.structure_figures` of agent results.

    Results whose ``extra.structure`` is null (no tool call) count under ``no_call``.

    Args:
        records: Agent-mode result records.
        where: Named in the error message (a run directory).

    Raises:
        ReportError: a record's ``extra.structure`` is not a structure score.

    Example:
        >>> s = {"node_f1": 1.0, "edge_f1": 0.5, "exact": False, "s_inv": 0.5,
        ...      "cls": "missing_edges"}
        >>> def rec(structure):
        ...     return LoadedResult(id="a", outcome="wrong", mode="agent",
        ...                         extra={"structure": structure})
        >>> agg = structure_summary([rec(s), rec(None)])
        >>> agg.n, agg.edge_f1, agg.shares["missing_edges"], agg.counts["no_call"]
        (2, 0.25, 50.0, 1)
    """
    try:
        return structure_figures(records)
    except FiguresError as exc:
        raise ReportError(f"{where}: {exc}") from None


def _agent_figures(run: Run, records: Sequence[LoadedResult]) -> AgentFigures:
    """:func:`~closurebench.evaluate.figures.agent_figures`, errors naming the run."""
    try:
        return agent_figures(records)
    except FiguresError as exc:
        raise ReportError(f"{run.path}: {exc}") from None


def _agent_pairs(runs: Sequence[Run], suite: str) -> list[tuple[Run, list[LoadedResult]]]:
    out = []
    for run in runs:
        recs = agent_records(suite_records(run, suite))
        if recs:
            out.append((run, recs))
    return out


def _key(suite: str, name: str) -> str:
    return f"grain_{name}" if suite == "grit" else f"{suite}_grain_{name}"


def _title(suite: str, what: str, table: str) -> str:
    if suite == "grit":
        return f"GRAIN: {what} ({table})"
    name = "ClosureBench" if suite == "closure" else suite
    return f"{name} agent mode: {what}"


def _pct(x: float | None) -> float | None:
    return None if x is None else 100.0 * x


def _structure_cells(agg: StructureFigures) -> list[str]:
    """Node-F1, Edge-F1 (%), s_inv, Exact (% with its interval when small), Called (%)."""
    no_call = agg.shares[NO_CALL]
    return [
        _num(_pct(agg.node_f1), 2),
        _num(_pct(agg.edge_f1), 2),
        _num(agg.s_inv, 3),
        Rate(agg.counts["exact"], agg.n).fmt(digits=2),
        _num(None if no_call is None else 100.0 - no_call),
    ]


_STRUCTURE_CAPTION = (
    "Recovery of the graph the model submitted to the tool (the last call of each episode) "
    "against the true graph, names aligned through the view's names and aliases: node-F1, "
    "weighted edge-F1 (an edge matches only with its weight) and the exact-graph rate in %, "
    "s_inv the mean Jaccard index of the weighted edge tuples. Over all agent results: an "
    "episode without a tool call counts 0 in each; Called: % of episodes that submitted a "
    "graph. Brackets: Wilson 95% interval (n < 100)."
)


def grain_structure_table(runs: Sequence[Run], suite: str = "grit") -> Table:
    """GRAIN Table 6: node-F1, edge-F1, mean ``s_inv`` and exact-graph rate per run."""
    rows = [
        [run.label, *_structure_cells(_agent_figures(run, recs).structure), str(len(recs))]
        for run, recs in _agent_pairs(runs, suite)
    ]
    return Table(
        _key(suite, "structure"),
        _title(suite, "structure recovery", "Table 6"),
        _STRUCTURE_CAPTION,
        ["Run", "Node-F1", "Edge-F1", "s_inv", "Exact", "Called", "N"],
        rows,
    )


def grain_structure_by_task_table(runs: Sequence[Run]) -> Table:
    """Table 6 per GRIT task: one row per run and task."""
    rows = []
    for run, recs in _agent_pairs(runs, "grit"):
        for task, group in group_by(recs, "task").items():
            agg = structure_summary(group, str(run.path))
            rows.append([run.label, str(task), *_structure_cells(agg), str(len(group))])
    return Table(
        "grain_structure_task",
        "GRAIN: structure recovery by task",
        _STRUCTURE_CAPTION,
        ["Run", "Task", "Node-F1", "Edge-F1", "s_inv", "Exact", "Called", "N"],
        rows,
    )


def grain_structure_by_size_table(runs: Sequence[Run]) -> Table:
    """GRAIN Table 20, panel A: structure recovery by |V| bucket, one row per run and bucket."""
    rows = []
    for run, recs in _agent_pairs(runs, "grit"):
        for i, group in group_by_bin(recs, "n", SIZE_BINS).items():
            cells = _structure_cells(structure_summary(group, str(run.path)))
            rows.append([run.label, bin_label(SIZE_BINS[i]), str(len(group)), *cells[1:4]])
    return Table(
        "grain_structure_size",
        "GRAIN: structure recovery by |V| (Table 20, panel A)",
        "Weighted edge-F1 (%), mean s_inv and the exact-graph rate (%) of the submitted "
        "graphs by number of nodes |V| (GRAIN Table 20's buckets; episodes without a tool "
        "call count 0). Brackets: Wilson 95% interval (n < 100).",
        ["Run", "|V|", "N", "Edge-F1", "s_inv", "Exact"],
        rows,
    )


def _has_density(recs: Sequence[LoadedResult]) -> bool:
    return any(r.density is not None for r in recs)


def grain_structure_by_density_table(runs: Sequence[Run]) -> Table:
    """GRAIN Table 20, panel B: structure recovery by density tertile, one row per run and tertile.

    Tertiles are :data:`DENSITY_TERTILES` (the paper's cut points, ``[lo, hi)``): a
    density of exactly 0.314 is Mid, exactly 0.415 High. Results without a density are
    left out.
    """
    bins = [(lo, hi) for _, lo, hi in DENSITY_TERTILES]
    rows = []
    for run, recs in _agent_pairs(runs, "grit"):
        for i, group in group_by_bin(recs, "density", bins, integer=False).items():
            agg = structure_summary(group, str(run.path))
            mean = math.fsum(r.density or 0.0 for r in group) / len(group)
            rows.append(
                [
                    run.label,
                    DENSITY_TERTILES[i][0],
                    str(len(group)),
                    _num(mean, 3),
                    _num(100.0 * agg.parsed / agg.n, 2),
                    _num(_pct(agg.edge_f1), 2),
                    Rate(agg.counts["exact"], agg.n).fmt(digits=2),
                ]
            )
    return Table(
        "grain_structure_density",
        "GRAIN: structure recovery by density (Table 20, panel B)",
        "Structure recovery by the density of the true graph, 2|E| / (|V|(|V|−1)) "
        "(|E| / (|V|(|V|−1)) when directed), in GRAIN Table 20's tertiles: Low < 0.314 ≤ "
        "Mid < 0.415 ≤ High. N: episodes (the paper's #); Avg.: their mean density; Parse: "
        "% of episodes whose last submitted graph parsed (no tool call or a parse failure "
        "does not); weighted edge-F1 (%) and the exact-graph rate (%), an episode without "
        "a tool call counting 0. Brackets: Wilson 95% interval (n < 100).",
        ["Run", "Density", "N", "Avg.", "Parse", "Edge-F1", "Exact"],
        rows,
    )


def grain_decomposition_table(runs: Sequence[Run], suite: str = "grit") -> Table:
    """GRAIN Table 19: share (%) of each structure class per run, plus "No call"."""
    keys = [*STRUCTURE_CLASSES, NO_CALL]
    rows = []
    for run, recs in _agent_pairs(runs, suite):
        shares = _agent_figures(run, recs).structure.shares
        rows.append([run.label, *(_num(shares[k], 2) for k in keys), str(len(recs))])
    return Table(
        _key(suite, "decomposition"),
        _title(suite, "structure error decomposition", "Table 19"),
        "Share of agent episodes (%) per class of the last submitted graph, first that "
        "applies: exact; parse or format failure (the graph did not parse); node-set "
        "mismatch (an unknown, missing or extra node, an isolated node left out included); "
        "only extra edges; only missing edges; only edge weights differ; mixed edge errors. "
        "No call: the model never called the tool. Rows sum to 100 up to rounding.",
        ["Run", *(STRUCTURE_HEADERS[k] for k in keys), "N"],
        rows,
    )


def grain_efficiency_table(runs: Sequence[Run], suite: str = "grit") -> Table:
    """Rounds, tool calls, completion tokens and latency per agent episode (mean and p90)."""
    rows = []
    for run, recs in _agent_pairs(runs, suite):
        figures = _agent_figures(run, recs)
        tokens = [float(r.usage.completion_tokens) for r in recs]
        lat_mean, lat_p90 = latency_stats(recs)
        rows.append(
            [
                run.label,
                _num(figures.rounds_mean, 2),
                _num(percentile(extra_numbers(recs, "rounds"), 90), 1),
                _num(figures.tool_calls_mean, 2),
                _num(math.fsum(tokens) / len(tokens), 0),
                _num(percentile(tokens, 90), 0),
                _num(lat_mean, 2),
                _num(lat_p90, 2),
                accuracy(recs).fmt(ci=False),
                str(len(recs)),
            ]
        )
    return Table(
        _key(suite, "efficiency"),
        _title(suite, "efficiency", "Table 4"),
        "Per agent episode: model calls (rounds) and tool calls, completion tokens summed "
        "over the rounds, and latency in seconds (mean and 90th percentile); lenient "
        "accuracy (%). Rounds and tool calls are over the episodes that record them.",
        [
            "Run",
            "Rounds",
            "Rounds p90",
            "Tool calls",
            "Tok/ans",
            "Tok/ans p90",
            "Latency mean (s)",
            "Latency p90 (s)",
            "Accuracy",
            "N",
        ],
        rows,
    )


def grain_episode_table(runs: Sequence[Run], suite: str = "grit") -> Table:
    """How agent episodes ended: share (%) per ``extra.agent_outcome``, one row per run."""
    per_run = [(run, _agent_figures(run, recs)) for run, recs in _agent_pairs(runs, suite)]
    present = sorted({o for _, f in per_run for o in f.outcomes}, key=outcome_sort_key)
    rows = []
    for run, f in per_run:
        shares = (_num(100.0 * f.outcomes.get(o, 0) / f.episodes, 1) for o in present)
        rows.append([run.label, *shares, str(f.cut), str(f.episodes)])
    return Table(
        _key(suite, "episodes"),
        _title(suite, "how episodes ended", "agent outcomes"),
        "Share of agent episodes (%) by how they ended: answered (a final answer was "
        "given: an <answer> tag, a bare \\boxed{} or a final 'Answer:' line), no answer, "
        "the round limit reached (max rounds), a call cut by its token limit (truncated), "
        "the episode's token budget spent (token limit), an invalid tool call ending the "
        "episode; unknown when the result does not say. Rows sum to 100 up to rounding. "
        "Cut: the number of episodes a token limit ended (truncated or token limit); "
        "raise --agent-max-tokens when it is not 0.",
        ["Run", *(o.replace("_", " ").capitalize() for o in present), "Cut", "N"],
        rows,
    )


def grain_tables(runs: Sequence[Run], suite: str) -> list[Table]:
    """The GRAIN tables of one suite in report order; ``[]`` when no run has agent results.

    GRIT gets structure recovery (overall, by task when results carry ``task``, by |V|
    when they carry ``n``, by density when they carry ``density``), the decomposition,
    efficiency and episode ends; another
    suite (ClosureBench) the overall structure, decomposition, efficiency and episode
    tables.

    Example:
        >>> from pathlib import Path
        >>> one = LoadedResult(id="a", outcome="wrong", mode="direct", suite="grit")
        >>> grain_tables([Run(Path("."), "m", "m", "direct", [one])], "grit")
        []
    """
    pairs = _agent_pairs(runs, suite)
    if not pairs:
        return []
    out = [grain_structure_table(runs, suite)]
    if suite == "grit":
        if any(r.task for _, recs in pairs for r in recs):
            out.append(grain_structure_by_task_table(runs))
        if any(r.n is not None for _, recs in pairs for r in recs):
            out.append(grain_structure_by_size_table(runs))
        if any(_has_density(recs) for _, recs in pairs):
            out.append(grain_structure_by_density_table(runs))
    out += [
        grain_decomposition_table(runs, suite),
        grain_efficiency_table(runs, suite),
        grain_episode_table(runs, suite),
    ]
    return out
