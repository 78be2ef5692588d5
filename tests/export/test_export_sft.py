"""``export sft``: every target on both suites, checked against the evaluation itself.

* the system and user turns are what the target's mode's own ``messages`` returns;
* each record, replayed through its mode's own ``run`` (its assistant turns as the model's
  replies), is sent exactly the exported turns and scores strictly correct — the answer
  and CoT replies through the mode's scorer, the programs through the sandbox, the agent
  episodes through the episode loop and the graph tool;
* the agent targets' tool results are the graph tool's own answers to the exported calls.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from closurebench.evaluate.modes import get_mode, score_text
from closurebench.evaluate.modes.agent import graph_tool_spec
from closurebench.evaluate.modes.base import Mode, ModeOutput
from closurebench.evaluate.modes.program import ProgramMode
from closurebench.evaluate.providers.base import Completion, apply_stop
from closurebench.jsonl import canonical_json
from closurebench.schema import SftRecord, parse_training, schema_for
from closurebench.tools import run_tool
from closurebench.train.export import (
    TARGETS,
    computation_line,
    make_mode,
    sft_records,
    targets_for,
    verify_program,
)

_GRAPH = re.compile(r"<graph>(.*?)</graph>", re.S)


def _replay(row: SftRecord, record: Any, mode: Mode) -> tuple[ModeOutput, list[list[dict]]]:
    """Run ``mode`` on ``record`` with the row's assistant turns as the model's replies.

    Each reply is cut at the request's stop sequences, as a server does. Returns the
    mode's output and the messages it sent with each request.
    """
    replies = [m for m in row.messages if m.role == "assistant"]
    sent: list[list[dict]] = []

    async def complete(
        messages: list[dict],
        *,
        stop: Sequence[str] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        sent.append(copy.deepcopy(messages))
        turn = replies[len(sent) - 1]
        calls = tuple(
            {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
            for c in turn.tool_calls or ()
        )
        text, _ = apply_stop(turn.content or "", stop)
        return Completion(
            text=text,
            reasoning=None,
            prompt_tokens=None,
            completion_tokens=None,
            latency_s=0.0,
            finish_reason="tool_calls" if calls else "stop",
            tool_calls=calls,
        )

    return asyncio.run(mode.run(record, complete)), sent


def _prefixes(row: SftRecord) -> list[list[dict]]:
    """The exported chat before each assistant turn: what the mode must have sent."""
    messages = row.to_json()["messages"]
    return [messages[:i] for i, m in enumerate(messages) if m["role"] == "assistant"]


@pytest.mark.parametrize("target", ["answer", "cot", "agent", "agent-tools"])
def test_replayed_targets_are_sent_the_exported_turns_and_score_correct(
    suite_data: tuple[Path, list[Any]], target: str
) -> None:
    _, records = suite_data
    rows = sft_records(records, target)
    assert len(rows) == len(records)
    mode = get_mode(TARGETS[target].mode)
    for record, row in zip(records, rows, strict=True):
        assert row.id == record.id and row.target == target and row.mode == mode.name
        # the system and user turns are the mode's own
        assert [m.to_json() for m in row.messages[:2]] == mode.messages(record)
        out, sent = _replay(row, record, mode)
        assert out.score.strict, (row.id, out.score.reason, row.messages[-1].content)
        assert sent == _prefixes(row), row.id
        assert row.messages[-1].role == "assistant"


def test_answer_and_cot_replies_are_the_instance_answer_in_the_mode_form(
    closure_data: tuple[Path, list[Any]], grit_data: tuple[Path, list[Any]]
) -> None:
    for records in (closure_data[1], grit_data[1]):
        answers = sft_records(records, "answer")
        cots = sft_records(records, "cot")
        for record, a, c in zip(records, answers, cots, strict=True):
            reply = a.messages[-1].content or ""
            if record.suite == "closure":
                assert json.loads(reply) == {"answer": record.answer}
            else:
                assert reply.startswith("<answer>") and reply.endswith("</answer>")
            # the CoT reply is its stated computation, then the same final answer
            line, final = (c.messages[-1].content or "").split("\n")
            assert line.startswith(f"Task: {computation_line(record)} ")
            assert final == reply
            assert score_text(record, reply).strict
            # the scorer tells a wrong answer apart: the check above can fail
            wrong = '{"answer": "no such node"}' if record.suite == "closure" else "<answer>-1"
            assert not score_text(record, wrong).strict


def test_computation_line_names_the_anchors_and_parameters(
    closure_data: tuple[Path, list[Any]], grit_data: tuple[Path, list[Any]]
) -> None:
    from closurebench.tasks.closure import CLOSURE_TASKS

    for record in closure_data[1]:
        line = computation_line(record)
        definition = (type(CLOSURE_TASKS[record.category]).__doc__ or "").splitlines()[0]
        for key in ("X", "Y", "k"):
            if re.search(rf"\b{key}\b", definition):
                value = record.anchors[key]
                named = record.labels[value] if key != "k" else str(value)
                assert named in line, (record.category, line)
        if not {"X", "Y"} & set(record.labels):  # a label may itself be the letter
            assert not re.search(r"\b[XY]\b", line), (record.category, line)
    by_task = {r.task: r for r in grit_data[1]}
    sp = by_task["shortest_path"]
    src, dst = sp.names[sp.params["source"]], sp.names[sp.params["target"]]
    assert computation_line(sp) == (
        f"Weighted shortest path between two distinct nodes (source {src}, target {dst})."
    )
    assert computation_line(by_task["vertex_cover"]) == "Minimum vertex cover size."
    multi = next(r for r in closure_data[1] if r.category == "multi_query")
    assert computation_line(multi).endswith(": reachable, degree.")


@pytest.mark.parametrize("target", ["agent", "agent-tools"])
def test_agent_tool_results_are_what_the_graph_tool_returns(
    suite_data: tuple[Path, list[Any]], target: str
) -> None:
    _, records = suite_data
    calls = 0
    for row in sft_records(records, target):
        msgs = row.messages
        if target == "agent":
            assert row.tools is None
            for turn, answer in itertools.pairwise(msgs[2:]):
                if turn.role != "assistant" or "<graph>" not in (turn.content or ""):
                    continue
                payload = _GRAPH.findall(turn.content or "")[-1]
                assert answer.role == "user"
                assert answer.content == f"<result>\n{run_tool(payload).text}\n</result>"
                calls += 1
        else:
            assert json.loads(row.tools or "") == [graph_tool_spec()]
            for i, turn in enumerate(msgs):
                for k, call in enumerate(turn.tool_calls or ()):
                    answer = msgs[i + 1 + k]
                    assert answer.role == "tool" and answer.tool_call_id == call.id
                    assert answer.content == run_tool(call.function.arguments).text
                    calls += 1
        assert msgs[-1].role == "assistant" and "<answer>" in (msgs[-1].content or "")
    assert calls >= len(records)  # every episode called the tool at least once


@pytest.mark.parametrize("target", ["ein", "python"])
def test_program_targets_run_correct_in_their_mode(
    closure_data: tuple[Path, list[Any]],
    grit_data: tuple[Path, list[Any]],
    wall: str,
    target: str,
) -> None:
    records = closure_data[1] + (grit_data[1] if target == "python" else [])
    rows = sft_records(records, target)
    mode = get_mode(TARGETS[target].mode)
    assert isinstance(mode, ProgramMode)
    mode.use_sandbox(wall)
    fence = "```" + ("ein" if target == "ein" else "python") + "\n"
    for record, row in zip(records, rows, strict=True):
        reply = row.messages[-1].content or ""
        assert reply.startswith(fence) and reply.rstrip().endswith("```")
        score = verify_program(record, row, mode)
        assert score.strict, (row.id, score.reason)
    # the full mode path on a few: extraction, sandbox, scoring, the turns it sends
    for record, row in list(zip(records, rows, strict=True))[::9]:
        out, sent = _replay(row, record, mode)
        assert out.score.strict and out.extra["exec_outcome"] == "ok", row.id
        assert sent == _prefixes(row)


def test_a_wrong_program_does_not_pass_the_check(
    closure_data: tuple[Path, list[Any]], wall: str
) -> None:
    record = next(r for r in closure_data[1] if r.category == "reach_then_count")
    row = sft_records([record], "python")[0]
    wrong = row.model_copy(
        update={
            "messages": [
                *row.messages[:2],
                row.messages[2].model_copy(
                    update={"content": f"```python\nprint({record.answer + 1})\n```\n"}
                ),
            ]
        }
    )
    mode = get_mode("program-python")
    assert isinstance(mode, ProgramMode)
    mode.use_sandbox(wall)
    assert verify_program(record, row, mode).strict
    assert not verify_program(record, wrong, mode).strict


def test_verify_programs_option_runs_the_sandbox(
    closure_data: tuple[Path, list[Any]], wall: str
) -> None:
    rows = sft_records(closure_data[1][:4], "ein", verify_programs=True, sandbox=wall)
    assert [r.target for r in rows] == ["ein"] * 4


def test_ein_card_changes_only_the_system_prompt(closure_data: tuple[Path, list[Any]]) -> None:
    records = closure_data[1][:3]
    ours = sft_records(records, "ein")
    paper = sft_records(records, "ein", ein_card="paper")
    mode = make_mode("program-ein", ein_card="paper")
    for record, a, b in zip(records, ours, paper, strict=True):
        assert b.messages[0].content == mode.messages(record)[0]["content"]
        assert a.messages[0].content != b.messages[0].content
        assert a.messages[1:] == b.messages[1:]


def test_every_record_fits_the_published_schema(suite_data: tuple[Path, list[Any]]) -> None:
    _, records = suite_data
    validator = jsonschema.Draft202012Validator(schema_for("sft"))
    for target in targets_for(str(records[0].suite)):
        for row in sft_records(records[:8], target):
            line = json.loads(canonical_json(row.to_json()))
            errors = sorted(validator.iter_errors(line), key=str)
            assert not errors, f"{row.id} {target}: {errors[0].message}"
            assert parse_training(line, "sft") == row
            # every column is flat: strings, numbers, null, or the list of messages
            for key, value in line.items():
                assert key == "messages" or not isinstance(value, dict | list), key


def test_targets_apply_where_evaluation_supports_them() -> None:
    assert targets_for("closure") == ["answer", "cot", "ein", "python", "agent", "agent-tools"]
    assert targets_for("grit") == ["answer", "cot", "python", "agent", "agent-tools"]


def test_export_runs_inside_a_running_event_loop(closure_data: tuple[Path, list[Any]]) -> None:
    """A notebook has a loop running: the agent episodes still run (on their own loop)."""

    async def inside() -> list[SftRecord]:
        return sft_records(closure_data[1][:2], "agent")

    rows = asyncio.run(inside())
    assert rows == sft_records(closure_data[1][:2], "agent")
