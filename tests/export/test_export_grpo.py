"""``export grpo``: prompts as the evaluation sends them; rewards score from the columns alone.

A reward function gets ``completions`` and the other columns as keyword lists (TRL's
signature) and never the dataset file: everything below scores through
``instance_from_ground_truth`` and the repository's scorers, reading only a row's columns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from closurebench.errors import ConfigError, DatasetFileError
from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.modes.agent import graph_tool_spec
from closurebench.evaluate.reference import reader_call
from closurebench.jsonl import canonical_json
from closurebench.schema import (
    ClosureInstance,
    GritInstance,
    GrpoRecord,
    instance_from_ground_truth,
    parse_training,
    schema_for,
)
from closurebench.scoring import score_closure, score_grit
from closurebench.scoring.structure import score_structure
from closurebench.tools import run_tool
from closurebench.train.export import DEFAULT_GRPO_MODES, grpo_records


def _reply(row: GrpoRecord, value: Any) -> str:
    """A reply carrying ``value`` in the form the row's prompt asks for (from columns only)."""
    if row.suite == "closure" and row.mode != "agent":
        return json.dumps({"answer": value})
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return f"<think>Done.</think>\n<answer>{text}</answer>"


def _wrong(row: GrpoRecord, value: Any) -> Any:
    """A value that is not the reference (built from the row's own columns)."""
    names = json.loads(row.name_map)["names"]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return next(n for n in names if n != value)
    if isinstance(value, list):
        return [*value, "no such node"] if not value else value[1:]
    return {k: _wrong(row, v) for k, v in value.items()}


def _score(row: GrpoRecord, text: str) -> bool:
    record = instance_from_ground_truth(row.ground_truth)
    if row.suite == "grit":
        assert isinstance(record, GritInstance)
        return score_grit(record, text).strict
    assert isinstance(record, ClosureInstance)
    return score_closure(record, text).strict


def test_prompts_are_the_default_modes_turns(suite_data: tuple[Path, list[Any]]) -> None:
    _, records = suite_data
    rows = grpo_records(records)
    for record, row in zip(records, rows, strict=True):
        assert row.mode == DEFAULT_GRPO_MODES[str(record.suite)]
        assert [m.to_json() for m in row.prompt] == get_mode(row.mode).messages(record)
        assert row.tools is None
        assert (row.id, row.suite, row.split, row.n) == (
            record.id,
            record.suite,
            record.split,
            record.n,
        )


@pytest.mark.parametrize("mode", ["direct", "cot", "agent", "agent-tools", "program-python"])
def test_any_mode_of_the_suite_gives_its_own_turns(
    suite_data: tuple[Path, list[Any]], mode: str
) -> None:
    records = suite_data[1][:5]
    rows = grpo_records(records, mode)
    for record, row in zip(records, rows, strict=True):
        assert row.mode == mode
        assert [m.to_json() for m in row.prompt] == get_mode(mode).messages(record)
        if mode == "agent-tools":
            assert json.loads(row.tools or "") == [graph_tool_spec()]
        else:
            assert row.tools is None


def test_ground_truth_round_trips_to_the_scorer(suite_data: tuple[Path, list[Any]]) -> None:
    _, records = suite_data
    for record, row in zip(records, grpo_records(records), strict=True):
        assert instance_from_ground_truth(row.ground_truth) == record
        value = json.loads(row.answer)
        assert value == record.answer
        # the reference answer scores correct, a wrong one wrong: from the columns only
        assert _score(row, _reply(row, value)), (row.id, _reply(row, value))
        assert not _score(row, _reply(row, _wrong(row, value))), (row.id, value)


def test_name_map_is_the_view_names(grit_data: tuple[Path, list[Any]]) -> None:
    _, records = grit_data
    for record, row in zip(records, grpo_records(records), strict=True):
        assert json.loads(row.name_map) == {"names": record.names, "aliases": record.aliases}
        assert (row.task, row.graph_id, row.category, row.level) == (
            record.task,
            record.graph_id,
            None,
            None,
        )


def test_structure_scores_from_the_ground_truth(suite_data: tuple[Path, list[Any]]) -> None:
    """s_inv of a submitted graph, against the gold graph the column carries."""
    _, records = suite_data
    checked = 0
    for record, row in zip(records, grpo_records(records), strict=True):
        if record.suite == "grit":
            call = reader_call(record)
        else:
            from closurebench.evaluate.reference.plans import closure_call

            call = closure_call("descendants", record.graph, record.labels)
        truth = instance_from_ground_truth(row.ground_truth)
        graph = run_tool(call).graph
        assert graph is not None
        assert score_structure(truth, graph).s_inv == 1.0
        # one edge missing: s_inv = (m - 1) / m, by hand
        data = call["graph"]["data"]
        edges = [(u, v) for u, nbrs in data.items() for v in nbrs]
        if len(edges) < 2:
            continue
        u, v = edges[0]
        del data[u][v]
        if not call["graph"]["directed"] and u in data.get(v, {}):
            continue  # the edge is listed both ways: one removal leaves it in
        m = len(record.graph.edges)
        short = run_tool(call).graph
        assert short is not None
        assert score_structure(truth, short).s_inv == pytest.approx((m - 1) / m)
        checked += 1
    assert checked > 0


def test_every_record_fits_the_published_schema(suite_data: tuple[Path, list[Any]]) -> None:
    _, records = suite_data
    validator = jsonschema.Draft202012Validator(schema_for("grpo"))
    for row in grpo_records(records, "agent-tools"):
        line = json.loads(canonical_json(row.to_json()))
        errors = sorted(validator.iter_errors(line), key=str)
        assert not errors, f"{row.id}: {errors[0].message}"
        assert parse_training(line, "grpo") == row
        for key, value in line.items():
            assert key == "prompt" or not isinstance(value, dict | list), key


def test_a_mode_without_a_prompt_for_the_suite_is_refused(
    grit_data: tuple[Path, list[Any]],
) -> None:
    with pytest.raises(ConfigError, match=r"--mode program-ein does not apply to grit records"):
        grpo_records(grit_data[1], "program-ein")
    with pytest.raises(ConfigError, match="unknown mode 'nope'"):
        grpo_records(grit_data[1], "nope")


def test_ein_card_goes_with_program_ein_only(closure_data: tuple[Path, list[Any]]) -> None:
    rows = grpo_records(closure_data[1][:2], "program-ein", ein_card="paper")
    assert "Ein" in (rows[0].prompt[0].content or "")
    with pytest.raises(ConfigError, match="--ein-card paper applies to program-ein"):
        grpo_records(closure_data[1][:2], "direct", ein_card="paper")


def test_ground_truth_that_is_not_a_record_is_a_clear_error() -> None:
    with pytest.raises(DatasetFileError, match="not JSON"):
        instance_from_ground_truth("{oops")
    with pytest.raises(DatasetFileError, match="field 'suite'"):
        instance_from_ground_truth('{"suite": "other"}')
