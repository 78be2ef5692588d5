"""Run a model-written Python program in the sandbox: :func:`run_python`.

One fresh interpreter per program (``-I -S -B``: no ``PYTHON*`` variable, no site
directory, no current directory on the import path) behind the kernel wall of
:mod:`closurebench.sandbox.isolation` (bubblewrap with minimal read-only mounts, a
private tmpfs, all namespaces, seccomp), in its own session, with a scrubbed
environment, its own rlimits and the audit hook of
:mod:`closurebench.sandbox.bootstrap` as a tripwire. No wall, no run: where none works,
:func:`run_python` raises :class:`~.isolation.SandboxUnavailableError` unless the caller
asked for ``isolation="none"`` by name (the ``--unsafe-no-sandbox`` choice).

Behind the wall nothing touches the host's disk: the program and the filter reach
bubblewrap as descriptors (a memfd each) and the working directory is a tmpfs that
dies with the sandbox. Without it (``none``) the program runs in a temporary
directory named after the harness's pid, removed afterwards; stale ones whose owner
died are swept at the next start.

Everything the program does becomes an :class:`~closurebench.sandbox.result.Outcome`;
nothing it does raises here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import warnings
from typing import Any

from closurebench.errors import ClosureBenchError, ConfigError
from closurebench.sandbox.isolation import (
    BOOTSTRAP,
    INSIDE_BOOTSTRAP,
    INSIDE_HOME,
    Isolation,
    Mounts,
    bwrap_command,
    identity,
    interpreter,
    require_wall,
    unsafe_layers,
)
from closurebench.sandbox.limits import DEFAULT_SANDBOX_LIMITS, SandboxLimits
from closurebench.sandbox.process import TMP_PREFIX, Spawned, child_env, memfd, spawn
from closurebench.sandbox.result import CapturedGraph, Outcome, SandboxResult
from closurebench.sandbox.warm import (
    fits,
    run_warm,
    warm_enabled,
)

__all__ = [
    "BOOTSTRAP",
    "MAX_GRAPHS",
    "MAX_GRAPH_ITEMS",
    "SandboxStartError",
    "run_python",
    "sweep_stale_dirs",
]

#: Most graphs captured per program.
MAX_GRAPHS = 16
#: Most nodes plus edges captured over all graphs of one program.
MAX_GRAPH_ITEMS = 200_000
#: Largest program accepted, in characters (a bigger one is a ConfigError: not model output).
MAX_PROGRAM_CHARS = 2_000_000
_PRELOADS = {"networkx": re.compile(r"\bnetworkx\b"), "numpy": re.compile(r"\bnumpy\b")}
_INSIDE_PROGRAM = f"{INSIDE_HOME}/program.py"
_SWEPT = threading.Event()
_COLD_WARNED: set[Isolation] = set()


class SandboxStartError(ClosureBenchError, RuntimeError):
    """The wall itself failed to start (not the program's doing): the run cannot go on."""


def _config(
    *, fd: int, tmp: str, program: str, limits: SandboxLimits, code: str, capture: bool
) -> dict[str, object]:
    preload = [name for name, pattern in _PRELOADS.items() if pattern.search(code)]
    return {
        "fd": fd,
        "tmp": tmp,
        "program": program,
        "rlimits": limits.rlimits(),
        "preload": preload,
        "capture_graphs": capture,
        "max_graphs": MAX_GRAPHS,
        "max_items": MAX_GRAPH_ITEMS,
    }


def run_python(
    code: str,
    *,
    limits: SandboxLimits | None = None,
    isolation: Isolation | str | None = None,
    capture_graphs: bool = True,
    audit_hook: bool = True,
    warm: bool | None = None,
) -> SandboxResult:
    """Run ``code`` as a Python program in its own sandboxed process.

    networkx, numpy and scipy are importable, with the standard library (networkx and
    numpy are imported before the audit hook — by the warm zygote, or by a cold
    interpreter when the program names them — which also lets graph capture see
    ``networkx``).

    Args:
        code: The program text.
        limits: Resource caps (default :data:`DEFAULT_SANDBOX_LIMITS`).
        isolation: ``None`` (the strongest wall that works: see
            :func:`~closurebench.sandbox.isolation.require_wall`), ``"bwrap"``, or
            ``"none"`` (no wall: the explicit unsafe choice).
        capture_graphs: Record the networkx graphs the program builds.
        audit_hook: Install the audit hook (the tripwire). ``False`` leaves the
            program facing the wall alone: the escape tests attack it that way too.
        warm: Fork the program from a warm zygote behind the same wall
            (:mod:`closurebench.sandbox.warm`; several times the programs per
            second), or start a cold interpreter for it (``False``). ``None``: warm
            unless ``CLOSUREBENCH_SANDBOX_WARM=0``.
            Programs whose ``memory_bytes`` leave too little room beyond the
            zygote's own run cold either way.

    Returns:
        The :class:`SandboxResult`.

    Raises:
        ConfigError: ``code`` is not a string or is longer than 2,000,000 characters,
            ``limits`` is not a :class:`SandboxLimits`, ``isolation`` is unknown, or
            ``CLOSUREBENCH_SANDBOX_WARM`` is not ``0`` or ``1``.
        SandboxUnavailableError: No wall works here and ``none`` was not asked for.
        SandboxStartError: The wall failed to start this run.

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
    level = require_wall(isolation)
    spawned = None
    if warm_enabled(warm) and fits(limits, level):
        config = _config(fd=0, tmp="", program="", limits=limits, code=code, capture=capture_graphs)
        config["hook"] = audit_hook
        try:
            spawned = run_warm(code, config, limits, level)
        except OSError as exc:
            _warn_cold(level, exc)
    if spawned is None:
        run_cold = _run_bwrap if level is Isolation.BWRAP else _run_unsafe
        spawned = run_cold(code, limits, capture_graphs, audit_hook)
    wall_error = next((m["wall_error"] for m in trusted(spawned) if "wall_error" in m), None)
    if wall_error is not None:
        raise SandboxStartError(f"the sandbox ({level}) failed to start a program: {wall_error}")
    if spawned.first("started") is None and not spawned.timed_out:
        head = spawned.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise SandboxStartError(
            f"the sandbox ({level}) failed to start a program (exit {spawned.exit_code}): "
            f"{' '.join(head) or 'no message'}; `bwrap --ro-bind / / true` shows whether "
            "bubblewrap itself still works here"
        )
    return _result(spawned, level, limits.cpu_seconds)


def _warn_cold(level: Isolation, exc: OSError) -> None:
    """Say once per level that warm zygotes do not start here (programs then run cold)."""
    if level in _COLD_WARNED:
        return
    _COLD_WARNED.add(level)
    warnings.warn(
        f"closurebench sandbox: {exc}; programs run in a cold interpreter each at "
        f"{level} (slower, the same wall); set CLOSUREBENCH_SANDBOX_WARM=0 or pass "
        "warm=False to run cold without this warning",
        RuntimeWarning,
        stacklevel=3,
    )


def _run_bwrap(code: str, limits: SandboxLimits, capture: bool, hook: bool) -> Spawned:
    from closurebench.sandbox.seccomp import inner_filter, seccomp_fd

    report = os.pipe()
    fds: list[int] = []
    try:
        fds.append(seccomp_fd())
        fds.append(memfd("closurebench-program", code.encode("utf-8", "surrogatepass")))
        config = _config(
            fd=report[1],
            tmp=INSIDE_HOME,
            program=_INSIDE_PROGRAM,
            limits=limits,
            code=code,
            capture=capture,
        )
        mounts = Mounts()
        config["sys_path"] = mounts.sys_path
        config["hook"] = hook
        config["exec_filter"] = inner_filter().hex()
        config["identity"] = identity()
        argv = [interpreter(), "-I", "-S", "-B", INSIDE_BOOTSTRAP, json.dumps(config)]
        command = bwrap_command(
            argv,
            mounts=mounts,
            tmpfs_bytes=limits.tmpfs_bytes,
            seccomp_fd=fds[0],
            data=[(fds[1], _INSIDE_PROGRAM)],
            files=[(BOOTSTRAP, INSIDE_BOOTSTRAP)],
        )
    except BaseException:
        for fd in (*report, *fds):
            os.close(fd)
        raise
    return spawn(
        command,
        cwd=tempfile.gettempdir(),
        env=child_env(INSIDE_HOME),
        limits=limits,
        report=report,
        pass_fds=fds,
    )


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_dirs(parent: str | None = None) -> list[str]:
    """Remove the unsafe level's temporary directories whose owning process is dead.

    Args:
        parent: The directory to sweep (default: the system's temporary directory).

    Returns:
        The directories removed.
    """
    parent = parent or tempfile.gettempdir()
    removed = []
    pattern = re.compile(re.escape(TMP_PREFIX) + r"(\d+)-")
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            match = pattern.match(entry.name)
            if match and entry.is_dir(follow_symlinks=False):
                pid = int(match.group(1))
                if pid != os.getpid() and not _pid_alive(pid):
                    shutil.rmtree(entry.path, ignore_errors=True)
                    removed.append(entry.path)
    return removed


def _run_unsafe(code: str, limits: SandboxLimits, capture: bool, hook: bool) -> Spawned:
    if not _SWEPT.is_set():
        _SWEPT.set()
        sweep_stale_dirs()
    tmp = tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-")
    report = os.pipe()
    try:
        program = os.path.join(tmp, "program.py")
        with open(program, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(code)
        config = _config(
            fd=report[1], tmp=tmp, program=program, limits=limits, code=code, capture=capture
        )
        config["sys_path"] = []
        config["hook"] = hook
        config.update(unsafe_layers(Mounts(), [tmp]))
        argv = [sys.executable, "-I", "-B", BOOTSTRAP, json.dumps(config)]
        return spawn(argv, cwd=tmp, env=child_env(tmp), limits=limits, report=report)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _result(sp: Spawned, level: Isolation, cpu_limit: float) -> SandboxResult:
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
    )


#: The report channel's messages: key -> the types its value may have. A line with any
#: other key, a value of another type or that is not a JSON object garbles the channel.
REPORT_KEYS: dict[str, tuple[type, ...]] = {
    "started": (int,),
    "wall_error": (str,),
    "running": (bool,),
    "forbidden": (str,),
    "memory_error": (bool,),
    "syntax_error": (str,),
    "error": (str,),
    "message": (str,),
    "exit": (str,),
    "graphs": (list,),
    "truncated": (bool,),
    "done": (int,),
}


def trusted(sp: Spawned) -> list[dict[str, Any]]:
    """The report messages written before the program's first instruction.

    The bootstrap writes ``{"running": true}`` just before it runs the program; the
    program can write on the channel too, but only after that line.
    """
    out = []
    for message in sp.messages:
        if "running" in message:
            break
        out.append(message)
    return out


def _garbled(sp: Spawned) -> bool:
    """A report line that the bootstrap never writes (the program wrote on the channel)."""
    if sp.garbled:
        return True
    for message in sp.messages:
        for key, value in message.items():
            kinds = REPORT_KEYS.get(key)
            if kinds is None or isinstance(value, bool) is not (bool in kinds):
                return True
            if not isinstance(value, kinds):
                return True
    return False


def classify(sp: Spawned, cpu_limit: float = float("inf")) -> tuple[Outcome, str]:
    """The outcome and detail of a child's run, from what the parent saw.

    ``cpu_limit`` (the run's ``cpu_seconds``) tells a CPU-limit kill from an OOM kill.

    Precedence: a refused operation (even one the program caught) beats everything —
    the audit hook's report, then a system call the seccomp filter killed (``SIGSYS``);
    then the parent's own kills (deadline, byte caps); then a garbled report channel
    (the program wrote on it) or one closed before the bootstrap's end marker (a
    ``runtime_error``: the channel is the sandbox's, and a run whose channel the program
    tampered with is not ``ok``); then the child's report.
    """
    forbidden = sp.first("forbidden")
    if forbidden is not None:
        return Outcome.FORBIDDEN, str(forbidden)
    code = sp.exit_code
    if code is not None and code > 128 and sp.first("done") is None:
        code = 128 - code  # bubblewrap's init reports a child killed by signal N as 128 + N
    if code == -signal.SIGSYS:
        return Outcome.FORBIDDEN, "seccomp (a system call the sandbox denies)"
    if sp.timed_out:
        return Outcome.TIMEOUT, "wall"
    if sp.exceeded:
        return Outcome.OUTPUT_LIMIT, sp.exceeded
    if sp.first("memory_error") is not None:
        return Outcome.MEMORY_LIMIT, "MemoryError"
    if _garbled(sp):
        return Outcome.RUNTIME_ERROR, "the program wrote on the sandbox's report channel"
    syntax = sp.first("syntax_error")
    if syntax is not None:
        return Outcome.SYNTAX_ERROR, str(syntax)
    error = sp.first("error")
    if error is not None:
        if error == "MemoryError":
            return Outcome.MEMORY_LIMIT, "MemoryError"
        return Outcome.RUNTIME_ERROR, str(error)
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
    if sp.first("done") is None:
        return Outcome.RUNTIME_ERROR, "the program ended before the sandbox's end marker"
    return Outcome.OK, ""


def _signal_name(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
