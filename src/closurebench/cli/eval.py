"""``closurebench eval``: evaluate a model on a dataset file.

::

    closurebench eval DATA.jsonl --model NAME --mode direct|cot --out RUN_DIR
        [--provider openai|transformers|scripted] [--base-url URL] [--api-key-env VAR]
        [--device cuda:0]
        [--concurrency 8] [--workers 0] [--timeout 120] [--retries 4] [--temperature 0]
        [--max-tokens 2048] [--limit N] [--sample K] [--categories a,b] [--tasks a,b]
        [--fsync-interval 1.0]

Writes ``RUN_DIR/results.jsonl`` (resumable: a second run skips finished ids),
``RUN_DIR/cache.jsonl`` and ``RUN_DIR/summary.json``. A missing file, an unknown mode
or provider, or an unreachable server prints one line and exits with code 1 (no
traceback). The ``scripted`` provider (dry runs) reads ``--script FILE``: a JSON list
of replies handed out in order, or an object mapping a text found in the question to
its reply.
"""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlparse

import typer
from rich.console import Console

from closurebench.errors import ClosureBenchError, ConfigError

__all__ = ["eval_cmd"]


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return items or None


def _check_reachable(base_url: str, timeout_s: float = 5.0) -> None:
    """Open (and close) a TCP connection to the server of ``base_url``.

    Raises:
        ConfigError: when the URL is malformed or nothing listens there.
    """
    parsed = urlparse(base_url)
    if parsed.scheme not in {"http", "https"} or not parsed.hostname:
        raise ConfigError(f"--base-url {base_url!r} is not an http(s) URL")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout_s):
            pass
    except OSError as exc:
        raise ConfigError(
            f"cannot reach the server at {base_url} ({exc}); is it running? check --base-url"
        ) from None


def _load_script(path: Path | None) -> Any:
    if path is None:
        raise ConfigError("--provider scripted needs --script FILE (a JSON list or object)")
    try:
        script = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read --script {str(path)!r}: {exc}") from None
    if not isinstance(script, list | dict):
        raise ConfigError(f"--script {str(path)!r} must hold a JSON list or object")
    return script


def eval_cmd(
    data: Annotated[Path, typer.Argument(help="Dataset JSONL file (ClosureBench or GRIT).")],
    model: Annotated[str, typer.Option("--model", help="Model name sent to the server.")],
    out: Annotated[Path, typer.Option("--out", help="Run directory (resumed if it exists).")],
    mode: Annotated[str, typer.Option("--mode", help="Evaluation mode: direct or cot.")] = "direct",
    provider: Annotated[
        str,
        typer.Option(
            "--provider",
            help="Backend: openai (any compatible server), transformers (a local model: "
            "--model is a Hub id or a directory; needs the 'train' extra) or scripted.",
        ),
    ] = "openai",
    device: Annotated[
        str | None,
        typer.Option(
            "--device", help="transformers provider: torch device (default: cuda if any)."
        ),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="API root, e.g. http://127.0.0.1:8000/v1.")
    ] = None,
    api_key_env: Annotated[
        str, typer.Option("--api-key-env", help="Environment variable holding the API key.")
    ] = "OPENAI_API_KEY",
    script: Annotated[
        Path | None, typer.Option("--script", help="Replies for --provider scripted (JSON).")
    ] = None,
    concurrency: Annotated[int, typer.Option(help="Requests in flight at once.")] = 8,
    workers: Annotated[
        int,
        typer.Option(
            help="openai provider: send requests from N worker processes (0: in this "
            "process). Helps only when the client's CPU time limits throughput.",
        ),
    ] = 0,
    timeout: Annotated[float, typer.Option(help="Per-request timeout in seconds.")] = 120.0,
    retries: Annotated[int, typer.Option(help="Retries of a retryable failure.")] = 4,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Max generated tokens.")] = 2048,
    top_p: Annotated[float | None, typer.Option("--top-p", help="Nucleus sampling mass.")] = None,
    seed: Annotated[int, typer.Option(help="Seed of --sample and of the retry jitter.")] = 0,
    limit: Annotated[int | None, typer.Option(help="Evaluate only the first N.")] = None,
    sample: Annotated[
        int | None, typer.Option(help="Evaluate K instances, stratified by category/task.")
    ] = None,
    categories: Annotated[
        str | None, typer.Option(help="Comma-separated ClosureBench categories to keep.")
    ] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma-separated GRIT tasks to keep.")] = None,
    backoff: Annotated[float, typer.Option(help="First retry delay in seconds.")] = 1.0,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="On resume, re-run instances that failed.")
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the cache.")
    ] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bar.")
    ] = True,
    fsync_interval: Annotated[
        float,
        typer.Option(
            "--fsync-interval",
            help="Seconds between fsyncs of results/cache (0: every line). Lines are "
            "flushed as written, so a killed run loses nothing either way.",
        ),
    ] = 1.0,
) -> None:
    """Evaluate a model on DATA.jsonl; results, cache and summary go to --out."""
    from closurebench.evaluate.modes import get_mode
    from closurebench.evaluate.providers import GenerationSettings, make_provider
    from closurebench.evaluate.runner import RunOptions, run_eval, select_instances
    from closurebench.generate.io import load_instances

    err = Console(stderr=True)
    try:
        the_mode = get_mode(mode)
        records = load_instances(data)
        selected = select_instances(
            records,
            categories=_split(categories),
            tasks=_split(tasks),
            sample=sample,
            limit=limit,
            seed=seed,
        )
        settings = GenerationSettings(
            model=model,
            temperature=temperature,
            max_tokens=max_tokens,
            top_p=top_p,
            timeout_s=timeout,
        )
        if provider == "openai":
            url = base_url or "https://api.openai.com/v1"
            _check_reachable(url)
            kwargs = {"base_url": url, "api_key_env": api_key_env, "timeout_s": timeout}
            if workers:
                from closurebench.evaluate.providers.pool import ProcessPoolProvider

                backend = ProcessPoolProvider("openai", kwargs, workers=workers)
            else:
                backend = make_provider("openai", **kwargs)
        elif workers:
            raise ConfigError(f"--workers is supported for --provider openai, not {provider!r}")
        elif provider == "scripted":
            backend = make_provider("scripted", script=_load_script(script))
        elif provider == "transformers":
            backend = make_provider("transformers", model_path=model, device=device)
        else:
            backend = make_provider(provider)
        options = RunOptions(
            concurrency=concurrency,
            retries=retries,
            backoff_base_s=backoff,
            seed=seed,
            use_cache=not no_cache,
            retry_errors=retry_errors,
            progress=progress,
            sync_interval_s=fsync_interval,
        )

        async def _go() -> Any:
            try:
                return await run_eval(selected, backend, the_mode, settings, out, options)
            finally:
                await backend.aclose()

        stats = asyncio.run(_go())
    except ClosureBenchError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        raise typer.Exit(code=1) from None
    s = stats.summary
    acc = s.get("strict_accuracy")
    lacc = s.get("lenient_accuracy")
    typer.echo(
        f"{s['counts']['total']} results in {out} (evaluated {stats.evaluated}, resumed "
        f"{stats.skipped}, cache hits {stats.cache_hits}, failures {stats.failures}); "
        f"strict {acc if acc is None else f'{acc:.3f}'}, "
        f"lenient {lacc if lacc is None else f'{lacc:.3f}'}"
    )
