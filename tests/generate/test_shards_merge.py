"""Sharded generation (``generate --shard i/N``) and ``merge``: the unsharded run's bytes.

Each shard holds exactly the records the unsharded run writes at its positions, so N shards
merged equal one run (data file, manifest and schema), for both suites, including where the
sequential decisions cross a shard boundary (a GRIT structure repeat, a ClosureBench
question redrawn to avoid an earlier one). ``merge`` refuses a missing, repeated, foreign,
cut or edited shard with one line naming the file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.errors import ConfigError, DatasetFileError
from closurebench.generate import closure, grit
from closurebench.generate.io import canonical_json
from closurebench.generate.merge import merge_shards
from closurebench.generate.shard import Shard
from closurebench.seeding import derive_seed
from closurebench.tasks.closure import CLOSURE_TASKS

runner = CliRunner()

#: One instance of every category.
CLOSURE_COUNT = len(CLOSURE_TASKS)
CLOSURE_ARGS = ["--split", "heldout", "--seed", "5", "--count", str(CLOSURE_COUNT)]
GRIT_ARGS = ["--split", "train", "--seed", "0", "--count", "24", "--n-min", "4", "--n-max", "4"]


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _invoke(*args: str) -> tuple[int, list[str]]:
    result = runner.invoke(app, list(args))
    return result.exit_code, [line for line in result.output.splitlines() if line.strip()]


def _error(*args: str, code: int = 1) -> str:
    """Run a command that must fail with ``code`` and one ``error:`` line; return the line."""
    exit_code, lines = _invoke(*args)
    assert exit_code == code, lines
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "Traceback" not in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def closure_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One ClosureBench run written whole (``whole/``) and as 4 shards (``shards/``)."""
    root = tmp_path_factory.mktemp("closure")
    code, lines = _invoke("generate", "closure", *CLOSURE_ARGS, "--out", str(root / "whole"))
    assert code == 0, lines
    for i in (3, 1, 4, 2):  # any order
        code, lines = _invoke(
            "generate", "closure", *CLOSURE_ARGS, "--shard", f"{i}/4", "--out", str(root / "shards")
        )
        assert code == 0, lines
        assert any(f"closurebench merge {root / 'shards'}" in line for line in lines), lines
    return root


@pytest.fixture(scope="module")
def grit_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One GRIT run (train, n = 4: graph 13 repeats graph 7's structure) whole and in 4."""
    root = tmp_path_factory.mktemp("grit")
    code, lines = _invoke("generate", "grit", *GRIT_ARGS, "--out", str(root / "whole"))
    assert code == 0, lines
    for i in range(1, 5):
        code, lines = _invoke(
            "generate", "grit", *GRIT_ARGS, "--shard", f"{i}/4", "--out", str(root / "shards")
        )
        assert code == 0, lines
    return root


def _shards(root: Path, stem: str) -> list[Path]:
    return sorted((root / "shards").glob(f"{stem}.shard-*-of-4.jsonl"))


@pytest.mark.parametrize(
    ("run", "stem"), [("closure_run", "closure-heldout"), ("grit_run", "grit-train")]
)
def test_four_shards_merge_to_the_unsharded_bytes(
    run: str, stem: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    root: Path = request.getfixturevalue(run)
    shards = _shards(root, stem)
    assert [p.name for p in shards] == [f"{stem}.shard-{i}-of-4.jsonl" for i in range(1, 5)]
    # given in any order; --out a folder: the split's own name
    code, lines = _invoke("merge", *map(str, reversed(shards)), "--out", str(tmp_path))
    assert code == 0, lines
    assert lines[0].startswith("merged 4 shards"), lines
    assert _files(tmp_path) == _files(root / "whole")
    # the shard manifests: the block's counts, the whole run's arguments, the range
    whole = json.loads((root / "whole" / f"{stem}.manifest.json").read_text())
    entries = [json.loads(p.with_name(p.stem + ".manifest.json").read_text()) for p in shards]
    assert [m["shard"]["index"] for m in entries] == [1, 2, 3, 4]
    assert all(m["arguments"] == whole["arguments"] for m in entries)
    assert entries[0]["shard"]["start"] == 0
    assert all(a["shard"]["stop"] == b["shard"]["start"] for a, b in pairwise(entries))
    assert entries[-1]["shard"]["stop"] == entries[-1]["shard"]["total"]
    assert sum(m["records"] for m in entries) == whole["records"]
    assert all(m["shard"]["file"] == f"{stem}.jsonl" for m in entries)


def test_grit_shard_replays_the_graphs_a_repeat_depends_on(grit_run: Path) -> None:
    # Graph 13 (shard 3/4) first draws graph 7's structure (shard 2/4) and is redrawn.
    config = grit.GritConfig(split="train", seed=0, count=24, n_min=4, n_max=4)
    jobs, start = grit.shard_jobs(config, Shard(3, 4))
    assert start == 12 and 7 in [j.index for j in jobs]
    assert (
        json.loads((grit_run / "whole" / "grit-train.manifest.json").read_text())["resamples"][
            "repeats"
        ]
        == 1
    )
    third = json.loads((grit_run / "shards" / "grit-train.shard-3-of-4.manifest.json").read_text())
    assert third["resamples"]["repeats"] == 1


def test_closure_shards_replay_the_questions_before_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # Coarse questions (one of 12 texts, unread) collide, so later positions redraw their
    # surface against questions of earlier shards; the shards still give the whole run.
    real = closure.render_closure

    def coarse(structure: object, **kw: object) -> object:
        r = real(structure, **kw)  # type: ignore[arg-type]
        digest = int(hashlib.sha256(r.question.encode()).hexdigest(), 16)
        return dataclasses.replace(r, question=f"q{digest % 12}")

    monkeypatch.setattr(closure, "render_closure", coarse)
    monkeypatch.setattr(closure, "certify", lambda s, r: None)
    config = closure.ClosureConfig(count=8, categories=("reachability", "graph_comparison"))
    whole = closure.generate_records(config)
    redrawn = [
        k
        for k, r in enumerate(whole)
        if r.surface_seed
        != derive_seed(0, "closure", "heldout", "surface", r.category, int(r.id[-4:]), 0)
    ]
    assert any(k >= 2 for k in redrawn), redrawn  # past shard 1/4
    parts = [closure.generate_records(config, shard=Shard(i, 4)) for i in range(1, 5)]
    parallel = closure.generate_records(dataclasses.replace(config, workers=2), shard=Shard(3, 4))
    assert [canonical_json(r) for p in parts for r in p] == [canonical_json(r) for r in whole]
    assert [canonical_json(r) for r in parallel] == [canonical_json(r) for r in parts[2]]
    # without the replay, a later shard would reuse an earlier shard's question
    monkeypatch.setattr(closure, "_replay", lambda *a, **k: None)
    alone = [closure.generate_records(config, shard=Shard(i, 4)) for i in range(1, 5)]
    assert [r.question for p in alone for r in p] != [r.question for r in whole]


def test_encoding_study_subset_shards(tmp_path: Path) -> None:
    config = closure.ClosureConfig(subset="encoding-study", count=5)
    closure.write_split(config, tmp_path / "whole")
    parts = [closure.write_split(config, tmp_path / "p", shard=Shard(i, 2))[0] for i in (1, 2)]
    assert parts[0].name == "closure-heldout-encoding-study.shard-1-of-2.jsonl"
    merge_shards(parts, tmp_path / "m")
    assert _files(tmp_path / "m") == _files(tmp_path / "whole")


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("0/4", "numbered from 1"),
        ("5/4", "out of range"),
        ("x", "not of the form i/N"),
        ("1/0", "at least 1"),
        ("2/", "not of the form i/N"),
        ("1/40", "fewer than 40 shards"),
    ],
)
def test_a_bad_shard_is_refused_with_one_line(value: str, words: str, tmp_path: Path) -> None:
    line = _error("generate", "closure", "--count", "3", "--shard", value, "--out", str(tmp_path))
    assert words in line and "--shard" in line, line
    assert not any(tmp_path.iterdir())


def test_shard_parse_and_blocks() -> None:
    assert Shard.parse("1/1") == Shard(1, 1)
    for total in (4, 7, 26, 1300):
        for count in (1, 2, 3, 4):
            blocks = [Shard(i, count).range(total) for i in range(1, count + 1)]
            assert blocks[0][0] == 0 and blocks[-1][1] == total
            assert all(a[1] == b[0] for a, b in pairwise(blocks))
            assert max(b - a for a, b in blocks) - min(b - a for a, b in blocks) <= 1
    with pytest.raises(ConfigError):
        Shard(2, 1)


def _copy(src: list[Path], dest: Path) -> list[Path]:
    """Copy shards (and their manifests) into ``dest``; the copies."""
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for p in src:
        for f in (p, p.with_name(p.stem + ".manifest.json")):
            (dest / f.name).write_bytes(f.read_bytes())
        out.append(dest / p.name)
    return out


def test_merge_refuses_a_missing_or_repeated_shard(closure_run: Path, tmp_path: Path) -> None:
    shards = _shards(closure_run, "closure-heldout")
    out = str(tmp_path / "m.jsonl")
    line = _error("merge", str(shards[0]), str(shards[1]), str(shards[3]), "--out", out)
    assert "shard 3/4 is missing" in line and "closure-heldout.shard-3-of-4.jsonl" in line
    assert "--shard 3/4" in line
    line = _error("merge", *map(str, shards), str(shards[1]), "--out", out)
    assert "shard 2/4 is given twice" in line and shards[1].name in line
    line = _error("merge", str(tmp_path / "nope.shard-1-of-4.jsonl"), "--out", out)
    assert "does not exist" in line and "nope.shard-1-of-4.jsonl" in line
    whole = closure_run / "whole" / "closure-heldout.jsonl"
    line = _error("merge", str(whole), "--out", out)
    assert "is not a shard" in line and "closure-heldout.jsonl" in line
    assert not (tmp_path / "m.jsonl").exists()


def test_merge_refuses_a_foreign_shard(closure_run: Path, tmp_path: Path) -> None:
    shards = _shards(closure_run, "closure-heldout")
    code, lines = _invoke(
        "generate", "closure", *CLOSURE_ARGS[:-2], "--count", str(CLOSURE_COUNT), "--seed", "6",
        "--shard", "2/4", "--out", str(tmp_path / "other"),
    )  # fmt: skip
    assert code == 0, lines
    foreign = tmp_path / "other" / "closure-heldout.shard-2-of-4.jsonl"
    line = _error(
        "merge", str(shards[0]), str(foreign), *map(str, shards[2:]), "--out", str(tmp_path)
    )
    assert "not of the same run" in line and "seed 6" in line and str(foreign) in line
    # another suite, another number of shards
    grit_shard = tmp_path / "g"
    code, lines = _invoke(
        "generate",
        "grit",
        "--count",
        "2",
        "--n-max",
        "10",
        "--shard",
        "1/2",
        "--out",
        str(grit_shard),
    )
    assert code == 0, lines
    line = _error(
        "merge",
        str(shards[0]),
        str(grit_shard / "grit-test.shard-1-of-2.jsonl"),
        "--out",
        str(tmp_path),
    )
    assert "suite 'grit' where the first has 'closure'" in line
    # a version other than this one
    copies = _copy(shards, tmp_path / "old")
    for p in copies:
        man = p.with_name(p.stem + ".manifest.json")
        data = json.loads(man.read_text())
        data["version"] = "0.0.1"
        man.write_text(json.dumps(data))
    line = _error("merge", *map(str, copies), "--out", str(tmp_path / "x.jsonl"))
    assert "closurebench 0.0.1" in line


def test_merge_refuses_a_cut_edited_or_moved_shard(closure_run: Path, tmp_path: Path) -> None:
    copies = _copy(_shards(closure_run, "closure-heldout"), tmp_path / "s")
    out = str(tmp_path / "m.jsonl")
    lines = copies[1].read_bytes().splitlines(keepends=True)
    copies[1].write_bytes(b"".join(lines[:-1]))
    line = _error("merge", *map(str, copies), "--out", out)
    assert "does not match its manifest" in line and copies[1].name in line
    assert "regenerate that shard" in line
    copies = _copy(_shards(closure_run, "closure-heldout"), tmp_path / "t")
    copies[2].write_bytes(copies[2].read_bytes().replace(b'"heldout"', b'"heldouT"', 1))
    line = _error("merge", *map(str, copies), "--out", out)
    assert "does not match its manifest" in line and copies[2].name in line
    copies = _copy(_shards(closure_run, "closure-heldout"), tmp_path / "u")
    man = copies[0].with_name(copies[0].stem + ".manifest.json")
    data = json.loads(man.read_text())
    data["shard"]["stop"] += 1
    man.write_text(json.dumps(data))
    line = _error("merge", *map(str, copies), "--out", out)
    assert "is not shard 1/4's block" in line
    copies[3].with_name(copies[3].stem + ".manifest.json").unlink()
    line = _error("merge", str(copies[3]), "--out", out)
    assert "has no manifest beside it" in line


def test_merge_refuses_an_existing_output(grit_run: Path, tmp_path: Path) -> None:
    shards = list(map(str, _shards(grit_run, "grit-train")))
    out = tmp_path / "merged.jsonl"
    code, lines = _invoke("merge", *shards, "--out", str(out))
    assert code == 0, lines
    first = out.read_bytes()
    line = _error("merge", *shards, "--out", str(out))  # as generate refuses
    assert "exists; pass --overwrite" in line and str(out) in line
    code, lines = _invoke("merge", *shards, "--out", str(out), "--overwrite")
    assert code == 0 and out.read_bytes() == first
    assert out.read_bytes() == (grit_run / "whole" / "grit-train.jsonl").read_bytes()
    line = _error("merge", *shards, "--out", shards[0], "--overwrite")
    assert "is one of the shards" in line
    # generate refuses an existing shard the way it refuses a whole split
    line = _error(
        "generate", "grit", *GRIT_ARGS, "--shard", "1/4", "--out", str(grit_run / "shards")
    )
    assert "grit-train.shard-1-of-4.jsonl exists; pass --overwrite" in line


def test_merge_shards_api_names_the_problem(closure_run: Path, tmp_path: Path) -> None:
    shards = _shards(closure_run, "closure-heldout")
    with pytest.raises(DatasetFileError, match="shard 1/4 is missing"):
        merge_shards(shards[1:], tmp_path)
    with pytest.raises(ConfigError, match="no shard given"):
        merge_shards([], tmp_path)
    merge_shards(shards, tmp_path)
    with pytest.raises(ConfigError, match="exists; pass --overwrite"):
        merge_shards(shards, tmp_path)
    merged = merge_shards(shards, tmp_path / "x.jsonl")
    assert merged.records == CLOSURE_COUNT and merged.manifest_path.name == "x.manifest.json"
    man = json.loads(merged.manifest_path.read_text())
    assert list(man["files"]) == ["x.jsonl"] and "shard" not in man
