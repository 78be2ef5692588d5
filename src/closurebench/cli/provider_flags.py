"""The provider and generation options ``closurebench eval`` and ``memorisation`` share.

Each option is defined here once (its flag, help and type, as a ``typing.Annotated``
alias for a typer parameter); a command that talks to a model declares
``provider: ProviderFlag = "auto"`` and so on, so the two commands cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from closurebench.evaluate.providers import providers_help
from closurebench.evaluate.providers.base import DEFAULT_MAX_TOKENS

__all__ = [
    "ApiKeyEnvFlag",
    "BackoffFlag",
    "BackoffMaxFlag",
    "BaseUrlFlag",
    "ConcurrencyFlag",
    "DeviceFlag",
    "ExtraBodyFlag",
    "MaxCompletionTokensFlag",
    "MaxTokensFlag",
    "ProviderArgFlag",
    "ProviderFlag",
    "RequestSeedFlag",
    "RetriesFlag",
    "ScriptFlag",
    "TemperatureFlag",
    "TimeoutFlag",
    "TopPFlag",
    "WorkersFlag",
]

ProviderFlag = Annotated[
    str,
    typer.Option("--provider", help=providers_help()),
]
ProviderArgFlag = Annotated[
    list[str] | None,
    typer.Option(
        "--provider-arg",
        metavar="KEY=VALUE",
        help="An option of the provider's own (repeatable); the keys each provider "
        "takes are listed under --provider, any other is refused.",
    ),
]
DeviceFlag = Annotated[
    str | None,
    typer.Option("--device", help="transformers provider: torch device (default: cuda if any)."),
]
BaseUrlFlag = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        metavar="<url>",
        help="API root, e.g. http://127.0.0.1:8000/v1. Repeat it to spread the requests "
        "over several servers of the same model (least in flight first; a server that "
        "fails is marked down, said on stderr, and its requests go to the others; "
        "summary.json counts each under endpoints).",
    ),
]
ApiKeyEnvFlag = Annotated[
    str,
    typer.Option("--api-key-env", help="Environment variable holding the API key."),
]
ScriptFlag = Annotated[
    Path | None,
    typer.Option("--script", help="Replies for --provider scripted (JSON)."),
]
ConcurrencyFlag = Annotated[
    int,
    typer.Option(help="Requests in flight at once."),
]
WorkersFlag = Annotated[
    int,
    typer.Option(
        help="openai provider: send requests from N worker processes (0: in this "
        "process). Helps only when the client's CPU time limits throughput.",
    ),
]
TimeoutFlag = Annotated[
    float,
    typer.Option(help="Per-request timeout in seconds."),
]
RetriesFlag = Annotated[
    int,
    typer.Option(help="Retries of a retryable failure."),
]
TemperatureFlag = Annotated[
    str,
    typer.Option(
        help="Sampling temperature (default 0: greedy, as the papers decode); 'server' "
        "sends none (the server's default; OpenAI reasoning models take no other).",
    ),
]
MaxTokensFlag = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        help=f"Max generated tokens, sent as max_tokens (default {DEFAULT_MAX_TOKENS} "
        "unless --max-completion-tokens is given).",
    ),
]
MaxCompletionTokensFlag = Annotated[
    int | None,
    typer.Option(
        "--max-completion-tokens",
        help="Max generated tokens, reasoning included, sent as max_completion_tokens "
        "(what OpenAI reasoning models take instead of --max-tokens).",
    ),
]
TopPFlag = Annotated[
    float | None,
    typer.Option("--top-p", help="Nucleus sampling mass."),
]
ExtraBodyFlag = Annotated[
    str | None,
    typer.Option(
        "--extra-body",
        help="Server-specific request fields as a JSON object (or @FILE.json), sent with "
        'every request, e.g. \'{"chat_template_kwargs": {"enable_thinking": false}}\' '
        '(vLLM, SGLang) or \'{"reasoning_effort": "low"}\'; recorded in run.json '
        "and part of the run's identity (the transformers provider takes "
        "chat_template_kwargs only).",
    ),
]
RequestSeedFlag = Annotated[
    int | None,
    typer.Option(
        "--request-seed",
        help="Sampling seed sent with every request (servers that honour it, e.g. "
        "vLLM, repeat their sampling); with --samples, sample k sends S+k-1. Default: "
        "none sent.",
    ),
]
BackoffFlag = Annotated[
    float,
    typer.Option(help="First retry delay in seconds."),
]
BackoffMaxFlag = Annotated[
    float,
    typer.Option(
        "--backoff-max",
        help="Longest wait before a retry, in seconds; a server's longer Retry-After is cut to it.",
    ),
]
