"""The probe through the real transformers provider, with a tiny model built here.

The model (``tests/train/tiny_model.py``: a byte-level tokenizer and a 2-layer Llama,
random weights, no download) is the base model, and a copy of it in a transformers
``checkpoint-<step>`` folder with a ``trainer_state.json`` is a checkpoint: the probe
loads each through the provider, generates, scores and records the step and epoch.
Skipped without the ``train`` extra (torch, transformers), unless
``CLOSUREBENCH_REQUIRE_TRAIN=1``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.evaluate.modes import get_mode
from closurebench.report.memorisation import JSON_FILE
from closurebench.schema import ClosureInstance, MemorisationProbe

_MISSING = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
if _MISSING and os.environ.get("CLOSUREBENCH_REQUIRE_TRAIN") != "1":
    pytest.skip(f"train extra not installed ({', '.join(_MISSING)})", allow_module_level=True)

_TRAIN_TESTS = str(Path(__file__).resolve().parents[1] / "train")
if _TRAIN_TESTS not in sys.path:
    sys.path.insert(0, _TRAIN_TESTS)

from tiny_model import build_tiny_chat_model, one_torch_thread  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _one_torch_thread() -> Iterator[None]:
    """A tiny model: torch on one thread (more only spin; see ``one_torch_thread``)."""
    with one_torch_thread():
        yield


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


def test_the_probe_loads_the_base_model_and_a_checkpoint(
    tmp_path: Path, seen_file: Path, seen_records: list[ClosureInstance]
) -> None:
    mode = get_mode("direct")
    texts = [m["content"] for r in seen_records for m in mode.messages(r)]
    base = build_tiny_chat_model(tmp_path / "base", texts)
    ckpt = tmp_path / "run" / "checkpoint-2"
    shutil.copytree(base, ckpt)
    state = {"global_step": 2, "epoch": 1.0}
    (ckpt / "trainer_state.json").write_text(json.dumps(state), encoding="utf-8")
    out = tmp_path / "probe"
    args = [
        "memorisation", "--model", str(base), "--checkpoints", str(ckpt), "--seen",
        str(seen_file), "--out", str(out), "--provider", "transformers", "--device", "cpu",
        "--max-tokens", "4", "--seeds", "1", "--fresh-count", "4", "--no-progress",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    probe = MemorisationProbe.model_validate_json((out / JSON_FILE).read_text("utf-8"))
    assert [(c.label, c.step, c.epoch) for c in probe.checkpoints] == [
        ("base", None, None), ("checkpoint-2", 2, 1.0),
    ]  # fmt: skip
    for c in probe.checkpoints:
        assert c.complete
        assert [(s.set, s.answered) for s in c.sets] == [
            ("seen", 8), ("fresh", 4), ("reworded", 8),
        ]  # fmt: skip
    results = (out / "runs" / "checkpoint-2" / "seen" / "results.jsonl").read_text("utf-8")
    assert all(json.loads(line)["settings"]["model"] == str(ckpt) for line in results.splitlines())


def test_a_checkpoint_without_weights_is_refused_in_one_line(
    tmp_path: Path, seen_file: Path
) -> None:
    ckpt = tmp_path / "checkpoint-9"
    ckpt.mkdir()
    (ckpt / "config.json").write_text("{}", encoding="utf-8")
    args = [
        "memorisation", "--model", "m", "--checkpoints", str(ckpt), "--seen", str(seen_file),
        "--out", str(tmp_path / "probe"), "--provider", "transformers",
    ]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"error: --checkpoints {ckpt}: holds no weights (*.safetensors or *.bin); the "
        "checkpoint was not saved completely"
    )
