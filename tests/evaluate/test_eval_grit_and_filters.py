"""closurebench eval: GRIT data over HTTP, and the --categories / --sample / --limit filters."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from eval_cli import EVAL_APP
from fake_openai_server import Reply
from typer.testing import CliRunner

import closurebench
from closurebench.evaluate.records import iter_results
from closurebench.generate.grit import GritConfig, write_split
from closurebench.tasks.closure import CLOSURE_TASKS


def _results(out: Path) -> list[dict[str, Any]]:
    return list(iter_results(out / "results.jsonl"))


def test_grit_eval_end_to_end_over_http(fake_openai: Any, tmp_path: Path) -> None:
    path, _, _ = write_split(GritConfig(split="test", seed=3, count=6, n_max=12), tmp_path / "d")
    records = closurebench.load_instances(path, suite="grit")
    by_q = {r.question: r for r in records}

    def step(body: dict[str, Any]) -> Any:
        rec = by_q[body["messages"][-1]["content"]]
        answer = rec.answer
        text = ", ".join(map(str, answer)) if isinstance(answer, list) else str(answer)
        if rec.view.endswith("/random"):
            text = "I am not sure."  # no answer block at all
        elif rec.view.endswith("/mixed"):
            text = f"<think>hm</think><answer>{text}</answer>"
        else:
            text = f"Thinking... the result is <answer>{text}</answer>"
        return Reply(text, prompt_tokens=100, completion_tokens=7)

    fake_openai.script(default=step)
    out = tmp_path / "run"
    res = CliRunner().invoke(
        EVAL_APP,
        [str(path), "--model", "fake-model", "--base-url", fake_openai.base_url,
         "--mode", "cot", "--out", str(out), "--concurrency", "4", "--no-progress"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    results = _results(out)
    assert len(results) == len(records) == 48
    by_id = {r.id: r for r in records}
    for r in results:
        view = by_id[r["id"]].view
        expected = "no_answer" if view.endswith("/random") else "strict_correct"
        assert r["outcome"] == expected, (view, r["response"], r.get("error"))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["outcomes"]["strict_correct"] == 36 and summary["outcomes"]["no_answer"] == 12
    # The GRIT system prompt asks for an <answer> block.
    first = fake_openai.chat_requests[0]
    assert "<answer>" in first.body["messages"][0]["content"]


def test_cli_filters_select_the_right_instances(tmp_path: Path) -> None:
    data = tmp_path / "c"
    closurebench.generate_split("heldout", seed=2, count=2 * len(CLOSURE_TASKS), out=data)
    path = data / "closure-heldout.jsonl"
    script = tmp_path / "script.json"
    script.write_text(json.dumps([json.dumps({"answer": 0})] * 60))

    def run(out: str, *extra: str) -> list[dict[str, Any]]:
        res = CliRunner().invoke(
            EVAL_APP,
            [str(path), "--model", "m", "--provider", "scripted", "--script", str(script),
             "--out", str(tmp_path / out), "--concurrency", "1", "--no-progress", *extra],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        return _results(tmp_path / out)

    only = run("cat", "--categories", "reachability,cousin")
    assert Counter(r["category"] for r in only) == {"reachability": 2, "cousin": 2}
    n = len(CLOSURE_TASKS)
    sampled = run("sample", "--sample", str(n))
    assert len(sampled) == n and len({r["category"] for r in sampled}) == n
    limited = run("limit", "--limit", "3")
    assert len(limited) == 3
