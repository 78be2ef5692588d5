"""Chance baselines: --model random and --model majority, in the modes that take answers."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from typer.testing import CliRunner

import closurebench
from closurebench.evaluate.chance import majority_answer, majority_of, random_answer
from closurebench.evaluate.records import iter_results
from closurebench.generate.grit import GritConfig, write_split
from closurebench.schema import ClosureInstance
from closurebench.tasks.closure import CLOSURE_TASKS


@pytest.fixture(scope="module")
def splits(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("chance")
    closurebench.generate_split("heldout", seed=0, count=2 * len(CLOSURE_TASKS), out=root / "c")
    write_split(GritConfig(split="test", seed=2, count=6, n_max=10), root / "g")
    return {"closure": root / "c" / "closure-heldout.jsonl", "grit": root / "g" / "grit-test.jsonl"}


def _eval(data: Path, out: Path, *args: str) -> list[dict[str, Any]]:
    res = CliRunner().invoke(EVAL_APP, [str(data), "--out", str(out), "--no-progress", *args])
    assert res.exit_code == 0, res.output
    return list(iter_results(out / "results.jsonl"))


@pytest.mark.parametrize("model", ["random", "majority"])
@pytest.mark.parametrize(("suite", "mode"), [("closure", "direct"), ("grit", "cot"),
                                             ("grit", "agent"), ("closure", "agent")])  # fmt: skip
def test_chance_answers_are_well_typed(
    model: str, suite: str, mode: str, splits: dict[str, Path], tmp_path: Path
) -> None:
    results = _eval(splits[suite], tmp_path / "r", "--model", model, "--mode", mode)
    outcomes = Counter(r["outcome"] for r in results)
    # a valid-typed guess is never a format error or a missing answer
    assert set(outcomes) <= {"strict_correct", "lenient_only", "wrong"}, outcomes
    assert outcomes["wrong"] > 0  # chance, not an oracle
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["provider"] == "reference" and run["model"] == model


def test_random_is_deterministic_and_uniform_over_types(splits: dict[str, Path]) -> None:
    records = closurebench.load_instances(splits["closure"], suite="closure")
    first = [random_answer(r) for r in records]
    assert first == [random_answer(r) for r in records]
    booleans = [a for r, a in zip(records, first, strict=True) if r.result_type == "boolean"]
    assert True in booleans and False in booleans


def test_majority_is_the_train_mode(
    default_closure_split: Callable[[str], list[ClosureInstance]],
) -> None:
    from closurebench.generate.closure import ClosureConfig, generate_records

    assert majority_of([2, 0, 2, 0, 1]) == 0  # ties: the smallest
    assert majority_of([]) is None
    train = default_closure_split("train")  # the full default train split, seed 0
    held = generate_records(ClosureConfig(split="heldout", seed=0, count=2 * len(CLOSURE_TASKS)))
    for category in ("reachability", "degree_count", "negative_reach"):
        rec = next(r for r in held if r.category == category)
        answers = [r.answer for r in train if r.category == category]
        got = majority_answer(rec)
        if rec.result_type == "set":  # the most common size, as the first declared labels
            sizes = [len(a) for a in answers if isinstance(a, list)]
            assert len(sizes) == len(answers)
            k = majority_of(sizes)
            assert got == list(rec.labels[:k])
        else:
            assert got == majority_of(answers)


def test_chance_refuses_program_modes(splits: dict[str, Path], tmp_path: Path) -> None:
    res = CliRunner().invoke(
        EVAL_APP,
        [str(splits["closure"]), "--out", str(tmp_path / "r"), "--no-progress",
         "--mode", "program-ein", "--model", "random"],
    )  # fmt: skip
    assert res.exit_code == 1 and "pass --mode direct" in res.output
