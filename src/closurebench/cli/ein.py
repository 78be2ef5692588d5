"""``closurebench ein`` subcommands: run, check and describe Ein programs.

* ``closurebench ein run FILE [--json] [--max-live-bytes SIZE] [--max-seconds S]
  [--max-output-bytes SIZE]`` prints ``Name = value`` for every ``:print`` (or, when
  nothing is printed, for the last assignment); with ``--json`` it prints only the
  final value as JSON (a number, a list, or a list of lists; integral values as
  integers). The run is bounded by a live-tensor budget (default 512 MiB; ``SIZE`` in
  bytes or with a ``K``/``M``/``G`` suffix, binary), a deadline (default 10 s) and an
  output limit (default 16 MiB of printed text), the
  :class:`~closurebench.ein.limits.Limits` fields ``max_live_bytes``, ``max_seconds``
  and ``max_output_bytes``. The output limit is checked while the program runs, before
  any text is made; the text is then written in pieces, so printing never holds a
  whole large value's text in memory.
* ``closurebench ein check FILE`` parses and shape-checks without running.
* ``closurebench ein card [--card ours|paper]`` prints a syntax card used in prompts
  (``ours``, the default, or the paper's App. F card, ``--ein-card paper`` of ``eval``);
  ``--tokens`` prints each card's size instead (characters and tokens, counted with a
  real tokenizer where one loads, else a labelled estimate; ``--tokenizer NAME`` picks
  one: ``tiktoken:o200k_base``, a local transformers model, or ``estimate``).

Errors go to stderr with the line, column and a caret; the exit code is 1.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from closurebench.cli import EXIT_ERROR
from closurebench.ein import (
    DEFAULT_LIMITS,
    EIN_CARDS,
    EinError,
    Limits,
    check,
    ein_card,
    run,
)
from closurebench.ein.values import format_chunks
from closurebench.errors import ConfigError

app = typer.Typer(help="Run and check Ein programs.", no_args_is_help=True)


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {file}: it is not UTF-8 text ({exc.reason})") from None
    except OSError as exc:  # a missing or unreadable input file is bad input, as for data
        raise ConfigError(f"cannot read {file}: {exc.strerror or exc}") from None


_SIZE = re.compile(r"\s*(\d+)\s*([KMG]i?B?|B)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30}


def parse_size(text: str, option: str = "--max-live-bytes") -> int:
    """Bytes from ``text``: an integer, optionally with a binary ``K``/``M``/``G`` suffix.

    Example:
        >>> parse_size("1024"), parse_size("512M"), parse_size("2GiB"), parse_size("64kb")
        (1024, 536870912, 2147483648, 65536)
        >>> parse_size("lots")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --max-live-bytes 'lots' is not a size; pass bytes \
such as 536870912 or 512M
    """
    m = _SIZE.fullmatch(text)
    if m is None:
        raise ConfigError(f"{option} {text!r} is not a size; pass bytes such as 536870912 or 512M")
    unit = (m.group(2) or "").upper()[:1]
    return int(m.group(1)) * _UNITS[unit]


def _limits(
    max_live_bytes: str | None, max_seconds: float | None, max_output_bytes: str | None = None
) -> Limits:
    try:
        changes: dict[str, object] = {}
        if max_live_bytes is not None:
            changes["max_live_bytes"] = parse_size(max_live_bytes)
        if max_output_bytes is not None:
            changes["max_output_bytes"] = parse_size(max_output_bytes, "--max-output-bytes")
        if max_seconds is not None:
            changes["max_seconds"] = max_seconds
        return replace(DEFAULT_LIMITS, **changes)  # type: ignore[arg-type]
    except ConfigError as exc:
        raise typer.BadParameter(str(exc)) from None


@app.command("run")
def run_cmd(
    file: Annotated[Path, typer.Argument(help="The .ein program to run.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the final value as JSON.")] = False,
    max_live_bytes: Annotated[
        str | None,
        typer.Option(
            "--max-live-bytes",
            metavar="SIZE",
            help="Budget for all tensors alive at once, e.g. 1G or 268435456 "
            f"(default {DEFAULT_LIMITS.max_live_bytes // 2**20}M).",
            show_default=False,
        ),
    ] = None,
    max_seconds: Annotated[
        float | None,
        typer.Option(
            "--max-seconds",
            metavar="S",
            help=f"Deadline of the run in seconds (default {DEFAULT_LIMITS.max_seconds:g}).",
            show_default=False,
        ),
    ] = None,
    max_output_bytes: Annotated[
        str | None,
        typer.Option(
            "--max-output-bytes",
            metavar="SIZE",
            help="Most bytes of printed `Name = value` lines, e.g. 64M "
            f"(default {DEFAULT_LIMITS.max_output_bytes // 2**20}M).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run an Ein program and print each `:print` as `Name = value`."""
    limits = _limits(max_live_bytes, max_seconds, max_output_bytes)
    source = _read(file)
    try:
        result = run(source, limits=limits)
    except EinError as err:
        typer.echo(f"{file}: {err}", err=True)
        raise typer.Exit(EXIT_ERROR) from None
    # The run counted every line against Limits.max_output_bytes; the JSON of the
    # final value is its text without the label, so it fits too.
    if as_json:
        _write(format_chunks(result.value), "\n")
        return
    shown = result.printed or [(result.label, result.value)]
    for label, value in shown:
        _write((f"{label} = ", *format_chunks(value)), "\n")


_FLUSH_CHARS = 1 << 16


def _write(pieces: Iterable[str], end: str) -> None:
    """Write ``pieces`` then ``end`` to stdout in batches of about 64 KB."""
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= _FLUSH_CHARS:
            typer.echo("".join(batch), nl=False)
            batch, size = [], 0
    typer.echo("".join(batch) + end, nl=False)


@app.command("check")
def check_cmd(
    file: Annotated[Path, typer.Argument(help="The .ein program to check.")],
) -> None:
    """Parse and shape-check an Ein program without running it."""
    source = _read(file)
    try:
        check(source)
    except EinError as err:
        typer.echo(f"{file}: {err}", err=True)
        raise typer.Exit(EXIT_ERROR) from None
    typer.echo(f"{file}: ok")


@app.command("card")
def card_cmd(
    card: Annotated[
        str | None,
        typer.Option(
            "--card",
            help=f"Which card: {' or '.join(EIN_CARDS)} (default ours; with --tokens: all).",
            show_default=False,
        ),
    ] = None,
    tokens: Annotated[
        bool,
        typer.Option("--tokens", help="Print each card's size in characters and tokens."),
    ] = False,
    tokenizer: Annotated[
        str | None,
        typer.Option(
            "--tokenizer",
            metavar="NAME",
            help="With --tokens: tiktoken:<encoding>, a local transformers model, or "
            "estimate (default: the first that loads, else the estimate).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print an Ein syntax card (the reference appended to program-synthesis prompts)."""
    from closurebench.ein.tokens import count_tokens

    names = [card] if card is not None else (list(EIN_CARDS) if tokens else ["ours"])
    texts = {name: ein_card(name, "--card") for name in names}
    if tokenizer is not None and not tokens:
        raise ConfigError("--tokenizer counts tokens; add --tokens")
    if not tokens:
        typer.echo(texts[names[0]], nl=False)
        return
    for name, text in texts.items():
        size = count_tokens(text, tokenizer)
        approx = "" if size.exact else "~"
        typer.echo(f"{name}: {len(text)} characters, {approx}{size.tokens} tokens ({size.method})")
