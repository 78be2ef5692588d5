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
its reply. ``--provider`` choices and their help come from the provider table
(:data:`closurebench.evaluate.providers.PROVIDERS`, light to import: a provider's SDK
loads only when it is used), ``--mode`` choices from the mode table
(:data:`closurebench.evaluate.modes.MODES`, imported when the command runs).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from closurebench.errors import ClosureBenchError
from closurebench.evaluate.providers import providers_help

if TYPE_CHECKING:
    from closurebench.evaluate.runner import RunStats

__all__ = ["eval_cmd"]


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return items or None


def eval_cmd(
    data: Annotated[Path, typer.Argument(help="Dataset JSONL file (ClosureBench or GRIT).")],
    model: Annotated[str, typer.Option("--model", help="Model name sent to the server.")],
    out: Annotated[Path, typer.Option("--out", help="Run directory (resumed if it exists).")],
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help="Evaluation mode: a name of the mode table (closurebench.evaluate.modes."
            "MODES), e.g. direct or cot.",
        ),
    ] = "direct",
    provider: Annotated[str, typer.Option("--provider", help=providers_help())] = "openai",
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
    import asyncio

    from closurebench.evaluate.modes import get_mode
    from closurebench.evaluate.providers import (
        GenerationSettings,
        ProviderOptions,
        build_provider,
        check_provider_options,
    )
    from closurebench.evaluate.runner import RunOptions, run_eval, select_instances
    from closurebench.generate.io import load_instances

    err = Console(stderr=True)
    try:
        the_mode = get_mode(mode)
        provider_options = ProviderOptions(
            model=model,
            timeout_s=timeout,
            base_url=base_url,
            api_key_env=api_key_env,
            device=device,
            script=script,
            workers=workers,
        )
        check_provider_options(provider, provider_options)
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
        backend = build_provider(provider, provider_options)
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

        async def _go() -> RunStats:
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
