"""ClosureBench generation: registry-wide invariants, determinism, splits, files, API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from closurebench import create_dataset, generate_split, load_instances, score_answer
from closurebench.cli import app
from closurebench.errors import ConfigError
from closurebench.generate.closure import ClosureConfig, StructurePlan, generate_records
from closurebench.generate.io import canonical_json, clean
from closurebench.schema import ClosureInstance
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import ClosureStructure
from closurebench.tasks.closure.l1 import L1_TASKS
from closurebench.tasks.closure.l2 import L2_TASKS
from closurebench.tasks.closure.l3 import L3_TASKS

REQUIRED = {
    "id", "suite", "split", "category", "level", "result_type", "n", "density",
    "structural_seed", "surface_seed", "label_pool", "labels", "domain", "style", "encoding",
    "question", "answer", "answer_ids", "alt_answer", "ambiguity", "graph", "graph2",
    "anchors", "programs", "answer_hints", "version",
}  # fmt: skip


@pytest.fixture(scope="module")
def records() -> list[ClosureInstance]:
    # 6 per category over all three encodings, n up to 14: every record is triple-verified
    # and certified by the reader inside generation.
    config = ClosureConfig(
        split="heldout",
        seed=11,
        count=len(CLOSURE_TASKS) * 6,
        n_max=14,
        encodings=("nl", "json", "matrix"),
    )
    return generate_records(config)


def test_registry_holds_the_categories_of_the_three_levels() -> None:
    # Every category of each level's tuple, in level order, none lost to a repeated name.
    levels = {1: L1_TASKS, 2: L2_TASKS, 3: L3_TASKS}
    assert all(levels.values())
    assert list(CLOSURE_TASKS.values()) == [t for tasks in levels.values() for t in tasks]
    assert len(CLOSURE_TASKS) == sum(len(tasks) for tasks in levels.values())
    assert Counter(t.level for t in CLOSURE_TASKS.values()) == {
        lv: len(tasks) for lv, tasks in levels.items()
    }


def test_every_record_is_complete_and_scores_strictly(records: list[ClosureInstance]) -> None:
    assert Counter(r.category for r in records) == {c: 6 for c in CLOSURE_TASKS}
    for r in records:
        assert set(r.to_json()) == REQUIRED, r.id
        text = json.dumps({"answer": r.answer}, ensure_ascii=False)
        assert score_answer(text, r) == 1.0, r.id
        # JSON round trip of the canonical line.
        assert json.loads(canonical_json(r.to_json())) == clean(r.to_json())
        # The stored structure is what the programs were computed on.
        s = ClosureStructure.from_dict(r.to_json())
        assert s.n == r.n == len(r.labels)
        assert r.programs["ein"].startswith(f"// {r.category}")
        assert r.level == CLOSURE_TASKS[r.category].level


def test_all_encodings_occur(records: list[ClosureInstance]) -> None:
    assert {r.encoding for r in records} == {"nl", "json", "matrix"}


def test_no_duplicate_questions(records: list[ClosureInstance]) -> None:
    questions = [r.question for r in records]
    assert len(set(questions)) == len(questions)


def test_generation_is_deterministic(records: list[ClosureInstance]) -> None:
    again = generate_records(
        ClosureConfig(
            split="heldout",
            seed=11,
            count=len(CLOSURE_TASKS) * 6,
            n_max=14,
            encodings=("nl", "json", "matrix"),
        )
    )
    assert [canonical_json(r) for r in again] == [canonical_json(r) for r in records]


def test_boolean_categories_are_balanced() -> None:
    recs = generate_records(ClosureConfig(split="heldout", seed=2, count=len(CLOSURE_TASKS) * 10))
    booleans = [r.answer for r in recs if r.result_type == "boolean"]
    assert all(isinstance(a, bool) for a in booleans)
    share = sum(a is True for a in booleans) / len(booleans)
    assert 0.45 <= share <= 0.55
    for name in ("multi_query",):
        answers = [r.answer for r in recs if r.category == name]
        reach = [a["reachable"] for a in answers if isinstance(a, dict)]
        assert len(reach) == len(answers) and all(isinstance(x, bool) for x in reach)
        assert 0.4 <= sum(x is True for x in reach) / len(reach) <= 0.6
    # conditional's "cannot reach" branch (always -1) is capped at 40 %, like any answer.
    cond = [r.answer for r in recs if r.category == "conditional"]
    assert sum(a == -1 for a in cond) / len(cond) == 0.4


def test_splits_share_no_structural_seed() -> None:
    # The structure stage alone: a record's seed is its plan draw's (the full train split
    # is checked against its plan in test_closure_validity).
    plan = StructurePlan(ClosureConfig(seed=0))
    seeds = {}
    for split in ("train", "heldout", "finetune"):
        seeds[split] = {
            plan.draw(split, c, i).structural_seed for c in CLOSURE_TASKS for i in (0, 1)
        }
    assert not seeds["train"] & seeds["heldout"]
    assert not seeds["train"] & seeds["finetune"]
    assert not seeds["heldout"] & seeds["finetune"]


def test_no_structure_twice_within_a_split() -> None:
    # Heldout seed 0 drew these pairs the same before repeats were rejected within a split.
    plan = StructurePlan(ClosureConfig(split="heldout", seed=0))
    for category, size in (("triangle_count", 50), ("kinship_complex", 50), ("sibling", 50)):
        keys = [plan.draw("heldout", category, i).key for i in range(size)]
        assert len(set(keys)) == size, category
    train = StructurePlan(ClosureConfig(split="train", seed=0))
    keys = [train.draw("train", "cousin", i).key for i in range(50)]
    assert len(set(keys)) == 50
    # The redraws are made in index order: one process and two give the same records.
    cfg = ClosureConfig(split="heldout", seed=0, count=20, categories=("triangle_in_subgraph",))
    one = generate_records(cfg)
    assert len({r.structure_key for r in one}) == 20
    two = generate_records(ClosureConfig(**{**cfg.__dict__, "workers": 2}))
    assert [r.model_dump_json() for r in two] == [r.model_dump_json() for r in one]


_SNIPPET = (
    "import sys; from closurebench.generate.closure import ClosureConfig, write_split;"
    "write_split(ClosureConfig(split='train', seed=5, count=30), sys.argv[1])"
)


def test_files_are_byte_identical_across_processes(tmp_path: Path) -> None:
    """One split written in a fresh process, under another hash seed, and in this one."""
    from closurebench.generate.closure import write_split

    here = os.environ.get("PYTHONHASHSEED", "")  # unset or "random": this one is random
    other = str(int(here) + 1) if here.isdigit() else "987"
    digests = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        if k == 0:
            env = {**os.environ, "PYTHONHASHSEED": other}
            subprocess.run([sys.executable, "-c", _SNIPPET, str(out)], env=env, check=True)
        else:
            write_split(ClosureConfig(split="train", seed=5, count=30), out)
        digests.append(
            (
                (out / "closure-train.jsonl").read_bytes(),
                (out / "closure-train.manifest.json").read_text(),
            )
        )
    assert digests[0] == digests[1]
    manifest = json.loads(digests[0][1])
    import hashlib

    assert (
        manifest["files"]["closure-train.jsonl"]["sha256"]
        == hashlib.sha256(digests[0][0]).hexdigest()
    )
    assert manifest["records"] == 30


def test_generate_split_api_and_load_instances(tmp_path: Path) -> None:
    recs = generate_split(
        "heldout", seed=1, count=5, categories=["reachability", "cousin"], out=tmp_path
    )
    assert [r.category for r in recs] == ["reachability", "cousin"] * 2 + ["reachability"]
    assert load_instances(tmp_path / "closure-heldout.jsonl") == recs


def test_size_sweep_beyond_the_default_range() -> None:
    recs = generate_records(
        ClosureConfig(
            split="heldout",
            seed=4,
            count=len(CLOSURE_TASKS),
            n_min=20,
            n_max=24,
            density_max=0.2,
        )
    )
    assert all(20 <= r.n <= 24 for r in recs)


def test_create_dataset_items_are_regenerable_alone() -> None:
    ds = create_dataset("closure", seed=9, size=30)
    assert len(ds) == 30
    item = ds[27]
    assert item == create_dataset("closure", seed=9, size=30)[27]
    assert set(item) == {"question", "answer", "metadata"}
    assert ds.score_answer(item["answer"], item) == 1.0
    assert score_answer('{"answer": "definitely not"}', item) == 0.0
    assert score_answer(None, item) == 0.0
    with pytest.raises(ConfigError, match="unknown dataset 'nope'"):
        create_dataset("nope")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"split": "test"}, "split 'test' is unknown"),
        ({"n_min": 3}, "node range 3..10"),
        ({"categories": ("bogus",)}, "unknown categories"),
        ({"encodings": ("xml",)}, "encodings"),
        ({"density_min": 0.0}, "density range"),
    ],
)
def test_bad_config_is_a_clear_error(kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        ClosureConfig(**kwargs)


def test_cli_generate_and_show(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app,
        ["generate", "closure", "--split", "heldout", "--seed", "0", "--count", "4",
         "--out", str(tmp_path), "--encodings", "nl,json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    path = tmp_path / "closure-heldout.jsonl"
    assert len(load_instances(path)) == 4
    shown = runner.invoke(app, ["show", str(path), "--index", "1"])
    assert shown.exit_code == 0, shown.output
    assert "ein program" in shown.stdout and "python program" in shown.stdout
    bad = runner.invoke(app, ["show", str(path), "--index", "9"])
    assert bad.exit_code == 1 and "out of range" in bad.output
    bad = runner.invoke(app, ["generate", "closure", "--split", "nope", "--out", str(tmp_path)])
    assert bad.exit_code == 1 and "split 'nope' is unknown" in bad.output


def test_python_dash_m_generator(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "closurebench.generator", "--seed", "3", "--count", "3"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    lines = out.stdout.splitlines()
    assert len(lines) == 3 and all(json.loads(line)["suite"] == "closure" for line in lines)
    # The same bytes as its app in this process (the error cases below run in process too).
    from closurebench.generator import app as generator_app

    here = CliRunner().invoke(generator_app, ["--seed", "3", "--count", "3"])
    assert here.exit_code == 0 and here.stdout == out.stdout
    # The CLI's error handling: one line, exit code 1 (2 for a command line that does not parse).
    bad = CliRunner().invoke(generator_app, ["--seed", "3", "--split", "nope"])
    assert bad.exit_code == 1 and bad.stderr.startswith("error: split 'nope' is unknown")
    assert "Traceback" not in bad.stderr
    usage = CliRunner().invoke(generator_app, ["--count", "3"])
    assert usage.exit_code == 2 and "--seed" in usage.stderr


def test_workers_give_byte_identical_output(records: list[ClosureInstance]) -> None:
    config = ClosureConfig(
        split="heldout", seed=11, count=len(CLOSURE_TASKS) * 6, n_max=14,
        encodings=("nl", "json", "matrix"), workers=2,
    )  # fmt: skip
    parallel = generate_records(config)
    assert [canonical_json(r) for r in parallel] == [canonical_json(r) for r in records]
    with pytest.raises(ConfigError, match="workers=0 must be >= 1"):
        ClosureConfig(workers=0)


def test_merge_in_order_regenerates_only_repeats() -> None:
    from closurebench.generate.closure import merge_in_order

    calls: list[tuple[str, frozenset[str]]] = []

    def again(record: SimpleNamespace, seen: set[str]) -> SimpleNamespace:
        calls.append((record.id, frozenset(seen)))
        q = record.question
        while q in seen:  # a redraw: the first surface not taken yet
            q += "'"
        return SimpleNamespace(id=record.id, question=q)

    recs = [SimpleNamespace(id=f"r{k}", question=q) for k, q in enumerate("abacbb")]
    merged = list(merge_in_order(recs, again))
    assert [r.question for r in merged] == ["a", "b", "a'", "c", "b'", "b''"]
    # Each repeat is redrawn against exactly the questions before it.
    assert calls[0] == ("r2", frozenset("ab"))
    assert calls[1] == ("r4", frozenset({"a", "b", "a'", "c"}))


def test_cli_workers_write_identical_files(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["generate", "closure", "--split", "heldout", "--seed", "4", "--count", "30"]
    for name, workers in (("one", "1"), ("two", "2")):
        res = runner.invoke(app, [*base, "--out", str(tmp_path / name), "--workers", workers])
        assert res.exit_code == 0, res.output
    for file in ("closure-heldout.jsonl", "closure-heldout.manifest.json"):
        assert (tmp_path / "one" / file).read_bytes() == (tmp_path / "two" / file).read_bytes()


def test_worker_errors_reach_the_caller_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    from closurebench.errors import Resample, SamplingError
    from closurebench.tasks.closure import CLOSURE_TASKS

    def never(*_args: object, **_kwargs: object) -> None:
        raise Resample("the test makes every draw ill-posed")

    # Workers are forked, so they inherit the patched sampler.
    monkeypatch.setattr(type(CLOSURE_TASKS["negative_reach"]), "sample", never)
    config = ClosureConfig(categories=("negative_reach",), count=4, workers=2)
    with pytest.raises(SamplingError, match=r"negative_reach #0: no well-posed instance"):
        generate_records(config)
