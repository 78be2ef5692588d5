"""One strict comparator: the dataset reward, evaluation scoring and ``compare`` agree.

``dataset.score_answer`` (RL rewards), ``scoring.score_closure`` (evaluation) and
``scoring.compare`` all reach Algorithm 1 in strict mode; on every category of a
generated split and a spread of perturbed answers, their verdicts are the same.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from closurebench.dataset import create_dataset, score_answer
from closurebench.errors import DatasetFileError
from closurebench.schema import ClosureInstance
from closurebench.scoring import compare, score_closure
from closurebench.tasks.closure import CLOSURE_TASKS


@pytest.fixture(scope="module")
def items() -> list[dict[str, Any]]:
    return list(create_dataset("closure", seed=0, size=len(CLOSURE_TASKS) * 2))


def _perturbed(rec: ClosureInstance) -> list[Any]:
    """The reference, the alternative, and near misses of every kind for ``rec``."""
    ref, labels = rec.answer, rec.labels
    out: list[Any] = [ref, rec.alt_answer, None, "", [], {}, True, 0, "0", [ref]]
    if isinstance(ref, bool):
        out += [not ref, str(ref).lower(), int(ref)]
    elif isinstance(ref, int | float):
        out += [ref + 1, ref - 1, float(ref), ref + 0.005, ref + 0.02, str(ref), [ref]]
    elif isinstance(ref, list):
        names = [x for x in ref if isinstance(x, str)]
        assert names == ref  # a set answer is a list of labels
        others = [lab for lab in labels if lab not in ref]
        out += [list(reversed(ref)), [f" {x} " for x in ref], [*ref, *ref], ", ".join(names)]
        out += [ref[:-1], [*ref, *others[:1]], {x: 1 for x in ref}]
    elif isinstance(ref, str):
        out += [f" {ref} ", ref.lower(), [ref], *[lab for lab in labels if lab != ref][:2]]
    elif isinstance(ref, dict):
        degree = ref["degree"]
        assert isinstance(degree, int)
        out += [
            {**ref, "reachable": not ref["reachable"]},
            {**ref, "degree": degree + 1},
            {**ref, "note": "extra keys are ignored"},
            {"reachable": ref["reachable"]},
            {**ref, "degree": str(ref["degree"])},
            list(ref.values()),
        ]
    return out


def test_every_entry_scores_its_own_answer(items: list[dict[str, Any]]) -> None:
    assert Counter(item["metadata"]["category"] for item in items) == {c: 2 for c in CLOSURE_TASKS}
    for item in items:
        assert score_answer(item["answer"], item) == 1.0, item["metadata"]["id"]
        # A raw record works the same, as a JSON dict or typed.
        rec = ClosureInstance.model_validate(item["metadata"])
        assert score_answer(item["answer"], item["metadata"]) == 1.0
        assert score_answer(item["answer"], rec) == 1.0
        # The evaluation reply form is read too.
        assert score_answer(json.dumps({"answer": rec.answer}), item) == 1.0
        assert score_answer(None, item) == score_answer("  ", item) == 0.0


def test_reward_evaluation_and_compare_agree(items: list[dict[str, Any]]) -> None:
    checked: Counter[bool] = Counter()
    for item in items:
        rec = ClosureInstance.model_validate(item["metadata"])
        for value in _perturbed(rec):
            reward = score_answer(json.dumps(value), item) == 1.0
            evaluation = score_closure(rec, json.dumps({"answer": value})).strict
            plain = compare(rec.result_type, value, rec.answer)
            assert reward == evaluation == plain, (rec.category, value, rec.answer)
            checked[reward] += 1
    # The perturbations really do reach both verdicts, on many answers each.
    assert checked[True] >= 2 * len(items) and checked[False] >= 8 * len(items)


def test_bare_values_are_the_answer(items: list[dict[str, Any]]) -> None:
    by_type = {item["metadata"]["result_type"]: item for item in items}
    compound = by_type["compound"]
    ref = compound["metadata"]["answer"]
    bare = json.dumps({"degree": ref["degree"], "reachable": ref["reachable"]})
    assert score_answer(bare, compound) == 1.0
    string = by_type["string"]
    assert score_answer(string["metadata"]["answer"], string) == 1.0  # an unquoted label
    assert score_answer("no idea", by_type["integer"]) == 0.0
    assert score_answer("[", by_type["set"]) == 0.0


def test_an_entry_that_is_no_closure_record_is_refused(items: list[dict[str, Any]]) -> None:
    meta = dict(items[0]["metadata"])
    del meta["answer"]
    with pytest.raises(DatasetFileError, match=r"score_answer entry: .*'answer' is missing"):
        score_answer("3", {"question": "q", "answer": "3", "metadata": meta})
    with pytest.raises(DatasetFileError, match="field 'suite'"):
        score_answer("3", {"answer": 3})
