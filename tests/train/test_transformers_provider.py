"""Smoke tests of the transformers provider with a tiny chat model built here.

The model is built from scratch (tokenizer trained on the prompts, 2-layer Llama,
fitted for a few seconds to always answer ``{"answer": true}``), saved to a temporary
directory and loaded by ``closurebench eval --provider transformers --model DIR``:
the real chat-template, generation, decoding, scoring and results-file path, with no
download (``HF_HUB_OFFLINE=1``). The same model also answers over HTTP behind the
loopback OpenAI-compatible server, evaluated through the real ``openai`` client.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Reply
from tiny_model import build_tiny_chat_model
from typer.testing import CliRunner

import closurebench
from closurebench.cli import app
from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.providers import GenerationSettings, ProviderError, make_provider
from closurebench.evaluate.providers.transformers_local import TransformersProvider
from closurebench.generate.io import canonical_json
from closurebench.schema import ClosureInstance

pytestmark = pytest.mark.usefixtures("one_torch_thread_module")  # a tiny model: see conftest
REPLY = '{"answer": true}'


def write_jsonl(path: Path, records: list[ClosureInstance]) -> None:
    path.write_text("".join(canonical_json(r.to_json()) + "\n" for r in records), encoding="utf-8")


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="module")
def boolean_records() -> list[ClosureInstance]:
    """Six boolean ClosureBench instances, both answers present."""
    recs = closurebench.generate_split("heldout", seed=0, count=40)
    picked = [r for r in recs if r.result_type == "boolean"][:6]
    assert {r.answer for r in picked} == {True, False}
    return picked


@pytest.fixture(scope="module")
def tiny_models(
    boolean_records: list[ClosureInstance], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """A fitted model (always answers REPLY) and an unfitted one (random weights)."""
    mode = get_mode("direct")
    prompts = [mode.messages(r) for r in boolean_records]
    texts = [m["content"] for ms in prompts for m in ms]
    fitted = build_tiny_chat_model(
        tmp_path_factory.mktemp("fitted"), texts, reply=REPLY, prompts=prompts
    )
    raw = build_tiny_chat_model(tmp_path_factory.mktemp("raw"), texts)
    return {"fitted": fitted, "raw": raw}


def _eval(data: Path, model: Path, out: Path, *extra: str) -> Any:
    args = [
        "eval", str(data), "--provider", "transformers", "--model", str(model),
        "--device", "cpu", "--out", str(out), "--no-progress", "--max-tokens", "12", *extra,
    ]  # fmt: skip
    return CliRunner().invoke(app, args)


def _results(out: Path) -> list[dict[str, Any]]:
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_eval_cli_with_a_fitted_tiny_model(
    tiny_models: dict[str, Path], boolean_records: list[ClosureInstance], tmp_path: Path
) -> None:
    data = tmp_path / "data.jsonl"
    write_jsonl(data, boolean_records)
    res = _eval(data, tiny_models["fitted"], tmp_path / "run")
    assert res.exit_code == 0, res.output
    results = {r["id"]: r for r in _results(tmp_path / "run")}
    assert len(results) == len(boolean_records)
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tiny_models["fitted"])
    mode = get_mode("direct")
    for rec in boolean_records:
        r = results[rec.id]
        assert r["error"] is None
        assert r["response"] == REPLY
        assert r["outcome"] == ("strict_correct" if rec.answer is True else "wrong")
        assert r["finish_reason"] == "stop"
        # Usage is counted with the model's own tokenizer and chat template.
        prompt = tok.apply_chat_template(
            mode.messages(rec), add_generation_prompt=True, tokenize=True, return_dict=True
        )
        assert isinstance(prompt, Mapping)  # return_dict=True: a BatchEncoding
        n_prompt = len(prompt["input_ids"])
        assert r["usage"]["prompt_tokens"] == n_prompt
        n_reply = len(tok(REPLY + "<|im_end|>", add_special_tokens=False)["input_ids"])
        assert r["usage"]["completion_tokens"] == n_reply
        assert r["settings"]["model"] == str(tiny_models["fitted"])
        assert r["latency_s"] > 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    trues = sum(1 for r in boolean_records if r.answer is True)
    assert summary["strict_correct"] == trues
    assert summary["strict_accuracy"] == pytest.approx(trues / len(boolean_records))

    # A second run resumes: nothing is generated again.
    again = _eval(data, tiny_models["fitted"], tmp_path / "run")
    assert again.exit_code == 0, again.output
    assert "evaluated 0" in again.output
    assert len(_results(tmp_path / "run")) == len(boolean_records)


def test_tiny_model_served_over_http_through_the_openai_client(
    tiny_models: dict[str, Path], boolean_records: list[ClosureInstance], tmp_path: Path
) -> None:
    # A real model behind a real HTTP server: each chat request is generated by the
    # transformers provider in the server's thread, usage included.
    backend = make_provider("transformers", model_path=str(tiny_models["fitted"]), device="cpu")

    def generate(body: dict[str, Any]) -> Reply:
        settings = GenerationSettings(
            model=body["model"],
            temperature=body["temperature"],
            max_tokens=body["max_tokens"],
        )
        out = asyncio.run(backend.complete(body["messages"], settings))
        return Reply(
            out.text,
            prompt_tokens=out.prompt_tokens,
            completion_tokens=out.completion_tokens,
            finish_reason=out.finish_reason or "stop",
        )

    data = tmp_path / "data.jsonl"
    write_jsonl(data, boolean_records)
    with FakeOpenAIServer(served_models=["tiny"]) as server:
        server.script(default=generate)
        args = [
            "eval", str(data), "--model", "tiny", "--base-url", server.base_url,
            "--out", str(tmp_path / "run"), "--no-progress", "--max-tokens", "12",
            "--concurrency", "2",
        ]  # fmt: skip
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
        sent = server.chat_requests
    assert len(sent) == len(boolean_records)
    assert all(r.body["max_tokens"] == 12 and r.body["temperature"] == 0 for r in sent)
    results = {r["id"]: r for r in _results(tmp_path / "run")}
    for rec in boolean_records:
        r = results[rec.id]
        assert r["response"] == REPLY
        assert r["outcome"] == ("strict_correct" if rec.answer is True else "wrong")
        assert r["usage"]["prompt_tokens"] > 100 and r["usage"]["completion_tokens"] > 0
    asyncio.run(backend.aclose())


def test_random_weights_give_outcomes_not_crashes(
    tiny_models: dict[str, Path], boolean_records: list[ClosureInstance], tmp_path: Path
) -> None:
    data = tmp_path / "data.jsonl"
    write_jsonl(data, boolean_records[:3])
    res = _eval(data, tiny_models["raw"], tmp_path / "run")
    assert res.exit_code == 0, res.output
    for r in _results(tmp_path / "run"):
        assert r["error"] is None
        assert r["outcome"] in {"no_answer", "format_error", "wrong", "strict_correct"}
        assert 1 <= r["usage"]["completion_tokens"] <= 12
        if r["usage"]["completion_tokens"] == 12:
            assert r["finish_reason"] == "length"


def test_generation_stops_at_the_timeout_and_queues_are_not_cut(
    tiny_models: dict[str, Path], boolean_records: list[ClosureInstance], tmp_path: Path
) -> None:
    provider = make_provider("transformers", model_path=str(tiny_models["raw"]), device="cpu")
    assert isinstance(provider, TransformersProvider) and provider.enforces_timeout
    messages = [{"role": "user", "content": "Is there a path?"}]
    quick = GenerationSettings(model="tiny", max_tokens=2000, timeout_s=0.05)
    out = asyncio.run(provider.complete(messages, quick))
    assert out.completion_tokens is not None
    assert out.finish_reason == "timeout" and 0 < out.completion_tokens < 2000
    asyncio.run(provider.aclose())
    # Through the CLI: six requests queue for one model (1.2 s in all, past the 0.7 s
    # an outside timeout would allow); none is cancelled while it waits, and each
    # stops generating at the 0.2 s limit.
    data = tmp_path / "data.jsonl"
    write_jsonl(data, boolean_records[:6])
    res = _eval(
        data, tiny_models["raw"], tmp_path / "run", "--timeout", "0.2", "--concurrency", "6",
        "--retries", "0", "--max-tokens", "100000",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    results = _results(tmp_path / "run")
    assert len(results) == 6
    assert all(r["error"] is None and r["finish_reason"] == "timeout" for r in results)


def test_sampling_is_seeded(tiny_models: dict[str, Path]) -> None:
    provider = make_provider("transformers", model_path=str(tiny_models["raw"]), device="cpu")
    messages = [{"role": "user", "content": "Is there a path?"}]

    async def twice(seed: int) -> list[str]:
        s = GenerationSettings(model="tiny", temperature=1.0, max_tokens=8, seed=seed)
        return [(await provider.complete(messages, s)).text for _ in range(2)]

    first, second = asyncio.run(twice(7)), asyncio.run(twice(7))
    assert first == second
    asyncio.run(provider.aclose())


def test_missing_chat_template_is_a_clear_error(
    tiny_models: dict[str, Path], tmp_path: Path
) -> None:
    import shutil

    from transformers import AutoTokenizer

    plain = tmp_path / "plain"
    shutil.copytree(tiny_models["raw"], plain)
    tok = AutoTokenizer.from_pretrained(plain)
    tok.chat_template = None
    tok.save_pretrained(plain)
    for extra in plain.glob("chat_template.*"):
        extra.unlink()
    provider = make_provider("transformers", model_path=str(plain), device="cpu")
    with pytest.raises(ProviderError, match="no chat template") as info:
        asyncio.run(
            provider.complete([{"role": "user", "content": "hi"}], GenerationSettings(model="x"))
        )
    assert not info.value.retryable


def test_unloadable_model_names_the_fix(tmp_path: Path) -> None:
    provider = make_provider("transformers", model_path=str(tmp_path / "nowhere"), device="cpu")
    with pytest.raises(ProviderError, match="no such directory") as info:
        asyncio.run(
            provider.complete([{"role": "user", "content": "hi"}], GenerationSettings(model="x"))
        )
    assert "pass a model directory or a hub id" in str(info.value) and info.value.fatal
    empty = tmp_path / "empty"
    empty.mkdir()
    provider = make_provider("transformers", model_path=str(empty), device="cpu")
    with pytest.raises(ProviderError, match=r"needs config\.json and weights") as info:
        asyncio.run(
            provider.complete([{"role": "user", "content": "hi"}], GenerationSettings(model="x"))
        )
    assert "\n" not in str(info.value)


def test_stop_sequences_cut_local_generations_and_native_tools_are_refused(
    tiny_models: dict[str, Path],
) -> None:
    """A local model cannot stop on a string: its text is cut as a server would cut it."""
    provider = make_provider("transformers", model_path=str(tiny_models["raw"]), device="cpu")
    messages = [{"role": "user", "content": "Is there a path?"}]
    base = GenerationSettings(model="tiny", temperature=1.0, max_tokens=16, seed=3)
    full = asyncio.run(provider.complete(messages, base)).text
    assert len(full) > 2
    stop = full[1:3]  # a string the seeded generation is known to contain
    cut = asyncio.run(provider.complete(messages, base.with_stop([stop])))
    assert cut.text == full[: full.index(stop)] and cut.finish_reason == "stop"
    spec = {"type": "function", "function": {"name": "graph_tool", "parameters": {}}}
    with pytest.raises(ProviderError, match="--mode agent") as info:
        asyncio.run(provider.complete(messages, base.with_tools([spec])))
    assert info.value.fatal
    asyncio.run(provider.aclose())
