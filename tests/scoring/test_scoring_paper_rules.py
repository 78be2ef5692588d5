"""Algorithm 1's lenient rule and the paper's reply parsing, on real generated splits.

Issue 11, points 2 and 3: lenient accepts ``|p − r| = 1`` on *both* sides of ``r`` for
every count-ambiguous category and a one-anchor symmetric difference for every
set-ambiguous one; a bare JSON value is a format error in evaluation
(:func:`~closurebench.scoring.score_closure`) but the answer in ``score_answer``.
"""

from __future__ import annotations

import json

import pytest

from closurebench import generate_split
from closurebench.dataset import score_answer
from closurebench.schema import Ambiguity, ClosureInstance
from closurebench.scoring import score_closure
from closurebench.tasks.closure import CLOSURE_TASKS

COUNT = sorted(name for name, t in CLOSURE_TASKS.items() if t.ambiguity == Ambiguity.COUNT)
SETS = sorted(name for name, t in CLOSURE_TASKS.items() if t.ambiguity == Ambiguity.SET)


def _reply(answer: object) -> str:
    return json.dumps({"answer": answer})


def _split(categories: list[str], per: int, seed: int = 11) -> list[ClosureInstance]:
    count = per * len(categories)
    records = generate_split("heldout", seed=seed, categories=categories, count=count)
    assert {r.category for r in records} == set(categories)
    return records


def test_the_paper_classes() -> None:
    assert COUNT == [
        "aggregate_over_set",
        "conditional",
        "graph_comparison",
        "intersect_then_size",
        "kinship_complex",
        "reach_then_count",
    ]
    assert SETS == [
        "ancestor",
        "cousin",
        "negative_reach",
        "set_difference",
        "set_intersect",
        "sibling",
    ]


@pytest.fixture(scope="module")
def count_records() -> list[ClosureInstance]:
    return _split(COUNT, 8)


@pytest.fixture(scope="module")
def set_records() -> list[ClosureInstance]:
    return _split(SETS, 6)


def test_lenient_both_sides_of_r_for_every_count_category(
    count_records: list[ClosureInstance],
) -> None:
    seen_sides: dict[str, set[int]] = {}
    for rec in count_records:
        r = rec.answer
        if rec.result_type == "float":  # aggregate_over_set: Alg. 1's float branch, no ±1
            assert isinstance(r, int | float)
            assert score_closure(rec, _reply(r)).outcome == "strict_correct"
            for p in (r - 1, r + 1):
                assert score_closure(rec, _reply(p)).outcome == "wrong", (rec.id, p)
            continue
        assert isinstance(r, int), rec.category
        assert score_closure(rec, _reply(r)).outcome == "strict_correct"
        for step in (-1, 1):
            got = score_closure(rec, _reply(r + step))
            assert got.outcome == "lenient_only", (rec.category, r, step, got)
            assert got.lenient and not got.strict
            # The directional column keeps only the step towards alt_answer.
            alt = rec.alt_answer
            towards = isinstance(alt, int) and (alt - r) * step > 0
            assert got.lenient_directional is towards, (rec.category, r, alt, step)
            seen_sides.setdefault(rec.category, set()).add(step)
        for step in (-2, 2):
            assert score_closure(rec, _reply(r + step)).outcome == "wrong"
    assert set(seen_sides) == set(COUNT) - {"aggregate_over_set"}
    assert all(sides == {-1, 1} for sides in seen_sides.values())


def test_conditional_minus_one_branch_is_algorithm_1() -> None:
    records = [r for r in _split(["conditional"], 24, seed=5) if r.answer == -1]
    assert records, "the split balances both branches"
    for rec in records:
        for p in (0, -2):
            got = score_closure(rec, _reply(p))
            assert got.outcome == "lenient_only" and got.lenient_directional is False


def test_set_rule_is_one_anchor_symmetric_difference(set_records: list[ClosureInstance]) -> None:
    for rec in set_records:
        assert isinstance(rec.answer, list)
        ref = [str(v) for v in rec.answer]
        anchors = rec.anchor_labels()
        assert anchors, rec.category
        assert score_closure(rec, _reply(list(reversed(ref)))).outcome == "strict_correct"
        for label in anchors:
            pred = [v for v in ref if v != label] if label in ref else [*ref, label]
            got = score_closure(rec, _reply(pred))
            assert got.outcome == "lenient_only", (rec.category, ref, label, got)
        # A node that is not an anchor, one element away: wrong.
        other = next((lab for lab in rec.labels if lab not in anchors and lab not in ref), None)
        if other is not None:
            assert score_closure(rec, _reply([*ref, other])).outcome == "wrong"
        if ref:
            assert score_closure(rec, _reply(ref[1:])).outcome in (
                ("lenient_only",) if ref[0] in anchors else ("wrong",)
            )
        # Two anchors at once are two elements away: wrong.
        if len(anchors) == 2:
            both = [v for v in ref if v not in anchors] + [a for a in anchors if a not in ref]
            if len(set(both) ^ set(ref)) == 2:
                assert score_closure(rec, _reply(both)).outcome == "wrong"


@pytest.fixture(scope="module")
def every_category() -> list[ClosureInstance]:
    return _split(sorted(CLOSURE_TASKS), 2, seed=3)


def test_bare_values_are_format_errors_in_evaluation(
    every_category: list[ClosureInstance],
) -> None:
    for rec in every_category:
        bare = json.dumps(rec.answer)
        got = score_closure(rec, bare)
        assert got.outcome == "format_error", (rec.category, bare)
        assert "answer" in got.reason
        assert score_closure(rec, f"```json\n{bare}\n```").outcome == "format_error"
        assert score_closure(rec, _reply(rec.answer)).outcome == "strict_correct"
        embedded = f"Let me think.\n{_reply(rec.answer)}\nThat is all."
        assert score_closure(rec, embedded).outcome == "strict_correct"
        assert score_closure(rec, "I think the answer is the first one.").outcome == "no_answer"
    for text in ("3", "true", '["a", "b"]', '"Alice"', "2.5", "null"):
        assert score_closure(every_category[0], text).outcome == "format_error", text


def test_bare_values_are_answers_in_score_answer(every_category: list[ClosureInstance]) -> None:
    for rec in every_category:
        entry = rec.to_json() if hasattr(rec, "to_json") else rec.model_dump(mode="json")
        assert score_answer(json.dumps(rec.answer), entry) == 1.0, rec.category
        assert score_answer(_reply(rec.answer), entry) == 1.0, rec.category
