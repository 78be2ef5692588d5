"""Reference models are a provider: ``--provider reference``, picked by ``--provider auto``.

Also the provider options bag (``--provider-arg KEY=VALUE``) each provider checks itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import Reply
from typer.testing import CliRunner

from closurebench.errors import ConfigError
from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.providers import (
    PROVIDERS,
    ProviderOptions,
    build_provider,
    check_provider_options,
    parse_provider_args,
    resolve_provider,
)
from closurebench.evaluate.reference import REFERENCE_MODELS


def _eval(data: Path, out: Path, *args: str) -> Any:
    return CliRunner().invoke(
        EVAL_APP, [str(data), "--out", str(out), "--no-progress", "--limit", "6", *args]
    )


def _run(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "run.json").read_text(encoding="utf-8")))


def test_the_reference_row_lists_every_reference_model() -> None:
    spec = PROVIDERS["reference"]
    assert set(spec.models) == set(REFERENCE_MODELS)
    assert spec.takes_run and not spec.needs_base_url and not spec.supports_workers
    for name in REFERENCE_MODELS:
        assert resolve_provider("auto", name) == "reference"
        assert resolve_provider("openai", name) == "openai"  # explicit wins
    assert resolve_provider("auto", "Qwen/Qwen2.5-7B-Instruct") == "openai"


def test_explicit_provider_reference(data: Any, tmp_path: Path) -> None:
    path, _ = data
    res = _eval(path, tmp_path / "r", "--provider", "reference", "--model", "random")
    assert res.exit_code == 0, res.output
    assert "--provider auto picks" not in res.output  # explicit: nothing to say
    run = _run(tmp_path / "r")
    assert run["provider"] == "reference" and run["model"] == "random"


def test_auto_picks_reference_and_says_so(data: Any, tmp_path: Path) -> None:
    path, _ = data
    res = _eval(path, tmp_path / "r", "--model", "majority")
    assert res.exit_code == 0, res.output
    assert "note: --provider auto picks --provider reference for --model majority" in res.output
    assert _run(tmp_path / "r")["provider"] == "reference"
    # the same folder resumes under the explicit spelling: the same identity
    again = _eval(path, tmp_path / "r", "--provider", "reference", "--model", "majority")
    assert again.exit_code == 0, again.output
    assert "evaluated 0, resumed 6" in again.output


def test_explicit_openai_sends_a_reference_name_to_the_server(
    fake_openai: Any, data: Any, tmp_path: Path
) -> None:
    path, _ = data
    fake_openai.script(default=Reply('{"answer": true}'))
    res = _eval(
        path, tmp_path / "r", "--provider", "openai", "--model", "random",
        "--base-url", fake_openai.base_url,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    sent = fake_openai.chat_requests
    assert len(sent) == 6 and {r.body["model"] for r in sent} == {"random"}
    assert _run(tmp_path / "r")["provider"] == "openai"


def test_provider_reference_refuses_another_model(data: Any, tmp_path: Path) -> None:
    path, _ = data
    res = _eval(path, tmp_path / "r", "--provider", "reference", "--model", "gpt-4.1")
    assert res.exit_code == 1
    assert "--provider reference answers --model oracle-program, reader" in res.output
    assert not (tmp_path / "r" / "run.json").exists()


def test_reference_mode_check_still_names_the_fix(data: Any, tmp_path: Path) -> None:
    path, _ = data
    res = _eval(path, tmp_path / "r", "--model", "reader", "--mode", "direct")
    assert res.exit_code == 1
    assert "--model reader answers in agent, agent-tools, not in --mode direct" in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--provider-arg", "dtype"], "--provider-arg 'dtype' is not KEY=VALUE"),
        (["--provider-arg", "=1"], "is not KEY=VALUE"),
        (["--provider-arg", "a=1", "--provider-arg", "a=2"], "--provider-arg a is given twice"),
        (["--provider-arg", "dtype=bfloat16"], "--provider scripted takes delay_s"),
        (["--provider-arg", "delay_s=soon"], "--provider-arg delay_s=soon: pass a number"),
    ],
)
def test_provider_arg_is_checked_by_the_provider(
    args: list[str], message: str, data: Any, tmp_path: Path
) -> None:
    path, _ = data
    script = tmp_path / "script.json"
    script.write_text('["{\\"answer\\": true}"]', encoding="utf-8")
    res = _eval(
        path, tmp_path / "r", "--provider", "scripted", "--script", str(script),
        "--model", "m", *args,
    )  # fmt: skip
    assert res.exit_code == 1, res.output
    assert message in " ".join(res.output.split()), res.output


def test_provider_arg_reaches_the_provider(data: Any, tmp_path: Path) -> None:
    path, _ = data
    script = tmp_path / "script.json"
    script.write_text(json.dumps(['{"answer": true}'] * 6), encoding="utf-8")
    res = _eval(
        path, tmp_path / "r", "--provider", "scripted", "--script", str(script),
        "--model", "m", "--provider-arg", "delay_s=0.01",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    options = ProviderOptions(model="m", script=script, extra={"delay_s": "0.25"})
    provider = build_provider("scripted", options)
    assert getattr(provider, "delay_s", None) == 0.25


def test_a_provider_without_keys_refuses_every_key(data: Any) -> None:
    _, records = data
    options = ProviderOptions(model="reader", extra={"speed": "fast"})
    with pytest.raises(ConfigError, match="--provider-arg speed: --provider reference takes no"):
        check_provider_options("reference", options)
    with pytest.raises(ConfigError, match="--provider-arg speed: --provider openai takes no"):
        check_provider_options("openai", ProviderOptions(model="m", extra={"speed": "fast"}))
    provider = build_provider(
        "reference", ProviderOptions(model="reader"), instances=records, mode=get_mode("agent")
    )
    assert provider.name == "reference"
    with pytest.raises(ConfigError, match="answers from the run's instances"):
        build_provider("reference", ProviderOptions(model="reader"))


def test_transformers_keys_are_typed() -> None:
    spec = PROVIDERS["transformers"]
    kwargs = spec.arguments(
        ProviderOptions(model="m", extra={"dtype": "bfloat16", "trust_remote_code": "yes"})
    )
    assert kwargs["dtype"] == "bfloat16" and kwargs["trust_remote_code"] is True
    with pytest.raises(ConfigError, match="trust_remote_code=maybe: pass true or false"):
        spec.arguments(ProviderOptions(model="m", extra={"trust_remote_code": "maybe"}))
    assert parse_provider_args(["k=a=b"]) == {"k": "a=b"}


def test_memorisation_refuses_a_reference_model(tmp_path: Path) -> None:
    import typer

    from closurebench.cli.memorisation import memorisation_cmd

    app = typer.Typer()
    app.command()(memorisation_cmd)
    seen = tmp_path / "seen.jsonl"
    seen.write_text("", encoding="utf-8")
    res = CliRunner().invoke(
        app, ["--model", "random", "--seen", str(seen), "--out", str(tmp_path / "p")]
    )
    assert res.exit_code != 0
    assert "nothing to memorise" in str(res.exception) + res.output
