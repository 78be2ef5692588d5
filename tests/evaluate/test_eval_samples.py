"""Repeated sampling through ``closurebench eval --samples K`` over a loopback server.

A scripted server answers each (question, sample) as a table says — the sample read
back from the request's ``seed`` (``--request-seed``), so the test also shows that the
request carries it — and the run's pass@k, mean and spread equal a hand count, in
``samples.json``, on the console and in the report. An errored sample is not a sample
(its instance has n = 2 until a resume retries it).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import FakeOpenAIServer, Reply, Status
from typer.testing import CliRunner

from closurebench.cli import EXIT_INCOMPLETE, app
from closurebench.schema.samples import parse_samples

#: Per instance (in dataset order), whether sample k's reply is right; None: HTTP 500.
TABLE: list[list[bool | None]] = [
    [True, True, False],
    [False, None, False],
    [True, True, True],
]
SEED = 100


def _server(records: list[Any], table: list[list[bool | None]]) -> Any:
    row = {r.question: (r, table[i]) for i, r in enumerate(records[: len(table)])}

    def reply(body: dict[str, Any]) -> Any:
        record, verdicts = row[body["messages"][-1]["content"]]
        verdict = verdicts[body["seed"] - SEED]
        if verdict is None:
            return Status(500)
        return Reply(json.dumps({"answer": record.answer if verdict else "zzz-wrong"}))

    return reply


def _args(path: Path, out: Path, base_url: str) -> list[str]:
    return [str(path), "--model", "m", "--base-url", base_url, "--out", str(out),
            "--no-progress", "--limit", "3", "--retries", "0", "--samples", "3",
            "--temperature", "0.7", "--request-seed", str(SEED)]  # fmt: skip


def test_samples_give_pass_at_k_equal_to_a_hand_count(data: Any, tmp_path: Path) -> None:
    path, records = data
    out = tmp_path / "runs"
    with FakeOpenAIServer() as fake:
        fake.script(default=_server(records, TABLE))
        res = CliRunner().invoke(EVAL_APP, _args(path, out, fake.base_url))
        seeds = sorted(r.body["seed"] for r in fake.chat_requests)
        temperatures = {r.body["temperature"] for r in fake.chat_requests}
    assert res.exit_code == EXIT_INCOMPLETE, res.output  # sample 2 has an error
    assert seeds == [100] * 3 + [101] * 3 + [102] * 3 and temperatures == {0.7}
    for k in (1, 2, 3):
        identity = json.loads((out / f"sample-{k}" / "run.json").read_text())
        assert identity["sample"] == k and identity["settings"]["seed"] == SEED + k - 1
    scored = parse_samples((out / "samples.json").read_text(), "samples.json")
    (group,) = scored.groups
    assert group.samples == 3 and group.instances == 3 and group.complete_instances == 2
    assert [r.errors for r in group.runs] == [0, 1, 0]
    strict = group.strict
    # by hand: instance scores 2/3, 0/2, 3/3; per-sample accuracies 2/3, 2/2, 1/3
    assert strict.mean == pytest.approx((2 / 3 + 0 + 1) / 3)
    pass_at = {p.k: (p.value, p.instances) for p in strict.pass_at}
    assert pass_at[1] == (pytest.approx(5 / 9), 3)
    assert pass_at[2] == (pytest.approx(2 / 3), 3)  # 1, 0 (n=2, c=0), 1
    assert pass_at[3] == (pytest.approx(1.0), 2)  # the instance with n=2 is left out
    accs = [2 / 3, 1.0, 1 / 3]
    mean_acc = sum(accs) / 3
    std = math.sqrt(sum((a - mean_acc) ** 2 for a in accs) / 2)
    assert strict.std_over_samples == pytest.approx(std)
    assert strict.ci95 is not None and strict.mean is not None
    assert strict.ci95[0] < strict.mean < strict.ci95[1]
    assert "pass@1=0.556, pass@2=0.667, pass@3=1.000" in res.stdout
    md = (out / "report" / "report.md").read_text()
    assert "Repeated sampling (pass@k)" in md
    row = next(line for line in md.splitlines() if line.startswith("| m · direct | strict"))
    assert "| 3 | 2/3 | 55.6 [" in row and row.endswith("| 55.6 | 66.7 | 100.0 |")

    # A resume retries the errored sample only; the instance then has three samples.
    fixed = [row[:] for row in TABLE]
    fixed[1][1] = False
    with FakeOpenAIServer() as fake:
        fake.script(default=_server(records, fixed))
        again = CliRunner().invoke(EVAL_APP, _args(path, out, fake.base_url))
        assert [r.body["seed"] for r in fake.chat_requests] == [101]
    assert again.exit_code == 0, again.output
    group = parse_samples((out / "samples.json").read_text(), "x").groups[0]
    assert group.complete_instances == 3
    assert {p.k: p.value for p in group.strict.pass_at}[3] == pytest.approx(2 / 3)
    check = CliRunner().invoke(app, ["schema", "samples", "--validate", str(out / "samples.json")])
    assert check.exit_code == 0, check.output


def test_samples_refuse_a_run_folder_and_note_greedy_decoding(data: Any, tmp_path: Path) -> None:
    path, _ = data
    run = tmp_path / "run"
    base = [str(path), "--model", "random", "--no-progress", "--limit", "2"]
    assert CliRunner().invoke(EVAL_APP, [*base, "--out", str(run)]).exit_code == 0
    res = CliRunner().invoke(EVAL_APP, [*base, "--out", str(run), "--samples", "2"])
    assert res.exit_code == 1 and "is a run folder" in res.stderr
    res = CliRunner().invoke(EVAL_APP, [*base, "--out", str(tmp_path / "s"), "--samples", "2"])
    assert res.exit_code == 0, res.output
    assert "at temperature 0 repeats greedy decoding" in res.stderr
    assert (tmp_path / "s" / "sample-2" / "results.jsonl").is_file()
    res = CliRunner().invoke(EVAL_APP, [*base, "--out", str(tmp_path / "z"), "--samples", "0"])
    assert res.exit_code == 2 and "--samples" in res.output


def test_several_models_with_samples_nest_their_folders(data: Any, tmp_path: Path) -> None:
    path, _ = data
    out = tmp_path / "grid"
    args = [str(path), "--model", "random", "--model", "majority", "--out", str(out),
            "--no-progress", "--limit", "2", "--samples", "2", "--temperature", "1"]  # fmt: skip
    res = CliRunner().invoke(EVAL_APP, args)
    assert res.exit_code == 0, res.output
    assert sorted(p.relative_to(out).as_posix() for p in out.glob("*/sample-*")) == [
        "majority/sample-1", "majority/sample-2", "random/sample-1", "random/sample-2"
    ]  # fmt: skip
    groups = parse_samples((out / "samples.json").read_text(), "x").groups
    assert sorted(g.model for g in groups) == ["majority", "random"]
