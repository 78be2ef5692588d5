"""Tables: hand-made values, CIs, GRIT robustness measures, multi-run layout."""

from __future__ import annotations

import pytest
from report_fixtures import record, typed

from closurebench.report.aggregate import load_run, load_runs, naming_variance
from closurebench.report.tables import (
    accuracy_by_category_table,
    accuracy_by_level_table,
    accuracy_by_n_table,
    all_tables,
    grit_form_table,
    grit_naming_table,
    outcome_table,
    render_markdown,
    strict_lenient_table,
    token_table,
)


def _closure(outcome: str, level: int, n: int = 4, **kw) -> dict:
    return record(outcome, suite="closure", level=level, n=n, category=f"cat{level}", **kw)


def test_level_table_values_and_ci(make_run) -> None:
    recs = [_closure("strict_correct", 1)] * 150 + [_closure("wrong", 1)] * 50
    recs += [_closure("strict_correct", 3)] * 1 + [_closure("wrong", 3)] * 3
    t = accuracy_by_level_table([load_run(make_run("r", recs))])
    assert t.header == ["Run", "L1", "L3", "Overall", "L1−L3 (pp)", "N"]
    row = t.rows[0]
    assert row[0] == "m · direct"
    assert row[1] == "75.0"  # n = 200: no interval
    assert row[2] == "25.0 [4.6, 69.9]"  # n = 4: Wilson 95%
    assert row[3] == f"{100 * 151 / 204:.1f}"
    assert row[4] == "+50.0" and row[5] == "204"


def test_n_and_token_tables(make_run) -> None:
    recs = [
        _closure("strict_correct", 1, n=4, completion_tokens=10),
        _closure("wrong", 1, n=8, completion_tokens=30),
        _closure("lenient_only", 2, n=8, completion_tokens=50),
    ]
    runs = [load_run(make_run("r", recs))]
    t = accuracy_by_n_table(runs)
    assert t.header == ["Run", "n=4", "n=8", "Overall"]
    assert t.rows[0][1].startswith("100.0 [") and t.rows[0][2].startswith("50.0 [")
    tok = token_table(runs)
    assert tok.header[1:4] == ["Tok/ans L1", "Tok/ans L2", "Tok/ans"]
    assert tok.rows[0][1:4] == ["20", "50", "30"]
    assert tok.rows[0][-1] == "45"  # 90 completion tokens / 2 lenient-correct


def test_strict_lenient_and_outcomes_sum_to_100(make_run) -> None:
    outcomes = (
        ["strict_correct"] * 5 + ["lenient_only"] * 2 + ["wrong", "format_error", "no_answer"]
    )
    recs = [_closure(o, 1) for o in outcomes]
    runs = [load_run(make_run("r", recs))]
    sl = strict_lenient_table(runs).rows[0]
    assert sl[1].startswith("50.0 [") and sl[2].startswith("70.0 [") and sl[3] == "+20.0"
    row = outcome_table(runs).rows[0]
    assert row[1:6] == ["50.0", "20.0", "10.0", "10.0", "10.0"]
    assert sum(float(x) for x in row[1:6]) == pytest.approx(100.0)


def test_outcome_rows_sum_to_100_on_synthetic(synthetic_runs) -> None:
    runs = load_runs(synthetic_runs)
    for suite in ("closure", "grit"):
        for row in outcome_table(runs, suite).rows:
            assert sum(float(x) for x in row[1:6]) == pytest.approx(100.0, abs=0.3)


def _grit(outcome: str, naming: str, form: str) -> dict:
    return record(outcome, suite="grit", task="tsp", naming=naming, form=form)


def test_grit_naming_variance_and_form_gap(make_run) -> None:
    # canonical 4/4, random 2/4, semantic 3/4, mixed 1/4; standard 6/8, realistic 4/8.
    spec = {"canonical": 4, "random": 2, "semantic": 3, "mixed": 1}
    recs = []
    for naming, k in spec.items():
        oks = [True] * k + [False] * (4 - k)
        forms = ["standard", "realistic", "standard", "realistic"]
        if naming == "random":
            forms = ["standard", "standard", "realistic", "realistic"]
        for ok, form in zip(oks, forms, strict=True):
            recs.append(_grit("strict_correct" if ok else "wrong", naming, form))
    accs = [1.0, 0.5, 0.75, 0.25]
    mean = sum(accs) / 4
    expected_var = 1e4 * sum((a - mean) ** 2 for a in accs) / 3  # sample variance: 1041.67
    assert naming_variance(typed(recs)) == pytest.approx(expected_var)
    assert naming_variance(typed(recs), ddof=0) == pytest.approx(781.25)
    runs = [load_run(make_run("g", recs))]
    nt = grit_naming_table(runs)
    assert nt.header == [
        "Run",
        "canonical",
        "random",
        "semantic",
        "mixed",
        "Overall",
        "Var (×10⁻⁴)",
    ]
    assert nt.rows[0][-1] == "1,041.67"
    ft = grit_form_table(runs)
    assert ft.header == ["Run", "standard", "realistic", "Overall", "Gap (pp)"]
    std = sum(1 for r in recs if r["form"] == "standard" and r["lenient"]) / 8
    real = sum(1 for r in recs if r["form"] == "realistic" and r["lenient"]) / 8
    assert ft.rows[0][-1] == f"{100 * (std - real):+.1f}"


def test_multi_run_side_by_side(synthetic_runs) -> None:
    runs = load_runs(synthetic_runs)
    labels = ["gpt-x · direct", "gpt-x · cot", "small · direct"]
    t = accuracy_by_level_table(runs)
    assert [r[0] for r in t.rows] == labels
    cat = accuracy_by_category_table(runs)
    assert cat.header == ["Category", "Level", *labels]
    assert [r[:2] for r in cat.rows] == [
        ["count_reachable", "L1"], ["reachability", "L1"],
        ["reach_then_count", "L2"], ["kinship_complex", "L3"],
    ]  # fmt: skip
    tables = all_tables(runs)
    assert list(tables) == ["ClosureBench", "GRIT"]
    assert all(len(tb.rows) == 3 for tb in tables["GRIT"])
    md = render_markdown(runs)
    assert md.count("| gpt-x · cot |") >= 10


def test_closure_only_run_has_no_grit_section(make_run) -> None:
    runs = [load_run(make_run("r", [_closure("wrong", 1)]))]
    assert list(all_tables(runs)) == ["ClosureBench"]
