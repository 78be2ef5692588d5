"""``closurebench check-overlap``: shared structures and question texts between dataset files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.generate.closure import ClosureConfig, write_split
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import write_split as write_grit
from closurebench.generate.io import load_instances
from closurebench.schema import GritInstance
from closurebench.tasks.closure import CLOSURE_TASKS

DATA = Path(__file__).parent.parent / "data"
runner = CliRunner()


@pytest.fixture(scope="module")
def closure_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("overlap")
    files = {}
    for split in ("heldout", "train"):
        config = ClosureConfig(split=split, seed=2, count=2 * len(CLOSURE_TASKS))
        files[split] = write_split(config, out)[0]
    return files


def test_disjoint_splits_pass(closure_files: dict[str, Path]) -> None:
    res = runner.invoke(
        app, ["check-overlap", str(closure_files["heldout"]), str(closure_files["train"])]
    )
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == "no shared structures, questions or OOD identifiers among 2 files"


def test_a_repeated_structure_is_one_line_per_finding(
    closure_files: dict[str, Path], tmp_path: Path
) -> None:
    # A file against a copy of itself shares every structure and every question.
    copy = tmp_path / "copy.jsonl"
    shutil.copy(closure_files["train"], copy)
    recs = load_instances(copy)
    res = runner.invoke(app, ["check-overlap", str(closure_files["train"]), str(copy)])
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    structures = [line for line in lines if line.startswith("structure")]
    questions = [line for line in lines if line.startswith("question")]
    assert len(structures) == len({r.structure_key for r in recs})
    assert len(questions) == len(recs)
    first = recs[0]
    assert f"{closure_files['train']}:{first.id}  {copy}:{first.id}  {first.stratum}" in lines[0]
    assert f"{len(structures)} shared structure(s), {len(questions)} shared question(s)" in (
        res.stderr
    )


def test_old_files_and_grit_files_are_checked_by_task_graph_and_params(tmp_path: Path) -> None:
    old = DATA / "grit-v0.1.0.jsonl"
    copy = tmp_path / "grit-copy.jsonl"
    shutil.copy(old, copy)
    res = runner.invoke(app, ["check-overlap", str(old), str(copy)])
    assert res.exit_code == 1
    recs = load_instances(old)
    structures = [line for line in res.stdout.splitlines() if line.startswith("structure")]
    assert len(structures) == len({r.structure_key for r in recs})
    # Two GRIT splits of one seed share nothing.
    test_file = write_grit(GritConfig(split="test", seed=1, count=2, n_max=10), tmp_path / "t")[0]
    train_file = write_grit(GritConfig(split="train", seed=1, count=2, n_max=8), tmp_path / "r")[0]
    res = runner.invoke(app, ["check-overlap", str(test_file), str(train_file)])
    assert res.exit_code == 0, res.output
    # A graph's 8 views are one structure: one finding, not 8.
    again = tmp_path / "again.jsonl"
    shutil.copy(test_file, again)
    res = runner.invoke(app, ["check-overlap", str(test_file), str(again)])
    structures = [line for line in res.stdout.splitlines() if line.startswith("structure")]
    assert res.exit_code == 1 and len(structures) == 2


def test_old_closure_fixture_against_itself(tmp_path: Path) -> None:
    old = DATA / "closure-v0.1.0.jsonl"
    copy = tmp_path / "c.jsonl"
    shutil.copy(old, copy)
    res = runner.invoke(app, ["check-overlap", str(old), str(copy)])
    assert res.exit_code == 1 and res.stdout.startswith("structure")


def test_usage_and_file_errors(tmp_path: Path) -> None:
    res = runner.invoke(app, ["check-overlap"])
    assert res.exit_code == 2 and "Missing argument" in res.output
    res = runner.invoke(app, ["check-overlap", str(tmp_path / "a.jsonl"), str(tmp_path / "b")])
    assert res.exit_code == 1 and "does not exist" in res.output


def test_one_file_is_checked_for_repeated_structures(
    closure_files: dict[str, Path], tmp_path: Path
) -> None:
    res = runner.invoke(app, ["check-overlap", str(closure_files["heldout"])])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == f"no repeated structures in {closure_files['heldout']}"
    # The same structure under a second id (another surface) is a repeat within the file.
    lines = closure_files["heldout"].read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    twin = {**first, "id": first["id"][:-4] + "9999", "question": first["question"] + " "}
    bad = tmp_path / "repeats.jsonl"
    bad.write_text("\n".join([*lines, json.dumps(twin)]) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["check-overlap", str(bad)])
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        f"repeat     {bad}:{first['id']}  {bad}:{twin['id']}  {first['category']}"
    ]
    assert "1 repeated structure(s) within a file, 0 shared structure(s)" in res.stderr
    # Next to another file, the repeat is reported too.
    res = runner.invoke(app, ["check-overlap", str(bad), str(closure_files["train"])])
    assert res.exit_code == 1 and res.stdout.startswith("repeat")


def test_ood_identifiers_used_outside_ood_are_reported(tmp_path: Path) -> None:
    ood = write_grit(GritConfig(split="ood", seed=4, count=6, n_max=20), tmp_path / "o")[0]
    train = write_grit(GritConfig(split="train", seed=4, count=24, n_min=10), tmp_path / "r")[0]
    res = runner.invoke(app, ["check-overlap", str(ood), str(train)])
    assert res.exit_code == 0, res.output
    # An "OOD" file drawn with the in-distribution generators shares identifiers with train.
    fake = tmp_path / "fake-ood.jsonl"
    test = write_grit(GritConfig(split="test", seed=4, count=6, n_max=20), tmp_path / "t")[0]
    rows = [json.loads(line) for line in test.read_text().splitlines()]
    fake.write_text("".join(json.dumps({**r, "split": "ood"}) + "\n" for r in rows))
    res = runner.invoke(app, ["check-overlap", str(fake), str(train)])
    assert res.exit_code == 1
    lines = [line for line in res.stdout.splitlines() if line.startswith("identifier")]
    assert lines and not any(line.startswith("structure") for line in res.stdout.splitlines())
    _, id_ood, id_other, name = lines[0].split()
    assert id_ood.startswith(f"{fake}:grit-test-") and id_other.startswith(f"{train}:grit-train-")
    used = {
        x.casefold()
        for r in load_instances(train)
        if isinstance(r, GritInstance) and r.naming != "canonical"
        for x in (*r.names, *r.aliases)
    }
    assert name in used
    assert not any("canonical" in line.split()[1] for line in lines)
    assert f"{len(lines)} OOD identifier(s) used outside OOD" in res.stderr
    # Reported in either argument order, never for canonical names (shared by design).
    res = runner.invoke(app, ["check-overlap", str(train), str(fake)])
    assert len([line for line in res.stdout.splitlines() if line.startswith("identifier")]) == (
        len(lines)
    )
