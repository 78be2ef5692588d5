"""``closurebench eval``: evaluate a model on a dataset file.

::

    closurebench eval DATA.jsonl --model NAME --mode direct|cot --out RUN_DIR
        [--provider auto|openai|transformers|scripted|reference] [--provider-arg KEY=VALUE]...
        [--base-url URL]... [--api-key-env VAR]
        [--device cuda:0]
        [--concurrency 8] [--workers 0] [--timeout 120] [--retries 4]
        [--temperature 0|server] [--max-tokens 2048 | --max-completion-tokens N]
        [--limit N] [--sample K] [--categories a,b] [--tasks a,b]
        [--backoff 1] [--backoff-max 60] [--max-consecutive-failures 10]
        [--keep-errors] [--force-new] [--fsync-interval 1.0]
        [--agent-max-calls 6] [--agent-max-tokens 12000] [--agent-max-result-chars 8000]
        [--strict-protocol] [--failed-program-as no_answer|wrong] [--ein-card ours|paper]
        [--samples K] [--request-seed S]

Writes ``RUN_DIR/results.jsonl`` (resumable: a second run skips finished ids and
re-runs the ones that ended in error, unless ``--keep-errors``), ``RUN_DIR/cache.jsonl``,
``RUN_DIR/run.json`` (the run's dataset sha256, model, provider, mode and settings: a
resume with any of them changed is refused, naming what differs; ``--force-new``
starts the folder over) and ``RUN_DIR/summary.json``. The folder is locked for the
run: a second eval on it refuses at once.

A failed request is not a model result: after its retries it becomes outcome
``error``, left out of the accuracies (which are over answered instances) and counted
on the console line and in ``summary.json`` (``complete: false``). A request that no
retry can fix (HTTP 401/403/404, an invalid request) stops the run at once with the
server's message; ``--max-consecutive-failures`` instances in a row in error (a dead
server) stop it too. A server's ``Retry-After`` longer than ``--backoff-max`` is cut
to it, said once on stderr.

Exit codes (those of :data:`closurebench.cli.EXIT_CODES`): 0 every selected instance
has a model result; 1 nothing ran (a bad option or file, an unreachable server, a
locked or mismatched run folder; one line, no traceback unless ``--debug``); 3 the
provider failed (the run stopped early: a fatal error or the circuit breaker; or the
provider could not be set up); 4 the run finished but some instances ended in error
(run the same command to retry them).

Generation settings: a request carries only the sampling parameters that are set.
``--temperature`` defaults to 0 (greedy, as both papers decode); ``--temperature
server`` sends none. The token limit is ``--max-tokens`` (sent as ``max_tokens``,
default 2048) or ``--max-completion-tokens`` (sent as
``max_completion_tokens``, what OpenAI's reasoning models take; it replaces the
default ``--max-tokens``). When a server answers 400 naming a parameter it does not
support for the model (OpenAI's o-series: ``max_tokens``, a non-default
``temperature``), the run stops sending it (``max_tokens`` becomes
``max_completion_tokens``), re-sends the request once, says so on stderr and records
it under ``adaptations`` in ``run.json`` and ``summary.json``; any other 400 still
stops the run. Reasoning tokens the server reports are recorded per result
(``usage.reasoning_tokens``) and summed in ``summary.json``.

Agent modes (``agent``, ``agent-tools``): an episode has ``--agent-max-calls`` model
calls and ``--agent-max-tokens`` generated tokens (default 12,000, the GRAIN paper's
response length); each call is sent a token limit of what is left of that budget (at
most ``--max-tokens`` / ``--max-completion-tokens`` when given; when neither is, the
run's ``max_tokens`` is the episode budget), so no call overshoots it.
``--strict-protocol`` reads only ``<answer>`` tags as a final answer (default: also a
bare ``\\boxed{}`` or a final ``Answer:`` line, the paper's own final turns). The
limits are recorded in ``run.json`` (``agent``).

Program modes (``program-ein``, ``program-python``): ``--failed-program-as`` sets how a
program that does not run is scored; ``--ein-card`` (``program-ein`` only) picks the Ein
syntax card appended to the system prompt: ``ours`` (default; every builtin, generated
from the interpreter) or ``paper`` (the paper's App. F card; see the Ein reference page
for where its lines read differently here). Both are recorded in ``run.json``
(``failed_program_as``, ``ein_card``).

Repeated sampling (``--samples K``): every instance is evaluated K times, one run
folder per sample (``OUT/sample-1`` … ``OUT/sample-K``; under each model's folder with
several ``--model``), each recording its number in ``run.json`` (``sample``) and
resumable on its own; then ``OUT/samples.json`` (``closurebench schema samples``) holds
pass@k for k = 1..K (the unbiased estimator), the mean over instances with its 95 %
interval and the standard deviation over the samples, and ``OUT/report`` shows them
beside the usual tables. Samples differ only through sampling: pass a ``--temperature``
above 0 (at 0 they repeat greedy decoding), and ``--request-seed S`` to make them
reproducible where the server honours a seed (sample k sends seed ``S + k - 1``).

Several servers (``--base-url`` repeated, ``--provider openai``): each request goes to
the server with the fewest in flight (ties in turn); one that fails (no connection, 5xx,
timeouts: three in a row) is marked down for a cool-down, said in one line on stderr,
and its requests go to the others at once; one that refuses the run (401/403/404: the
model is not served there) is set aside for the run. The run stops only when every
server is down (as with one dead server: exit 3), or every one refused (fatal). Results,
cache and ``run.json`` do not name the servers (a resume may use others);
``summary.json`` counts each under ``endpoints``
(:mod:`closurebench.evaluate.providers.endpoints`).

The ``scripted`` provider (dry runs) reads ``--script FILE``: a JSON list
of replies handed out in order, or an object mapping a text found in the question to
its reply. The ``reference`` provider answers offline as a reference model
(``--model oracle-program|reader|random|majority``:
:mod:`closurebench.evaluate.reference`). ``--provider auto`` (the default) is
``reference`` for those four names, said once on stderr, and ``openai`` for any other
(``--provider openai --model random`` sends ``random`` to the server). A provider's own
options are ``--provider-arg KEY=VALUE`` (repeatable; the keys each provider takes are
in the ``--provider`` help, any other is refused). ``--provider`` choices and their
help come from the provider table (:data:`closurebench.evaluate.providers.PROVIDERS`,
light to import: a provider's SDK loads only when it is used), ``--mode`` choices from
the mode table (:data:`closurebench.evaluate.modes.MODES`, imported when the command
runs).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from closurebench.cli import (
    EXIT_ERROR,
    EXIT_INCOMPLETE,
    debug_requested,
    exit_code_for,
    report_error,
)
from closurebench.cli import provider_flags as flags
from closurebench.errors import ConfigError, shorten
from closurebench.evaluate.mode_names import modes_help
from closurebench.evaluate.options import DEFAULT_MAX_HARNESS_DEATHS
from closurebench.evaluate.providers.base import DEFAULT_MAX_TOKENS, parse_extra_body
from closurebench.schema.summary import RunSummary

if TYPE_CHECKING:
    from closurebench.evaluate.runner import RunStats

__all__ = [
    "eval_cmd",
    "parse_temperature",
    "result_line",
    "token_limit",
]


def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    items = [v.strip() for v in value.split(",") if v.strip()]
    return items or None


def _urls(values: list[str] | None) -> str | tuple[str, ...] | None:
    """``--base-url``, given once or more (several: a tuple, spread by a router).

    Example:
        >>> _urls(None), _urls(["http://a/v1"]), _urls(["http://a/v1", "http://b/v1"])
        (None, 'http://a/v1', ('http://a/v1', 'http://b/v1'))
    """
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


#: ``--temperature`` values that send no temperature (the server's default applies).
SERVER_DEFAULT = ("server", "none", "default")


def parse_temperature(value: str) -> float | None:
    """``--temperature``: a number, or ``server`` (None: not sent).

    Raises:
        ConfigError: for anything else.

    Example:
        >>> parse_temperature("0"), parse_temperature("0.7"), parse_temperature("server")
        (0.0, 0.7, None)
        >>> parse_temperature("hot")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --temperature 'hot' is not a number; ...
    """
    text = value.strip().lower()
    if text in SERVER_DEFAULT:
        return None
    try:
        return float(text)
    except ValueError:
        raise ConfigError(
            f"--temperature {value!r} is not a number; pass a number >= 0, or 'server' to send none"
        ) from None


def token_limit(max_tokens: int | None, max_completion_tokens: int | None) -> int | None:
    """The ``max_tokens`` to send: as given, else the default unless
    ``--max-completion-tokens`` is given (then none).

    Example:
        >>> token_limit(None, None), token_limit(None, 500), token_limit(64, None)
        (2048, None, 64)
    """
    if max_tokens is None:
        return DEFAULT_MAX_TOKENS if max_completion_tokens is None else None
    return max_tokens


def eval_cmd(
    ctx: typer.Context,
    data: Annotated[Path, typer.Argument(help="Dataset JSONL file (ClosureBench or GRIT).")],
    model: Annotated[
        list[str],
        typer.Option(
            "--model",
            metavar="<str>",
            help="Model name sent to the server, or with --provider reference (picked by "
            "the default --provider auto for these names) a reference model answered "
            "offline: oracle-program (the instances' own programs; program modes), "
            "reader (the reference agent; agent and agent-tools modes, both suites), random, "
            "majority (chance). Repeat it to evaluate several models: one run folder each "
            "under --out (OUT/<model>) and one combined report (OUT/report).",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="Run directory (resumed if it exists); with several --model, the folder "
            "that holds one run directory per model and the combined report.",
        ),
    ],
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            help=f"Evaluation mode: {modes_help()}.",
        ),
    ] = "direct",
    provider: flags.ProviderFlag = "auto",
    provider_arg: flags.ProviderArgFlag = None,
    device: flags.DeviceFlag = None,
    base_url: flags.BaseUrlFlag = None,
    api_key_env: flags.ApiKeyEnvFlag = "OPENAI_API_KEY",
    script: flags.ScriptFlag = None,
    concurrency: flags.ConcurrencyFlag = 8,
    workers: flags.WorkersFlag = 0,
    timeout: flags.TimeoutFlag = 120.0,
    retries: flags.RetriesFlag = 4,
    temperature: flags.TemperatureFlag = "0",
    max_tokens: flags.MaxTokensFlag = None,
    max_completion_tokens: flags.MaxCompletionTokensFlag = None,
    top_p: flags.TopPFlag = None,
    extra_body: flags.ExtraBodyFlag = None,
    seed: Annotated[int, typer.Option(help="Seed of --sample and of the retry jitter.")] = 0,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            "--epochs",
            min=1,
            help="Evaluate every instance K times (one run folder per sample, "
            "OUT/sample-1..K) and write pass@k, the mean with its interval and the spread "
            "over samples to OUT/samples.json and OUT/report; use a --temperature above 0.",
        ),
    ] = 1,
    request_seed: flags.RequestSeedFlag = None,
    limit: Annotated[int | None, typer.Option(help="Evaluate only the first N.")] = None,
    sample: Annotated[
        int | None, typer.Option(help="Evaluate K instances, stratified by category/task.")
    ] = None,
    categories: Annotated[
        str | None, typer.Option(help="Comma-separated ClosureBench categories to keep.")
    ] = None,
    tasks: Annotated[str | None, typer.Option(help="Comma-separated GRIT tasks to keep.")] = None,
    backoff: flags.BackoffFlag = 1.0,
    backoff_max: flags.BackoffMaxFlag = 60.0,
    max_consecutive_failures: Annotated[
        int,
        typer.Option(
            "--max-consecutive-failures",
            help="Stop the run when this many instances in a row end in error (0: never).",
        ),
    ] = 10,
    keep_errors: Annotated[
        bool,
        typer.Option(
            "--keep-errors",
            help="On resume, keep instances that ended in error (default: run them again).",
        ),
    ] = False,
    retry_errors: Annotated[
        bool,
        typer.Option(
            "--retry-errors",
            hidden=True,
            help="Deprecated and ignored: errored instances are re-run by default.",
        ),
    ] = False,
    force_new: Annotated[
        bool,
        typer.Option(
            "--force-new",
            help="Start the run over: delete --out's results, cache and summary first.",
        ),
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the cache.")
    ] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Progress bar.")
    ] = True,
    max_harness_deaths: Annotated[
        int,
        typer.Option(
            "--max-harness-deaths",
            help="On resume, a reply the harness died on this many times is recorded as "
            "wrong (it stays in the accuracy) instead of being handled again.",
        ),
    ] = DEFAULT_MAX_HARNESS_DEATHS,
    failed_program_as: Annotated[
        str | None,
        typer.Option(
            "--failed-program-as",
            help="Program modes: how a program that does not run is scored: no_answer "
            "(default, the paper's Table 11) or wrong. Its execution class is kept either way.",
        ),
    ] = None,
    fewshot: Annotated[
        int,
        typer.Option(
            "--fewshot",
            min=0,
            help="Few-shot examples before each question (direct, cot): K instances of "
            "--fewshot-from, drawn with --seed, each with its own verified answer as the reply.",
        ),
    ] = 0,
    fewshot_from: Annotated[
        Path | None,
        typer.Option(
            "--fewshot-from",
            help="The dataset file few-shot examples come from: apart from DATA (e.g. the "
            "train split); examples that DATA also holds are left out.",
        ),
    ] = None,
    system_prompt: Annotated[
        Path | None,
        typer.Option(
            "--system-prompt",
            help="A file whose text replaces the mode's system prompt (every suite); replies "
            "are still read by the mode's rules, so ask for its answer form. Its sha256 is "
            "part of the run's identity.",
        ),
    ] = None,
    ein_card: Annotated[
        str | None,
        typer.Option(
            "--ein-card",
            help="program-ein: the Ein syntax card appended to the system prompt: ours "
            "(default; every builtin) or paper (the paper's App. F card). Recorded in run.json.",
        ),
    ] = None,
    sandbox: Annotated[
        str | None,
        typer.Option(
            "--sandbox",
            help="Program modes: the wall model-written programs run behind (bwrap). "
            "Default: the strongest that works; a named one that does not work fails.",
        ),
    ] = None,
    unsafe_no_sandbox: Annotated[
        bool,
        typer.Option(
            "--unsafe-no-sandbox",
            help="Program modes: run model-written programs with no kernel wall (process "
            "limits and an audit hook only). Recorded in run.json, the summary and the "
            "report. Only for trusted programs.",
        ),
    ] = False,
    agent_max_calls: Annotated[
        int | None,
        typer.Option(
            "--agent-max-calls",
            help="Agent modes: model calls per episode (default 6).",
        ),
    ] = None,
    agent_max_tokens: Annotated[
        int | None,
        typer.Option(
            "--agent-max-tokens",
            help="Agent modes: generated tokens per episode, over all its calls (default "
            "12000, the paper's max response length); each call may use what is left "
            "(capped by --max-tokens / --max-completion-tokens when given).",
        ),
    ] = None,
    agent_max_result_chars: Annotated[
        int | None,
        typer.Option(
            "--agent-max-result-chars",
            help="Agent modes: characters of a tool <result> sent back (default 8000).",
        ),
    ] = None,
    strict_protocol: Annotated[
        bool,
        typer.Option(
            "--strict-protocol",
            help="Agent modes: only an <answer> tag is a final answer (default: also the "
            "paper's untagged forms, a bare \\boxed{} or a final 'Answer:' line).",
        ),
    ] = False,
    fsync_interval: Annotated[
        float,
        typer.Option(
            "--fsync-interval",
            help="Seconds between fsyncs of results/cache (0: every line). Lines are "
            "flushed as written, so a killed run loses nothing either way.",
        ),
    ] = 1.0,
    backend_kind: Annotated[
        str,
        typer.Option(
            "--backend",
            help="Where instances are evaluated: local (this process) or ray (batches of "
            "instances as Ray tasks, --concurrency each; the same results, cache and "
            "resume; needs the 'ray' extra).",
        ),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            "--ray-address",
            help="--backend ray: an existing cluster (auto, HOST:6379, ray://HOST:10001; "
            "`ray start --head` prints it); default: a local cluster on this machine.",
        ),
    ] = None,
) -> None:
    """Evaluate a model on DATA.jsonl; results, cache and summary go to --out."""
    if len(model) != 1 or samples > 1:
        _eval_many(ctx, model, out, samples)
        return
    model_name = model[0]
    sample_no: int | None = ctx.meta.get(_SAMPLE_KEY)
    import asyncio
    import functools

    from rich.markup import escape

    from closurebench.evaluate.breaker import RunAborted
    from closurebench.evaluate.modes import AgentMode, EinProgramMode, ProgramMode, get_mode
    from closurebench.evaluate.providers import (
        AUTO,
        DEFAULT_PROVIDER,
        GenerationSettings,
        ProviderOptions,
        build_provider,
        check_provider_options,
        parse_provider_args,
        resolve_provider,
    )
    from closurebench.evaluate.runner import RunOptions, run_eval, select_instances
    from closurebench.evaluate.selection import draw_fewshot
    from closurebench.generate.io import check_manifest, load_instances
    from closurebench.generate.ray_backend import check_backend, require_ray

    err = Console(stderr=True)
    try:
        check_backend(backend_kind, ray_address)
        if backend_kind == "ray":
            require_ray()
        the_mode = get_mode(mode)
        if system_prompt is not None:
            try:
                text = system_prompt.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigError(
                    f"--system-prompt {system_prompt}: cannot read it ({exc}); pass a UTF-8 "
                    "text file"
                ) from None
            the_mode.use_system_prompt(text)
        call_limit = token_limit(max_tokens, max_completion_tokens)
        agent_flags = {
            "--agent-max-calls": agent_max_calls,
            "--agent-max-tokens": agent_max_tokens,
            "--agent-max-result-chars": agent_max_result_chars,
            "--strict-protocol": strict_protocol or None,
        }
        if isinstance(the_mode, AgentMode):
            budget = the_mode.configure(
                max_calls=agent_max_calls,
                max_tokens=agent_max_tokens,
                max_result_chars=agent_max_result_chars,
                # an explicit token limit caps each call (a bad one is refused below)
                call_max_tokens=next(
                    (v for v in (max_tokens, max_completion_tokens) if v is not None and v > 0),
                    None,
                ),
                strict_protocol=strict_protocol,
            )
            if max_tokens is None and max_completion_tokens is None:
                call_limit = budget.max_tokens  # each call: up to the remaining budget
        else:
            given = [flag for flag, value in agent_flags.items() if value is not None]
            if given:
                raise ConfigError(
                    f"{given[0]} applies to the agent modes (agent, agent-tools) only; "
                    f"--mode {mode} runs no agent episode, so drop it"
                )
        settings = GenerationSettings(
            model=model_name,
            temperature=parse_temperature(temperature),
            max_tokens=call_limit,
            top_p=top_p,
            seed=None if request_seed is None else request_seed + (sample_no or 1) - 1,
            timeout_s=timeout,
            max_completion_tokens=max_completion_tokens,
            extra_body=parse_extra_body(extra_body) if extra_body is not None else None,
        )
        settings.check()
        options = RunOptions(
            concurrency=concurrency,
            retries=retries,
            backoff_base_s=backoff,
            backoff_max_s=backoff_max,
            seed=seed,
            use_cache=not no_cache,
            keep_errors=keep_errors,
            force_new=force_new,
            max_consecutive_failures=max_consecutive_failures,
            progress=progress,
            sync_interval_s=fsync_interval,
            max_harness_deaths=max_harness_deaths,
        )
        options.check()
        if retry_errors and keep_errors:
            raise ConfigError(
                "--retry-errors and --keep-errors contradict each other; errored instances "
                "are re-run by default, so drop --retry-errors"
            )
        if isinstance(the_mode, ProgramMode):
            if the_mode.use_sandbox(sandbox, unsafe=unsafe_no_sandbox) == "none":
                err.print(
                    "[yellow]unsafe:[/yellow] --unsafe-no-sandbox: model-written programs "
                    "run with no kernel wall (recorded in run.json, the summary and the "
                    "report)",
                    highlight=False,
                    soft_wrap=True,
                )
            if failed_program_as is not None:
                the_mode.count_failed_runs_as(failed_program_as)
        elif sandbox is not None or unsafe_no_sandbox or failed_program_as is not None:
            flag = (
                "--unsafe-no-sandbox"
                if unsafe_no_sandbox
                else f"--sandbox {sandbox}"
                if sandbox is not None
                else f"--failed-program-as {failed_program_as}"
            )
            raise ConfigError(
                f"{flag} applies to the program modes (program-ein, program-python) only; "
                f"--mode {mode} runs no model-written program, so drop it"
            )
        if ein_card is not None:
            if not isinstance(the_mode, EinProgramMode):
                raise ConfigError(
                    f"--ein-card {ein_card} applies to --mode program-ein only; --mode {mode} "
                    "sends no Ein syntax card, so drop it"
                )
            the_mode.use_ein_card(ein_card)
        provider_options = ProviderOptions(
            model=model_name,
            timeout_s=timeout,
            base_url=_urls(base_url),
            api_key_env=api_key_env,
            device=device,
            script=script,
            workers=workers,
            extra=parse_provider_args(provider_arg),
        )
        provider_name = resolve_provider(provider, model_name)
        check_provider_options(provider_name, provider_options)
        if provider == AUTO and provider_name != DEFAULT_PROVIDER:
            err.print(
                f"note: --provider auto picks --provider {provider_name} for --model "
                f"{escape(model_name)}; pass --provider {DEFAULT_PROVIDER} to send the name "
                "to a server instead",
                highlight=False,
                soft_wrap=True,
            )
        records = load_instances(data)
        note = check_manifest(data, len(records))
        if note is not None:
            typer.echo(note, err=True)
        selected = select_instances(
            records,
            categories=_split(categories),
            tasks=_split(tasks),
            sample=sample,
            limit=limit,
            seed=seed,
        )
        if fewshot:
            if fewshot_from is None:
                raise ConfigError(
                    "--fewshot needs --fewshot-from FILE: a dataset file apart from DATA "
                    "(e.g. the train split)"
                )
            the_mode.use_fewshot(draw_fewshot(load_instances(fewshot_from), records, fewshot, seed))
        elif fewshot_from is not None:
            raise ConfigError("--fewshot-from without --fewshot K: pass how many examples")
        backend = build_provider(provider_name, provider_options, instances=selected, mode=the_mode)

        async def _go() -> RunStats:
            try:
                if backend_kind == "ray":
                    from closurebench.evaluate.ray_backend import run_eval_ray

                    return await run_eval_ray(
                        selected,
                        functools.partial(
                            build_provider,
                            provider_name,
                            provider_options,
                            instances=selected,
                            mode=the_mode,
                        ),
                        the_mode,
                        settings,
                        out,
                        options,
                        provider_name=str(getattr(backend, "name", "")),
                        dataset=data,
                        sample=sample_no,
                        address=ray_address,
                    )
                return await run_eval(
                    selected,
                    backend,
                    the_mode,
                    settings,
                    out,
                    options,
                    dataset=data,
                    sample=sample_no,
                )
            finally:
                await backend.aclose()

        stats = asyncio.run(_go())
    except RunAborted as exc:
        if exc.summary is not None:  # what finished before the stop; the handler says why
            typer.echo(result_line(exc.summary, out))
        raise
    summary = stats.summary
    typer.echo(result_line(summary, out, stats))
    errors = summary.counts.errors
    if errors:
        examples = summary.error_examples
        err.print(
            f"[yellow]incomplete:[/yellow] {errors} instance(s) ended in error and are left "
            "out of the accuracy"
            + (f" (e.g. {escape(shorten(examples[0], 300))})" if examples else "")
            + "; run the same command to retry them",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(code=EXIT_INCOMPLETE)


def model_folder(model: str) -> str:
    """The run folder name of ``model`` under a several-model ``--out``.

    Example:
        >>> model_folder("Qwen/Qwen2.5-7B-Instruct")
        'Qwen--Qwen2.5-7B-Instruct'
    """
    return re.sub(r"[^A-Za-z0-9._-]", "-", model.replace("/", "--")).strip(".") or "model"


#: ``ctx.meta`` key through which :func:`_eval_many` tells a run its sample number.
_SAMPLE_KEY = "closurebench.eval.sample"


def _eval_many(ctx: typer.Context, models: list[str], out: Path, samples: int) -> None:
    """Several ``--model`` and/or ``--samples K``: one run folder each, then one report.

    Folders: ``OUT/<model>`` per model, ``OUT/sample-<k>`` per sample (both:
    ``OUT/<model>/sample-<k>``). Every run goes ahead even when an earlier one fails;
    the exit code is the worst one (bad input 1 stops before any run). With samples,
    ``OUT/samples.json`` scores the samples of each model (pass@k, the mean and its
    interval, the spread); ``OUT/report`` shows every run.
    """
    from closurebench.report import ReportError, build_report

    folders = [model_folder(m) for m in models]
    repeated = sorted({f for f in folders if folders.count(f) > 1})
    if not models or repeated:
        problem = (
            f"--model: {', '.join(repeated)} is given twice (or two names share a folder); "
            "give each model once"
            if repeated
            else "--model is required"
        )
        raise ConfigError(problem)
    if (out / "run.json").is_file() or (out / "results.jsonl").is_file():
        raise ConfigError(
            f"--out {out} is a run folder, but "
            + ("several --model" if len(models) > 1 else f"--samples {samples}")
            + " writes one run folder per "
            + ("model" if len(models) > 1 else "sample")
            + " under it; pass a new --out"
        )
    try:
        greedy = parse_temperature(str(ctx.params.get("temperature", "0"))) == 0.0
    except ConfigError:
        greedy = False  # the first run names the bad value
    if samples > 1 and greedy:
        typer.echo(
            f"note: --samples {samples} at temperature 0 repeats greedy decoding: the "
            "samples differ only where the server is nondeterministic (pass --temperature "
            "above 0 to sample)",
            err=True,
        )
    plan: list[tuple[str, int | None, Path]] = []
    for name, folder in zip(models, folders, strict=True):
        base = out / folder if len(models) > 1 else out
        if samples > 1:
            plan += [(name, k, base / f"sample-{k}") for k in range(1, samples + 1)]
        else:
            plan.append((name, None, base))
    codes: dict[str, int] = {}
    for name, sample, run_dir in plan:
        what = name if sample is None else f"{name}, sample {sample} of {samples}"
        typer.echo(f"== {what} -> {run_dir}")
        params = {**ctx.params, "model": [name], "out": run_dir, "samples": 1}
        ctx.meta[_SAMPLE_KEY] = sample
        try:
            eval_cmd(ctx, **params)
            codes[what] = 0
        except typer.Exit as exc:  # a finished run with instances in error
            codes[what] = int(exc.exit_code or 0)
        except Exception as exc:
            if exit_code_for(exc) == EXIT_ERROR and not (run_dir / "run.json").exists():
                raise  # bad input: every run would fail the same way
            codes[what] = report_error(exc, debug=debug_requested(ctx))
        finally:
            ctx.meta.pop(_SAMPLE_KEY, None)
    done = [d for _, _, d in plan if (d / "results.jsonl").is_file()]
    if done:
        try:
            if samples > 1:
                _write_samples(done, out)
            md, html = build_report(done, out / "report")
            typer.echo(f"combined report: {md} and {html}")
        except ReportError as exc:
            typer.echo(f"error: combined report: {exc}", err=True)
    worst = max(codes.values(), default=0)
    if worst:
        failed = ", ".join(f"{m} (exit {c})" for m, c in codes.items() if c)
        typer.echo(f"not every run finished: {failed}", err=True)
        raise typer.Exit(code=worst)


def _write_samples(run_dirs: list[Path], out: Path) -> None:
    """Score the samples into ``OUT/samples.json`` and print one line per model."""
    from closurebench.report.aggregate import load_runs
    from closurebench.report.samples import repeated_sampling

    scored = repeated_sampling(load_runs(run_dirs))
    path = out / "samples.json"
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(scored.model_dump_json(indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    for group in scored.groups:
        rule = group.lenient
        parts = [f"{p.k}={_fmt(p.value)}" for p in rule.pass_at]
        spread = _fmt(rule.std_over_samples)
        typer.echo(
            f"{group.model} · {group.mode}: {group.samples} samples, lenient mean "
            f"{_fmt(rule.mean)} (std over samples {spread}); pass@" + ", pass@".join(parts)
        )
    typer.echo(f"samples: {path}")


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def result_line(summary: RunSummary, out: Path, stats: RunStats | None = None) -> str:
    """The console line of a run: counts, errors, and accuracies over answered instances.

    Args:
        summary: The run's ``summary.json``.
        out: The run directory.
        stats: What this call did (None for a stopped run: its counters are in the
            summary's ``run`` section).

    Returns:
        One line.

    Example:
        >>> s = RunSummary.model_validate(
        ...     {"counts": {"total": 10, "answered": 8, "errors": 2, "selected": 12},
        ...      "strict_accuracy": 0.5, "lenient_accuracy": 0.625,
        ...      "run": {"evaluated": 10, "skipped": 0, "cache_hits": 0}})
        >>> print(result_line(s, Path("run")))  # doctest: +NORMALIZE_WHITESPACE
        10 of 12 results in run (evaluated 10, resumed 0, cache hits 0); 2 errors;
        strict 0.500, lenient 0.625 over 8 answered
    """
    counts = summary.counts
    run = summary.run or {}
    evaluated = stats.evaluated if stats is not None else run.get("evaluated", 0)
    skipped = stats.skipped if stats is not None else run.get("skipped", 0)
    hits = stats.cache_hits if stats is not None else run.get("cache_hits", 0)
    total = counts.total
    selected = counts.selected if counts.selected is not None else total
    head = f"{total} of {selected} results" if selected != total else f"{total} results"
    line = (
        f"{head} in {out} (evaluated {evaluated}, resumed {skipped}, cache hits {hits}); "
        f"{counts.errors} errors; strict {_fmt(summary.strict_accuracy)}, "
        f"lenient {_fmt(summary.lenient_accuracy)} over {counts.answered} answered"
    )
    outside = counts.outside_selection or 0
    if outside:
        line += (
            f"; {outside} earlier result(s) in the folder are outside this selection and left "
            "out (here and in `closurebench report`)"
        )
    return line
