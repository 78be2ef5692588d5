"""Provider interface types, the scripted provider, the transformers extra and the lookup."""

from __future__ import annotations

import asyncio
import dataclasses
import pickle
import sys
from typing import Any

import pytest

from closurebench.errors import ClosureBenchError, ConfigError
from closurebench.evaluate.providers import (
    PROVIDERS,
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
    ScriptedProvider,
    ScriptedReply,
    make_provider,
)
from closurebench.evaluate.providers.transformers_local import TransformersProvider, split_think

S = GenerationSettings(model="m")


def ask(provider: ScriptedProvider, prompt: str) -> Completion:
    return asyncio.run(provider.complete([{"role": "user", "content": prompt}], S))


def test_generation_settings_record() -> None:
    s = GenerationSettings(model="qwen", temperature=0.5, seed=3)
    assert s.to_dict() == {
        "model": "qwen",
        "temperature": 0.5,
        "max_tokens": 2048,
        "top_p": None,
        "seed": 3,
        "timeout_s": 120.0,
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.model = "x"  # type: ignore[misc]


def test_provider_error_fields_survive_pickling() -> None:
    err = ProviderError("busy; retry", retryable=True, status=503, retry_after_s=2.0)
    assert isinstance(err, ClosureBenchError)
    back = pickle.loads(pickle.dumps(err))
    assert (str(back), back.retryable, back.status, back.retry_after_s) == (
        "busy; retry",
        True,
        503,
        2.0,
    )
    assert ProviderError("x").retryable is False


def test_scripted_mapping_exact_embedded_id_and_default() -> None:
    p = ScriptedProvider(
        {"inst-1": "one", "inst-12": "twelve", "exact prompt": "exact"}, default="?"
    )
    assert isinstance(p, Provider)
    assert ask(p, "exact prompt").text == "exact"
    assert ask(p, "Instance inst-12: solve it").text == "twelve"  # longest key wins
    assert ask(p, "Instance inst-1: solve it").text == "one"
    assert ask(p, "unknown").text == "?"
    assert len(p.calls) == 4 and p.calls[0][1] == S


def test_scripted_mapping_without_answer_is_non_retryable() -> None:
    with pytest.raises(ProviderError, match="no answer for prompt") as info:
        ask(ScriptedProvider({"a": "b"}), "zzz")
    assert not info.value.retryable


def test_scripted_uses_last_user_message() -> None:
    p = ScriptedProvider({"second": "2", "first": "1"})
    messages = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "second"},
        {"role": "user", "content": "now second"},
    ]
    assert asyncio.run(p.complete(messages, S)).text == "2"


def test_scripted_sequence_in_order_then_exhausted() -> None:
    p = ScriptedProvider(["a", "b c"])
    first, second = ask(p, "x"), ask(p, "y")
    assert (first.text, second.text) == ("a", "b c")
    assert second.completion_tokens == 2 and second.prompt_tokens == 1
    assert second.finish_reason == "stop"
    with pytest.raises(ProviderError, match="ran out of replies"):
        ask(p, "z")


def test_scripted_callables_sync_and_async() -> None:
    def sync(messages: list[dict[str, str]], settings: GenerationSettings) -> str:
        return messages[-1]["content"].upper() + settings.model

    async def later(messages: list[dict[str, str]], settings: GenerationSettings) -> str:
        await asyncio.sleep(0)
        return "async"

    assert ask(ScriptedProvider(sync), "hi").text == "HIm"
    assert ask(ScriptedProvider(later), "hi").text == "async"


def test_scripted_failures_then_success_and_raised_errors() -> None:
    flaky = ScriptedReply("ok", reasoning="why", fail_times=2)
    p = ScriptedProvider({"q": flaky, "bad": ProviderError("denied", status=401)})
    for _ in range(2):
        with pytest.raises(ProviderError) as info:
            ask(p, "q")
        assert info.value.retryable and info.value.status == 503
    out = ask(p, "q")
    assert (out.text, out.reasoning) == ("ok", "why")
    with pytest.raises(ProviderError, match="denied"):
        ask(p, "bad")


def test_scripted_delays_and_completion_passthrough() -> None:
    done = Completion("t", None, 1, 1, 9.0, "length")
    p = ScriptedProvider([ScriptedReply("slow", delay_s=0.05), done], delay_s=0.02)
    assert ask(p, "x").latency_s >= 0.07
    assert ask(p, "y") is done


def test_scripted_concurrent_calls() -> None:
    p = ScriptedProvider(lambda m, s: m[-1]["content"], delay_s=0.05)

    async def go() -> list[str]:
        outs = await asyncio.gather(
            *(p.complete([{"role": "user", "content": str(i)}], S) for i in range(20))
        )
        await p.aclose()
        return [o.text for o in outs]

    assert asyncio.run(go()) == [str(i) for i in range(20)]
    assert p.closed
    with pytest.raises(ProviderError, match="after aclose"):
        ask(p, "x")


@pytest.fixture
def no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import torch`` fail even where torch happens to be installed."""
    monkeypatch.setitem(sys.modules, "torch", None)


@pytest.mark.usefixtures("no_torch")
def test_transformers_missing_extra_names_the_fix() -> None:
    with pytest.raises(ProviderError, match=r"uv sync --extra train") as info:
        TransformersProvider("some/model")
    assert "install the 'train' extra" in str(info.value)
    assert not info.value.retryable
    with pytest.raises(ProviderError, match="'train' extra"):
        make_provider("transformers", model_path="some/model")


def test_split_think() -> None:
    assert split_think("<think>\nsteps\n</think>\n\nanswer") == ("answer", "steps")
    assert split_think("plain") == ("plain", None)


def test_lookup_table_and_unknown_kind() -> None:
    assert set(PROVIDERS) == {"openai", "reference", "scripted", "transformers"}
    with pytest.raises(
        ConfigError, match="choose one of: openai, reference, scripted, transformers"
    ):
        make_provider("vertex")


def test_make_provider_rejects_bad_arguments() -> None:
    with pytest.raises(ConfigError, match="bad arguments for provider 'scripted'"):
        make_provider("scripted", scirpt=["x"])


def test_make_provider_builds_each_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    made: dict[str, Any] = {
        "openai": make_provider("openai", base_url="http://127.0.0.1:1/v1", name="vllm"),
        "scripted": make_provider("scripted", script={"a": "b"}),
    }
    assert made["openai"].name == "vllm"
    assert all(isinstance(p, Provider) for p in made.values())
