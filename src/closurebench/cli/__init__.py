"""The ``closurebench`` command-line interface.

Each subcommand lives in its own module under :mod:`closurebench.cli` and is
registered here in one table (:data:`COMMANDS`: where it lives and its one-line
summary), so adding a command touches its module and one entry. Subcommand modules are
imported only when their command runs, so ``closurebench ein run`` does not pay for
importing the generators, the harness and matplotlib, and ``closurebench --help`` lists
the commands from the table without importing any (0.4 s instead of 3.7 s).

Errors: one handler for every command (:meth:`_LazyGroup.invoke`) turns a
:class:`~closurebench.errors.ClosureBenchError`, an :class:`OSError` (a path that
cannot be written, a full disk), an unexpected exception or Ctrl-C into one line on
stderr, ``error: ...``, and the exit code of :data:`EXIT_CODES` (the one table of exit
codes: ``closurebench --help`` prints it, and commands raise, never print-and-exit).
The traceback is printed only with the root option ``--debug`` (or
``CLOSUREBENCH_DEBUG=1``)::

    closurebench --debug eval DATA.jsonl --model m --out RUN
"""

from __future__ import annotations

import contextlib
import errno
import functools
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, TypeVar, cast

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from closurebench import __version__
from closurebench.errors import ClosureBenchError, shorten

__all__ = [
    "COMMANDS",
    "EXIT_BUG",
    "EXIT_CODES",
    "EXIT_ERROR",
    "EXIT_INCOMPLETE",
    "EXIT_INFRASTRUCTURE",
    "EXIT_INTERRUPTED",
    "EXIT_OS",
    "EXIT_USAGE",
    "Command",
    "app",
    "debug_requested",
    "error_line",
    "exit_code_for",
    "exit_codes_epilog",
    "handle_errors",
    "main",
    "report_error",
]


# The one table of subcommands: name -> "module:attribute" (a Typer app or a function).
class Command(NamedTuple):
    """One subcommand: where it lives and the line ``closurebench --help`` lists it with.

    Attributes:
        target: ``module:attribute`` of its function or Typer app (imported when it runs).
        summary: Its one-line description (the listing's, and the command's short help;
            its docstring or app help is the long help of ``closurebench CMD --help``).
    """

    target: str
    summary: str


COMMANDS: dict[str, Command] = {
    "quickstart": Command(
        "closurebench.cli.quickstart:quickstart",
        "Run the offline main job: generate verified ClosureBench and GRIT sets, cross-check.",
    ),
    "show": Command(
        "closurebench.cli.show:show",
        "Pretty-print record K of a dataset file: metadata, question, answer, programs.",
    ),
    "eval": Command(
        "closurebench.cli.eval:eval_cmd",
        "Evaluate a model on DATA.jsonl; results, cache and summary go to --out.",
    ),
    "report": Command(
        "closurebench.cli.report:report_cmd",
        "Write report.md and report.html (tables, figures) for one or more runs side by side.",
    ),
    "view": Command(
        "closurebench.cli.view:view_cmd",
        "Write view.html: browse every result's question, reply, answers and trajectory.",
    ),
    "ein": Command(
        "closurebench.cli.ein:app",
        "Run and check Ein programs.",
    ),
    "generate": Command(
        "closurebench.cli.generate:app",
        "Generate benchmark splits as canonical JSONL.",
    ),
    "merge": Command(
        "closurebench.cli.merge:merge_cmd",
        "Merge the shards of one `generate --shard i/N` run into the unsharded run's bytes.",
    ),
    "schema": Command(
        "closurebench.cli.schema:schema_cmd",
        "Print the JSON Schema of a record type (or validate a file against it).",
    ),
    "categories": Command(
        "closurebench.cli.categories:categories_cmd",
        "List the ClosureBench categories: level, result type, ambiguity, workable n, question.",
    ),
    "check-overlap": Command(
        "closurebench.cli.overlap:check_overlap",
        "List structures a file repeats, and structures (category/task, graph, "
        "anchors/params), questions and OOD identifiers files share.",
    ),
    "reword": Command(
        "closurebench.cli.reword:reword_cmd",
        "Re-word a ClosureBench file: same graphs, anchors and answers; new labels and wording.",
    ),
    "import": Command(
        "closurebench.cli.import_cmd:import_cmd",
        "Import a peer benchmark (NLGraph, G-REAL, GraphArena) as GRIT records, re-verified.",
    ),
    "export": Command(
        "closurebench.cli.export:app",
        "Exports of dataset files: SFT chats, GRPO prompts, Hugging Face datasets, "
        "lm-evaluation-harness tasks.",
    ),
    "memorisation": Command(
        "closurebench.cli.memorisation:memorisation_cmd",
        "Probe memorisation: seen vs fresh vs re-worded accuracy per checkpoint (or Table 6).",
    ),
    "train": Command(
        "closurebench.cli.train:app",
        "Train on closurebench data with TRL: SFT, GRPO and ARPO (needs the train extra).",
    ),
    "serve-env": Command(
        "closurebench.cli.serve_env:serve_env_cmd",
        "Serve episodes over HTTP (OpenEnv's reset / step / state): the graph tool, our rewards.",
    ),
}

#: A closurebench error: bad input (an option value or combination, a file), configuration,
#: dataset or generation failure.
EXIT_ERROR = 1
#: A usage error reported by typer/click: the command line does not parse.
EXIT_USAGE = 2
#: The model server or provider failed (eval stopped early).
EXIT_INFRASTRUCTURE = 3
#: An eval run finished with some instances in error (the eval command sets it).
EXIT_INCOMPLETE = 4
#: An operating-system error: a path cannot be read or written, the disk is full.
EXIT_OS = 5
#: An unexpected exception: a bug in closurebench.
EXIT_BUG = 70
#: Interrupted by Ctrl-C (128 + SIGINT, the shell's convention).
EXIT_INTERRUPTED = 130

#: Exit code -> meaning: the one table of exit codes (the help epilog is built from it).
EXIT_CODES: dict[int, str] = {
    0: "success",
    EXIT_ERROR: "a closurebench error: bad input (an option value or combination, a "
    "file), configuration, dataset, generation",
    EXIT_USAGE: "usage: the command line does not parse (an unknown command or option, "
    "a missing argument, a value of the wrong type)",
    EXIT_INFRASTRUCTURE: "infrastructure: the model server or provider failed",
    EXIT_INCOMPLETE: "finished, but some instances ended in error (rerun to retry them)",
    EXIT_OS: "operating-system error: a path cannot be read or written, disk full",
    EXIT_BUG: "internal error (a bug): rerun with --debug and report the traceback",
    EXIT_INTERRUPTED: "interrupted: run the same command again to resume",
}


def exit_codes_epilog() -> str:
    """The help epilog: every exit code of :data:`EXIT_CODES` and its meaning.

    Example:
        >>> exit_codes_epilog().startswith("Exit codes: 0 success; 1 a closurebench error")
        True
    """
    return "Exit codes: " + "; ".join(f"{code} {what}" for code, what in EXIT_CODES.items()) + "."


#: The line printed on Ctrl-C.
INTERRUPTED_LINE = "interrupted — run the same command to resume"

# Infrastructure errors, by "module:class"; looked up only in modules already imported
# (an exception of a class whose module was never loaded cannot have been raised), so
# this table costs the CLI's start-up nothing.
_INFRASTRUCTURE = (
    "closurebench.evaluate.providers.base:ProviderError",
    "closurebench.evaluate.breaker:RunAborted",
)

# Hints appended to an OSError's line, by errno.
_OS_HINTS: dict[int, str] = {
    errno.ENOSPC: "free some disk space and run the same command again (finished work is kept)",
    errno.EDQUOT: "free some disk quota and run the same command again (finished work is kept)",
    errno.EACCES: "check the permissions or choose another path",
    errno.EPERM: "check the permissions or choose another path",
    errno.EROFS: "the file system is read-only; choose another path",
    errno.ENOENT: "check that the path exists, or choose another one",
    errno.ENOTDIR: "a part of the path is a file, not a folder; choose another path",
    errno.EISDIR: "the path is a folder; pass a file",
    errno.EEXIST: "the path already exists; choose another one",
    errno.ENAMETOOLONG: "choose a shorter path",
}


def _loaded_class(spec: str) -> type | None:
    module, name = spec.split(":")
    found = getattr(sys.modules.get(module), name, None)
    return found if isinstance(found, type) else None


def _is_infrastructure(exc: BaseException) -> bool:
    return any(
        cls is not None and isinstance(exc, cls) for cls in map(_loaded_class, _INFRASTRUCTURE)
    )


def exit_code_for(exc: BaseException) -> int:
    """The exit code (:data:`EXIT_CODES`) for an exception that ended a command.

    Example:
        >>> from closurebench.errors import ConfigError
        >>> exit_code_for(ConfigError("x")), exit_code_for(OSError(28, "No space left"))
        (1, 5)
        >>> exit_code_for(KeyboardInterrupt()), exit_code_for(ZeroDivisionError())
        (130, 70)
    """
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    if _is_infrastructure(exc):
        return EXIT_INFRASTRUCTURE
    if isinstance(exc, ClosureBenchError):
        return EXIT_ERROR
    if isinstance(exc, OSError):
        return EXIT_OS
    return EXIT_BUG


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def _os_line(exc: OSError) -> str:
    what = exc.strerror or str(exc) or type(exc).__name__
    where = " and ".join(
        repr(os.fsdecode(f)) for f in (exc.filename, exc.filename2) if f is not None
    )
    line = f"{what}: {where}" if where else what
    hint = _OS_HINTS.get(exc.errno) if exc.errno is not None else None
    if exc.errno == errno.EEXIST and exc.filename is not None and os.path.isfile(exc.filename):
        hint = "it is a file, and a folder is needed there; choose another path"
    return f"{line}; {hint}" if hint else line


def error_line(exc: BaseException) -> str:
    """The one line (without ``error: ``) that describes ``exc`` to a user.

    Multi-line messages are joined, and the line is cut to a readable length.

    Example:
        >>> error_line(OSError(28, "No space left on device", "/data/run/results.jsonl"))
        "No space left on device: '/data/run/results.jsonl'; free some disk space and run the same command again (finished work is kept)"
        >>> from closurebench.errors import DatasetFileError
        >>> error_line(DatasetFileError("data.jsonl:3: field 'id' is missing\\nadd it"))
        "data.jsonl:3: field 'id' is missing add it"
        >>> error_line(KeyError("x"))
        "internal error (a bug): KeyError: 'x'; rerun with --debug and report the traceback"
    """  # noqa: E501
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED_LINE
    if isinstance(exc, OSError) and not isinstance(exc, ClosureBenchError):
        return shorten(_one_line(_os_line(exc)), 2000)
    message = _one_line(str(exc)) or type(exc).__name__
    if not isinstance(exc, ClosureBenchError):
        message = (
            f"internal error (a bug): {type(exc).__name__}: {message}; "
            "rerun with --debug and report the traceback"
        )
    return shorten(message, 2000)


def report_error(exc: BaseException, *, debug: bool = False) -> int:
    """Print ``exc`` as the one ``error:`` line (after its traceback when ``debug``).

    The one place a command's failure is shown; a command that goes on after a failed
    part (eval over several models) calls it for that part.

    Returns:
        The exit code (:func:`exit_code_for`).
    """
    if debug:
        traceback.print_exception(exc)
    if isinstance(exc, KeyboardInterrupt):
        typer.echo(INTERRUPTED_LINE, err=True)
    else:
        typer.echo(f"error: {error_line(exc)}", err=True)
    return exit_code_for(exc)


def debug_requested(ctx: typer.Context) -> bool:
    """Whether the root ``--debug`` option (or ``CLOSUREBENCH_DEBUG=1``) asks for tracebacks."""
    return bool(ctx.find_root().params.get("debug")) or _debug_env()


def _debug_env() -> bool:
    return os.environ.get("CLOSUREBENCH_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


def _load(name: str) -> Any:
    module, attr = COMMANDS[name].target.split(":")
    obj: Any = getattr(importlib.import_module(module), attr)
    if isinstance(obj, typer.Typer):
        command = typer.main.get_command(obj)
    else:
        single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        single.command(name)(obj)
        command = typer.main.get_command(single)
    command.name = name
    command.short_help = COMMANDS[name].summary
    return command


class _LazyGroup(TyperGroup):
    """A Typer group whose subcommands are imported on first use; the one error handler.

    Its own help lists the commands from :data:`COMMANDS` alone, importing none of them
    (``closurebench --help`` stays quick).
    """

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in COMMANDS:
            return None
        if self._listing:
            summary = COMMANDS[cmd_name].summary
            return TyperCommand(cmd_name, help=summary, short_help=summary)
        return _load(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The root help; the commands are listed by their summaries, not imported."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a failure becomes one ``error:`` line and its exit code."""
        with _errors_handled(ctx):
            return super().invoke(ctx)


@contextlib.contextmanager
def _errors_handled(ctx: typer.Context | None) -> Iterator[None]:
    """The one error handler: a failure inside becomes ``error: ...`` and its exit code."""
    try:
        yield
    except (typer.Exit, typer.Abort, typer.TyperException):
        raise  # typer's own exits and usage errors (exit code 2) keep their handling
    except BrokenPipeError:
        raise  # typer quiets a closed pipe (``closurebench ... | head``) itself
    except (Exception, KeyboardInterrupt) as exc:
        debug = debug_requested(ctx) if ctx is not None else _debug_env()
        raise typer.Exit(report_error(exc, debug=debug)) from None


F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(command: F) -> F:
    """``command`` (a closurebench subcommand's function) with the CLI's error handling.

    For embedding a subcommand in an app of your own (or a one-command test app): a
    failure prints the same one ``error:`` line and exits with the same code as
    ``closurebench <command>`` does; ``CLOSUREBENCH_DEBUG=1`` adds the traceback.

    Example:
        >>> import typer
        >>> from closurebench.cli.show import show
        >>> app = typer.Typer()
        >>> _ = app.command()(handle_errors(show))
    """

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        with _errors_handled(None):  # no root --debug here: CLOSUREBENCH_DEBUG decides
            return command(*args, **kwargs)

    return cast(F, run)


def _hide_flag_types() -> None:
    """Show flags in help without a value type (typer's rich help prints ``--help <bool>``).

    A flag takes no value, so its type column stays empty; options that take a value
    keep theirs. Applied once, to typer's option class, so every command's help agrees.
    """
    original = TyperOption.display_type_rich
    if getattr(original, "_closurebench_flags", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        return original(self, ctx)

    display_type_rich._closurebench_flags = True  # type: ignore[attr-defined]
    setattr(TyperOption, "display_type_rich", display_type_rich)  # noqa: B010


_hide_flag_types()

app = typer.Typer(
    name="closurebench",
    cls=_LazyGroup,
    help="Graph-reasoning benchmarks with proven answers (ClosureBench, GRIT) and Ein.",
    epilog=exit_codes_epilog(),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"closurebench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_version_callback,
        is_eager=True,
        help="Print the version and exit.",
    ),
    debug: bool = typer.Option(
        False,
        "--debug",
        envvar="CLOSUREBENCH_DEBUG",
        help="On an error, print the full traceback too (also CLOSUREBENCH_DEBUG=1).",
    ),
) -> None:
    """closurebench command-line tool."""


def main() -> None:
    """Entry point of the ``closurebench`` console script."""
    app()
