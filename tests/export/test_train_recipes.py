"""Training recipes without the train extra: presets, validation errors, the documented file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from closurebench.errors import ConfigError
from closurebench.train.grpo import load_grpo_recipe
from closurebench.train.recipe import PRESETS, load_recipe, require_extra
from closurebench.train.sft import SftRecipe, load_sft_recipe, to_trl_row

DOCS = Path(__file__).resolve().parents[2] / "docs" / "training.md"


def test_presets_are_the_papers_settings() -> None:
    sft = load_sft_recipe(None, overrides={"model": {"name": "m"}})
    assert sft.preset == "closurebench-sft"  # the default
    assert (sft.lora.r, sft.lora.alpha, sft.lora.dropout) == (16, 32, 0.05)  # type: ignore[union-attr]
    assert (sft.optim.learning_rate, sft.optim.batch_size, sft.optim.epochs) == (2e-4, 4, 3)
    grain = load_sft_recipe(None, preset_name="grain-sft", overrides={"model": {"name": "m"}})
    assert grain.lora is False and grain.optim.learning_rate == 7e-6
    assert grain.optim.batch_size * grain.optim.gradient_accumulation == 8
    arpo = load_grpo_recipe(None, preset_name="grain-arpo", overrides={"model": {"name": "m"}})
    assert arpo.grpo.algorithm == "arpo" and arpo.grpo.num_generations == 8
    assert (arpo.grpo.arpo.beam_size, arpo.grpo.arpo.branch_probability) == (2, 0.5)
    assert arpo.grpo.arpo.entropy_weight == 0.2 and arpo.grpo.arpo.initial_rollouts == 2
    assert {v["kind"] for v in PRESETS.values()} == {"sft", "grpo"}


def test_recipe_errors_name_every_bad_key(tmp_path: Path) -> None:
    bad = tmp_path / "r.toml"
    bad.write_text('preset = "closurebench-sft"\n[lora]\nrank = 8\n[optim]\nepochs = -1\n')
    with pytest.raises(ConfigError) as info:
        load_sft_recipe(bad, overrides={"model": {"name": "m"}})
    text = str(info.value)
    assert "lora.rank: unknown key" in text and "optim.epochs" in text and str(bad) in text
    with pytest.raises(ConfigError, match="not a sft recipe"):
        load_sft_recipe(None, preset_name="grain-grpo", overrides={"model": {"name": "m"}})
    with pytest.raises(ConfigError, match="no such recipe file"):
        load_sft_recipe(tmp_path / "missing.toml")
    broken = tmp_path / "b.toml"
    broken.write_text("[optim\n")
    with pytest.raises(ConfigError, match="not a readable TOML/JSON recipe"):
        load_sft_recipe(broken)


def test_the_documented_recipe_validates() -> None:
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block is not None
    data = tomllib.loads(block.group(1))
    assert data["preset"] == "closurebench-sft"
    merged = load_recipe(None, SftRecipe, "sft", preset_name=data.pop("preset"), overrides=data)
    assert merged.sft.loss == "assistant" and merged.output.report_to == ["tensorboard"]


def test_missing_extra_is_one_line() -> None:
    with pytest.raises(ConfigError, match=r"train` extra \(no-such-package-xyz not installed\)"):
        require_extra(("no-such-package-xyz",))


def test_agent_tools_rows_pass_arguments_as_objects() -> None:
    rec = {
        "id": "x",
        "tools": '[{"type": "function"}]',
        "messages": [
            {"role": "system", "content": "S"},
            {"role": "user", "content": "Q"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "graph_tool", "arguments": '{"a": 1}'},
                    }
                ],
            },
            {"role": "tool", "content": "R", "tool_call_id": "c1"},
            {"role": "assistant", "content": "<answer>1</answer>"},
        ],
    }
    row = to_trl_row(rec)
    assert [m["role"] for m in row["prompt"]] == ["system", "user"]
    call = row["completion"][0]["tool_calls"][0]
    assert call["function"]["arguments"] == {"a": 1} and row["completion"][0]["content"] == ""
    assert row["completion"][1]["tool_call_id"] == "c1" and row["tools"] == rec["tools"]
    assert list(to_trl_row(rec, "assistant")) == ["messages", "tools"]
