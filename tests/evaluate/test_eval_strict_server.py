"""Issue 11, point 13: reasoning models and strict servers, over real HTTP.

The fake server's ``reasoning_model`` mode refuses ``max_tokens`` and a non-default
``temperature`` with the OpenAI API's 400 error bodies; a run with the default settings
must still complete, with the changes recorded in ``run.json`` and ``summary.json``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import FakeOpenAIServer, Reply
from typer.testing import CliRunner

import closurebench
from closurebench.evaluate.cache import CompletionCache, request_key
from closurebench.evaluate.options import RunOptions, RunStats
from closurebench.evaluate.providers.base import Completion, GenerationSettings, ProviderError
from closurebench.evaluate.records import make_result
from closurebench.evaluate.requests import Requester
from closurebench.generate.grit import GritConfig, write_split
from closurebench.schema import parse_result


@pytest.fixture(scope="module")
def grit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """A real 16-record GRIT test split (2 graphs x 8 views) and its records."""
    out = tmp_path_factory.mktemp("grit-strict")
    path, _, _ = write_split(GritConfig(split="test", seed=3, count=2, n_max=10), out)
    return path, closurebench.load_instances(path)


def _answers(records: list[Any], reasoning_tokens: int | None = None) -> Any:
    """A step answering every question correctly."""
    by_q = {r.question: r for r in records}

    def step(body: dict[str, Any]) -> Reply:
        answer = by_q[body["messages"][-1]["content"]].answer
        text = ", ".join(answer) if isinstance(answer, list) else str(answer)
        return Reply(f"<answer>{text}</answer>", reasoning_tokens=reasoning_tokens)

    return step


def _args(data: Path, fake: FakeOpenAIServer, out: Path, *extra: str) -> list[str]:
    return [
        str(data), "--model", "fake-model", "--base-url", fake.base_url, "--out", str(out),
        "--concurrency", "3", "--retries", "0", "--backoff", "0", "--no-progress",
        "--limit", "12", *extra,
    ]  # fmt: skip


def _json(path: Path) -> Any:
    return json.loads(path.read_text())


def test_reasoning_model_run_completes_and_records_the_dropped_parameters(
    grit: Any, tmp_path: Path
) -> None:
    path, records = grit
    out = tmp_path / "run"
    with FakeOpenAIServer(reasoning_model=True) as fake:
        fake.script(default=_answers(records, reasoning_tokens=5))
        res = CliRunner().invoke(EVAL_APP, _args(path, fake, out))
        bodies = [r.body for r in fake.chat_requests]
    assert res.exit_code == 0, res.output
    assert "refused the parameter" in res.stderr
    summary = _json(out / "summary.json")
    assert summary["complete"] is True and summary["counts"]["answered"] == 12
    assert summary["strict_accuracy"] == 1.0
    # each refused parameter cost at most one extra request per request in flight
    assert len(bodies) <= 12 + 2 * 3
    last = bodies[-1]
    assert "max_tokens" not in last and "temperature" not in last
    assert last["max_completion_tokens"] == 2048
    adaptations = _json(out / "run.json")["adaptations"]
    assert {a["parameter"]: a["action"] for a in adaptations} == {
        "max_tokens": "max_tokens renamed to max_completion_tokens",
        "temperature": "temperature dropped",
    }
    assert all(a["status"] == 400 for a in adaptations)
    assert "max_completion_tokens" in adaptations[0]["message"]
    assert [a["parameter"] for a in summary["adaptations"]] == [a["parameter"] for a in adaptations]
    assert summary["run"]["adapted_requests"] >= 2
    # run.json's identity keeps the settings as the user set them
    assert _json(out / "run.json")["settings"]["max_tokens"] == 2048
    results = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert {r["usage"]["reasoning_tokens"] for r in results} == {5}
    assert summary["tokens"]["reasoning_total"] == 60
    assert summary["tokens"]["reasoning_reported"] == 12
    assert summary["tokens"]["reasoning_mean"] == 5.0


def test_resume_applies_the_recorded_changes_from_the_first_request(
    grit: Any, tmp_path: Path
) -> None:
    path, records = grit
    out = tmp_path / "run"
    with FakeOpenAIServer(reasoning_model=True) as fake:
        fake.script(default=_answers(records))
        first = CliRunner().invoke(EVAL_APP, _args(path, fake, out, "--limit", "4"))
        before = len(fake.chat_requests)
        second = CliRunner().invoke(EVAL_APP, _args(path, fake, out, "--limit", "8"))
        resumed = [r.body for r in fake.chat_requests[before:]]
    assert first.exit_code == 0 and second.exit_code == 0, second.output
    assert len(resumed) == 4  # no request refused again
    assert all("max_tokens" not in b and "temperature" not in b for b in resumed)
    assert len(_json(out / "run.json")["adaptations"]) == 2


def test_only_the_set_parameters_are_sent(grit: Any, tmp_path: Path) -> None:
    path, records = grit
    with FakeOpenAIServer() as fake:
        fake.script(default=_answers(records))
        args = _args(path, fake, tmp_path / "a", "--limit", "2", "--temperature", "server")
        res = CliRunner().invoke(EVAL_APP, [*args, "--max-completion-tokens", "300"])
        body = fake.chat_requests[-1].body
    assert res.exit_code == 0, res.output
    assert "temperature" not in body and "max_tokens" not in body and "top_p" not in body
    assert body["max_completion_tokens"] == 300
    settings = _json(tmp_path / "a" / "run.json")["settings"]
    assert settings["temperature"] is None and settings["max_completion_tokens"] == 300


def test_both_token_limits_are_refused(grit: Any, tmp_path: Path) -> None:
    path, _ = grit
    args = [str(path), "--model", "m", "--out", str(tmp_path / "b"), "--max-tokens", "9"]
    res = CliRunner().invoke(EVAL_APP, [*args, "--max-completion-tokens", "9"])
    assert res.exit_code == 1
    assert "--max-completion-tokens" in res.stderr and "pass one of them" in res.stderr


def test_default_settings_keep_their_cache_key() -> None:
    """The dict of the default settings (and so run.json and the cache key) is unchanged."""
    old = {"model": "m", "temperature": 0.0, "max_tokens": 2048, "top_p": None, "seed": None}
    messages = [{"role": "user", "content": "hi"}]
    blob = json.dumps(
        {"settings": old, "messages": messages}, sort_keys=True, separators=(",", ":")
    )
    assert (
        request_key(GenerationSettings(model="m"), messages)
        == hashlib.sha256(blob.encode()).hexdigest()
    )


class _Refusing:
    """A provider that refuses ``param`` (or, with ``always``, whatever it is sent)."""

    name = "refusing"

    def __init__(self, param: str, *, always: bool = False) -> None:
        self.param, self.always = param, always
        self.sent: list[dict[str, Any]] = []

    async def complete(self, messages: Any, settings: GenerationSettings) -> Completion:
        fields = settings.request_fields()
        self.sent.append(fields)
        if self.always or self.param in fields:
            raise ProviderError("400: unsupported", status=400, unsupported=self.param)
        return Completion("ok", None, 1, 1, 0.0, "stop", reasoning_tokens=None)

    async def aclose(self) -> None:
        pass


def _request(provider: Any, settings: GenerationSettings) -> Any:
    requester = Requester(
        provider, settings, CompletionCache(None), RunOptions(retries=0), RunStats()
    )
    return asyncio.run(requester("i#1", [{"role": "user", "content": "q"}])), requester


def test_a_refused_parameter_that_was_not_sent_stays_fatal() -> None:
    with pytest.raises(ProviderError) as err:
        _request(_Refusing("stop", always=True), GenerationSettings(model="m"))
    assert err.value.fatal


def test_a_parameter_refused_again_after_the_change_stays_fatal() -> None:
    provider = _Refusing("max_completion_tokens", always=True)
    with pytest.raises(ProviderError) as err:
        _request(provider, GenerationSettings(model="m", max_tokens=None, max_completion_tokens=9))
    assert err.value.fatal
    # changed once (renamed to max_tokens), refused again: not renamed back and forth
    assert len(provider.sent) == 2


def test_a_refused_top_p_is_dropped_and_the_request_sent_once_more() -> None:
    provider = _Refusing("top_p")
    completion, requester = _request(provider, GenerationSettings(model="m", top_p=0.5))
    assert completion.text == "ok" and len(provider.sent) == 2
    assert requester.settings.top_p is None
    assert requester.adaptations[0]["action"] == "top_p dropped"


def test_old_results_load() -> None:
    old = {"id": "a", "outcome": "wrong", "mode": "direct", "usage": {"prompt_tokens": 1}}
    assert parse_result(old).usage.reasoning_tokens is None


def test_density_is_copied_into_results(data: Any) -> None:
    _, records = data
    result = make_result(records[0], mode="direct", settings={}, error="x")
    assert result.density == records[0].density and result.density is not None
