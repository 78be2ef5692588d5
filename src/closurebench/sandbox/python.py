"""Run a model-written Python program in the sandbox: :func:`run_python`.

One fresh interpreter per program (``sys.executable -I -B``, so no ``PYTHON*`` variable,
user site or current directory counts), in its own session and temporary directory
(removed afterwards), with a scrubbed environment, its own rlimits, the audit hook of
:mod:`closurebench.sandbox.bootstrap` and, when the machine offers one, a kernel
boundary (:mod:`closurebench.sandbox.isolation`). Everything the program does becomes
an :class:`~closurebench.sandbox.result.Outcome`; nothing it does raises here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from closurebench.errors import ConfigError
from closurebench.sandbox.isolation import ORDER, Isolation, resolve_isolation, wrap_command
from closurebench.sandbox.limits import DEFAULT_SANDBOX_LIMITS, SandboxLimits
from closurebench.sandbox.process import Spawned, child_env, spawn
from closurebench.sandbox.result import CapturedGraph, Outcome, SandboxResult

__all__ = ["BOOTSTRAP", "MAX_GRAPHS", "MAX_GRAPH_ITEMS", "python_argv", "run_python"]

#: The child-side script.
BOOTSTRAP = str(Path(__file__).with_name("bootstrap.py"))
#: Most graphs captured per program.
MAX_GRAPHS = 16
#: Most nodes plus edges captured over all graphs of one program.
MAX_GRAPH_ITEMS = 200_000
#: Largest program accepted, in characters (a bigger one is a ConfigError: not model output).
MAX_PROGRAM_CHARS = 2_000_000
_PRELOADS = {"networkx": re.compile(r"\bnetworkx\b"), "numpy": re.compile(r"\bnumpy\b")}


def python_argv(
    code: str, *, tmp: str, report_fd: int, limits: SandboxLimits, capture_graphs: bool
) -> list[str]:
    """Write the program into ``tmp`` and return the child's command (before wrapping)."""
    program = os.path.join(tmp, "program.py")
    with open(program, "w", encoding="utf-8") as handle:
        handle.write(code)
    preload = [name for name, pattern in _PRELOADS.items() if pattern.search(code)]
    config = {
        "fd": report_fd,
        "tmp": tmp,
        "program": program,
        "rlimits": limits.rlimits(),
        "preload": preload,
        "capture_graphs": capture_graphs,
        "max_graphs": MAX_GRAPHS,
        "max_items": MAX_GRAPH_ITEMS,
    }
    return [sys.executable, "-I", "-B", BOOTSTRAP, json.dumps(config)]


def run_python(
    code: str,
    *,
    limits: SandboxLimits | None = None,
    isolation: Isolation | str | None = None,
    capture_graphs: bool = True,
) -> SandboxResult:
    """Run ``code`` as a Python program in a fresh sandboxed interpreter.

    networkx and numpy are importable (both are imported before the audit hook when the
    program names them, which also lets graph capture see ``networkx``).

    Args:
        code: The program text.
        limits: Resource caps (default :data:`DEFAULT_SANDBOX_LIMITS`).
        isolation: ``"bwrap"``, ``"unshare"``, ``"none"`` or ``None`` (detect; see
            :func:`~closurebench.sandbox.isolation.detect_isolation`). A level that fails
            to start falls back to the next weaker one, recorded in ``fallback``.
        capture_graphs: Record the networkx graphs the program builds.

    Returns:
        The :class:`SandboxResult`.

    Raises:
        ConfigError: ``code`` is not a string or is longer than 2,000,000 characters,
            ``limits`` is not a :class:`SandboxLimits`, or ``isolation`` is unknown.

    Example:
        >>> run_python("print(6 * 7)", isolation="none").stdout
        '42\\n'
    """
    if not isinstance(code, str):
        raise ConfigError(f"run_python: code is a {type(code).__name__}; pass the program text")
    if len(code) > MAX_PROGRAM_CHARS:
        raise ConfigError(
            f"run_python: the program has {len(code)} characters; pass at most "
            f"{MAX_PROGRAM_CHARS} (cut it, or report it as too long without running it)"
        )
    limits = DEFAULT_SANDBOX_LIMITS if limits is None else limits
    if not isinstance(limits, SandboxLimits):
        raise ConfigError(f"run_python: limits is a {type(limits).__name__}; pass a SandboxLimits")
    level = resolve_isolation(isolation)
    fallback: list[str] = []
    for candidate in ORDER[ORDER.index(level) :]:
        spawned = _run_once(code, limits, candidate, capture_graphs)
        if spawned.first("started") is not None or candidate is Isolation.NONE:
            return _result(spawned, candidate, "; ".join(fallback), limits.cpu_seconds)
        head = spawned.stderr.decode(errors="replace").strip().splitlines()[:1]
        fallback.append(f"{candidate} failed to start (exit {spawned.exit_code}): {' '.join(head)}")
    raise AssertionError("unreachable: the none level always returns")  # pragma: no cover


def _run_once(code: str, limits: SandboxLimits, level: Isolation, capture: bool) -> Spawned:
    tmp = tempfile.mkdtemp(prefix="closurebench-sandbox-")
    report = os.pipe()
    try:
        argv = python_argv(
            code, tmp=tmp, report_fd=report[1], limits=limits, capture_graphs=capture
        )
        return spawn(
            wrap_command(level, argv, tmp),
            cwd=tmp,
            env=child_env(tmp),
            limits=limits,
            report=report,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _result(sp: Spawned, level: Isolation, fallback: str, cpu_limit: float) -> SandboxResult:
    outcome, detail = classify(sp, cpu_limit)
    graphs: list[CapturedGraph] = []
    truncated = False
    dump = next((m for m in sp.messages if "graphs" in m), None)
    if dump is not None:
        truncated = bool(dump.get("truncated"))
        for item in dump.get("graphs") or ():
            try:
                graphs.append(CapturedGraph.from_json(item))
            except (TypeError, ValueError, AttributeError):
                truncated = True
    elif sp.exceeded == "report":
        truncated = True
    return SandboxResult(
        outcome=outcome,
        detail=detail,
        stdout=sp.stdout.decode("utf-8", errors="replace"),
        stderr=sp.stderr.decode("utf-8", errors="replace"),
        exit_code=sp.exit_code,
        wall_seconds=sp.wall_seconds,
        graphs=tuple(graphs),
        graphs_truncated=truncated,
        isolation=str(level),
        fallback=fallback,
    )


def classify(sp: Spawned, cpu_limit: float = float("inf")) -> tuple[Outcome, str]:
    """The outcome and detail of a child's run, from what the parent saw.

    ``cpu_limit`` (the run's ``cpu_seconds``) tells a CPU-limit kill from an OOM kill.

    Precedence: a refused operation (even one the program caught) beats everything;
    then the parent's own kills (deadline, byte caps); then the child's report.
    """
    forbidden = sp.first("forbidden")
    if forbidden is not None:
        return Outcome.FORBIDDEN, str(forbidden)
    if sp.timed_out:
        return Outcome.TIMEOUT, "wall"
    if sp.exceeded:
        return Outcome.OUTPUT_LIMIT, sp.exceeded
    if sp.first("memory_error") is not None:
        return Outcome.MEMORY_LIMIT, "MemoryError"
    syntax = sp.first("syntax_error")
    if syntax is not None:
        return Outcome.SYNTAX_ERROR, str(syntax)
    error = sp.first("error")
    if error is not None:
        if error == "MemoryError":
            return Outcome.MEMORY_LIMIT, "MemoryError"
        return Outcome.RUNTIME_ERROR, str(error)
    code = sp.exit_code
    if code is not None and code > 128 and sp.first("done") is None:
        code = 128 - code  # bubblewrap's init reports a child killed by signal N as 128 + N
    if code is not None and code < 0:
        sig = -code
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and sp.first("done") is None):
            if sig == signal.SIGXCPU or sp.cpu_seconds >= cpu_limit - 0.5:
                return Outcome.TIMEOUT, f"cpu ({_signal_name(sig)})"
            return Outcome.MEMORY_LIMIT, f"killed ({_signal_name(sig)})"
        return Outcome.RUNTIME_ERROR, _signal_name(sig)
    exit_ = sp.first("exit")
    if exit_ is not None:
        return Outcome.RUNTIME_ERROR, f"SystemExit({exit_})"
    if code not in (0, None):
        return Outcome.RUNTIME_ERROR, f"exit status {code}"
    return Outcome.OK, ""


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
