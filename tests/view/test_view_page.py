"""``closurebench view``: the page holds every record of every mode, escaped, deterministic."""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from view_helpers import HOSTILE, Runs, page_data, shared_runs, viewer

MODES = ("direct", "cot", "program-python", "program-ein", "agent", "agent-tools")

View = Callable[..., tuple[Path, str]]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every mode's run, made once per session."""
    return shared_runs(tmp_path_factory)


@pytest.fixture
def view(tmp_path: Path) -> View:
    """``closurebench view`` through the CLI: ``view(run_dir, ...) -> (path, page)``."""
    return viewer(tmp_path)


def _by_key(data: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """``(run label, id) -> embedded record``."""
    labels = [run["label"] for run in data["runs"]]
    return {(labels[r["_run"]], r["id"]): r for r in data["records"]}


def test_every_mode_s_records_are_on_the_page(runs: Runs, view: View) -> None:
    _, page = view(*(runs.dirs[m] for m in MODES))
    data = page_data(page)
    assert [run["mode"] for run in data["runs"]] == list(MODES)
    embedded = _by_key(data)
    for index, mode in enumerate(MODES):
        label = data["runs"][index]["label"]
        assert html.escape(label) in page  # the run's header
        instances = runs.instances(mode)
        dataset = data["datasets"][data["runs"][index]["dataset"]]["instances"]
        records = runs.records(mode)
        assert records
        for rec in records:
            got = embedded[(label, rec.id)]
            assert got["outcome"] == rec.outcome and got["mode"] == mode
            assert got.get("extracted") == rec.extracted
            assert got["response"] == rec.response
            reference = dataset[rec.id]
            assert reference["question"] == instances[rec.id].question
            assert reference["answer"] == instances[rec.id].answer
            assert got["extra"] == rec.extra  # program output, trajectory: all of extra
            if mode.startswith("program"):
                assert got["extra"]["program"] and got["extra"]["stdout_head"]
            if mode.startswith("agent"):
                texts = [step["text"] for step in got["extra"]["trajectory"]]
                assert any("<result>" in t for t in texts), texts
                assert any("<answer>" in t for t in texts), texts
    # the facets: every outcome present, with the run and the suites as filters
    facets = {f["key"]: f for f in data["facets"]}
    outcomes = {str(r.outcome) for m in MODES for r in runs.records(m)}
    assert set(facets["outcome"]["values"]) == outcomes
    assert {"run", "mode", "suite", "split", "category", "strict"} <= set(facets)
    assert facets["run"]["shown"] == [run["label"] for run in data["runs"]]


def test_the_header_gives_counts_and_accuracy(runs: Runs, view: View) -> None:
    _, page = view(runs.dirs["evil"], runs.dirs["program-ein"])
    evil = runs.records("evil")
    answered = [r for r in evil if r.outcome != "error"]
    assert f"{len(evil)} results · {len(answered)} answered · 1 error" in page
    assert f"strict <b>0.0 % (0/{len(answered)})</b>" in page
    assert "provider scripted" in page and "provider reference" in page
    assert "sandbox " in page  # the program run's isolation level
    assert str(runs.closure) in page


def test_model_text_is_escaped(runs: Runs, view: View) -> None:
    _, page = view(runs.dirs["evil"], runs.dirs["handmade"])
    # Only the page's own two script elements, no markup from a reply.
    assert page.count("<script") == 2 and page.count("</script>") == 2
    assert "<img" not in page and 'onerror="document' not in page and "<b>bold" not in page
    data = page_data(page)
    texts = json.dumps(data, ensure_ascii=False)
    assert json.dumps(HOSTILE)[1:-1] in texts  # the text itself is kept, as data
    assert any(HOSTILE in r.get("response", "") for r in data["records"])
    assert any(r.get("extracted") == HOSTILE for r in data["records"])


def test_the_same_runs_give_the_same_page(runs: Runs, view: View, tmp_path: Path) -> None:
    dirs = [runs.dirs["agent"], runs.dirs["program-python"]]
    _, first = view(*dirs, out=tmp_path / "a.html")
    _, second = view(*dirs, out=tmp_path / "b.html")
    assert first == second


def test_records_without_a_known_source_are_shown_whole(runs: Runs, view: View) -> None:
    _, page = view(runs.dirs["handmade"], "--data", runs.closure)
    data = page_data(page)
    (rec,) = [r for r in data["records"] if r["id"] != "not-in-the-dataset"]
    assert rec["reasoning"].startswith("First I count") and rec["response"].endswith("naïve ∑")
    assert rec["harness_deaths"] == {"count": 2, "gave_up": True}
    assert rec["usage"]["reasoning_tokens"] == 5
    assert rec["extra"]["custom_probe"]["steps"] == [1, 2]
    assert data["datasets"][0]["instances"][rec["id"]]["question"]
    # the id the dataset lacks: a note in the header, and one where its question would be
    assert "1 of 2 results have no instance in" in page
    assert "not-in-the-dataset" not in data["datasets"][0]["instances"]


def test_a_gone_dataset_is_a_note_and_data_brings_the_questions_back(
    runs: Runs, view: View, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs.dirs["direct"], run)
    info = json.loads((run / "run.json").read_text())
    info["dataset"]["path"] = str(tmp_path / "gone.jsonl")
    (run / "run.json").write_text(json.dumps(info))
    _, page = view(run)
    data = page_data(page)
    assert data["runs"][0]["dataset"] is None
    assert "the question is not available" in data["runs"][0]["question_note"]
    assert "pass --data FILE" in page
    _, page = view(run, "--data", runs.closure)
    data = page_data(page)
    assert len(data["datasets"][0]["instances"]) == len(runs.records("direct"))
    assert "is gone" not in page


def test_a_changed_dataset_is_said(runs: Runs, view: View, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs.dirs["direct"], run)
    info = json.loads((run / "run.json").read_text())
    info["dataset"]["sha256"] = "0" * 64
    (run / "run.json").write_text(json.dumps(info))
    _, page = view(run)
    assert "changed since the run" in page


def test_the_default_page_goes_into_the_first_run(runs: Runs, tmp_path: Path) -> None:
    from view_helpers import cli

    run = tmp_path / "run"
    shutil.copytree(runs.dirs["cot"], run)
    res = cli("view", str(run), str(runs.dirs["direct"]))
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == str(run / "view.html")
    assert len(page_data((run / "view.html").read_text())["runs"]) == 2
