"""``closurebench import``: hand-made NLGraph and G-REAL fixtures import, re-verify, evaluate.

The fixtures (``fixtures/``) are written for these tests in each peer's layout; some
references are wrong on purpose, and those must be reported, never trusted. An optional
cross-check reads a local copy of the published files (the folder named by
``CLOSUREBENCH_PEER_DATA``, else the default location beside the repository) and skips
when it is absent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import closurebench
from closurebench.cli import app
from closurebench.errors import ConfigError, DatasetFileError
from closurebench.generate.peers import import_peer, write_import
from closurebench.tools import run_tool

FIXTURES = Path(__file__).resolve().parent / "fixtures"
runner = CliRunner()


def _import(tmp_path: Path, bench: str) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    res = runner.invoke(app, ["import", bench, str(FIXTURES / bench), "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / f"{bench}.import-report.json").read_text())
    lines = (tmp_path / f"{bench}.disagreements.jsonl").read_text().splitlines()
    return tmp_path / f"{bench}.jsonl", report, [json.loads(x) for x in lines]


def test_nlgraph_fixture_imports_and_reports_the_corrupted_references(tmp_path: Path) -> None:
    data, report, dis = _import(tmp_path, "nlgraph")
    records = closurebench.load_instances(data, suite="grit")
    assert [r.split for r in records] == ["nlgraph"] * 3
    assert {r.task for r in records} == {"shortest_path"}
    assert report["records"] == 3 and report["agree"] == 1 and report["disagreements"] == 2
    assert report["skipped"] == {"no GRIT task": 1, "unreadable": 1}
    assert report["by_peer_task"]["connectivity"]["grit_task"] is None
    by_origin = {d["origin"]: d for d in dis}
    wrong = by_origin["shortest_path/test.json#1"]
    assert (wrong["peer_value"], wrong["ours"]) == (8, 7)
    assert "exceeds optimum 7" in wrong["reason"]
    assert "cannot be read" in by_origin["shortest_path/test.json#3"]["reason"]
    # The records keep our proven answer, and the peer's own question text.
    rec = {r.graph_id: r for r in records}["nlgraph:shortest_path/test.json#1"]
    assert rec.answer == 7 and rec.question.endswith(
        "Q: Give the shortest path from node 0 to node 4.\nA:"
    )
    unreadable = [s for s in report["skipped_items"] if s["kind"] == "unreadable"]
    assert "line 2" in unreadable[0]["reason"]


def test_greal_fixture_imports_and_reports_the_corrupted_colouring(tmp_path: Path) -> None:
    data, report, dis = _import(tmp_path, "g-real")
    records = closurebench.load_instances(data, suite="grit")
    assert sorted(r.task for r in records) == [
        "graph_coloring",
        "graph_coloring",
        "tsp",
        "vertex_cover",
    ]
    assert {(r.form, r.naming, r.split) for r in records} == {("realistic", "semantic", "g-real")}
    assert report["disagreements"] == 1 and report["skipped"] == {"unreadable": 1}
    (bad,) = dis
    assert bad["peer_task"] == "coloring" and (bad["peer_value"], bad["ours"]) == (2, 3)
    assert "colour conflict" in bad["reason"]
    tsp = next(r for r in records if r.task == "tsp")
    assert tsp.answer == 14 and tsp.names[0] == "Warehouse"
    assert "symmetric" in report["skipped_items"][0]["reason"]
    manifest = json.loads((tmp_path / "g-real.manifest.json").read_text())
    assert manifest["split"] == "g-real" and manifest["verification"]["disagreements"] == 1


def test_the_import_is_deterministic(tmp_path: Path) -> None:
    for bench in ("nlgraph", "g-real"):
        a = write_import(import_peer(bench, FIXTURES / bench), tmp_path / "a")
        b = write_import(import_peer(bench, FIXTURES / bench), tmp_path / "b")
        for key in a:
            assert a[key].read_bytes() == b[key].read_bytes(), key


def _script(records: list[Any]) -> dict[str, str]:
    return {r.question: f"<answer>{r.answer}</answer>" for r in records}


def _agent_script(records: list[Any]) -> list[str]:
    """Per record (in file order): a graph-tool call on its graph, then the tool's answer."""
    replies = []
    for r in records:
        names = list(r.names)
        data: dict[str, dict[str, int]] = {x: {} for x in names}
        for u, v, w in r.graph.edges:
            data[names[u]][names[v]] = w if r.graph.weighted else 1
        params = {}
        if "source" in r.params:
            params = {"start": names[r.params["source"]], "end": names[r.params["target"]]}
        call = {
            "problem_type": r.task,
            "graph": {"type": "adjacency_list", "data": data, "directed": False,
                      "weighted": r.graph.weighted},
            "parameters": params,
        }  # fmt: skip
        value = run_tool(call).value
        assert value == r.answer, (r.id, value)
        replies += [f"<graph>{json.dumps(call)}</graph>", f"<answer>{value}</answer>"]
    return replies


@pytest.mark.parametrize("bench", ["nlgraph", "g-real"])
def test_eval_direct_and_agent_run_on_the_import_and_report_shows_it(
    tmp_path: Path, bench: str
) -> None:
    data, _, _ = _import(tmp_path / "d", bench)
    records = closurebench.load_instances(data, suite="grit")
    runs = []
    for mode, script in (("direct", _script(records)), ("agent", _agent_script(records))):
        path = tmp_path / f"{mode}.json"
        path.write_text(json.dumps(script))
        out = tmp_path / mode
        res = runner.invoke(
            app,
            ["eval", str(data), "--model", "m", "--provider", "scripted", "--script", str(path),
             "--mode", mode, "--out", str(out), "--concurrency", "1", "--no-progress"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        results = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
        assert [r["outcome"] for r in results] == ["strict_correct"] * len(records), mode
        assert {r["split"] for r in results} == {bench}
        runs.append(str(out))
    res = runner.invoke(app, ["report", *runs, "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert f"| {bench} |" in md or f"| {bench} " in md


def test_wrong_format_and_unreadable_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetFileError, match=r"graph_3\.json: item '0' has no 'question'"):
        import_peer("nlgraph", FIXTURES / "g-real")  # G-REAL records: no NLGraph question
    with pytest.raises(DatasetFileError, match="not a G-REAL record"):
        import_peer("g-real", FIXTURES / "nlgraph")
    broken = tmp_path / "test.json"
    broken.write_text('{"0": {"question": "x",\n "answer": }')
    with pytest.raises(DatasetFileError, match=r"test\.json:2: not valid JSON"):
        import_peer("nlgraph", broken)
    with pytest.raises(DatasetFileError, match="does not exist"):
        import_peer("g-real", tmp_path / "missing")
    with pytest.raises(ConfigError, match="unknown peer benchmark"):
        import_peer("graphwiz", tmp_path)
    res = runner.invoke(
        app, ["import", "g-real", str(FIXTURES / "nlgraph"), "--out", str(tmp_path)]
    )
    assert (
        res.exit_code == 1 and "error:" in res.output and len(res.output.strip().splitlines()) == 1
    )


def test_fail_on_disagreement_exits_1_after_writing(tmp_path: Path) -> None:
    res = runner.invoke(
        app,
        ["import", "g-real", str(FIXTURES / "g-real"), "--out", str(tmp_path),
         "--fail-on-disagreement"],
    )  # fmt: skip
    assert res.exit_code == 1 and "disagree with our exact solver" in res.output
    assert (tmp_path / "g-real.jsonl").is_file()


def _published() -> Path | None:
    env = os.environ.get("CLOSUREBENCH_PEER_DATA")
    root = Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "external"
    return root if root.is_dir() else None


@pytest.mark.parametrize(
    ("bench", "folder", "records"), [("nlgraph", "nlgraph", 380), ("g-real", "g-real", 330)]
)
def test_the_published_files_import_with_every_reference_confirmed(
    tmp_path: Path, bench: str, folder: str, records: int
) -> None:
    root = _published()
    if root is None or not (root / folder).is_dir():
        pytest.skip("no local copy of the published files")
    result = import_peer(bench, root / folder)
    report = result.report()
    assert report["records"] == records
    assert report["disagreements"] == 0, result.disagreements[:3]
    assert report["skipped"].get("unreadable", 0) == 0
