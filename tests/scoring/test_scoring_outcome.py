"""Per-response outcomes on real generated ClosureBench records (GRIT: test_scoring_grit.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from closurebench.generate.closure import ClosureConfig
from closurebench.generate.closure import generate_records as closure_records
from closurebench.schema import Ambiguity, ClosureInstance
from closurebench.scoring import OUTCOMES, Score, score_closure
from closurebench.tasks.closure import CLOSURE_TASKS


@pytest.fixture(scope="module")
def closure() -> list[ClosureInstance]:
    return [
        r if isinstance(r, ClosureInstance) else ClosureInstance.model_validate(r)
        for r in closure_records(ClosureConfig(split="heldout", count=2 * len(CLOSURE_TASKS)))
    ]


def _by(records: list[dict[str, Any]], key: str, value: str) -> list[dict[str, Any]]:
    found = [r for r in records if r[key] == value]
    assert found, value
    return found


def _check(score: Score) -> None:
    assert score.outcome in OUTCOMES
    assert score.strict <= score.lenient
    assert (score.outcome == "strict_correct") == score.strict
    assert (score.outcome == "lenient_only") == (score.lenient and not score.strict)


# ------------------------------------------------------------------------- closure


def _closure_by(records: list[ClosureInstance], key: str, value: str) -> list[ClosureInstance]:
    found = [r for r in records if getattr(r, key) == value]
    assert found, value
    return found


def _reply(answer: object) -> str:
    return json.dumps({"answer": answer})


def test_closure_reference_scores_strict(closure: list[ClosureInstance]) -> None:
    assert len({r.category for r in closure}) == len(CLOSURE_TASKS)
    for rec in closure:
        score = score_closure(rec, _reply(rec.answer))
        assert score.outcome == "strict_correct", (rec.category, score)
        embedded = f"Thinking...\n{_reply(rec.answer)}\nDone."
        assert score_closure(rec, embedded).strict


def test_closure_alt_answer_within_one(closure: list[ClosureInstance]) -> None:
    """The other convention's answer: paper-lenient when one away (floats: never)."""
    for rec in closure:
        alt, ref = rec.alt_answer, rec.answer
        if alt is None or alt == ref:
            continue
        score = score_closure(rec, _reply(alt))
        _check(score)
        if isinstance(alt, list) and isinstance(ref, list):
            diff = set(map(str, alt)) ^ set(map(str, ref))
            one_away = len(diff) == 1 and diff <= set(rec.anchor_labels())
            directional = len(diff) == 1
        elif isinstance(alt, int) and isinstance(ref, int):
            one_away = directional = abs(alt - ref) == 1
        else:  # float (aggregate_over_set): Algorithm 1's float branch has no tolerance
            one_away, directional = False, True
        expected = "lenient_only" if one_away else "wrong"
        assert score.outcome == expected, (rec.category, alt, ref, score)
        assert score.lenient_directional is directional, (rec.category, alt, ref, score)


def test_closure_plus_minus_one_and_source(closure: list[ClosureInstance]) -> None:
    for rec in _closure_by(closure, "category", "reach_then_count"):
        r, alt = rec.answer, rec.alt_answer
        assert isinstance(r, int) and isinstance(alt, int)
        assert score_closure(rec, _reply(alt)).outcome == "lenient_only"
        away = score_closure(rec, _reply(2 * r - alt))  # one step the other way
        assert away.outcome == "lenient_only" and away.lenient_directional is False
        assert score_closure(rec, _reply(r + 2)).outcome == "wrong"
    for rec in _closure_by(closure, "category", "set_intersect"):
        assert isinstance(rec.answer, list)
        ref = list(rec.answer)
        x_label, y_label = rec.anchor_labels()
        for label in (x_label, y_label):
            assert score_closure(rec, _reply([*ref, label])).outcome == "lenient_only"
        assert score_closure(rec, _reply([*ref, x_label, y_label])).outcome == "wrong"
    for rec in _closure_by(closure, "category", "ancestor"):
        assert isinstance(rec.answer, list) and isinstance(rec.alt_answer, list)
        other = next(lab for lab in rec.labels if lab not in rec.alt_answer)
        pred = [*rec.answer, other]
        assert score_closure(rec, _reply(pred)).outcome == "wrong"
    for rec in _closure_by(closure, "category", "reach_then_filter"):  # not ambiguous
        assert isinstance(rec.answer, list)
        pred = [*rec.answer, *rec.anchor_labels()]
        assert score_closure(rec, _reply(pred)).outcome == "wrong"


def test_closure_ambiguity_comes_from_the_record(closure: list[ClosureInstance]) -> None:
    """The same answer against the same record, differing only in ``ambiguity``.

    The category name says "reach_then_count" (count-ambiguous in the spec) throughout;
    only the record's own ``ambiguity`` field decides whether ±1 is forgiven.
    """
    rec = _closure_by(closure, "category", "reach_then_count")[0]
    assert isinstance(rec.alt_answer, int)
    reply = _reply(rec.alt_answer)
    plain = rec.model_copy(update={"ambiguity": None})
    counted = plain.model_copy(update={"ambiguity": Ambiguity.COUNT})
    assert score_closure(plain, reply).outcome == "wrong"
    assert score_closure(counted, reply).outcome == "lenient_only"
    # And a category the spec calls unambiguous is forgiven when its record says "count".
    other = _closure_by(closure, "category", "degree_count")[0]
    assert isinstance(other.answer, int)
    relabelled = other.model_copy(
        update={"ambiguity": Ambiguity.COUNT, "alt_answer": other.answer + 1}
    )
    assert score_closure(other, _reply(other.answer + 1)).outcome == "wrong"
    assert score_closure(relabelled, _reply(other.answer + 1)).outcome == "lenient_only"
    # Strictly correct answers stay strictly correct whatever the class.
    assert score_closure(plain, _reply(rec.answer)).outcome == "strict_correct"
    assert score_closure(counted, _reply(rec.answer)).outcome == "strict_correct"


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("", "no_answer"),
        ("I'm sorry, I can't determine that.", "no_answer"),
        ("Let's enumerate the paths step by step. First, A pays B, so", "no_answer"),
        ('{"answer": [1, 2', "format_error"),
        ('{"response": 3}', "format_error"),
        ("<answer>3</answer>", "format_error"),
        ('{"answer": "three"}', "format_error"),
        ('{"answer": {"x": 1}}', "format_error"),
    ],
)
def test_closure_failure_outcomes(closure: list[ClosureInstance], text: str, outcome: str) -> None:
    for rec in closure:
        if rec.result_type == "string" and "three" in text:
            continue
        if rec.result_type == "compound" and '"x"' in text:
            # an object is a compound's type (line 1); its missing members fail the
            # recursion of line 27, "any failure => WrongAnswer"
            assert score_closure(rec, text).outcome == "wrong", rec.category
            continue
        score = score_closure(rec, text)
        _check(score)
        assert score.outcome == outcome, (rec.category, score)


def test_closure_wrong_value_type_is_format_error(closure: list[ClosureInstance]) -> None:
    wrong_type = {
        "boolean": "true",
        "integer": "3",
        "float": [1.5],
        "set": {"a": 1},
        "string": ["x"],
        "compound": [True, 1],
    }
    for rec in closure:
        text = _reply(wrong_type[rec.result_type])
        assert score_closure(rec, text).outcome == "format_error", rec.category


def test_closure_wrong_answers(closure: list[ClosureInstance]) -> None:
    rec = _closure_by(closure, "result_type", "boolean")[0]
    score = score_closure(rec, _reply(not rec.answer))
    assert score.outcome == "wrong" and score.extracted is (not rec.answer)
    rec = _closure_by(closure, "category", "degree_count")[0]
    assert isinstance(rec.answer, int)
    assert score_closure(rec, _reply(rec.answer + 1)).outcome == "wrong"
