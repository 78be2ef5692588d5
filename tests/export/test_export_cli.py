"""``closurebench export sft|grpo`` on the command line: files, bytes, errors, formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.jsonl import canonical_json
from closurebench.schema import Outcome, ResultRecord, SftRecord, schema_for
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.train import export as export_module
from closurebench.train.export import grpo_records, schema_file_name, sft_records, targets_for

runner = CliRunner()


def _export(*args: str) -> Any:
    return runner.invoke(app, ["export", *args, "--no-progress"])


@pytest.mark.parametrize("kind", ["sft", "grpo"])
def test_the_same_input_gives_the_same_bytes(
    suite_data: tuple[Path, list[Any]], tmp_path: Path, kind: str
) -> None:
    data, records = suite_data
    targets = targets_for(str(records[0].suite)) if kind == "sft" else [""]
    for target in targets:
        extra = ["--target", target] if kind == "sft" else []
        outs = [tmp_path / f"{kind}-{target}-{i}.jsonl" for i in (1, 2)]
        for out in outs:
            res = _export(kind, str(data), *extra, "--out", str(out))
            assert res.exit_code == 0, res.output
            assert f"wrote {len(records)} {kind} records" in res.output
        first = outs[0].read_bytes()
        assert first == outs[1].read_bytes()
        schema = json.loads((tmp_path / schema_file_name(kind)).read_text(encoding="utf-8"))
        assert schema == schema_for(kind)  # the schema beside the file is the current one
        rows = sft_records(records, target) if kind == "sft" else grpo_records(records)
        expected = "".join(canonical_json(r.to_json()) + "\n" for r in rows)
        assert first.decode("utf-8") == expected


def test_grpo_mode_option(closure_data: tuple[Path, list[Any]], tmp_path: Path) -> None:
    out = tmp_path / "grpo.jsonl"
    res = _export("grpo", str(closure_data[0]), "--out", str(out), "--mode", "agent-tools")
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["mode"] for r in rows} == {"agent-tools"}
    assert all(json.loads(r["tools"])[0]["function"]["name"] == "graph_tool" for r in rows)


def _results_file(path: Path) -> Path:
    record = ResultRecord(id="a", outcome=Outcome.WRONG, mode="direct", settings={})
    path.write_text(canonical_json(record.to_json()) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("case", "match"),
    [
        ("missing", "does not exist"),
        ("results", "this is a results file"),
        ("exported", "this is an exported training file"),
        ("ein-on-grit", "--target ein does not apply to grit records (48 in the file)"),
        ("unknown-target", "unknown --target 'answers'; choose one of: answer, cot, ein"),
        ("grpo-mode", "--mode program-ein does not apply to grit records"),
        ("card", "--ein-card paper applies to program-ein prompts only"),
        ("out-folder", "is a folder; pass the JSONL file"),
        ("bad-format", "--format 'parquet' is unknown"),
        ("not-json", "not valid JSON"),
        ("verify-answer", "--verify-programs applies to the program targets"),
        ("sandbox-alone", "--sandbox bwrap applies with --verify-programs only"),
    ],
)
def test_bad_input_is_one_line_exit_1_and_nothing_written(
    closure_data: tuple[Path, list[Any]],
    grit_data: tuple[Path, list[Any]],
    tmp_path: Path,
    case: str,
    match: str,
) -> None:
    out = tmp_path / "out.jsonl"
    grit = str(grit_data[0])
    closure = str(closure_data[0])
    exported = tmp_path / "exported.jsonl"
    exported.write_text(
        canonical_json(sft_records(closure_data[1][:1], "answer")[0].to_json()) + "\n",
        encoding="utf-8",
    )
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    args = {
        "missing": ["sft", str(tmp_path / "nope.jsonl"), "--target", "answer"],
        "results": ["sft", str(_results_file(tmp_path / "results.jsonl")), "--target", "cot"],
        "exported": ["grpo", str(exported)],
        "ein-on-grit": ["sft", grit, "--target", "ein"],
        "unknown-target": ["sft", closure, "--target", "answers"],
        "grpo-mode": ["grpo", grit, "--mode", "program-ein"],
        "card": ["sft", closure, "--target", "python", "--ein-card", "paper"],
        "out-folder": ["sft", closure, "--target", "answer"],
        "bad-format": ["grpo", closure, "--format", "parquet"],
        "not-json": ["sft", str(broken), "--target", "answer"],
        "verify-answer": ["sft", closure, "--target", "answer", "--verify-programs"],
        "sandbox-alone": ["sft", closure, "--target", "ein", "--sandbox", "bwrap"],
    }[case]
    target = tmp_path if case == "out-folder" else out
    res = _export(*args, "--out", str(target))
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    assert match in lines[0], lines[0]
    assert not out.exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith((".tmp", ".schema.json"))]
    assert leftovers == []


def test_a_target_the_evaluation_scores_wrong_is_refused(
    closure_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    """A damaged record (its stored answer off by one): the agent's episode scores it
    wrong, so the export stops with exit code 1 and writes nothing."""
    record = next(r for r in closure_data[1] if r.category == "reach_then_count")
    damaged = record.model_copy(update={"answer": record.answer + 1})
    data = tmp_path / "damaged.jsonl"
    data.write_text(canonical_json(damaged.to_json()) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    res = _export("sft", str(data), "--target", "agent", "--out", str(out))
    assert res.exit_code == 1, res.output
    assert f"{record.id}: its agent target does not score strictly correct" in res.output
    assert not out.exists()


def test_hf_without_datasets_names_the_extra(
    closure_data: tuple[Path, list[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export_module, "hf_available", lambda: False)
    out = tmp_path / "hf"
    res = _export(
        "sft", str(closure_data[0]), "--target", "answer", "--out", str(out), "--format", "hf"
    )
    assert res.exit_code == 1
    assert "needs the `datasets` package" in res.output and "--extra train" in res.output
    assert not out.exists()


@pytest.mark.parametrize("kind", ["sft", "grpo"])
def test_hf_format_round_trips(
    closure_data: tuple[Path, list[Any]],
    grit_data: tuple[Path, list[Any]],
    tmp_path: Path,
    kind: str,
) -> None:
    datasets = pytest.importorskip("datasets")
    for data, records in (closure_data, grit_data):
        target = "agent-tools"
        out = tmp_path / f"{kind}-{records[0].suite}"
        extra = ["--target", target] if kind == "sft" else ["--mode", "agent-tools"]
        res = _export(kind, str(data), *extra, "--out", str(out), "--format", "hf")
        assert res.exit_code == 0, res.output
        loaded = datasets.load_from_disk(str(out))
        rows = sft_records(records, target) if kind == "sft" else grpo_records(records, target)
        assert len(loaded) == len(rows)
        for row, item in zip(rows, loaded, strict=True):
            want = row.to_json()
            key = "messages" if kind == "sft" else "prompt"
            # Arrow gives every message every field (null where a message lacks it)
            got_msgs = [{k: v for k, v in m.items() if v is not None} for m in item[key]]
            want_msgs = [{k: v for k, v in m.items() if v is not None} for m in want[key]]
            assert got_msgs == want_msgs
            assert {k: v for k, v in item.items() if k != key} == {
                k: v for k, v in want.items() if k != key
            }
        if kind == "sft":
            assert SftRecord.model_validate(
                {**loaded[0], "messages": [
                    {k: v for k, v in m.items() if v is not None} for m in loaded[0]["messages"]
                ]}
            ) == rows[0]  # fmt: skip


def test_the_train_package_imports_without_torch() -> None:
    code = (
        "import sys, closurebench.train, closurebench.train.export, closurebench.cli.export\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'trl', 'datasets') "
        "if m in sys.modules)\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_schema_command_prints_and_validates(
    closure_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    for name in ("sft", "grpo"):
        res = runner.invoke(app, ["schema", name])
        assert res.exit_code == 0, res.output
        assert json.loads(res.output)["$id"].endswith(f"/{name}.json")
    out = tmp_path / "sft.jsonl"
    assert _export("sft", str(closure_data[0]), "--target", "cot", "--out", str(out)).exit_code == 0
    res = runner.invoke(app, ["schema", "sft", "--validate", str(out)])
    assert res.exit_code == 0 and f"{len(CLOSURE_TASKS)} sft records, all valid" in res.output
    res = runner.invoke(app, ["schema", "grpo", "--validate", str(out)])
    assert res.exit_code == 1 and "not a valid grpo record" in res.output
