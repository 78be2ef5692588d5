"""Kernel boundaries around a sandboxed process, detected at run time.

Three levels, strongest first:

* ``bwrap``: bubblewrap (the Debian package ``bubblewrap``): new user, pid, network,
  IPC, UTS and cgroup namespaces, every capability dropped, the root file system
  mounted read-only, a fresh ``/proc``, ``/dev`` and ``/tmp``, and only the run's
  temporary directory writable.
* ``unshare``: ``unshare -n`` (``-r -n`` when not root): a network namespace with
  nothing but a downed loopback, so no connection leaves the process.
* ``none``: the process layers alone (session, rlimits, scrubbed environment) and the
  audit hook inside the child.

:func:`detect_isolation` probes each level once per process (the result is cached)
and picks the strongest that works; the environment variable
``CLOSUREBENCH_SANDBOX_ISOLATION`` (``bwrap``, ``unshare`` or ``none``) forces one.

Example:
    >>> Isolation("none") is Isolation.NONE
    True
    >>> wrap_command(Isolation.NONE, ["python", "x.py"], "/tmp/run")
    ['python', 'x.py']
    >>> wrap_command(Isolation.UNSHARE, ["python"], "/tmp/run")[-2:]
    ['-n', 'python']
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError

__all__ = [
    "ISOLATION_ENV",
    "Isolation",
    "available_isolations",
    "describe_isolation",
    "detect_isolation",
    "isolation_available",
    "resolve_isolation",
    "wrap_command",
]

#: Environment variable that forces an isolation level.
ISOLATION_ENV = "CLOSUREBENCH_SANDBOX_ISOLATION"
_PROBE_SECONDS = 20.0


class Isolation(StrEnum):
    """A kernel boundary level (a member *is* its string, for ``run.json``)."""

    BWRAP = "bwrap"
    UNSHARE = "unshare"
    NONE = "none"


#: Strongest first: the order of detection and of run-time fallback.
ORDER = (Isolation.BWRAP, Isolation.UNSHARE, Isolation.NONE)

# Probe results for this process: level -> (works, why not). A cache, not state that
# changes results: a machine's namespaces do not come and go during a run.
_PROBED: dict[Isolation, tuple[bool, str]] = {}


def _unshare_prefix() -> list[str]:
    return ["unshare", "-n"] if os.geteuid() == 0 else ["unshare", "-r", "-n"]


def _needed_paths() -> list[str]:
    """Directories the child's interpreter reads: its prefixes and the parent's sys.path."""
    found = {
        os.path.realpath(p)
        for p in (
            sys.prefix,
            sys.base_prefix,
            sys.exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable)),
            os.path.dirname(sys.executable),
            str(Path(__file__).resolve().parents[2]),
            *sys.path,
        )
        if p and os.path.isdir(p)
    }
    return sorted(found)


def wrap_command(level: Isolation, argv: Sequence[str], tmp: str) -> list[str]:
    """``argv`` prefixed with the command that puts it behind ``level``'s boundary.

    Args:
        level: The isolation level.
        argv: The child's command.
        tmp: The run's temporary directory: the one writable place (``bwrap``).

    Returns:
        The full command line.
    """
    if level is Isolation.NONE:
        return list(argv)
    if level is Isolation.UNSHARE:
        return [*_unshare_prefix(), *argv]
    args = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    # What the interpreter needs and --tmpfs /tmp hid (a checkout or venv under /tmp).
    for path in _needed_paths():
        if path == "/tmp" or path.startswith("/tmp/"):
            args += ["--ro-bind", path, path]
    real = os.path.realpath(tmp)
    args += ["--bind", real, real, "--chdir", real, "--", *argv]
    return args


def _probe(level: Isolation) -> tuple[bool, str]:
    """Whether ``level`` can start this interpreter, and why not."""
    if level is Isolation.NONE:
        return True, ""
    tool = "bwrap" if level is Isolation.BWRAP else "unshare"
    if shutil.which(tool) is None:
        return False, f"`{tool}` is not installed"
    with tempfile.TemporaryDirectory(prefix="closurebench-probe-") as tmp:
        argv = wrap_command(level, [sys.executable, "-I", "-c", "pass"], tmp)
        try:
            res = subprocess.run(
                argv,
                cwd=tmp,
                env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": tmp},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_PROBE_SECONDS,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"`{tool}` failed to start: {exc}"
    if res.returncode != 0:
        why = res.stderr.decode(errors="replace").strip().splitlines()[:1]
        return False, f"`{tool}` failed (exit {res.returncode}): {' '.join(why)}"
    return True, ""


def isolation_available(level: Isolation | str) -> tuple[bool, str]:
    """``(works, reason it does not)`` for ``level`` on this machine (probed once, cached)."""
    level = resolve_isolation(level)
    if level not in _PROBED:
        _PROBED[level] = _probe(level)
    return _PROBED[level]


def available_isolations() -> tuple[Isolation, ...]:
    """The levels that work here, strongest first (``none`` always)."""
    return tuple(level for level in ORDER if isolation_available(level)[0])


def detect_isolation() -> Isolation:
    """The level to use: the one forced by ``CLOSUREBENCH_SANDBOX_ISOLATION``, else the best.

    Raises:
        ConfigError: The variable names an unknown level.
    """
    forced = os.environ.get(ISOLATION_ENV, "").strip()
    if forced:
        return resolve_isolation(forced, source=ISOLATION_ENV)
    return available_isolations()[0]


def resolve_isolation(value: Isolation | str | None, *, source: str = "isolation") -> Isolation:
    """``value`` as an :class:`Isolation`; ``None`` means :func:`detect_isolation`.

    Raises:
        ConfigError: ``value`` is not ``bwrap``, ``unshare`` or ``none``.
    """
    if value is None:
        return detect_isolation()
    if isinstance(value, Isolation):
        return value
    try:
        return Isolation(str(value).strip().lower())
    except ValueError:
        raise ConfigError(
            f"{source} is {value!r}; pass one of {', '.join(repr(str(x)) for x in ORDER)}"
        ) from None


def describe_isolation(level: Isolation | str | None = None) -> dict[str, Any]:
    """A JSON-ready description for ``run.json``: the level used and what the machine has.

    Example:
        >>> d = describe_isolation("none")
        >>> d["isolation"], "audit_hook" in d["layers"]
        ('none', True)
    """
    used = resolve_isolation(level)
    layers = ["process", "setsid", "rlimits", "scrubbed_env", "audit_hook"]
    if used is Isolation.UNSHARE:
        layers.append("network_namespace")
    elif used is Isolation.BWRAP:
        layers += ["user_pid_net_ipc_uts_namespaces", "read_only_root", "no_capabilities"]
    return {
        "isolation": str(used),
        "forced": os.environ.get(ISOLATION_ENV) or None,
        "available": [str(x) for x in available_isolations()],
        "unavailable": {
            str(x): isolation_available(x)[1] for x in ORDER if not isolation_available(x)[0]
        },
        "bwrap": shutil.which("bwrap"),
        "unshare": shutil.which("unshare"),
        "layers": layers,
    }
