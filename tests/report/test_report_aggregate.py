"""Aggregation: Wilson intervals, accuracies, outcome shares, loading errors."""

from __future__ import annotations

import math
import random
import re

import pytest
from report_fixtures import record, synthetic_records, typed

from closurebench.report.aggregate import (
    _MARKER_RE,
    MARKER_ALTERNATION,
    SELF_CORRECTION_MARKERS,
    LoadedResult,
    Rate,
    ReportError,
    accuracy,
    accuracy_by,
    group_by,
    group_by_bin,
    is_lenient,
    latency_stats,
    load_run,
    load_runs,
    outcome_shares,
    token_stats,
    wilson_interval,
)


def test_wilson_known_values() -> None:
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(50, 100)
    assert (lo, hi) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))


@pytest.mark.parametrize("k,n", [(0, 1), (1, 3), (7, 20), (99, 100), (500, 1000)])
def test_wilson_contains_estimate(k: int, n: int) -> None:
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_rate_format_shows_ci_only_for_small_cells() -> None:
    assert Rate(3, 10).fmt() == "30.0 [10.8, 60.3]"
    assert Rate(30, 100).fmt() == "30.0"
    assert Rate(30, 100).fmt(ci=True).startswith("30.0 [")


def test_accuracy_by_level_hand_made() -> None:
    recs = typed(
        [record("strict_correct", level=1)] * 3
        + [record("lenient_only", level=1)]
        + [record("wrong", level=2)] * 3
        + [record("strict_correct", level=2)]
    )
    by = accuracy_by(recs, "level")
    assert by[1] == Rate(4, 4) and by[2] == Rate(1, 4)
    assert accuracy(recs).pct == 62.5
    assert accuracy(recs, strict=True).pct == 50.0


def test_outcome_shares_sum_to_100() -> None:
    recs = typed(synthetic_records("m", "direct", 0.5, 7))
    shares = outcome_shares(recs)
    assert sum(shares.values()) == pytest.approx(100.0)
    assert shares["strict_correct"] + shares["lenient_only"] == pytest.approx(accuracy(recs).pct)


def test_token_and_latency_stats() -> None:
    recs = typed(
        [
            record("strict_correct", completion_tokens=100, latency_s=1.0),
            record("wrong", completion_tokens=300, latency_s=2.0),
            record("lenient_only", completion_tokens=200, latency_s=3.0),
        ]
    )
    ts = token_stats(recs)
    assert ts.completion_mean == 200.0 and ts.per_correct == 300.0 and ts.correct == 2
    assert latency_stats(recs) == pytest.approx((2.0, 2.8))
    assert math.isinf(token_stats(typed([record("wrong")])).per_correct)


def test_load_errors_name_the_path(tmp_path, make_run) -> None:
    with pytest.raises(ReportError, match=str(tmp_path / "missing" / "results.jsonl")):
        load_run(tmp_path / "missing")
    bad = make_run("bad", [record("wrong")])
    with (bad / "results.jsonl").open("a") as fh:
        fh.write("{not json\n")
    with pytest.raises(ReportError, match=rf"{bad / 'results.jsonl'}:2: malformed JSON"):
        load_run(bad)
    odd = make_run("odd", [record("maybe")])
    with pytest.raises(ReportError, match=r"results.jsonl:1: .*field 'outcome'.*\(got 'maybe'\)"):
        load_run(odd)


def test_labels_from_settings_and_deduplicated(make_run) -> None:
    a = make_run("a", [record("wrong", model="gpt", mode="cot")])
    b = make_run("b", [record("wrong", model="gpt", mode="cot")])
    runs = load_runs([a, b])
    assert [r.label for r in runs] == ["gpt · cot (a)", "gpt · cot (b)"]
    assert runs[0].summary is not None and runs[0].summary.to_json() == {"n": 1}


def test_a_partly_written_last_line_is_skipped(tmp_path, make_run) -> None:
    # A run still going, or killed mid-write: its torn last line is not an error.
    run = make_run("live", [record("wrong"), record("strict_correct")])
    with (run / "results.jsonl").open("a") as fh:
        fh.write('{"id": "x", "outcome": "stri')
    loaded = load_run(run)
    assert len(loaded.records) == 2
    assert all(r.response == "" for r in loaded.records)  # texts are not kept


def test_results_written_before_the_typed_records_still_load(tmp_path, make_run) -> None:
    # A line as the runner wrote it before results were typed: same field names.
    old = {
        "id": "closure-heldout-reachability-0000", "outcome": "lenient_only", "strict": False,
        "lenient": True, "extracted": ["a"], "reason": "correct only under lenient",
        "response": '{"answer": ["a"]}', "reasoning": None,
        "usage": {"prompt_tokens": 120, "completion_tokens": 6}, "latency_s": 0.25,
        "finish_reason": "stop", "requests": 1,
        "settings": {"model": "m", "temperature": 0.0, "max_tokens": 2048, "top_p": None,
                     "seed": None, "timeout_s": 120.0},
        "mode": "cot", "error": None, "extra": {}, "suite": "closure",
        "category": "reachability", "level": 1, "n": 8, "result_type": "boolean",
        "task": None, "form": None, "naming": None, "scenario": None,
    }  # fmt: skip
    run = load_run(make_run("old", [old]))
    assert run.label == "m · cot" and is_lenient(run.records[0])
    assert run.records[0].outcome == "lenient_only" and run.records[0].level == 1


def test_loaded_results_are_typed_and_keep_no_texts(make_run) -> None:
    prog = record("wrong", extra={"exec_outcome": "ok", "program": "x = 1", "error_class": "logic"})
    run = load_run(make_run("p", [prog, record("strict_correct", response="Wait. Hmm, 3.")]))
    first, second = run.records
    assert isinstance(first, LoadedResult) and first.extra == {
        "exec_outcome": "ok",
        "error_class": "logic",
    }  # the program text is dropped, the figures' keys kept
    assert second.response == "" and second.self_corrections == 2
    assert second.strict and second.lenient


def test_a_text_of_the_wrong_type_is_named_not_dropped(make_run) -> None:
    bad = make_run("bad", [record("wrong", response=["not", "text"])])
    with pytest.raises(ReportError, match=r"results.jsonl:1: .*field 'response'"):
        load_run(bad)


def test_grouping_by_a_field_no_result_has_is_refused() -> None:
    recs = typed([record("wrong", level=1)])
    assert list(group_by(recs, "level")) == [1]
    with pytest.raises(ValueError, match=r"'levle' is not a result field; expected one of id,"):
        group_by(recs, "levle")
    with pytest.raises(ValueError, match="'density_bin' is not a result field"):
        group_by_bin(recs, "density_bin", ((0.0, 1.0),), integer=False)


def test_the_marker_pattern_matches_as_the_plain_alternation() -> None:
    """The first-letter lookahead only skips positions: same matches as the plain pattern."""
    plain = re.compile(r"\b(?:" + MARKER_ALTERNATION + r")\b", re.IGNORECASE)
    rng = random.Random(0)
    pieces = [*SELF_CORRECTION_MARKERS, "WAIT", "Let  me\nreconsider", "await", "ahmm", "İ", " "]
    pieces += ["actually,", "hmmm", "wait-", "_wait", "Hmm.", "\u00e9", "on  second\tthought"]
    for _ in range(2_000):
        text = "".join(rng.choice(pieces) + rng.choice(["", " ", ".", "x"]) for _ in range(12))
        assert _MARKER_RE.findall(text) == plain.findall(text), text
