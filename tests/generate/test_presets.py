"""The size sweep split and the encoding-study subset (issue 11, point 9)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.errors import ConfigError
from closurebench.generate.closure import ClosureConfig, generate_records
from closurebench.generate.io import load_instances, read_manifest
from closurebench.schema import ClosureInstance
from closurebench.tasks.closure import CLOSURE_TASKS

runner = CliRunner()


@pytest.fixture(scope="module")
def study() -> list[ClosureInstance]:
    return generate_records(ClosureConfig(subset="encoding-study"))


def test_encoding_study_is_200_level_uniform_structures_in_three_encodings(
    study: list[ClosureInstance],
) -> None:
    assert len(study) == 600
    assert Counter((r.level, r.encoding) for r in study) == {
        (lv, enc): share
        for lv, share in ((1, 67), (2, 67), (3, 66))
        for enc in ("nl", "json", "matrix")
    }
    assert len({r.id for r in study}) == 600
    groups: dict[str, list[ClosureInstance]] = {}
    for r in study:
        groups.setdefault(r.id.rsplit("-", 1)[0], []).append(r)
    assert len(groups) == 200
    for rs in groups.values():
        assert [r.encoding for r in rs] == ["nl", "json", "matrix"]
        first = rs[0]
        for r in rs[1:]:
            for field in ("graph", "anchors", "labels", "domain", "style", "answer", "n"):
                assert getattr(r, field) == getattr(first, field), (r.id, field)
            # the query sentence (the last paragraph) is held fixed
            assert r.question.split("\n\n")[-1] == first.question.split("\n\n")[-1]
            assert r.question != first.question


def test_encoding_study_uses_the_splits_own_instances(study: list[ClosureInstance]) -> None:
    heldout = {r.id: r for r in generate_records(ClosureConfig(count=len(CLOSURE_TASKS) * 12))}
    nl = [r for r in study if r.encoding == "nl"]
    matched = [r for r in nl if r.id.removesuffix("-nl") in heldout]
    assert len(matched) == len(nl)
    assert all(heldout[r.id.removesuffix("-nl")].question == r.question for r in matched)


def test_sweep_split_reaches_n_20(tmp_path: Path) -> None:
    config = ClosureConfig(split="sweep", count=4 * len(CLOSURE_TASKS))
    assert config.n_max == 20
    recs = generate_records(config)
    assert all(r.id.startswith("closure-sweep-") for r in recs)
    assert max(r.n for r in recs) == 20 and min(r.n for r in recs) == 4
    assert sum(r.n > 10 for r in recs) > 40
    assert ClosureConfig(split="heldout").n_max == 10


def test_unknown_subset_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="subset 'enc' is unknown; choose one of encoding-study"):
        ClosureConfig(subset="enc")


def test_cli_subset_and_sweep(tmp_path: Path) -> None:
    res = runner.invoke(
        app,
        [
            "generate",
            "closure",
            "--out",
            str(tmp_path),
            "--subset",
            "encoding-study",
            "--count",
            "6",
        ],
    )
    assert res.exit_code == 0, res.output
    path = tmp_path / "closure-heldout-encoding-study.jsonl"
    assert len(load_instances(path)) == 18
    man = read_manifest(path)
    assert man["arguments"]["subset"] == "encoding-study" and man["records"] == 18
    sweep = ["--split", "sweep", "--count", str(len(CLOSURE_TASKS))]
    res = runner.invoke(app, ["generate", "closure", "--out", str(tmp_path), *sweep])
    assert res.exit_code == 0, res.output
    man = read_manifest(tmp_path / "closure-sweep.jsonl")
    assert man["arguments"]["n_max"] == 20 and man["avoids_structures_of"] == {}
    assert "subset" not in man["arguments"]
