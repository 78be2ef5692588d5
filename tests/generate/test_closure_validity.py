"""Benchmark validity on the REAL default splits (seed 0): no answer-type hints, no
constant-guessable category, no structure shared across train / heldout / finetune.

The three full splits (1,300 + 1,300 + 2,500 instances) are generated once per session
(the ``default_closure_split`` fixture of ``tests/conftest.py``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.generate.closure import (
    MODAL_CAP,
    ClosureConfig,
    StructurePlan,
    generate_records,
    manifest,
    modal_shares,
    write_split,
)
from closurebench.generate.io import canonical_json, load_instances
from closurebench.schema import ClosureInstance, ResultType
from closurebench.surface.closure.questions import ANSWER_FORMS, answer_form
from closurebench.tasks.closure import CLOSURE_TASKS

SPLIT_NAMES = ("heldout", "train", "finetune")


@pytest.fixture(scope="module")
def splits(
    default_closure_split: Callable[[str], list[ClosureInstance]],
) -> dict[str, list[ClosureInstance]]:
    return {s: default_closure_split(s) for s in SPLIT_NAMES}


def _hinted(question: str) -> bool:
    return "Answer with a JSON object" in question or any(
        form in question for form in ANSWER_FORMS.values()
    )


def test_default_splits_are_full_size(splits: dict[str, list[ClosureInstance]]) -> None:
    assert [len(splits[s]) for s in SPLIT_NAMES] == [1300, 1300, 2500]


def test_no_question_of_a_default_split_carries_an_answer_type_hint(
    splits: dict[str, list[ClosureInstance]],
) -> None:
    for name, records in splits.items():
        for r in records:
            assert not r.answer_hints, r.id
            assert not _hinted(r.question), f"{name} {r.id}: {r.question[-120:]!r}"
            assert r.question.rstrip().endswith(("?", ".")), r.id


def test_answer_hints_knob_adds_the_form_and_changes_nothing_else() -> None:
    base: dict[str, Any] = {
        "split": "train",
        "seed": 3,
        "count": len(CLOSURE_TASKS) * 2,
        "encodings": ("nl", "json", "matrix"),
    }
    plain = generate_records(ClosureConfig(**base))
    hinted = generate_records(ClosureConfig(**base, answer_hints=True))
    assert len(hinted) == len(plain) == len(CLOSURE_TASKS) * 2
    for p, h in zip(plain, hinted, strict=True):
        form = answer_form(CLOSURE_TASKS[h.category])
        assert h.answer_hints and not p.answer_hints
        assert h.question == f"{p.question} {form}", h.id
        same = {k: v for k, v in h.to_json().items() if k not in ("question", "answer_hints")}
        assert same == {
            k: v for k, v in p.to_json().items() if k not in ("question", "answer_hints")
        }


def test_cli_answer_hints_flag_is_recorded(tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["generate", "closure", "--split", "heldout", "--count", str(len(CLOSURE_TASKS))]
    for name, extra in (("plain", []), ("hints", ["--answer-hints"])):
        res = runner.invoke(app, [*base, "--out", str(tmp_path / name), *extra])
        assert res.exit_code == 0, res.output
    for name, want in (("plain", False), ("hints", True)):
        man = json.loads((tmp_path / name / "closure-heldout.manifest.json").read_text())
        assert man["arguments"]["answer_hints"] is want
        recs = load_instances(tmp_path / name / "closure-heldout.jsonl")
        assert {r.answer_hints for r in recs} == {want}  # type: ignore[union-attr]
        assert {_hinted(r.question) for r in recs} == {want}


@pytest.mark.parametrize("split", SPLIT_NAMES)
def test_no_non_boolean_category_is_constant_guessable(
    splits: dict[str, list[ClosureInstance]], split: str
) -> None:
    records = splits[split]
    shares = modal_shares(records)
    non_boolean = {c for c, t in CLOSURE_TASKS.items() if t.result_type is not ResultType.BOOLEAN}
    assert set(shares) == non_boolean
    for category in non_boolean:
        answers = Counter(canonical_json(r.answer) for r in records if r.category == category)
        top = answers.most_common(1)[0][1] / answers.total()
        assert top <= MODAL_CAP, f"{split} {category}: {answers.most_common(3)}"
        assert shares[category] == round(top, 4)
    man = manifest(ClosureConfig(split=split, seed=0), records, "0" * 64, "x.jsonl")
    assert man["modal_share"] == shares
    assert max(man["modal_share"].values()) <= MODAL_CAP


def test_booleans_stay_balanced(splits: dict[str, list[ClosureInstance]]) -> None:
    for records in splits.values():
        for category, task in CLOSURE_TASKS.items():
            if task.result_type is ResultType.BOOLEAN:
                answers = [r.answer for r in records if r.category == category]
                assert all(isinstance(a, bool) for a in answers), category
                trues = sum(a is True for a in answers)
                assert abs(trues - len(answers) / 2) <= 0.5, category


def test_no_structure_or_question_is_shared_across_the_three_splits(
    splits: dict[str, list[ClosureInstance]], tmp_path: Path
) -> None:
    keys = {s: {r.structure_key for r in recs} for s, recs in splits.items()}
    assert not keys["heldout"] & keys["train"]
    assert not keys["heldout"] & keys["finetune"]
    assert not keys["train"] & keys["finetune"]
    # The same check through the command, on the written files.
    from closurebench.generate.io import write_jsonl

    paths = []
    for s, recs in splits.items():
        path, _ = write_jsonl(tmp_path, f"closure-{s}.jsonl", recs, lambda sha, name: {})
        paths.append(str(path))
    res = CliRunner().invoke(app, ["check-overlap", *paths])
    assert res.exit_code == 0, res.output
    assert "no shared structures, questions or OOD identifiers among 3 files" in res.output


def test_small_structures_occur_and_still_do_not_collide(
    splits: dict[str, list[ClosureInstance]],
) -> None:
    # The collisions the rule prevents came from n = 4; those are still drawn.
    assert all(any(r.n == 4 for r in recs) for recs in splits.values())


def test_a_smaller_split_is_a_prefix_of_the_full_one(
    splits: dict[str, list[ClosureInstance]],
) -> None:
    small = generate_records(ClosureConfig(split="train", seed=0, count=len(CLOSURE_TASKS) * 5))
    full = {r.id: r for r in splits["train"]}
    for r in small:
        assert r.structure_key == full[r.id].structure_key, r.id
        assert r.answer_ids == full[r.id].answer_ids, r.id


def test_workers_do_not_change_the_full_heldout_split(
    splits: dict[str, list[ClosureInstance]],
) -> None:
    parallel = generate_records(ClosureConfig(split="heldout", seed=0, workers=2))
    assert [canonical_json(r.to_json()) for r in parallel] == [
        canonical_json(r.to_json()) for r in splits["heldout"]
    ]


def test_manifest_records_the_rule(tmp_path: Path) -> None:
    config = ClosureConfig(split="finetune", seed=1, count=len(CLOSURE_TASKS))
    _, man_path, recs = write_split(config, tmp_path)
    man = json.loads(man_path.read_text())
    # each higher split's full size (1,300) over the categories, rounded up
    per_category = math.ceil(1300 / len(CLOSURE_TASKS))
    assert man["avoids_structures_of"] == {"heldout": per_category, "train": per_category}
    assert man["arguments"]["answer_hints"] is False
    assert set(man["modal_share"]) <= set(CLOSURE_TASKS)
    assert len(recs) == len(CLOSURE_TASKS)


def test_structure_plan_matches_the_records(splits: dict[str, list[ClosureInstance]]) -> None:
    plan = StructurePlan(ClosureConfig(split="train", seed=0))
    for r in splits["train"][:60]:
        index = int(r.id.rsplit("-", 1)[1])
        d = plan.draw("train", r.category, index)
        assert d.key == r.structure_key and d.structural_seed == r.structural_seed
