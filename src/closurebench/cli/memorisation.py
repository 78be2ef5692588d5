"""``closurebench memorisation``: the memorisation probe (ClosureBench §4.5, Table 6, Figure 2).

::

    closurebench memorisation --model M --seen TRAIN.jsonl --out DIR
        [--checkpoints CKPT_DIR]... [--seeds 42,137,256] [--fresh-count N]
        [--provider auto|openai|transformers|scripted] [--provider-arg KEY=VALUE]...
        [--mode direct|cot|program-ein|...]
        [--base-url URL]... [--api-key-env VAR] [--device cuda:0] [--script FILE]
        [--concurrency 8] [--workers N] [--timeout 120] [--retries 4] [--backoff S]
        [--backoff-max S] [--temperature 0] [--top-p P] [--request-seed S]
        [--max-tokens N | --max-completion-tokens N] [--extra-body JSON]
        [--sandbox bwrap | --unsafe-no-sandbox]
        [--ein-card ours|paper] [--no-progress]
    closurebench memorisation --table6 answer=DIR_A --table6 ein=DIR_E --table6 python=DIR_P
        --out DIR

The provider and generation options are ``closurebench eval``'s own
(:mod:`closurebench.cli.provider_flags`: one definition for both commands).

The first form evaluates the base model ``--model`` and then each ``--checkpoints``
folder (repeat the option; in the given order; a local model folder or a LoRA adapter
for ``--provider transformers``, a served model name for a server) on the seen file, on
fresh instances of its distribution and on its structures re-worded, one fresh and one
re-worded set per seed (:mod:`closurebench.evaluate.memorisation`), through the
harness of ``closurebench eval``: every evaluation is a run folder under
``DIR/runs/<checkpoint>/<set>``, so running the same command again resumes an
interrupted probe without asking again what was answered. It writes
``DIR/memorisation.json`` (``closurebench schema memorisation``), ``DIR/memorisation.md``
(the probe table, strict and lenient, with 95% intervals and the gaps seen − fresh and
seen − re-worded) and ``DIR/figures/memorisation.png`` (Figure 2: accuracy per
checkpoint, one line per set, interval bands).

The second form renders Table 6 (answer vs program supervision, on seen and held-out
instances) from probe folders, one per kind of supervision, each at its last checkpoint:
``DIR/table6.json`` (``closurebench schema table6``) and ``DIR/table6.md``. It
evaluates nothing.

Exit codes (:data:`closurebench.cli.EXIT_CODES`): 0 complete; 1 bad input (a missing
file, a checkpoint folder without a model or weights: one line); 3 the provider failed
(a checkpoint that cannot be loaded, a dead server); 4 finished, but some instances
ended in error (run the same command to retry them); 130 interrupted (run it again to
resume).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from closurebench.cli import EXIT_INCOMPLETE
from closurebench.cli import provider_flags as flags
from closurebench.errors import ConfigError
from closurebench.evaluate.mode_names import modes_help

if TYPE_CHECKING:
    from closurebench.evaluate.memorisation import Checkpoint
    from closurebench.evaluate.modes import Mode
    from closurebench.evaluate.providers import Provider

__all__ = ["memorisation_cmd", "parse_seeds"]


def parse_seeds(value: str) -> list[int]:
    """``--seeds``: comma-separated whole numbers.

    Raises:
        ConfigError: for an empty list or a value that is not a whole number.

    Example:
        >>> parse_seeds("42, 137,256")
        [42, 137, 256]
        >>> parse_seeds("a")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --seeds 'a': 'a' is not a whole number; ...
    """
    parts = [p.strip() for p in value.split(",") if p.strip()]
    if not parts:
        raise ConfigError("--seeds is empty; pass comma-separated seeds, e.g. 42,137,256")
    out = []
    for p in parts:
        try:
            out.append(int(p))
        except ValueError:
            raise ConfigError(
                f"--seeds {value!r}: {p!r} is not a whole number; pass e.g. 42,137,256"
            ) from None
    return out


def memorisation_cmd(
    out: Annotated[Path, typer.Option("--out", help="Probe folder (resumed if it exists).")],
    model: Annotated[
        str | None,
        typer.Option("--model", help="The base model (a served name, a Hub id or a folder)."),
    ] = None,
    seen: Annotated[
        Path | None,
        typer.Option("--seen", help="The training file (a closurebench dataset JSONL file)."),
    ] = None,
    checkpoints: Annotated[
        list[str] | None,
        typer.Option(
            "--checkpoints",
            metavar="<dir>",
            help="A checkpoint to probe after the base model (repeat the option, in order): "
            "a model folder or LoRA adapter (transformers' checkpoint-<step> folders give "
            "the step, their trainer_state.json the epoch), or a served model name.",
        ),
    ] = None,
    seeds: Annotated[
        str,
        typer.Option("--seeds", help="Probe seeds: each draws its own fresh and re-worded sets."),
    ] = "42,137,256",
    fresh_count: Annotated[
        int | None,
        typer.Option("--fresh-count", help="Fresh instances per seed (default: as many as seen)."),
    ] = None,
    mode: Annotated[
        str, typer.Option("--mode", help=f"Evaluation mode: {modes_help()}.")
    ] = "direct",
    provider: flags.ProviderFlag = "auto",
    provider_arg: flags.ProviderArgFlag = None,
    base_url: flags.BaseUrlFlag = None,
    api_key_env: flags.ApiKeyEnvFlag = "OPENAI_API_KEY",
    device: flags.DeviceFlag = None,
    script: flags.ScriptFlag = None,
    concurrency: flags.ConcurrencyFlag = 8,
    workers: flags.WorkersFlag = 0,
    timeout: flags.TimeoutFlag = 120.0,
    retries: flags.RetriesFlag = 4,
    backoff: flags.BackoffFlag = 1.0,
    backoff_max: flags.BackoffMaxFlag = 60.0,
    temperature: flags.TemperatureFlag = "0",
    max_tokens: flags.MaxTokensFlag = None,
    max_completion_tokens: flags.MaxCompletionTokensFlag = None,
    top_p: flags.TopPFlag = None,
    extra_body: flags.ExtraBodyFlag = None,
    request_seed: flags.RequestSeedFlag = None,
    sandbox: Annotated[
        str | None, typer.Option("--sandbox", help="Program modes: the wall (bwrap).")
    ] = None,
    unsafe_no_sandbox: Annotated[
        bool,
        typer.Option("--unsafe-no-sandbox", help="Program modes: run programs with no wall."),
    ] = False,
    ein_card: Annotated[
        str | None, typer.Option("--ein-card", help="program-ein: ours (default) or paper.")
    ] = None,
    max_consecutive_failures: Annotated[
        int,
        typer.Option(
            "--max-consecutive-failures", help="Stop after this many failed instances in a row."
        ),
    ] = 10,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bars and run lines.")
    ] = True,
    table6: Annotated[
        list[str] | None,
        typer.Option(
            "--table6",
            metavar="<label=dir>",
            help="LABEL=DIR: render Table 6 from probe folders (repeat; e.g. answer=..., "
            "ein=..., python=...) instead of probing.",
        ),
    ] = None,
) -> None:
    """Probe memorisation: seen vs fresh vs re-worded accuracy per checkpoint (or Table 6)."""
    if table6:
        _table6(
            table6,
            out,
            given=[("--model", model), ("--seen", seen), ("--checkpoints", checkpoints)],
        )
        return
    if model is None or seen is None:
        raise ConfigError(
            f"{'--model' if model is None else '--seen'} is required (or --table6 LABEL=DIR "
            "to render Table 6 from probe folders)"
        )
    complete = _probe(
        model=model,
        seen=seen,
        checkpoints=list(checkpoints or ()),
        seeds=parse_seeds(seeds),
        fresh_count=fresh_count,
        mode=mode,
        provider=provider,
        out=out,
        provider_kwargs={
            "timeout_s": timeout,
            "base_url": (base_url[0] if len(base_url) == 1 else tuple(base_url))
            if base_url
            else None,
            "api_key_env": api_key_env,
            "device": device,
            "script": script,
            "workers": workers,
            "extra": provider_arg or [],
        },
        concurrency=concurrency,
        retries=retries,
        backoff=(backoff, backoff_max),
        temperature=temperature,
        max_tokens=max_tokens,
        max_completion_tokens=max_completion_tokens,
        top_p=top_p,
        extra_body=extra_body,
        request_seed=request_seed,
        sandbox=sandbox,
        unsafe_no_sandbox=unsafe_no_sandbox,
        ein_card=ein_card,
        max_consecutive_failures=max_consecutive_failures,
        progress=progress,
    )
    if not complete:
        typer.echo(
            "incomplete: some instances ended in error and are left out of the accuracies; "
            "run the same command to retry them",
            err=True,
        )
        raise typer.Exit(EXIT_INCOMPLETE)


def _table6(values: list[str], out: Path, given: list[tuple[str, object]]) -> None:
    from closurebench.report.memorisation import parse_table6_args, table6, write_table6

    extra = [flag for flag, value in given if value]
    if extra:
        raise ConfigError(
            f"{extra[0]} does not go with --table6, which renders probe folders; run the "
            "probe first, then Table 6"
        )
    for path in write_table6(out, table6(parse_table6_args(values))):
        typer.echo(str(path))


def _mode_factory(
    mode: str, sandbox: str | None, unsafe: bool, ein_card: str | None
) -> tuple[Mode, Callable[[], Mode]]:
    from closurebench.evaluate.modes import AgentMode, EinProgramMode, ProgramMode, get_mode

    def make() -> Mode:
        the_mode = get_mode(mode)
        if isinstance(the_mode, ProgramMode):
            the_mode.use_sandbox(sandbox, unsafe=unsafe)
        elif sandbox is not None or unsafe:
            flag = "--unsafe-no-sandbox" if unsafe else f"--sandbox {sandbox}"
            raise ConfigError(
                f"{flag} applies to the program modes (program-ein, program-python) only; "
                f"--mode {mode} runs no model-written program, so drop it"
            )
        if ein_card is not None:
            if not isinstance(the_mode, EinProgramMode):
                raise ConfigError(
                    f"--ein-card {ein_card} applies to --mode program-ein only; drop it"
                )
            the_mode.use_ein_card(ein_card)
        if isinstance(the_mode, AgentMode):
            the_mode.configure()
        return the_mode

    return make(), make


def _probe(
    *,
    model: str,
    seen: Path,
    checkpoints: list[str],
    seeds: list[int],
    fresh_count: int | None,
    mode: str,
    provider: str,
    out: Path,
    provider_kwargs: dict[str, object],
    concurrency: int,
    retries: int,
    backoff: tuple[float, float],
    temperature: str,
    max_tokens: int | None,
    max_completion_tokens: int | None,
    top_p: float | None,
    extra_body: str | None,
    request_seed: int | None,
    sandbox: str | None,
    unsafe_no_sandbox: bool,
    ein_card: str | None,
    max_consecutive_failures: int,
    progress: bool,
) -> bool:
    """Run the probe and write its files; whether every instance has a model answer."""
    import asyncio

    from rich.console import Console
    from rich.markup import escape

    from closurebench.cli.eval import parse_temperature, result_line, token_limit
    from closurebench.evaluate.memorisation import (
        SetRun,
        build_sets,
        resolve_checkpoints,
        run_probe,
    )
    from closurebench.evaluate.providers import (
        GenerationSettings,
        ProviderOptions,
        build_provider,
        check_provider_options,
        parse_provider_args,
        provider_spec,
        resolve_provider,
    )
    from closurebench.evaluate.providers.base import parse_extra_body
    from closurebench.evaluate.runner import RunOptions
    from closurebench.report.memorisation import score_probe, write_probe

    err = Console(stderr=True)
    provider = resolve_provider(provider, model)
    if provider_spec(provider).takes_run:
        raise ConfigError(
            f"--provider {provider} (--model {model}) answers from each dataset's own "
            "records; it has nothing to memorise - evaluate it with closurebench eval"
        )
    extra = parse_provider_args(provider_kwargs["extra"])  # type: ignore[arg-type]
    timeout_s = float(provider_kwargs["timeout_s"])  # type: ignore[arg-type]
    settings = GenerationSettings(
        model=model,
        temperature=parse_temperature(temperature),
        max_tokens=token_limit(max_tokens, max_completion_tokens),
        top_p=top_p,
        seed=request_seed,
        timeout_s=timeout_s,
        max_completion_tokens=max_completion_tokens,
        extra_body=parse_extra_body(extra_body) if extra_body is not None else None,
    )
    settings.check()
    options = RunOptions(
        concurrency=concurrency,
        retries=retries,
        backoff_base_s=backoff[0],
        backoff_max_s=backoff[1],
        max_consecutive_failures=max_consecutive_failures,
        progress=progress,
    )
    options.check()
    first_mode, make_mode = _mode_factory(mode, sandbox, unsafe_no_sandbox, ein_card)
    check_provider_options(
        provider,
        ProviderOptions(model=model, base_url=provider_kwargs["base_url"], extra=extra),  # type: ignore[arg-type]
    )
    models = resolve_checkpoints(model, checkpoints, local=provider == "transformers")

    def say(line: str) -> None:
        if progress:
            err.print(escape(line), highlight=False, soft_wrap=True)

    seen_set, generated = build_sets(seen, seeds, out, fresh_count=fresh_count, progress=say)
    first_mode.check_instances(seen_set.records)
    sets = [seen_set, *generated]

    def provider_for(ckpt: Checkpoint) -> Provider:
        return build_provider(
            provider,
            ProviderOptions(
                model=ckpt.model,
                timeout_s=timeout_s,
                base_url=provider_kwargs["base_url"],  # type: ignore[arg-type]
                api_key_env=str(provider_kwargs["api_key_env"]),
                device=provider_kwargs["device"],  # type: ignore[arg-type]
                script=provider_kwargs["script"],  # type: ignore[arg-type]
                workers=int(provider_kwargs["workers"]),  # type: ignore[call-overload]
                extra=extra,
            ),
        )

    def before(run: SetRun, number: int, total: int) -> None:
        s = run.probe_set
        what = s.name if s.seed is None else f"{s.name} (seed {s.seed})"
        say(
            f"[{number}/{total}] {run.checkpoint.label} · {what}: {len(s.records)} "
            f"instances -> {run.run_dir}"
        )

    def after(run: SetRun, number: int, total: int) -> None:
        if run.stats is not None:
            say(result_line(run.stats.summary, run.run_dir, run.stats))

    runs = asyncio.run(
        run_probe(
            models,
            sets,
            out,
            provider_for=provider_for,
            mode_for=make_mode,
            settings=settings,
            options=options,
            before=before,
            after=after,
        )
    )
    probe = score_probe(
        out,
        checkpoints=models,
        seen=seen_set,
        sets=generated,
        runs=runs,
        seeds=seeds,
        mode=first_mode.name,
        provider=provider,
    )
    for path in write_probe(out, probe):
        typer.echo(str(path))
    return all(c.complete for c in probe.checkpoints)
