"""GRAIN agent-mode tables: structure recovery (Table 6), decomposition (Table 19), by task
and |V| (Table 20), efficiency, episode ends, and their place in the report."""

from __future__ import annotations

from typing import Any

import pytest
from report_fixtures import record

from closurebench.generate.grit import GritConfig, generate_records
from closurebench.report.aggregate import ReportError, load_run, load_runs
from closurebench.report.grain import (
    grain_decomposition_table,
    grain_efficiency_table,
    grain_episode_table,
    grain_structure_by_size_table,
    grain_structure_by_task_table,
    grain_structure_table,
    grain_tables,
    is_agent_result,
)
from closurebench.report.tables import all_tables, render_markdown
from closurebench.scoring.structure import StructureScore, score_structure
from closurebench.tools.types import ToolGraph

EXACT = StructureScore(1.0, 1.0, True, 1.0, "exact").to_json()
MISSING = StructureScore(1.0, 0.8, False, 2 / 3, "missing_edges", missing_edges=1).to_json()
PARSE = StructureScore(0.0, 0.0, False, 0.0, "parse_failure").to_json()


def _agent(
    outcome: str,
    structure: dict[str, Any] | None,
    *,
    rounds: int = 2,
    calls: int = 1,
    ended: str = "answered",
    **meta: Any,
) -> dict[str, Any]:
    meta.setdefault("suite", "grit")
    meta.setdefault("task", "tsp")
    meta.setdefault("naming", "canonical")
    meta.setdefault("form", "standard")
    extra = {"structure": structure, "rounds": rounds, "tool_calls": calls, "agent_outcome": ended}
    return record(outcome, mode="agent", extra=extra, **meta)


def _four(**meta: Any) -> list[dict[str, Any]]:
    """exact, missing edges, parse failure, no call."""
    return [
        _agent("strict_correct", EXACT, rounds=2, calls=1, completion_tokens=100, latency_s=1.0,
               n=12, task="tsp", **meta),
        _agent("wrong", MISSING, rounds=3, calls=2, completion_tokens=200, latency_s=2.0,
               n=12, task="tsp", **meta),
        _agent("format_error", PARSE, rounds=4, calls=1, completion_tokens=300, latency_s=3.0,
               ended="invalid_call", n=25, task="bfs", **meta),
        _agent("no_answer", None, rounds=6, calls=0, completion_tokens=400, latency_s=4.0,
               ended="max_rounds", n=25, task="bfs", **meta),
    ]  # fmt: skip


def test_structure_table_means_over_all_episodes(make_run) -> None:
    runs = [load_run(make_run("a", _four()))]
    t = grain_structure_table(runs)
    assert t.key == "grain_structure" and "Table 6" in t.title
    assert t.header == ["Run", "Node-F1", "Edge-F1", "s_inv", "Exact", "Called", "N"]
    (row,) = t.rows
    assert row[0] == "m · agent"
    assert row[1] == "50.00"  # (1 + 1 + 0 + 0) / 4
    assert row[2] == "45.00"  # (1 + 0.8) / 4
    assert row[3] == f"{(1 + 2 / 3) / 4:.3f}"
    assert row[4].startswith("25.00 [")  # 1 of 4 exact, with its Wilson interval
    assert row[5] == "75.0" and row[6] == "4"


def test_decomposition_rows_sum_to_100_with_no_call(make_run) -> None:
    runs = [load_run(make_run("a", _four()))]
    t = grain_decomposition_table(runs)
    assert t.key == "grain_decomposition" and "Table 19" in t.title
    assert t.header == [
        "Run",
        "Exact",
        "Parse / format failure",
        "Node-set mismatch",
        "Extra edges only",
        "Missing edges only",
        "Weight mismatch only",
        "Mixed",
        "No call",
        "N",
    ]
    (row,) = t.rows
    assert row[1:9] == ["25.00", "25.00", "0.00", "0.00", "25.00", "0.00", "0.00", "25.00"]
    assert sum(float(x) for x in row[1:9]) == pytest.approx(100.0)


def test_efficiency_table(make_run) -> None:
    runs = [load_run(make_run("a", _four()))]
    t = grain_efficiency_table(runs)
    assert t.key == "grain_efficiency"
    (row,) = t.rows
    cells = dict(zip(t.header, row, strict=True))
    assert cells["Rounds"] == "3.75"  # (2 + 3 + 4 + 6) / 4
    assert cells["Rounds p90"] == "5.4"  # linear interpolation between 4 and 6
    assert cells["Tool calls"] == "1.00"
    assert cells["Tok/ans"] == "250" and cells["Tok/ans p90"] == "370"
    assert cells["Latency mean (s)"] == "2.50" and cells["Latency p90 (s)"] == "3.70"
    assert cells["Accuracy"] == "25.0" and cells["N"] == "4"


def test_episode_table_orders_known_ends_first(make_run) -> None:
    recs = [*_four(), _agent("wrong", EXACT, ended="budget"), _agent("wrong", EXACT, ended="")]
    t = grain_episode_table([load_run(make_run("a", recs))])
    header = ["Run", "Answered", "Max rounds", "Invalid call", "Budget", "Unknown", "Cut", "N"]
    assert t.header == header
    assert t.rows[0][1:] == ["33.3", "16.7", "16.7", "16.7", "16.7", "0", "6"]


def test_episode_table_counts_cut_episodes(make_run) -> None:
    recs = [*_four(), _agent("wrong", EXACT, ended="truncated")]
    recs.append(_agent("wrong", EXACT, ended="token_limit"))
    t = grain_episode_table([load_run(make_run("a", recs))])
    assert t.header[1:] == [
        "Answered", "Max rounds", "Truncated", "Token limit", "Invalid call", "Cut", "N"
    ]  # fmt: skip
    assert t.rows[0][-2:] == ["2", "6"]


def test_by_task_and_by_size(make_run) -> None:
    runs = [load_run(make_run("a", _four()))]
    bt = grain_structure_by_task_table(runs)
    assert [r[1] for r in bt.rows] == ["bfs", "tsp"]
    bfs, tsp = bt.rows
    assert bfs[2:4] == ["0.00", "0.00"] and bfs[6] == "50.0" and bfs[7] == "2"
    assert tsp[2:4] == ["100.00", "90.00"] and tsp[5].startswith("50.00 [")
    bs = grain_structure_by_size_table(runs)
    assert bs.header == ["Run", "|V|", "N", "Edge-F1", "s_inv", "Exact"]
    assert [r[1:4] for r in bs.rows] == [["10–15", "2", "90.00"], ["21–30", "2", "0.00"]]


def test_runs_without_agent_results_are_left_out(make_run) -> None:
    plain = [record("wrong", suite="grit", task="tsp", naming="random", form="standard", model="p")]
    agent_dir = make_run("agent", _four(model="a"))
    plain_dir = make_run("plain", plain)
    runs = load_runs([plain_dir, agent_dir])
    assert not is_agent_result(runs[0].records[0]) and is_agent_result(runs[1].records[0])
    for table in grain_tables(runs, "grit"):
        assert [r[0] for r in table.rows] == [runs[1].label] * len(table.rows)
    assert grain_tables(runs[:1], "grit") == []
    assert grain_tables(runs, "closure") == []


def test_all_tables_appends_grain_tables_only_when_present(make_run) -> None:
    plain = [record("wrong", suite="grit", task="tsp", naming="random", form="standard", n=12)]
    before = [t.key for t in all_tables([load_run(make_run("p", plain))])["GRIT"]]
    assert not any("grain" in k for k in before)
    runs = [load_run(make_run("a", plain + _four()))]
    keys = [t.key for t in all_tables(runs)["GRIT"]]
    assert keys[: len(before)] == before
    assert keys[len(before) :] == [
        "grain_structure",
        "grain_structure_task",
        "grain_structure_size",
        "grain_decomposition",
        "grain_efficiency",
        "grain_episodes",
    ]
    md = render_markdown(runs)
    assert "GRAIN: structure recovery (Table 6)" in md and "Node-set mismatch" in md


def test_closure_agent_results_get_prefixed_tables(make_run) -> None:
    recs = [
        _agent("strict_correct", EXACT, suite="closure", level=1, n=5, category="reachability",
               task=None, naming=None, form=None),
        _agent("wrong", None, suite="closure", level=2, n=6, category="reach_then_count",
               task=None, naming=None, form=None),
    ]  # fmt: skip
    out = all_tables([load_run(make_run("c", recs))])
    assert "GRIT" not in out
    keys = [t.key for t in out["ClosureBench"]]
    assert keys[-4:] == [
        "closure_grain_structure",
        "closure_grain_decomposition",
        "closure_grain_efficiency",
        "closure_grain_episodes",
    ]
    st = next(t for t in out["ClosureBench"] if t.key == "closure_grain_structure")
    assert st.title.startswith("ClosureBench agent mode")
    assert st.rows[0][1:3] == ["50.00", "50.00"] and st.rows[0][-2:] == ["50.0", "2"]


def test_malformed_structure_names_the_run(make_run) -> None:
    bad = _agent("wrong", {"cls": "exact"}, id="g-7")
    d = make_run("bad", [bad])
    with pytest.raises(ReportError, match=r"bad.*'g-7'.*node_f1"):
        grain_structure_table([load_run(d)])
    d2 = make_run("bad2", [_agent("wrong", "exact", id="g-8")])  # type: ignore[arg-type]
    with pytest.raises(ReportError, match="not an object"):
        grain_decomposition_table([load_run(d2)])


def test_scored_graphs_end_to_end(make_run) -> None:
    recs, _ = generate_records(GritConfig(split="test", seed=0, count=6, n_max=10))
    rec = next(r for r in recs if r.task == "shortest_path" and r.naming == "mixed")
    g = rec.graph
    names = list(rec.names)
    edges = tuple((names[u], names[v], float(w)) for u, v, w in g.edges)
    right = ToolGraph(False, True, tuple(names), edges)
    dropped = ToolGraph(False, True, tuple(names), edges[1:])
    results = [
        _agent("strict_correct", score_structure(rec, right).to_json(), n=rec.n),
        _agent("wrong", score_structure(rec, dropped).to_json(), n=rec.n),
    ]
    runs = [load_run(make_run("e2e", results))]
    row = grain_decomposition_table(runs).rows[0]
    assert row[1] == "50.00" and row[5] == "50.00"  # exact, missing edges only
    m = len(g.edges)
    st = grain_structure_table(runs).rows[0]
    assert st[3] == f"{(1 + (m - 1) / m) / 2:.3f}"
