"""Opt-in: a tiny model trained end to end with closurebench gets better on held-out data.

Runs ``benchmarks/train_learning.py`` at a small size (about a minute on 2 cores) when
``CLOSUREBENCH_LEARNING=1``; skipped otherwise (the suite's time budget). The full
figures are the benchmark's (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("CLOSUREBENCH_LEARNING") != "1",
    reason="opt-in: set CLOSUREBENCH_LEARNING=1 to train end to end (about a minute)",
)

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "train_learning.py"


def test_sft_then_grpo_improves_held_out_figures(tmp_path: Path) -> None:
    pytest.importorskip("trl")
    spec = importlib.util.spec_from_file_location("train_learning", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "learning"
    args = ["--train", "64", "--heldout", "16", "--epochs", "10", "--save-steps", "40"]
    args += ["--grpo-steps", "4", "--seeds", "0", "--window", "2", "--out", str(out)]
    assert bench.main(args) == 0
    report = json.loads((out / "learning.json").read_text(encoding="utf-8"))
    before, after = report["sft"]["curve"][0], report["sft"]["curve"][-1]
    assert before["step"] == 0 and after["step"] > 0
    assert after["loss"] < 0.5 * before["loss"]  # the reply's tokens, held out
    assert before["format_valid"] == 0.0 and after["format_valid"] >= 0.2
    assert len(report["grpo"]["runs"][0]["reward"]) == 4
    assert report["peak_rss_mib"] > 0 and report["sft"]["tokens_per_second"] > 0
