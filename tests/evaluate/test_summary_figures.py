"""``summary.json`` carries each mode's own figures, and they equal the report's.

A program-mode run (scripted programs over HTTP: correct, wrong logic, a syntax error, an
exception) records its execution rate, error classes and failures; an agent-mode run
(scripted episodes: an exact graph, a graph missing an edge, an unparseable call, no call,
calls cut by the token limit) its tool calls per episode, mean ``s_inv``, Table 19
classes and episode ends. Each equals a hand count, and the report's tables show the
same numbers, computed by the same functions (``closurebench.evaluate.figures``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import Reply
from typed_records import results
from typer.testing import CliRunner

import closurebench
from closurebench.evaluate.figures import summary_figures
from closurebench.evaluate.program import oracle_program
from closurebench.evaluate.records import iter_results, summarize
from closurebench.evaluate.reference import reader_call
from closurebench.generate.grit import GritConfig, write_split
from closurebench.report.aggregate import load_run, load_runs
from closurebench.report.tables import all_tables
from closurebench.schema import SummaryFigures
from closurebench.tasks.closure import CLOSURE_TASKS


def _eval(data: Path, out: Path, *args: str) -> dict[str, Any]:
    res = CliRunner().invoke(
        EVAL_APP, [str(data), "--out", str(out), "--no-progress", "--concurrency", "4", *args]
    )
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    # The figures are typed: they read back as the record, and equal the report's source.
    SummaryFigures.model_validate(summary["figures"])
    assert summary["figures"] == summary_figures(load_run(out).records).model_dump(mode="json")
    return summary


def _table(out: Path, suite: str, key: str) -> dict[str, str]:
    (table,) = [t for t in all_tables(load_runs([out]))[suite] if t.key == key]
    (row,) = table.rows
    return dict(zip(table.header, row, strict=True))


# -- program mode ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def heldout_two_each(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """Two instances of every ClosureBench category (heldout preset)."""
    count = 2 * len(CLOSURE_TASKS)
    out = tmp_path_factory.getbasetemp() / f"closure-heldout-{count}"
    if not (out / "closure-heldout.jsonl").exists():
        closurebench.generate_split("heldout", seed=0, count=count, out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


#: category -> the program of its first and second instance.
PROGRAMS = {
    "degree_count": ("wrong_logic", "correct"),
    "reachability": ("correct", "syntax_error"),
    "negative_reach": ("raises", "correct"),
}


def _program(record: Any, kind: str) -> str:
    program = oracle_program(record, "python")
    if kind == "correct":
        return program
    if kind == "wrong_logic":  # the right graph, the count plus 3
        lines = program.rstrip("\n").split("\n")
        return "\n".join([*lines[:-1], f"print({int(record.answer) + 3})"]) + "\n"
    return {
        "syntax_error": "import networkx as nx\nG = nx.DiGraph(\nprint(1)\n",
        "raises": "raise ValueError('no graph today')\n",
    }[kind]


def test_program_run_summary_carries_its_figures(
    heldout_two_each: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    data, records = heldout_two_each
    picked = {c: [r for r in records if r.category == c] for c in PROGRAMS}
    kind_of = {rec.question: PROGRAMS[c][i] for c, recs in picked.items() for i, rec in
               enumerate(recs)}  # fmt: skip
    by_q = {r.question: r for r in records}

    def step(body: dict[str, Any]) -> Reply:
        question = body["messages"][-1]["content"]
        return Reply(f"```python\n{_program(by_q[question], kind_of[question])}```")

    fake_openai.script(default=step)
    out = tmp_path / "prog"
    summary = _eval(data, out, "--mode", "program-python", "--model", "m", "--base-url",
                    fake_openai.base_url, "--categories", ",".join(PROGRAMS))  # fmt: skip
    figures = summary["figures"]
    assert figures["grit"] is None and figures["closure"]["agent"] is None
    prog = figures["closure"]["program"]
    # The hand count of the six programs: three correct and the wrong-logic one ran.
    assert prog["responses"] == 6 and prog["executed"] == 4
    assert prog["exec_rate"] == pytest.approx(100 * 4 / 6)
    assert prog["wrong"] == 3  # wrong logic, the syntax error, the exception
    assert prog["classes"] == {"graph_reading": 0, "logic": 1, "execution": 2}
    assert prog["failures"] == {"runtime_error": 1, "syntax_error": 1}
    # ... as the results file says, counted directly (the time: the mean over the programs
    # that ran, as each result records it).
    results = list(iter_results(out / "results.jsonl"))
    ran = [r["extra"]["exec_seconds"] for r in results if r["extra"]["exec_outcome"] == "ok"]
    assert prog["exec_seconds_mean"] == pytest.approx(sum(ran) / len(ran))
    assert Counter(r["extra"]["exec_outcome"] for r in results) == Counter(
        {"ok": 4, "runtime_error": 1, "syntax_error": 1}
    )
    # The report's program table shows the same figures.
    cells = _table(out, "ClosureBench", "closure_programs")
    assert cells["Executed"] == f"{prog['executed']}/{prog['responses']} (66.7%)"
    assert cells["Wrong"] == str(prog["wrong"]) == "3"
    assert [cells["Graph reading"], cells["Logic"], cells["Execution"]] == [
        "0 (0%)", "1 (33%)", "2 (67%)"
    ]  # fmt: skip
    assert cells["Failures"] == "runtime error 1, syntax error 1"
    assert cells["Exec s"] == f"{prog['exec_seconds_mean']:,.3f}"


# -- agent mode --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def grit_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """A GRIT test split: 6 graphs (one per task) × 8 views."""
    out = tmp_path_factory.getbasetemp() / "grit-test-figures"
    if not (out / "grit-test.jsonl").exists():
        write_split(GritConfig(split="test", seed=11, count=6, n_max=10), out)
    path = out / "grit-test.jsonl"
    return path, closurebench.load_instances(path)


def _dropped_edge(record: Any) -> str:
    """The reader's call with the first listed edge left out."""
    call = reader_call(record)
    data = call["graph"]["data"]
    first = next(u for u, nbrs in data.items() if nbrs)
    data[first].pop(next(iter(data[first])))
    return json.dumps(call)


def test_agent_run_summary_carries_its_figures(
    grit_data: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    data, records = grit_data
    by_q = {r.question: r for r in records}
    # shortest_path: the exact graph; tsp: one edge missing; vertex_cover: a call that does
    # not parse, then no answer; bfs: an answer without a call; the others cut by the
    # token limit before any call.
    first_turn = {
        "shortest_path": lambda r: Reply(f"<graph>{json.dumps(reader_call(r))}</graph>"),
        "tsp": lambda r: Reply(f"<graph>{_dropped_edge(r)}</graph>"),
        "vertex_cover": lambda r: Reply("<graph>{not json</graph>"),
        "bfs": lambda r: Reply(f"<answer>{r.answer}</answer>"),
    }  # fmt: skip

    def step(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        rec = next(by_q[m["content"]] for m in messages if m.get("content") in by_q)
        if str(messages[-1]["content"]).startswith("<result>"):
            if rec.task == "vertex_cover":
                return Reply("I give up.")
            return Reply(f"<answer>{rec.answer}</answer>")
        if rec.task in first_turn:
            return first_turn[rec.task](rec)
        return Reply("<think>still thinking", finish_reason="length")

    fake_openai.script(default=step)
    out = tmp_path / "agent"
    summary = _eval(data, out, "--mode", "agent", "--model", "m", "--base-url",
                    fake_openai.base_url)  # fmt: skip
    figures = summary["figures"]
    assert figures["closure"] is None and figures["grit"]["program"] is None
    agent = figures["grit"]["agent"]

    # The hand count, from the instances.
    c = Counter(r.task for r in records)
    n = len(records)
    cut = c["graph_coloring"] + c["centrality"]
    assert agent["episodes"] == n == 48
    assert agent["tool_calls_mean"] == pytest.approx(
        (c["shortest_path"] + c["tsp"] + c["vertex_cover"]) / n
    )
    assert agent["rounds_mean"] == pytest.approx(
        (2 * (c["shortest_path"] + c["tsp"] + c["vertex_cover"]) + c["bfs"] + cut) / n
    )
    tsp_s_inv = sum(
        (len(r.graph.edges) - 1) / len(r.graph.edges) for r in records if r.task == "tsp"
    )
    st = agent["structure"]
    assert st["s_inv"] == pytest.approx((c["shortest_path"] + tsp_s_inv) / n)
    assert st["counts"] == {
        "exact": c["shortest_path"], "parse_failure": c["vertex_cover"], "node_mismatch": 0,
        "extra_edges": 0, "missing_edges": c["tsp"], "weight_mismatch": 0, "mixed": 0,
        "no_call": c["bfs"] + cut,
    }  # fmt: skip
    assert st["parsed"] == c["shortest_path"] + c["tsp"]
    assert agent["outcomes"] == {
        "answered": c["shortest_path"] + c["tsp"] + c["bfs"],
        "no_answer": c["vertex_cover"],
        "truncated": cut,
    }
    assert agent["cut"] == cut == 16

    # The report's GRAIN tables show the same figures.
    six = _table(out, "GRIT", "grain_structure")
    assert six["s_inv"] == f"{st['s_inv']:.3f}" and six["N"] == str(n)
    assert six["Edge-F1"] == f"{100 * st['edge_f1']:.2f}"
    assert six["Called"] == f"{100 - st['shares']['no_call']:.1f}"
    eff = _table(out, "GRIT", "grain_efficiency")
    assert eff["Tool calls"] == f"{agent['tool_calls_mean']:.2f}"
    assert eff["Rounds"] == f"{agent['rounds_mean']:.2f}"
    dec = _table(out, "GRIT", "grain_decomposition")
    assert dec["Exact"] == f"{st['shares']['exact']:.2f}"
    assert dec["Missing edges only"] == f"{st['shares']['missing_edges']:.2f}"
    assert dec["Parse / format failure"] == f"{st['shares']['parse_failure']:.2f}"
    assert dec["No call"] == f"{st['shares']['no_call']:.2f}"
    ends = _table(out, "GRIT", "grain_episodes")
    assert ends["Cut"] == str(agent["cut"]) and ends["N"] == str(n)
    assert ends["Truncated"] == f"{100 * cut / n:.1f}"

    # Each result records its graph's density: Table 20's panel B comes from the run alone.
    results = {r["id"]: r for r in iter_results(out / "results.jsonl")}
    for rec in records:
        g = rec.graph
        assert results[rec.id]["density"] == 2 * len(g.edges) / (g.n * (g.n - 1))
    (panel_b,) = [t for t in all_tables(load_runs([out]))["GRIT"]
                  if t.key == "grain_structure_density"]  # fmt: skip
    assert sum(int(row[2]) for row in panel_b.rows) == n


# -- the summary's own pass --------------------------------------------------------------


def test_summarize_keeps_only_what_the_figures_read() -> None:
    structure = {"node_f1": 1.0, "edge_f1": 0.5, "exact": False, "s_inv": 0.25,
                 "cls": "missing_edges"}  # fmt: skip
    rows: list[dict[str, Any]] = [
        {"id": "a", "outcome": "wrong", "suite": "grit", "mode": "agent",
         "extra": {"structure": structure, "rounds": 3, "tool_calls": 2,
                   "agent_outcome": "answered", "trajectory": [{"role": "assistant"}] * 50}},
        {"id": "b", "outcome": "no_answer", "suite": "grit", "mode": "agent",
         "extra": {"structure": None, "rounds": 6, "tool_calls": 0,
                   "agent_outcome": "token_limit"}},
        {"id": "c", "outcome": "error", "error": "503", "suite": "grit", "mode": "agent",
         "extra": {"structure": None}},  # not a model result: not an episode
        {"id": "d", "outcome": "strict_correct", "suite": "closure", "mode": "direct",
         "extra": {}},
    ]  # fmt: skip
    summary = summarize(results(rows)).to_json()
    answered = [r for r in results(rows) if not r.is_error]
    assert summary["figures"] == summary_figures(answered).model_dump(mode="json")
    agent = summary["figures"]["grit"]["agent"]
    assert agent["episodes"] == 2 and agent["tool_calls_mean"] == 1.0 and agent["cut"] == 1
    assert agent["structure"]["s_inv"] == 0.125
    assert summary["figures"]["closure"] is None  # a direct-mode result has no mode figures
    assert "figures_error" not in summary


def test_an_unreadable_structure_names_the_result_in_the_summary() -> None:
    bad = {"id": "g-9", "outcome": "wrong", "suite": "grit", "mode": "agent",
           "extra": {"structure": {"cls": "exact"}}}  # fmt: skip
    summary = summarize(results([bad])).to_json()
    assert summary["figures"] is None
    assert "'g-9'" in summary["figures_error"] and "node_f1" in summary["figures_error"]
    assert summary["counts"]["answered"] == 1  # the rest of the summary is written
