"""``closurebench train sft``: TRL's SFTTrainer with LoRA on every export target, on CPU.

A tiny local chat model (``tiny_model.py``, no download) trains 2 steps on each
``closurebench export sft`` target (the exported file loaded by TRL's ``SFTTrainer``);
the loss covers the assistant's reply and not the prompt; a LoRA adapter trained on one
constant reply is saved, reloaded and evaluated with ``closurebench eval`` through the
transformers provider and behind a loopback OpenAI-compatible server; ``--resume``
continues a run; bad recipes and models are one-line errors.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import closurebench
from closurebench.cli import app
from closurebench.errors import ConfigError
from closurebench.jsonl import canonical_json
from closurebench.schema import ClosureInstance
from closurebench.schema.training import SFT_TARGETS
from closurebench.train.export import sft_records
from closurebench.train.sft import build_sft_trainer, load_sft_recipe, read_sft_rows, to_trl_row

pytestmark = pytest.mark.usefixtures("one_torch_thread_module")  # a tiny model: see conftest
runner = CliRunner()


@pytest.fixture(scope="module")
def records() -> list[ClosureInstance]:
    """Four ClosureBench instances (every target applies to them)."""
    return closurebench.generate_split("heldout", seed=0, count=4)


@pytest.fixture(scope="module")
def exported(
    records: list[ClosureInstance], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """One exported SFT file per target."""
    out = tmp_path_factory.mktemp("sft")
    files = {}
    for target in SFT_TARGETS:
        path = out / f"{target}.jsonl"
        rows = sft_records(records, target)
        path.write_text("".join(canonical_json(r.to_json()) + "\n" for r in rows), "utf-8")
        files[target] = path
    return files


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, exported: dict[str, Path]) -> Path:
    """A tiny chat model whose tokenizer knows the exported text, as the tool template
    renders it too (the tools' schemas)."""
    pytest.importorskip("trl")
    from tiny_model import build_tiny_chat_model, tool_chat_texts

    texts = [
        m.get("content") or ""
        for path in exported.values()
        for r in read_sft_rows(path)[:2]
        for m in r["messages"]
    ]
    tool_rows = read_sft_rows(exported["agent-tools"])[:2]
    texts += tool_chat_texts([(r["messages"], json.loads(r["tools"])) for r in tool_rows])
    return build_tiny_chat_model(tmp_path_factory.mktemp("tiny") / "m", texts, vocab_size=4000)


@pytest.fixture(scope="module")
def tiny_tools(tmp_path_factory: pytest.TempPathFactory, tiny: Path) -> Path:
    """The tiny model with a chat template that renders tools and tool calls (Qwen 2.5's)."""
    from tiny_model import with_tool_template

    return with_tool_template(tiny, tmp_path_factory.mktemp("tiny-tools") / "m")


def _args(data: Path, model: Path, out: Path, *extra: str) -> list[str]:
    return [
        "train", "sft", "--data", str(data), "--model", str(model), "--out", str(out),
        "--no-progress", *extra,
    ]  # fmt: skip


def _small(tmp_path: Path, save_steps: int | None = None, **optim: Any) -> Path:
    """A recipe file: the default preset with a small adapter and batch (and, given
    ``save_steps``, a checkpoint every that many steps instead of at each epoch's end)."""
    recipe = tmp_path / "small.toml"
    lines = ["[lora]", "r = 4", "alpha = 8", "[optim]", "batch_size = 2"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in optim.items()]
    lines += ["[output]", f"save_steps = {save_steps}"] if save_steps else []
    lines += ["[sft]", "max_length = 32768"]  # the tiny tokenizer's tokens are short
    recipe.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return recipe


def _metrics(out: Path) -> list[dict[str, Any]]:
    lines = (out / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("target", SFT_TARGETS)
def test_two_sft_steps_on_each_export_target(
    target: str, exported: dict[str, Path], tiny: Path, tiny_tools: Path, tmp_path: Path
) -> None:
    model = tiny_tools if target == "agent-tools" else tiny
    out = tmp_path / "run"
    args = _args(exported[target], model, out, "--recipe", str(_small(tmp_path)))
    res = runner.invoke(app, [*args, "--max-steps", "2"])
    assert res.exit_code == 0, res.output
    assert f"({target})" in res.output and "LoRA r 4" in res.output
    losses = [m for m in _metrics(out) if "loss" in m]
    assert [m["step"] for m in losses] == [1, 2]
    assert all(m["loss"] > 0 for m in losses)
    final = out / "final"
    assert (final / "adapter_config.json").is_file() and (final / "tokenizer.json").is_file()
    saved = json.loads((out / "recipe.json").read_text(encoding="utf-8"))
    assert saved["preset"] == "closurebench-sft" and saved["lora"]["r"] == 4
    assert saved["optim"]["learning_rate"] == 2e-4 and saved["lora"]["dropout"] == 0.05


def _masked_text(trainer: Any, i: int) -> tuple[str, str]:
    """Row ``i``'s text outside and inside the loss mask."""
    row = trainer.train_dataset[i]
    ids = row["input_ids"]
    mask = [label != -100 for label in row["labels"]]
    tok = trainer.processing_class
    prompt = tok.decode([t for t, m in zip(ids, mask, strict=True) if not m])
    target = tok.decode([t for t, m in zip(ids, mask, strict=True) if m])
    return prompt, target


def _recipe(model: Path, out: Path, loss: str | None = None) -> Any:
    sft: dict[str, Any] = {"max_length": 32768} | ({"loss": loss} if loss else {})
    overrides = {"model": {"name": str(model)}, "output": {"dir": str(out)}, "sft": sft}
    return load_sft_recipe(None, overrides=overrides)


def test_the_loss_covers_the_reply_not_the_prompt(
    exported: dict[str, Path], tiny: Path, tiny_tools: Path, tmp_path: Path
) -> None:
    for target in ("answer", "agent", "agent-tools"):
        rows = read_sft_rows(exported[target])
        model = tiny_tools if target == "agent-tools" else tiny
        trainer = build_sft_trainer(_recipe(model, tmp_path), rows, progress=False)
        prompt, learned = _masked_text(trainer, 0)
        msgs = rows[0]["messages"]
        assert msgs[1]["content"] in prompt and msgs[1]["content"] not in learned
        replies = [m for m in msgs[2:] if m["role"] == "assistant"]
        results = [m["content"] for m in msgs[2:] if m["role"] != "assistant"]
        assert all(r in prompt and r not in learned for r in results)
        assert bool(results) == (target != "answer")
        if target == "answer":
            assert learned == msgs[2]["content"] + "<|im_end|>\n"
        elif target == "agent":
            assert learned == "".join(m["content"] + "<|im_end|>\n" for m in replies)
            assert len(replies) >= 2 and all(r.startswith("<result>") for r in results)
        else:  # the tools' schemas are rendered in the prompt, the calls in the reply
            assert '"name": "graph_tool"' in prompt and "<tool_response>" in prompt
            calls = [c for m in replies for c in (m.get("tool_calls") or [])]
            assert calls and all(c["function"]["name"] in learned for c in calls)
            assert "<tool_call>" in learned and '"arguments": {' in learned
            assert "<tool_response>" not in learned


def _token_bytes(tok: Any, ids: list[int]) -> list[bytes]:
    """Each token's own bytes (byte-level BPE: the vocabulary's characters mapped back)."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    back = {c: b for b, c in bytes_to_unicode().items()}
    special = set(tok.all_special_ids) | set(tok.added_tokens_decoder)
    out = []
    for i, piece in zip(ids, tok.convert_ids_to_tokens(ids), strict=True):
        out.append(piece.encode() if i in special else bytes(back[c] for c in piece))
    return out


def _expected_labels(text: bytes) -> list[int]:
    """1 on every byte from the end of an assistant turn's header through the end of its
    ``<|im_end|>\n`` (ChatML, which both tiny templates render), 0 elsewhere."""
    labels = [0] * len(text)
    head, end = b"<|im_start|>assistant\n", b"<|im_end|>\n"
    at = text.find(head)
    while at >= 0:
        start = at + len(head)
        stop = text.index(end, start) + len(end)
        labels[start:stop] = [1] * (stop - start)
        at = text.find(head, stop)
    return labels


@pytest.mark.parametrize("target", ["agent", "agent-tools"])
def test_the_mask_is_the_model_s_own_tokens_token_by_token(
    exported: dict[str, Path], tiny: Path, tiny_tools: Path, tmp_path: Path, target: str
) -> None:
    """Every token of every row, on a real byte-level tokenizer and chat template: its
    label is its id exactly when its bytes lie in an assistant turn (after the header,
    through the end-of-turn), -100 on the prompt, every tool result and every header."""
    model = tiny_tools if target == "agent-tools" else tiny
    rows = read_sft_rows(exported[target])
    trainer = build_sft_trainer(_recipe(model, tmp_path), rows, progress=False)
    tok = trainer.processing_class
    assert len(trainer.train_dataset) == len(rows)
    for row, record in zip(trainer.train_dataset, rows, strict=True):
        ids, labels = row["input_ids"], row["labels"]
        pieces = _token_bytes(tok, ids)
        tools = json.loads(record["tools"]) if record.get("tools") else None
        messages = to_trl_row(record, "full")["messages"]
        text = tok.apply_chat_template(messages, tools=tools, tokenize=False).encode()
        assert b"".join(pieces) == text  # the ids are the whole render, in order
        want = _expected_labels(text)
        at = 0
        for token, piece, label in zip(ids, pieces, labels, strict=True):
            span = set(want[at : at + len(piece)])
            assert len(span) == 1, (piece, "straddles a turn boundary")
            assert label == (token if span == {1} else -100), (piece, label)
            at += len(piece)
        assert 0 < sum(want) < len(want)


def test_the_paper_s_completion_loss_stays_reachable(
    exported: dict[str, Path], tiny: Path, tmp_path: Path
) -> None:
    """``sft.loss = "completion"``: everything after the prompt, tool results included."""
    rows = read_sft_rows(exported["agent"])
    trainer = build_sft_trainer(_recipe(tiny, tmp_path, "completion"), rows, progress=False)
    _, learned = _masked_text(trainer, 0)
    results = [m["content"] for m in rows[0]["messages"][2:] if m["role"] == "user"]
    assert results and all(r in learned for r in results)


def test_a_trained_adapter_is_evaluated_by_closurebench_eval(tiny: Path, tmp_path: Path) -> None:
    """A LoRA adapter learns one reply; eval loads it (base + adapter), locally and over HTTP."""
    from fake_openai_server import FakeOpenAIServer, Reply

    from closurebench.evaluate.providers import GenerationSettings, make_provider

    recs = closurebench.generate_split("heldout", seed=0, count=60)
    trues = [r for r in recs if r.result_type == "boolean" and r.answer is True][:3]
    assert len(trues) == 3
    data = tmp_path / "data.jsonl"
    data.write_text("".join(canonical_json(r.to_json()) + "\n" for r in trues), "utf-8")
    sft = tmp_path / "sft.jsonl"
    rows = sft_records(trues, "answer")
    sft.write_text("".join(canonical_json(r.to_json()) + "\n" for r in rows), "utf-8")
    out = tmp_path / "run"
    # one checkpoint, not one per epoch (of 2 steps): only the final adapter is evaluated
    recipe = _small(tmp_path, save_steps=40, learning_rate=0.02, max_steps=40)
    res = runner.invoke(app, _args(sft, tiny, out, "--recipe", str(recipe)))
    assert res.exit_code == 0, res.output
    final = out / "final"
    config = json.loads((final / "adapter_config.json").read_text(encoding="utf-8"))
    assert config["base_model_name_or_path"] == str(tiny) and config["r"] == 4

    def evaluate(model: Path, run: Path) -> list[dict[str, Any]]:
        args = [
            "eval", str(data), "--provider", "transformers", "--model", str(model),
            "--device", "cpu", "--out", str(run), "--no-progress", "--max-tokens", "12",
        ]  # fmt: skip
        got = runner.invoke(app, args)
        assert got.exit_code == 0, got.output
        lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]

    tuned = evaluate(final, tmp_path / "eval-tuned")
    assert [r["outcome"] for r in tuned] == ["strict_correct"] * 3
    assert {r["response"] for r in tuned} == {rows[0].messages[2].content}
    base = evaluate(tiny, tmp_path / "eval-base")
    assert all(r["outcome"] != "strict_correct" for r in base)

    backend = make_provider("transformers", model_path=str(final), device="cpu")

    def generate(body: dict[str, Any]) -> Reply:
        settings = GenerationSettings(
            model=body["model"], temperature=body["temperature"], max_tokens=body["max_tokens"]
        )
        got = asyncio.run(backend.complete(body["messages"], settings))
        return Reply(got.text, prompt_tokens=got.prompt_tokens, finish_reason="stop")

    with FakeOpenAIServer(served_models=["tuned"]) as server:
        server.script(default=generate)
        args = [
            "eval", str(data), "--model", "tuned", "--base-url", server.base_url,
            "--out", str(tmp_path / "eval-http"), "--no-progress", "--max-tokens", "12",
        ]  # fmt: skip
        got = runner.invoke(app, args)
        assert got.exit_code == 0, got.output
        assert len(server.chat_requests) == 3
    lines = (tmp_path / "eval-http" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["outcome"] for x in lines] == ["strict_correct"] * 3
    asyncio.run(backend.aclose())


def test_resume_continues_the_run(exported: dict[str, Path], tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    recipe = _small(tmp_path)
    args = _args(exported["answer"], tiny, out, "--recipe", str(recipe))
    res = runner.invoke(app, [*args, "--max-steps", "1"])
    assert res.exit_code == 0, res.output
    assert (out / "checkpoint-1").is_dir()
    res = runner.invoke(app, [*args, "--max-steps", "2"])
    assert res.exit_code == 1 and "pass --resume" in res.output
    other = ["train", "sft", "--data", str(exported["answer"]), "--out", str(out)]
    res = runner.invoke(app, [*other, "--preset", "grain-sft", "--model", str(tiny), "--resume"])
    assert res.exit_code == 1 and "started with another recipe" in res.output
    assert "lora" in res.output
    res = runner.invoke(app, [*other, "--no-progress", "--resume", "--max-steps", "2"])
    assert res.exit_code == 0, res.output
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text(encoding="utf-8"))
    assert state["global_step"] == 2
    assert [m["step"] for m in _metrics(out) if "loss" in m] == [1, 2]


def test_bad_recipes_and_models_are_one_line_errors(
    exported: dict[str, Path], tiny: Path, tmp_path: Path
) -> None:
    data = exported["answer"]
    bad = tmp_path / "bad.toml"
    bad.write_text("[optim]\nlr = 1\n[sft]\nmax_len = 9\n", encoding="utf-8")
    res = runner.invoke(app, _args(data, tiny, tmp_path / "o", "--recipe", str(bad)))
    assert res.exit_code == 1, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1, res.output
    assert "optim.lr: unknown key" in lines[0] and "sft.max_len: unknown key" in lines[0]
    res = runner.invoke(app, [*_args(data, tiny, tmp_path / "o"), "--preset", "grain-grpo"])
    assert res.exit_code == 1 and "not a sft recipe" in res.output
    res = runner.invoke(app, _args(data, tmp_path / "nowhere", tmp_path / "o"))
    assert res.exit_code == 1
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "no such directory" in lines[0], res.output
    res = runner.invoke(app, _args(tmp_path / "missing.jsonl", tiny, tmp_path / "o"))
    assert res.exit_code == 1 and "closurebench export sft" in res.output
    with pytest.raises(ConfigError, match="max_length"):
        load_sft_recipe(None, overrides={"model": {"name": "m"}, "sft": {"max_length": 2}})


#: Runs each command of ``argv[1]`` (a JSON list of argument lists) as ``python -m
#: closurebench`` would, one after the other in this one process, each with its own
#: stdout and stderr (file descriptors 1 and 2 point into ``argv[2]/<i>.out`` while it
#: runs, so every write lands there, the C level's too); prints the exit codes as JSON.
_COMMANDS = """
import json, os, sys
from closurebench.cli import app
codes = []
for i, args in enumerate(json.loads(sys.argv[1])):
    sys.stdout.flush(); sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(os.path.join(sys.argv[2], f"{i}.out"), "wb") as out:
        os.dup2(out.fileno(), 1); os.dup2(out.fileno(), 2)
        try:
            app(args, prog_name="closurebench")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        finally:
            sys.stdout.flush(); sys.stderr.flush()
            os.dup2(saved[0], 1); os.dup2(saved[1], 2)
    codes.append(code)
print(json.dumps(codes))
"""


def test_offline_hub_ids_are_refused_with_the_reason(
    records: list[ClosureInstance], exported: dict[str, Path], tmp_path: Path
) -> None:
    """A hub id missing from the cache under HF_HUB_OFFLINE=1: a clear line, no download.

    In a fresh process: huggingface_hub reads HF_HUB_OFFLINE when it is imported. One
    process runs both commands (``train sft`` first, on a fresh interpreter; then
    ``eval``), each with its own output, so torch and transformers load once.
    """
    import os
    import subprocess
    import sys

    data = tmp_path / "data.jsonl"
    data.write_text("".join(canonical_json(r.to_json()) + "\n" for r in records[:1]), "utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "empty-cache")}
    model = ["--model", "someone/not-cached"]
    train = ["train", "sft", "--data", str(exported["answer"]), "--out", str(tmp_path / "o")]
    evaluate = ["eval", str(data), "--provider", "transformers", "--out", str(tmp_path / "e")]
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    got = subprocess.run(
        [sys.executable, "-c", _COMMANDS, json.dumps([train + model, evaluate + model]),
         str(outputs)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert got.returncode == 0 and got.stderr == "", got.stdout + got.stderr
    codes = json.loads(got.stdout)
    for i, cmd in enumerate((train, evaluate)):
        text = (outputs / f"{i}.out").read_text("utf-8")
        assert codes[i] != 0, text
        line = "model 'someone/not-cached' cannot be loaded"
        assert line in text and "HF_HUB_OFFLINE is set and the model is not in the local" in text
        if cmd is train:
            assert len([x for x in text.splitlines() if x.strip()]) == 1, text
