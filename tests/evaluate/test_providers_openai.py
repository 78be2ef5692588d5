"""The OpenAI-compatible provider, through the real ``openai`` client over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import openai
import pytest
from fake_openai_server import FakeOpenAIServer, Malformed, Reply, Slow, Status

from closurebench.evaluate.providers import (
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
    make_provider,
)
from closurebench.evaluate.providers.openai_compat import OpenAICompatProvider, is_local_url

T = TypeVar("T")
MESSAGES = [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "What is 2+2?"},
]
SETTINGS = GenerationSettings(model="fake-model", timeout_s=5.0)


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def _complete_once(
    provider: OpenAICompatProvider, settings: GenerationSettings = SETTINGS
) -> Completion:
    try:
        return await provider.complete(MESSAGES, settings)
    finally:
        await provider.aclose()


def complete(fake: FakeOpenAIServer, settings: GenerationSettings = SETTINGS, **kw: Any):
    return run(_complete_once(OpenAICompatProvider(base_url=fake.base_url, **kw), settings))


def failure(fake: FakeOpenAIServer, settings: GenerationSettings = SETTINGS, **kw: Any):
    with pytest.raises(ProviderError) as info:
        complete(fake, settings, **kw)
    return info.value


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_text_usage_latency_and_request(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(Slow(0.2, Reply("4", prompt_tokens=13, completion_tokens=2)))
    out = complete(fake_openai)
    assert out.text == "4"
    assert (out.prompt_tokens, out.completion_tokens) == (13, 2)
    assert out.finish_reason == "stop"
    assert out.reasoning is None
    assert 0.2 <= out.latency_s < 4.0
    (req,) = fake_openai.chat_requests
    assert req.body["model"] == "fake-model"
    assert req.messages == MESSAGES
    assert req.body["temperature"] == 0.0
    assert req.body["max_tokens"] == 2048
    assert "seed" not in req.body and "top_p" not in req.body
    assert req.headers["authorization"] == "Bearer EMPTY"


def test_seed_top_p_and_extra_body_are_sent(fake_openai: FakeOpenAIServer) -> None:
    settings = GenerationSettings(
        model="fake-model", temperature=0.7, max_tokens=64, top_p=0.9, seed=5, timeout_s=5
    )
    complete(fake_openai, settings, extra_body={"chat_template_kwargs": {"enable_thinking": 0}})
    body = fake_openai.chat_requests[0].body
    assert (body["temperature"], body["max_tokens"], body["top_p"], body["seed"]) == (
        0.7,
        64,
        0.9,
        5,
    )
    assert body["chat_template_kwargs"] == {"enable_thinking": 0}


@pytest.mark.parametrize(
    "reply",
    [
        Reply("B", reasoning_content="first A, then B"),
        Reply("B", reasoning="first A, then B"),
    ],
)
def test_reasoning_is_captured(fake_openai: FakeOpenAIServer, reply: Reply) -> None:
    fake_openai.script(reply)
    out = complete(fake_openai)
    assert (out.text, out.reasoning) == ("B", "first A, then B")


def test_missing_usage_and_null_content(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(Reply(None, prompt_tokens=None, finish_reason="length"))
    out = complete(fake_openai)
    assert out.text == ""
    assert out.prompt_tokens is None and out.completion_tokens is None
    assert out.finish_reason == "length"


def test_negative_token_counts_are_not_counts(fake_openai: FakeOpenAIServer) -> None:
    """A server reporting negative usage is untrusted input: the counts are unknown."""
    fake_openai.script(Reply("ok", prompt_tokens=-3, completion_tokens=-5))
    out = complete(fake_openai)
    assert out.text == "ok" and out.prompt_tokens is None and out.completion_tokens is None


@pytest.mark.parametrize("code", [500, 502, 503])
def test_server_errors_are_retryable(fake_openai: FakeOpenAIServer, code: int) -> None:
    fake_openai.script(Status(code))
    err = failure(fake_openai)
    assert err.retryable and err.status == code
    assert str(code) in str(err)
    # The SDK's own retries are off: the runner owns retries.
    assert len(fake_openai.chat_requests) == 1


def test_rate_limit_is_retryable_with_retry_after(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(Status(429, retry_after=3))
    err = failure(fake_openai)
    assert err.retryable and err.status == 429
    assert err.retry_after_s == 3.0
    assert "rate limited" in str(err)
    assert len(fake_openai.chat_requests) == 1


def test_timeout_is_retryable(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(Slow(3.0))
    err = failure(fake_openai, GenerationSettings(model="fake-model", timeout_s=0.3))
    assert err.retryable and err.status is None
    assert "timed out after 0.3s" in str(err)


def test_connection_refused_is_retryable() -> None:
    with FakeOpenAIServer() as fake:
        url = fake.base_url
    provider = OpenAICompatProvider(base_url=url)
    with pytest.raises(ProviderError) as info:
        run(_complete_once(provider))
    assert info.value.retryable
    assert "could not reach" in str(info.value) and "--base-url" in str(info.value)


def test_401_names_the_key_variable(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(Status(401))
    err = failure(fake_openai, api_key_env="MY_VLLM_KEY")
    assert not err.retryable and err.status == 401
    assert "set MY_VLLM_KEY" in str(err)


def test_404_names_model_and_url(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.strict_models = True
    err = failure(fake_openai, GenerationSettings(model="no-such-model", timeout_s=5))
    assert not err.retryable and err.status == 404
    assert f"model 'no-such-model' not served at {fake_openai.base_url}" in str(err)
    assert "check --model" in str(err)


def test_400_is_not_retryable(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(Status(400, "max_tokens is too large"))
    err = failure(fake_openai)
    assert not err.retryable and err.status == 400
    assert "max_tokens is too large" in str(err)


@pytest.mark.parametrize(
    "step",
    [
        Malformed(),
        Malformed(b"<html>gateway</html>", "text/html"),
        Malformed(b'{"object": "list", "data": []}'),
        Malformed(b'{"choices": []}'),
    ],
)
def test_malformed_body(fake_openai: FakeOpenAIServer, step: Malformed) -> None:
    fake_openai.script(step)
    err = failure(fake_openai)
    assert not err.retryable
    assert "malformed response" in str(err) and "--base-url" in str(err)


def test_api_key_from_env_and_auth_server(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAIServer(api_key="sk-secret") as fake:
        assert failure(fake).status == 401  # dummy "EMPTY" key is refused
        monkeypatch.setenv("CB_KEY", "sk-secret")
        assert complete(fake, api_key_env="CB_KEY").text == "OK"
        assert fake.chat_requests[-1].headers["authorization"] == "Bearer sk-secret"


def test_remote_url_without_key_fails_early() -> None:
    with pytest.raises(ProviderError, match="set the environment variable OPENAI_API_KEY"):
        OpenAICompatProvider(base_url="https://api.example.com/v1")


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8000/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8000/v1", True),
        ("http://10.1.2.3:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://openrouter.ai/api/v1", False),
    ],
)
def test_is_local_url(url: str, local: bool) -> None:
    assert is_local_url(url) is local


def test_concurrent_requests_and_reuse_across_loops(fake_openai: FakeOpenAIServer) -> None:
    def echo(body: dict[str, Any]) -> Reply:
        return Reply("re: " + body["messages"][-1]["content"])

    fake_openai.script(default=echo)
    provider = make_provider("openai", base_url=fake_openai.base_url)
    assert isinstance(provider, Provider)

    async def many() -> list[Completion]:
        return await asyncio.gather(
            *(provider.complete([{"role": "user", "content": f"q{i}"}], SETTINGS) for i in range(8))
        )

    outs = run(many())
    assert [o.text for o in outs] == [f"re: q{i}" for i in range(8)]
    # A second event loop gets a fresh client rather than a dead connection pool.
    assert run(_complete_once(provider)).text == "re: What is 2+2?"  # type: ignore[arg-type]


def test_fake_server_lists_models(fake_openai: FakeOpenAIServer) -> None:
    async def models() -> list[str]:
        client = openai.AsyncOpenAI(base_url=fake_openai.base_url, api_key="x", max_retries=0)
        try:
            page = await client.models.list()
            return [m.id for m in page.data]
        finally:
            await client.close()

    assert run(models()) == ["fake-model"]
    assert fake_openai.requests[0].method == "GET"
