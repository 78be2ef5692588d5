"""closurebench inside inspect_ai: tasks through the entry point, our scorer, logs in the report.

Over a loopback OpenAI-compatible server (inspect's ``openai-api`` provider, real HTTP),
the same scripted replies go through ``inspect eval closurebench/...`` and through
``closurebench eval``: every sample's outcome, strict and lenient verdict must equal the
harness's result for that id, the metrics must equal a count of them, and
``closurebench report`` must read the inspect log into the same numbers. Skipped without
the ``inspect`` extra.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from eval_cli import EVAL_APP
from fake_openai_server import FakeOpenAIServer, Reply
from inspect_ai import eval as inspect_eval
from typer.testing import CliRunner

import closurebench


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    """One server for the module: inspect keeps its model client (and base URL) per name."""
    with pytest.MonkeyPatch.context() as mp, FakeOpenAIServer() as fake:
        mp.setenv("FAKE_BASE_URL", fake.base_url)
        mp.setenv("FAKE_API_KEY", "k")
        yield fake


def _replies(records: list[Any]) -> Any:
    """Right for every other question (by position), a wrong-typed answer otherwise."""
    verdict = {r.question: i % 2 == 0 for i, r in enumerate(records)}
    answer = {r.question: r.answer for r in records}

    def reply(body: dict[str, Any]) -> Reply:
        q = body["messages"][-1]["content"]
        value = answer.get(q) if verdict.get(q, False) else "no idea"
        return Reply(json.dumps({"answer": value}))

    return reply


def _harness(data: Path, out: Path, base_url: str, mode: str = "direct") -> dict[str, Any]:
    args = [str(data), "--model", "m", "--base-url", base_url, "--out", str(out)]
    res = CliRunner().invoke(EVAL_APP, [*args, "--mode", mode, "--no-progress"])
    assert res.exit_code == 0, res.output
    lines = (out / "results.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def test_closure_task_scores_as_the_harness_does(
    server: FakeOpenAIServer, data: Any, tmp_path: Path
) -> None:
    records = data[1][:12]
    small = tmp_path / "small.jsonl"
    small.write_text("".join(json.dumps(r.to_json()) + "\n" for r in records))
    server.script(default=_replies(records))
    server.requests.clear()
    (log,) = inspect_eval(
        "closurebench/closure",
        task_args={"data": str(small)},
        model="openai-api/fake/m",
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=0,
        timeout=60,
    )
    assert log.status == "success", log.error
    bodies = list(server.chat_requests)
    assert len(bodies) == 12 and all(b.body["temperature"] == 0 for b in bodies)
    ours = _harness(small, tmp_path / "run", server.base_url)
    assert log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        score = sample.scores["closurebench_scorer"]
        mine = ours[str(sample.id)]
        assert score.metadata is not None
        assert score.metadata["outcome"] == mine["outcome"]
        assert score.value == {"strict": float(mine["strict"]), "lenient": float(mine["lenient"])}
    assert log.results is not None
    strict = next(s for s in log.results.scores if s.name == "strict")
    hand = sum(r["strict"] for r in ours.values()) / len(ours)
    assert strict.metrics["accuracy"].value == pytest.approx(hand)
    levels = {r.level for r in records}
    assert {f"closurebench/by_level_{lv}" for lv in levels} <= set(strict.metrics)
    outcome_keys = [k for k in strict.metrics if k.startswith("closurebench/outcomes_")]
    assert sum(strict.metrics[k].value for k in outcome_keys) == pytest.approx(1.0)

    # The report reads the inspect log into the same records as the harness's run.
    from closurebench.report import build_report
    from closurebench.report.aggregate import load_runs

    log_file = Path(log.location)
    (run,) = load_runs([log_file])
    by_id = {r.id: r for r in run.records}
    assert set(by_id) == set(ours)
    assert all(by_id[i].strict == ours[i]["strict"] for i in ours)
    assert all(by_id[i].category == ours[i]["category"] for i in ours)
    md, _ = build_report([log_file, tmp_path / "run"], tmp_path / "report")
    table = md.read_text()
    assert "ClosureBench: accuracy by level" in table and "fake/m" in table


def test_grit_agent_task_and_epochs_give_a_pass_at_k_report(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    ds = closurebench.create_dataset("grit:bfs", seed=2, size=4)
    records = [ds.record(i) for i in range(len(ds))]
    small = tmp_path / "grit.jsonl"
    small.write_text("".join(json.dumps(r.to_json()) + "\n" for r in records))
    server.script(default=lambda body: Reply("<answer>none</answer>"))
    server.requests.clear()
    (log,) = inspect_eval(
        "closurebench/grit",
        task_args={"data": str(small), "mode": "agent"},
        model="openai-api/fake/m",
        log_dir=str(tmp_path / "logs"),
        display="none",
        epochs=2,
        max_retries=0,
        timeout=60,
    )
    assert log.status == "success", log.error
    ours = _harness(small, tmp_path / "run", server.base_url, mode="agent")
    assert log.samples is not None and len(log.samples) == 8
    for sample in log.samples:
        assert sample.scores is not None
        score = sample.scores["closurebench_scorer"]
        assert score.metadata is not None
        assert score.metadata["outcome"] == ours[str(sample.id)]["outcome"]
        assert score.metadata["mode"] == "agent"
    from closurebench.report.aggregate import load_runs
    from closurebench.report.samples import repeated_sampling

    runs = load_runs([Path(log.location)])
    assert [r.sample for r in runs] == [1, 2]
    (group,) = repeated_sampling(runs).groups
    assert group.samples == 2 and group.instances == 4


def test_a_program_mode_without_a_wall_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from closurebench.evaluate.inspect_tasks import closure
    from closurebench.sandbox import SandboxUnavailableError, isolation

    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.delenv("CLOSUREBENCH_SANDBOX_ISOLATION", raising=False)
    monkeypatch.setenv("PATH", str(empty))  # no bwrap on this PATH: no wall
    monkeypatch.setattr(isolation, "_PROBED", {})  # the walls probed again, under this PATH
    with pytest.raises(SandboxUnavailableError, match="bubblewrap"):
        closure(size=2, mode="program-python", sandbox="bwrap")


def test_program_mode_runs_the_models_program_in_the_sandbox(
    server: FakeOpenAIServer, data: Any, tmp_path: Path
) -> None:
    from closurebench.sandbox import SandboxUnavailableError, require_wall

    try:
        wall = str(require_wall())
    except SandboxUnavailableError as exc:
        pytest.skip(f"no sandbox wall on this machine: {exc}")
    records = data[1][:4]
    small = tmp_path / "small.jsonl"
    small.write_text("".join(json.dumps(r.to_json()) + "\n" for r in records))
    answer = {r.question: r.answer for r in records}

    def program(body: dict[str, Any]) -> Reply:
        value = answer[body["messages"][-1]["content"]]
        code = f"import json\nprint(json.dumps({value!r}))"
        return Reply(f"```python\n{code}\n```")

    server.script(default=program)
    (log,) = inspect_eval(
        "closurebench/closure",
        task_args={"data": str(small), "mode": "program-python"},
        model="openai-api/fake/m",
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=0,
        timeout=60,
    )
    assert log.status == "success", log.error
    assert log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        metadata = sample.scores["closurebench_scorer"].metadata
        assert metadata is not None and metadata["outcome"] == "strict_correct"
        extra = sample.store["closurebench"]["extra"]
        assert extra["isolation"] == wall and not extra.get("exec_error")


def test_grit_agent_tools_task_calls_the_tool_natively_as_the_harness_does(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    """``mode=agent-tools``: the model's native tool calls answered in the episode."""
    from closurebench.evaluate.reference.models import reader_call

    ds = closurebench.create_dataset("grit:shortest_path", seed=3, size=2)
    records = [ds.record(i) for i in range(len(ds))]
    small = tmp_path / "grit.jsonl"
    small.write_text("".join(json.dumps(r.to_json()) + "\n" for r in records))
    by_question = {r.question: r for r in records}

    def reply(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        texts = [
            c if isinstance(c, str) else " ".join(p.get("text", "") for p in c or ())
            for c in (m.get("content") for m in messages)
        ]
        rec = next(r for q, r in by_question.items() if any(q in t for t in texts))
        if not any(m["role"] == "tool" for m in messages):  # first turn: call the tool
            call = json.dumps(reader_call(rec))
            return Reply("", finish_reason="tool_calls", tool_calls=(("graph_tool", call),))
        return Reply(f"<answer>{rec.answer}</answer>")

    for out in ("inspect", "harness"):
        server.script(default=reply)
        server.requests.clear()
        if out == "inspect":
            (log,) = inspect_eval(
                "closurebench/grit",
                task_args={"data": str(small), "mode": "agent-tools"},
                model="openai-api/fake/m",
                log_dir=str(tmp_path / "logs"),
                display="none",
                max_retries=0,
                timeout=60,
            )
            assert log.status == "success", (log.error, server.errors)
        else:
            ours = _harness(small, tmp_path / "run", server.base_url, mode="agent-tools")
        bodies = [req.body for req in server.chat_requests]
        assert len(bodies) == 2 * len(records)  # a tool turn and an answer turn each
        assert all(b["tools"][0]["function"]["name"] == "graph_tool" for b in bodies)
        answered = [b for b in bodies if any(m["role"] == "tool" for m in b["messages"])]
        assert len(answered) == len(records)
    assert log.samples is not None and len(log.samples) == len(records)
    for sample in log.samples:
        assert sample.scores is not None
        metadata = sample.scores["closurebench_scorer"].metadata
        assert metadata is not None
        assert metadata["outcome"] == ours[str(sample.id)]["outcome"] == "strict_correct"
        extra = sample.store["closurebench"]["extra"]
        assert extra["tool_calls"] == 1 and extra["structure"]["cls"] == "exact"


def test_graph_tool_in_inspects_own_tool_loop(tmp_path: Path) -> None:
    """``graph_tool()`` in an inspect agent of one's own: inspect runs it, as our mode does."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate, use_tools

    from closurebench.evaluate.inspect_tasks import graph_tool
    from closurebench.tools import run_tool

    call = {
        "problem_type": "shortest_path",
        "graph": {"data": {"a": {"b": 1, "c": 5}, "b": {"c": 1}}, "directed": False,
                  "weighted": True},
        "parameters": {"start": "a", "end": "c"},
    }  # fmt: skip
    bad = {**call, "parameters": {"start": "a", "end": "nowhere"}}  # our error result
    outputs = [
        ModelOutput.for_tool_call("mockllm/model", "graph_tool", call),
        ModelOutput.for_tool_call("mockllm/model", "graph_tool", bad),
        ModelOutput.from_content("mockllm/model", "<answer>2</answer>"),
    ]
    for out in outputs:  # given, so mockllm counts no tokens (that would fetch tiktoken)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    model = get_model("mockllm/model", custom_outputs=outputs)
    task = Task(
        dataset=[Sample(input="Shortest path from a to c?", target="2")],
        solver=[use_tools([graph_tool()]), generate()],
    )
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    (sample,) = log.samples
    results = [m for m in sample.messages if isinstance(m, ChatMessageTool)]
    assert [m.text for m in results] == [run_tool(call).text, run_tool(bad).text]
    assert "Total Length: 2" in results[0].text and results[1].error is None
    assert results[1].text.startswith("Error (") and "nowhere" in results[1].text
    assert sample.output.completion == "<answer>2</answer>"
