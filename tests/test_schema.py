"""The typed records, their published JSON Schemas, and validation on load."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.errors import DatasetFileError
from closurebench.generate.closure import ClosureConfig, generate_records
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import generate_records as grit_records
from closurebench.generate.io import load_instances, schema_file_name, write_jsonl
from closurebench.jsonl import canonical_json
from closurebench.schema import (
    ClosureInstance,
    GritInstance,
    Outcome,
    ResultRecord,
    Seeds,
    parse_instance,
    parse_result,
    schema_for,
)
from closurebench.tasks.closure import CLOSURE_TASKS

DATA = Path(__file__).parent / "data"
runner = CliRunner()


def _cli_schema(name: str) -> dict:
    result = runner.invoke(app, ["schema", name])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def closure_records() -> list[ClosureInstance]:
    cfg = ClosureConfig(
        split="train", seed=11, count=2 * len(CLOSURE_TASKS), encodings=("nl", "json", "matrix")
    )
    return generate_records(cfg)


@pytest.fixture(scope="module")
def grit_split() -> list[GritInstance]:
    return grit_records(GritConfig(split="test", seed=4, count=6, n_max=12))[0]


def test_every_generated_closure_record_validates_against_the_printed_schema(
    closure_records: list[ClosureInstance],
) -> None:
    validator = jsonschema.Draft202012Validator(_cli_schema("closure"))
    assert len({r.category for r in closure_records}) == len(CLOSURE_TASKS)
    for record in closure_records:
        line = json.loads(canonical_json(record.to_json()))
        errors = sorted(validator.iter_errors(line), key=str)
        assert not errors, f"{record.id}: {errors[0].message}"


def test_every_generated_grit_record_validates_against_the_printed_schema(
    grit_split: list[GritInstance],
) -> None:
    validator = jsonschema.Draft202012Validator(_cli_schema("grit"))
    assert {r.task for r in grit_split} == {
        "shortest_path", "graph_coloring", "tsp", "vertex_cover", "bfs", "centrality",
    }  # fmt: skip
    for record in grit_split:
        line = json.loads(canonical_json(record.to_json()))
        errors = sorted(validator.iter_errors(line), key=str)
        assert not errors, f"{record.id}: {errors[0].message}"


def test_the_schemas_reject_what_the_models_reject() -> None:
    validator = jsonschema.Draft202012Validator(schema_for("closure"))
    line = json.loads((DATA / "closure-v0.1.0.jsonl").read_text().splitlines()[0])
    assert validator.is_valid(line)
    for field, bad in (("level", 4), ("encoding", "yaml"), ("ambiguity", "maybe")):
        broken = {**line, field: bad}
        assert not validator.is_valid(broken), field
        with pytest.raises(DatasetFileError, match=f"field '{field}'"):
            parse_instance(broken, "x.jsonl:1")
    assert not validator.is_valid({**line, "colour": "red"})
    with pytest.raises(DatasetFileError, match="field 'colour' is not a field"):
        parse_instance({**line, "colour": "red"}, "x.jsonl:1")


def test_result_schema_matches_the_result_model() -> None:
    validator = jsonschema.Draft202012Validator(_cli_schema("result"))
    result = ResultRecord(
        id="closure-heldout-reachability-0000",
        outcome=Outcome.LENIENT_ONLY,
        lenient=True,
        extracted=["a", "b"],
        mode="cot",
        settings={"model": "m", "temperature": 0.0},
        suite="closure",
    )
    assert validator.is_valid(result.to_json())
    assert not validator.is_valid({**result.to_json(), "outcome": "maybe"})


@pytest.mark.parametrize(("name", "cls"), [("closure", ClosureInstance), ("grit", GritInstance)])
def test_files_written_before_the_schema_still_load_unchanged(name: str, cls: type) -> None:
    path = DATA / f"{name}-v0.1.0.jsonl"
    records = load_instances(path)
    assert records and all(isinstance(r, cls) for r in records)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [canonical_json(r.to_json()) for r in records] == lines


def test_old_closure_files_mean_answer_hints_and_keep_their_bytes() -> None:
    lines = (DATA / "closure-v0.1.0.jsonl").read_text(encoding="utf-8").splitlines()
    for line in lines:
        obj = json.loads(line)
        assert "answer_hints" not in obj and obj["version"] == "0.1.0"
        record = parse_instance(obj)
        assert isinstance(record, ClosureInstance)
        # Every question written before 0.2.0 ends with its answer form.
        assert record.answer_hints is True and "Answer with a JSON object" in record.question
        assert "answer_hints" not in record.to_json()
        assert canonical_json(record.to_json()) == line


def test_answer_hints_is_required_from_0_2_0() -> None:
    obj = json.loads((DATA / "closure-v0.1.0.jsonl").read_text().splitlines()[0])
    with pytest.raises(DatasetFileError, match="answer_hints"):
        parse_instance({**obj, "version": "0.2.0"}, "f.jsonl:1")
    record = parse_instance({**obj, "version": "0.2.0", "answer_hints": False})
    assert isinstance(record, ClosureInstance) and record.answer_hints is False
    assert record.to_json()["answer_hints"] is False
    with pytest.raises(DatasetFileError, match="answer_hints"):
        parse_instance({**obj, "answer_hints": "yes"})


def test_generated_records_state_answer_hints(closure_records: list[ClosureInstance]) -> None:
    for record in closure_records:
        assert record.to_json()["answer_hints"] is False
        assert parse_instance(record.to_json()) == record


def test_structure_key_ignores_the_surface() -> None:
    closure = load_instances(DATA / "closure-v0.1.0.jsonl")[0]
    assert isinstance(closure, ClosureInstance)
    relabelled = closure.model_copy(update={"labels": list(reversed(closure.labels))})
    assert relabelled.structure_key == closure.structure_key
    moved = closure.model_copy(update={"anchors": {**closure.anchors, "Z": 1}})
    assert moved.structure_key != closure.structure_key
    grits = load_instances(DATA / "grit-v0.1.0.jsonl")
    by_graph: dict[str, set[str]] = {}
    for g in grits:
        assert isinstance(g, GritInstance)
        by_graph.setdefault(g.graph_id, set()).add(g.structure_key)
    assert all(len(keys) == 1 for keys in by_graph.values())


def test_the_envelope_names_both_suites_alike() -> None:
    closure = load_instances(DATA / "closure-v0.1.0.jsonl")[0]
    grit = load_instances(DATA / "grit-v0.1.0.jsonl")[0]
    assert isinstance(closure, ClosureInstance) and isinstance(grit, GritInstance)
    assert closure.seeds == Seeds(closure.structural_seed, closure.surface_seed)
    assert grit.seeds == Seeds(grit.seed.structure, grit.seed.surface)
    assert closure.node_names == closure.labels and grit.node_names == grit.names
    assert closure.query == closure.anchors and grit.query == grit.params
    assert (closure.stratum, grit.stratum) == (closure.category, grit.task)


def test_a_bad_line_is_named_by_file_line_and_field(tmp_path: Path) -> None:
    lines = (DATA / "closure-v0.1.0.jsonl").read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[1])
    bad["n"] = "seven"
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(bad), lines[2]]) + "\n", encoding="utf-8")
    with pytest.raises(DatasetFileError, match=r"d\.jsonl:2: .*field 'n'.*got 'seven'"):
        load_instances(path)
    path.write_text(lines[0] + "\n" + lines[1][:40], encoding="utf-8")
    with pytest.raises(DatasetFileError, match=r"d\.jsonl:2: torn last line"):
        load_instances(path)
    path.write_text(lines[0] + "\n[1, 2]\n", encoding="utf-8")
    with pytest.raises(DatasetFileError, match=r"d\.jsonl:2: a JSON list, not an object"):
        load_instances(path)


def test_cli_validate_and_errors(tmp_path: Path) -> None:
    ok = runner.invoke(app, ["schema", "grit", "--validate", str(DATA / "grit-v0.1.0.jsonl")])
    assert ok.exit_code == 0 and "6 grit records, all valid" in ok.output
    wrong = runner.invoke(app, ["schema", "grit", "--validate", str(DATA / "closure-v0.1.0.jsonl")])
    assert wrong.exit_code == 1 and "a closure record, not a grit one" in wrong.output
    unknown = runner.invoke(app, ["schema", "kinship"])
    assert unknown.exit_code == 1 and "choose one of closure, grit, result" in unknown.output


def test_generated_splits_carry_their_schema(
    tmp_path: Path, grit_split: list[GritInstance]
) -> None:
    path, _ = write_jsonl(tmp_path, "g.jsonl", grit_split, lambda sha, name: {"sha": sha})
    written = json.loads((tmp_path / schema_file_name("grit")).read_text(encoding="utf-8"))
    assert written == schema_for("grit")
    assert load_instances(path) == grit_split


def test_a_result_without_verdicts_takes_those_its_outcome_implies() -> None:
    def verdicts(outcome: str, **given: bool) -> tuple[bool, bool]:
        rec = parse_result({"id": "a", "mode": "direct", "outcome": outcome, **given})
        return rec.strict, rec.lenient

    assert verdicts("strict_correct") == (True, True)
    assert verdicts("lenient_only") == (False, True)
    for outcome in ("wrong", "format_error", "no_answer", "error"):
        assert verdicts(outcome) == (False, False)
    assert verdicts("strict_correct", strict=False) == (False, True)  # a given one is kept
    assert verdicts("wrong", lenient=True) == (False, True)
    for bad in (["strict_correct"], {"a": 1}, "maybe", None):  # named, never a crash
        with pytest.raises(DatasetFileError, match="field 'outcome'"):
            parse_result({"id": "a", "mode": "direct", "outcome": bad}, "results.jsonl:3")
