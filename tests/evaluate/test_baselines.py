"""The trivial baseline never sees answers and always produces a scorable reply."""

from __future__ import annotations

from closurebench import generate_split
from closurebench.evaluate.baselines import trivial_reply
from closurebench.schema import Outcome
from closurebench.scoring import score_closure


def test_baseline_is_answer_free_and_scorable() -> None:
    records = generate_split("heldout", seed=5, count=52)
    outcomes = []
    for r in records:
        blind = r.model_copy(update={"answer": None, "answer_ids": None, "alt_answer": None})
        reply = trivial_reply(blind)
        assert reply == trivial_reply(r)  # the reference answer plays no part
        outcomes.append(score_closure(r, reply).outcome)
    assert Outcome.FORMAT_ERROR not in outcomes and Outcome.NO_ANSWER not in outcomes
    # Balanced booleans: the constant `false` is right on about half of them.
    booleans = [o for r, o in zip(records, outcomes, strict=True) if r.result_type == "boolean"]
    assert 0.3 <= booleans.count(Outcome.STRICT_CORRECT) / len(booleans) <= 0.7
