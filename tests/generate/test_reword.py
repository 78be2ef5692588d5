"""``reword``: the same structures under a new surface (issue 11, point 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.dataset import score_answer
from closurebench.errors import ConfigError, VerificationError
from closurebench.generate.closure import ClosureConfig, write_split
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import write_split as write_grit
from closurebench.generate.io import load_instances, read_manifest
from closurebench.generate.reword import reword_file, reword_record, reword_records
from closurebench.schema import ClosureInstance
from closurebench.tasks.closure import CLOSURE_TASKS

runner = CliRunner()

#: Three instances of every category.
COUNT = 3 * len(CLOSURE_TASKS)


@pytest.fixture(scope="module")
def heldout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reword")
    return write_split(ClosureConfig(split="heldout", seed=4, count=COUNT), out)[0]


@pytest.fixture(scope="module")
def pairs(heldout: Path) -> list[tuple[ClosureInstance, ClosureInstance]]:
    old = [r for r in load_instances(heldout) if isinstance(r, ClosureInstance)]
    return list(zip(old, reword_records(old, surface_seed=11), strict=True))


def test_structure_and_answer_ids_are_kept(
    pairs: list[tuple[ClosureInstance, ClosureInstance]],
) -> None:
    assert len(pairs) == COUNT
    for old, new in pairs:
        for field in (
            "id",
            "category",
            "level",
            "n",
            "density",
            "structural_seed",
            "graph",
            "graph2",
            "anchors",
            "answer_ids",
            "encoding",
            "answer_hints",
            "programs",
        ):
            assert getattr(new, field) == getattr(old, field), (old.id, field)


def test_the_surface_is_new(pairs: list[tuple[ClosureInstance, ClosureInstance]]) -> None:
    assert all(new.question != old.question for old, new in pairs)
    assert all(new.surface_seed != old.surface_seed for old, new in pairs)
    assert len({new.question for _, new in pairs}) == len(pairs)
    # labels, frames and styles are redrawn: most differ
    assert sum(new.labels != old.labels for old, new in pairs) > 0.8 * len(pairs)
    assert sum(new.domain != old.domain for old, new in pairs) > 0.5 * len(pairs)


def test_new_answers_are_in_the_new_labels_and_score_correct(
    pairs: list[tuple[ClosureInstance, ClosureInstance]],
) -> None:
    for _, new in pairs:
        assert score_answer(json.dumps({"answer": new.answer}), new.to_json()) == 1.0, new.id
        if isinstance(new.answer, list):
            assert set(new.answer) <= set(new.labels)


def test_deterministic_per_surface_seed(
    pairs: list[tuple[ClosureInstance, ClosureInstance]],
) -> None:
    old = [o for o, _ in pairs[:10]]
    again = reword_records(old, surface_seed=11)
    assert [r.to_json() for r in again] == [n.to_json() for _, n in pairs[:10]]
    other = reword_records(old, surface_seed=12)
    assert all(a.question != b.question for a, b in zip(again, other, strict=True))


def test_a_record_whose_answer_does_not_follow_is_refused(
    pairs: list[tuple[ClosureInstance, ClosureInstance]],
) -> None:
    old = next(o for o, _ in pairs if o.category == "triangle_count")
    assert isinstance(old.answer_ids, int)
    bad = ClosureInstance.model_validate({**old.to_json(), "answer_ids": old.answer_ids + 1})
    with pytest.raises(VerificationError, match=old.id):
        reword_record(bad, surface_seed=1)


def test_grit_files_are_refused_with_a_reason(tmp_path: Path) -> None:
    path = write_grit(GritConfig(split="test", seed=1, count=1, tasks=("bfs",)), tmp_path)[0]
    with pytest.raises(ConfigError, match="GRIT file already holds"):
        reword_file(path, 3, tmp_path / "rw.jsonl")


def test_cli_writes_file_and_manifest(heldout: Path, tmp_path: Path) -> None:
    out = tmp_path / "rw.jsonl"
    res = runner.invoke(app, ["reword", str(heldout), "--surface-seed", "5", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert f"wrote {COUNT} re-worded records" in res.stdout
    man = read_manifest(out)
    assert man["surface_seed"] == 5
    assert man["reworded_from"]["file"] == heldout.name
    assert man["files"]["rw.jsonl"]["records"] == COUNT
    # same structures, no shared question
    res = runner.invoke(app, ["check-overlap", str(heldout), str(out)])
    assert res.exit_code == 1
    assert f"{COUNT} shared structure(s), 0 shared question(s)" in res.stderr


def test_cli_errors_are_one_line(heldout: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["reword", str(heldout), "--surface-seed", "5", "--out", str(heldout)])
    assert res.exit_code == 1
    assert "is the input file" in res.stderr
    res = runner.invoke(
        app, ["reword", str(tmp_path / "no.jsonl"), "--surface-seed", "5", "--out", "x.jsonl"]
    )
    assert res.exit_code == 1
    assert "does not exist" in res.stderr
