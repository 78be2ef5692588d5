"""GRAIN Table 3's test−OOD gap from two runs: one run of test, one of OOD results.

``closurebench report TEST_RUN OOD_RUN`` pairs the runs by model and mode and gives the
gap a hand computation gives; when several runs of one model and mode hold one split it
says the pairing is ambiguous instead of guessing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from report_cli import report_app
from report_fixtures import record
from typer.testing import CliRunner

from closurebench.report.aggregate import load_runs, split_pairs
from closurebench.report.tables import all_tables, grit_split_pairs_table


def _split(split: str, correct: dict[str, tuple[int, int]], model: str = "m", mode: str = "cot"):
    """``k`` of ``n`` correct per task, all of one split."""
    out = []
    for task, (k, n) in correct.items():
        for i in range(n):
            out.append(
                record(
                    "strict_correct" if i < k else "wrong", id=f"{split}-{task}-{i}",
                    suite="grit", split=split, task=task, naming="canonical", form="standard",
                    model=model, mode=mode,
                )
            )  # fmt: skip
    return out


TEST = {"bfs": (9, 10), "tsp": (3, 4)}  # 90.0 and 75.0: macro 82.5
OOD = {"bfs": (3, 5), "tsp": (1, 4)}  # 60.0 and 25.0: macro 42.5


def _keys(runs) -> list[str]:
    return [t.key for t in all_tables(runs)["GRIT"]]


def test_two_runs_of_one_model_and_mode_give_the_gap(make_run) -> None:
    runs = load_runs(
        [make_run("m-test", _split("test", TEST)), make_run("m-ood", _split("ood", OOD))]
    )
    # Each run alone has no gap ...
    (split,) = [t for t in all_tables(runs)["GRIT"] if t.key == "grit_split"]
    assert [row[-1] for row in split.rows] == ["–", "–"]
    # ... the pair has: macro test (90 + 75) / 2 = 82.5, macro OOD (60 + 25) / 2 = 42.5.
    (pair,) = split_pairs(runs)
    assert pair.gap == pytest.approx(82.5 - 42.5)
    t = grit_split_pairs_table(runs)
    assert t.header == [
        "Model · mode", "Test run", "OOD run", "Test", "OOD", "Test−OOD gap (pp)", "Pairing"
    ]  # fmt: skip
    assert t.rows == [["m · cot", "m · cot (m-test)", "m · cot (m-ood)", "82.50", "42.50",
                       "+40.0", "paired"]]  # fmt: skip
    assert _keys(runs)[_keys(runs).index("grit_split") + 1] == "grit_split_pairs"
    # The order the runs are given in does not matter.
    flipped = load_runs([runs[1].path, runs[0].path])
    assert grit_split_pairs_table(flipped).rows[0][1:] == t.rows[0][1:]


def test_the_cli_report_shows_the_paired_runs(make_run, tmp_path: Path) -> None:
    a, b = make_run("m-test", _split("test", TEST)), make_run("m-ood", _split("ood", OOD))
    out = tmp_path / "rep"
    res = CliRunner().invoke(report_app(), ["report", str(a), str(b), "--out", str(out)])
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "GRIT: test vs OOD across runs (Table 3)" in md
    assert "| m · cot | m · cot (m-test) | m · cot (m-ood) | 82.50 | 42.50 | +40.0 | paired |" in md
    assert "test vs OOD across runs" in (out / "report.html").read_text(encoding="utf-8")


def test_two_test_runs_for_one_model_are_ambiguous(make_run) -> None:
    runs = load_runs([
        make_run("t1", _split("test", TEST)),
        make_run("t2", _split("test", {"bfs": (1, 10)})),
        make_run("o", _split("ood", OOD)),
    ])  # fmt: skip
    (pair,) = split_pairs(runs)
    assert pair.ambiguous is not None and "2 runs hold test results" in pair.ambiguous
    assert pair.records("test") == [] and pair.gap != pair.gap  # nan: nothing guessed
    (row,) = grit_split_pairs_table(runs).rows
    assert row[:3] == ["m · cot", "m · cot (t1), m · cot (t2)", "m · cot (o)"]
    assert row[3:6] == ["–", "–", "–"]
    assert row[6] == (
        "ambiguous: 2 runs hold test results (m · cot (t1), m · cot (t2)); pass one run per split"
    )


def test_a_run_holding_both_splits_and_a_second_ood_run_is_ambiguous(make_run) -> None:
    both = _split("test", TEST) + _split("ood", OOD)
    runs = load_runs([make_run("both", both), make_run("o2", _split("ood", {"bfs": (5, 5)}))])
    (row,) = grit_split_pairs_table(runs).rows
    assert row[2] == "m · cot (both), m · cot (o2)" and row[6].startswith("ambiguous: 2 runs")


def test_runs_are_paired_only_within_one_model_and_mode(make_run) -> None:
    runs = load_runs([
        make_run("a-test", _split("test", TEST, model="a")),
        make_run("b-ood", _split("ood", OOD, model="b")),
        make_run("a-ood-direct", _split("ood", OOD, model="a", mode="direct")),
    ])  # fmt: skip
    assert split_pairs(runs) == []
    assert "grit_split_pairs" not in _keys(runs)
    # One run holding both splits: its own split-table row has the gap, no pair.
    one = load_runs([make_run("both", _split("test", TEST) + _split("ood", OOD))])
    assert split_pairs(one) == [] and "grit_split_pairs" not in _keys(one)
    (split,) = [t for t in all_tables(one)["GRIT"] if t.key == "grit_split"]
    assert split.rows[0][-1] == "+40.0"
