"""``closurebench train recipe grain``: GRAIN's data, SFT and ARPO in one command.

The dry run prints the plan (the papers' settings, the curriculum, the memory of the
model's exact parameter count) and runs nothing; the full run, cut to one step per
stage on a tiny local model, generates nothing it was given, exports both files, trains
SFT and then RL from the SFT model through both curriculum phases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.generate.grit import GritConfig, write_split
from closurebench.train.paper_recipe import count_parameters, grain_plan, run_plan

pytestmark = pytest.mark.usefixtures("one_torch_thread_module")
runner = CliRunner()


@pytest.fixture(scope="module")
def grit_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two shortest-path graphs of 10-12 nodes (in both curriculum phases), 8 views each."""
    config = GritConfig(
        split="train", seed=0, count=2, tasks=("shortest_path",), n_min=10, n_max=12
    )
    path, *_ = write_split(config, tmp_path_factory.mktemp("grit"))
    return Path(path)


@pytest.fixture(scope="module")
def tiny_tools(tmp_path_factory: pytest.TempPathFactory, grit_file: Path) -> Path:
    pytest.importorskip("trl")
    from tiny_model import build_tiny_chat_model, tool_chat_texts, with_tool_template

    from closurebench.generate.io import load_instances
    from closurebench.train.export import sft_records

    rows = [r.to_json() for r in sft_records(load_instances(grit_file), "agent-tools")]
    texts = [m.get("content") or "" for r in rows for m in r["messages"]]
    texts += tool_chat_texts([(r["messages"], json.loads(r["tools"])) for r in rows[:2]])
    base = build_tiny_chat_model(tmp_path_factory.mktemp("tiny") / "m", texts, vocab_size=2000)
    return with_tool_template(base, tmp_path_factory.mktemp("tiny-tools") / "m")


def test_the_dry_run_prints_the_plan_and_runs_nothing(tiny_tools: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = runner.invoke(
        app,
        ["train", "recipe", "grain", "--model", str(tiny_tools), "--out", str(out), "--dry-run"],
    )
    assert res.exit_code == 0, res.output
    text = res.output
    assert "grain-sft, GRAIN Table 7): full fine-tuning, lr 7e-06, cosine" in text
    assert "grain-arpo, GRAIN Table 9): arpo, tools mode, naming perturbation on" in text
    assert "phase-1: n 4-14, 1 pass" in text and "phase-2: n 10-40, 2 graphs per task" in text
    params = count_parameters(str(tiny_tools))
    from transformers import AutoModelForCausalLM

    real = sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(tiny_tools).parameters())
    assert params == real
    assert f"memory: {round(real / 1e9, 2)} B parameters" in text
    assert not out.exists()
    bad = runner.invoke(app, ["train", "recipe", "nope", "--model", "m", "--out", str(out)])
    assert bad.exit_code == 1 and "recipe 'nope' is unknown; choose one of grain" in bad.output


def test_the_recipe_runs_sft_then_rl_through_both_phases(
    tiny_tools: Path, grit_file: Path, tmp_path: Path
) -> None:
    plan = grain_plan(
        str(tiny_tools), tmp_path / "run", data=grit_file, sft_max_steps=1, rl_max_steps=1,
        dtype="float32",
        sft_overrides={"sft": {"max_length": 32768}},
        rl_overrides={
            "optim": {"batch_size": 2},
            "grpo": {"num_generations": 4, "mini_batch_size": 2, "max_completion_length": 24,
                     "max_prompt_length": None, "max_tool_calls": 1,
                     "tools": ["shortest_path"]},  # one tool schema: a shorter prompt
        },
    )  # fmt: skip
    said: list[str] = []
    final = run_plan(plan, progress=False, echo=said.append)
    run = tmp_path / "run"
    sft_rows = (run / "data" / "sft.jsonl").read_text().splitlines()
    assert len(sft_rows) == 16 and all('"target":"agent-tools"' in r for r in sft_rows)
    assert len((run / "data" / "grpo.jsonl").read_text().splitlines()) == 16
    assert (run / "sft" / "final" / "config.json").is_file()
    rl_recipe = json.loads((run / "rl" / "recipe.json").read_text())
    assert rl_recipe["model"]["name"] == str(run / "sft" / "final")  # RL starts from SFT
    stages = [
        json.loads(x).get("curriculum_stage")
        for x in (run / "rl" / "metrics.jsonl").read_text().splitlines()
    ]
    assert {"phase-1", "phase-2"} <= set(stages)
    assert final == run / "rl" / "final" and (final / "config.json").is_file()
    assert not (run / "data" / "grit").exists()  # the given file, nothing generated
