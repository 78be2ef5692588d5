"""``--ein-card paper`` end to end, and implicit questions through the harness (issue 21, item 6).

* ``closurebench eval --mode program-ein --ein-card paper`` against the loopback
  OpenAI-compatible server: every request's system prompt carries the paper's App. F card
  (and not ours), the model's programs run in the sandbox and score, and ``run.json``
  records ``ein_card``; the default still sends our card and records ``ours``.
* The split is generated with ``--conventions implicit``: the harness, the sandboxed
  programs and the reference agent (which reads each question back with the reader)
  handle the paper's wording like any other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import Reply
from typer.testing import CliRunner

import closurebench
from closurebench.ein import PAPER_CARD, syntax_card
from closurebench.evaluate.modes.program import NODE_ORDER
from closurebench.evaluate.program import oracle_program
from closurebench.evaluate.records import iter_results
from closurebench.sandbox import isolation_available
from closurebench.surface.closure import read_wording

#: Categories of the split: ambiguous ones (asked implicitly) and two with one reading.
CATEGORIES = ("reach_then_count", "negative_reach", "kinship_complex", "reachability",
              "multi_query")  # fmt: skip


@pytest.fixture(scope="module")
def implicit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """Two instances of each of :data:`CATEGORIES`, worded as the paper words them."""
    out = tmp_path_factory.mktemp("implicit")
    closurebench.generate_split(
        "heldout", seed=3, count=10, categories=CATEGORIES, conventions="implicit", out=out
    )
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


def _wall() -> list[str]:
    """Our own verified programs may run without the wall where bubblewrap does not work."""
    works, _ = isolation_available("bwrap")
    return [] if works else ["--unsafe-no-sandbox"]


def _invoke(data: Path, out: Path, *args: str) -> Any:
    return CliRunner().invoke(
        EVAL_APP, [str(data), "--out", str(out), "--no-progress", "--concurrency", "2", *args]
    )


def _program_replies(records: list[Any]) -> Any:
    """A scripted model that answers each question with its instance's own Ein program."""
    by_question = {r.question: r for r in records}

    def step(body: dict[str, Any]) -> Reply:
        record = by_question[body["messages"][-1]["content"]]
        return Reply(f"```ein\n{oracle_program(record, 'ein')}```", completion_tokens=40)

    return step


def test_program_ein_with_the_paper_card_end_to_end(
    implicit: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    data, records = implicit
    assert any(read_wording(r.question, r.category) == "implicit" for r in records)
    fake_openai.script(default=_program_replies(records))
    out = tmp_path / "paper"
    res = _invoke(data, out, "--mode", "program-ein", "--model", "m", "--base-url",
                  fake_openai.base_url, "--ein-card", "paper", *_wall())  # fmt: skip
    assert res.exit_code == 0, res.output

    # every request carried the paper's card, not ours, after the same instructions
    systems = [req.body["messages"][0]["content"] for req in fake_openai.chat_requests]
    assert len(systems) == len(records) == 10
    for system in systems:
        assert system.endswith("\n\n" + PAPER_CARD)
        assert NODE_ORDER in system
        assert "BUILTINS:" not in system and syntax_card() not in system

    # the programs ran in the sandbox and score like any answer
    results = list(iter_results(out / "results.jsonl"))
    assert len(results) == 10
    bad = [(r["id"], r["reason"]) for r in results if r["outcome"] != "strict_correct"]
    assert not bad, bad
    assert all(r["extra"]["exec_outcome"] == "ok" for r in results)

    run = json.loads((out / "run.json").read_text())
    assert run["ein_card"] == "paper" and run["mode"] == "program-ein"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ein_card"] == "paper"


def test_program_ein_default_sends_and_records_our_card(
    implicit: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    data, records = implicit
    fake_openai.script(default=_program_replies(records))
    out = tmp_path / "ours"
    res = _invoke(data, out, "--mode", "program-ein", "--model", "m", "--base-url",
                  fake_openai.base_url, "--limit", "2", *_wall())  # fmt: skip
    assert res.exit_code == 0, res.output
    system = fake_openai.chat_requests[0].body["messages"][0]["content"]
    assert system.endswith("\n\n" + syntax_card()) and PAPER_CARD not in system
    assert json.loads((out / "run.json").read_text())["ein_card"] == "ours"


def test_ein_card_errors_name_the_value_and_the_fix(
    implicit: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    data, _ = implicit
    bad = _invoke(data, tmp_path / "a", "--mode", "program-ein", "--model", "oracle-program",
                  "--ein-card", "appendix", *_wall())  # fmt: skip
    assert bad.exit_code == 1
    assert "--ein-card 'appendix' is unknown; choose one of ours, paper" in bad.output
    wrong_mode = _invoke(data, tmp_path / "b", "--mode", "program-python", "--model",
                         "oracle-program", "--ein-card", "paper", *_wall())  # fmt: skip
    assert wrong_mode.exit_code == 1
    assert "--ein-card paper applies to --mode program-ein only" in wrong_mode.output
    assert not (tmp_path / "a" / "results.jsonl").exists()


def test_the_reference_agent_reads_implicit_questions(
    implicit: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    """The reader parses the paper's wording back to the exact graph: 100 % strict."""
    data, records = implicit
    res = _invoke(data, tmp_path / "reader", "--mode", "agent", "--model", "reader")
    assert res.exit_code == 0, res.output
    results = list(iter_results(tmp_path / "reader" / "results.jsonl"))
    assert len(results) == len(records)
    assert all(r["strict"] for r in results), [(r["id"], r["reason"]) for r in results]
