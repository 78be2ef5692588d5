"""The kernel wall around a sandboxed program: bubblewrap, or no run.

Two levels:

* ``bwrap`` (the wall): bubblewrap (the Debian package ``bubblewrap``) with every
  namespace unshared (pid, network, IPC, UTS, cgroup, and a user namespace mapped to
  the unprivileged uid when the harness is an ordinary user; no nested user
  namespace), ``--die-with-parent``, ``--new-session``, ``--as-pid-1`` for an
  ordinary harness (the program is the only process of its pid namespace: no init
  of bubblewrap's, of the same uid, is there to tamper with; a root harness keeps
  bubblewrap's init, uid 0, which the program can neither signal nor trace, and
  whose death, when bubblewrap's parent dies, kills the whole pid namespace), the
  unprivileged uid/gid 65534 with no capability in any set
  (:func:`identity`: a root harness's sandbox keeps only what dropping to that uid
  needs, and the bootstrap drops it before any program code, then checks), the
  seccomp allow-list of :mod:`.seccomp`, and **minimal mounts**: the
  system's shared libraries, the interpreter's prefix (its own ``site-packages``
  hidden) and the packages a program may import (:data:`PYTHON_PACKAGES`), all
  read-only under ``/opt/closurebench``; a fresh ``/proc`` (the sandbox's pid namespace
  only) with every kernel interface masked (:data:`PROC_KEPT` stays); a read-only
  ``/dev`` of :data:`DEVICES`; no ``/sys``; and one private, size-capped tmpfs as home,
  working directory and ``/tmp``. Nothing of the host's ``/home``, ``/root``, ``/tmp``,
  the project, the datasets or the run folder is there, and nothing written inside
  reaches the host.
* ``none``: no namespaces: the process layers (session, rlimits, scrubbed environment,
  a temporary directory), the audit hook and, where this machine has them
  (:func:`unsafe_layers`), Landlock (read the runtime, write the temporary directory,
  no TCP, no signal outside) and the same seccomp allow-list. Only an explicit
  ``--unsafe-no-sandbox`` (or ``isolation="none"`` in code) selects it; the
  environment variable alone is not consent.

:func:`require_wall` is the gate: it returns the wall to use, and where none works it
raises :class:`SandboxUnavailableError` with one line that says how to install
bubblewrap. The environment variable ``CLOSUREBENCH_SANDBOX_ISOLATION`` forces a level.

Example:
    >>> Isolation("none") is Isolation.NONE
    True
    >>> resolve_isolation("unshare")
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: isolation is 'unshare', which is not a wall \
(the network namespace alone left the host's files and processes reachable); pass 'bwrap', \
or 'none' with --unsafe-no-sandbox
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError

__all__ = [
    "INSTALL_HINT",
    "ISOLATION_ENV",
    "PYTHON_PACKAGES",
    "Isolation",
    "Mounts",
    "SandboxUnavailableError",
    "available_isolations",
    "bwrap_command",
    "describe_isolation",
    "isolation_available",
    "require_wall",
    "resolve_isolation",
    "unsafe_confinement",
    "unsafe_layers",
]

#: Environment variable that forces an isolation level.
ISOLATION_ENV = "CLOSUREBENCH_SANDBOX_ISOLATION"
#: The one line that says how to get a wall.
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf "
    "install bubblewrap; Arch: sudo pacman -S bubblewrap) on a Linux machine that allows "
    "unprivileged user namespaces, or pass --unsafe-no-sandbox to run model-written "
    "programs without a wall (recorded in run.json, the summary and the report)"
)
#: The one line refusing ``CLOSUREBENCH_SANDBOX_ISOLATION=none`` alone.
UNSAFE_ENV_REFUSAL = (
    f"{ISOLATION_ENV}=none is not consent to run model-written programs without a "
    "wall; pass --unsafe-no-sandbox (isolation='none' in code) to choose that explicitly"
)
#: Third-party packages a sandboxed Python program may import (numpy and scipy also
#: bring their vendored libraries, ``numpy.libs`` and ``scipy.libs``).
PYTHON_PACKAGES = ("networkx", "numpy", "scipy")
#: Extra packages the Ein worker imports (the Ein interpreter's own dependencies).
EIN_PACKAGES = ("lark",)
#: Where the read-only trees appear inside the sandbox.
INSIDE_ROOT = "/opt/closurebench"
INSIDE_SITE = f"{INSIDE_ROOT}/site"
INSIDE_LIB = f"{INSIDE_ROOT}/lib"
#: The sandbox's home, working directory and /tmp (one tmpfs).
INSIDE_HOME = "/sandbox"
#: The unprivileged uid and gid of every sandboxed process ("nobody"): inside bubblewrap's
#: user namespace for an ordinary harness, the host's own 65534 for a root harness.
SANDBOX_UID = 65534
SANDBOX_GID = 65534
#: What the bootstrap of a root harness's sandbox needs to drop to :data:`SANDBOX_UID`
#: (and nothing else); it clears them, with every other set, before any program runs.
_DROP_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
#: The top-level ``/proc`` entries a program sees (its own and its sandbox's processes
#: are the numbered ones; ``self``, ``thread-self``, ``mounts`` and ``net`` are links).
PROC_KEPT = frozenset({"cpuinfo", "meminfo", "stat", "uptime", "loadavg", "version"})
#: The device nodes in the sandbox's ``/dev``.
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
#: The bootstrap script (stdlib only) and where it appears inside.
BOOTSTRAP = str(Path(__file__).with_name("bootstrap.py"))
INSIDE_BOOTSTRAP = f"{INSIDE_ROOT}/bootstrap.py"
_PROBE_SECONDS = 20.0
_SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SYSTEM_LIBS = ("/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32")
_UNSAFE = "none"


class SandboxUnavailableError(ConfigError):
    """No kernel wall works here (and the run did not ask for ``--unsafe-no-sandbox``)."""


class Isolation(StrEnum):
    """A sandbox level (a member *is* its string, for ``run.json``)."""

    BWRAP = "bwrap"
    NONE = "none"


#: Levels that are a kernel wall, strongest first.
WALLS = (Isolation.BWRAP,)
ORDER = (*WALLS, Isolation.NONE)

# Probe results for this process: level -> (works, why not). A cache, not state that
# changes results: a machine's namespaces do not come and go during a run.
_PROBED: dict[Isolation, tuple[bool, str]] = {}


@dataclass(frozen=True)
class Mounts:
    """The read-only trees of one kind of sandboxed process.

    Attributes:
        packages: Top-level packages bound under :data:`INSIDE_SITE`.
        closurebench: Also bind the ``closurebench`` package under :data:`INSIDE_LIB`
            (the Ein worker runs our interpreter; a Python program never sees it).
    """

    packages: tuple[str, ...] = PYTHON_PACKAGES
    closurebench: bool = False

    @property
    def sys_path(self) -> list[str]:
        """The child's import path inside the sandbox (after the standard library)."""
        return ([INSIDE_LIB] if self.closurebench else []) + [INSIDE_SITE]


def interpreter() -> str:
    """The real interpreter binary (a virtual environment's base interpreter)."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base)


@functools.cache
def _package_dirs(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``(host path, name inside INSIDE_SITE)`` of each package, its vendored libs and
    its ``.dist-info``."""
    out: list[tuple[str, str]] = []
    for name in names:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        pkg = os.path.realpath(next(iter(spec.submodule_search_locations)))
        site = os.path.dirname(pkg)
        out.append((pkg, name))
        libs = os.path.join(site, f"{name}.libs")
        if os.path.isdir(libs):
            out.append((os.path.realpath(libs), f"{name}.libs"))
        wanted = name.lower().replace("-", "_")
        with contextlib.suppress(OSError):
            for entry in sorted(os.listdir(site)):
                stem = entry.split("-", 1)[0].lower().replace("-", "_")
                if entry.endswith(".dist-info") and stem == wanted:
                    out.append((os.path.realpath(os.path.join(site, entry)), entry))
    return tuple(out)


def _closurebench_dir() -> str:
    return str(Path(__file__).resolve().parents[1])


def _prefix_mounts() -> list[str]:
    """The interpreter's prefix, read-only, with its own site-packages hidden."""
    args: list[str] = []
    exe = interpreter()
    bound: list[str] = []
    prefixes = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}
    for prefix in sorted(prefixes):
        if prefix in ("/usr", "/"):  # the system's libraries (/usr/lib*) are bound already
            continue
        # The directories leading to it appear empty and traversable: bubblewrap would
        # copy the host's modes (pyenv's /root is 0700, closed to the sandbox's uid).
        parts = Path(prefix).parts[1:-1]
        for depth in range(1, len(parts) + 1):
            args += ["--perms", "0755", "--dir", "/" + "/".join(parts[:depth])]
        args += ["--ro-bind", prefix, prefix]
        bound.append(prefix)
    if not any(exe.startswith(p + os.sep) for p in bound):
        args += ["--ro-bind", exe, exe]
    paths = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})
    sites = {os.path.realpath(paths[key]) for key in ("purelib", "platlib")}
    for site in sorted(sites):
        if os.path.isdir(site) and any(site.startswith(p + os.sep) for p in bound):
            # An empty tmpfs hides it; read-only, or it would be a second, uncapped home.
            args += ["--size", "4096", "--tmpfs", site, "--remount-ro", site]
    return args


def privileged() -> bool:
    """Whether the harness runs as root (then the sandbox drops to :data:`SANDBOX_UID`)."""
    return os.geteuid() == 0


def identity() -> dict[str, Any]:
    """Who a sandboxed process becomes, for its config: see
    :func:`closurebench.sandbox.bootstrap.become`.

    ``drop`` is true when the harness is root: bubblewrap then starts the interpreter
    as root with only ``CAP_SETUID``, ``CAP_SETGID`` and ``CAP_SETPCAP`` (no user
    namespace: one mapped by bubblewrap would make the sandbox's uid the host's root),
    and the bootstrap's first act is to clear every capability set and switch to
    uid/gid 65534 for good. For an ordinary user, bubblewrap's user namespace maps uid
    65534 inside to the harness's own unprivileged uid, with no capabilities.

    Example:
        >>> sorted(identity())
        ['drop', 'gid', 'uid']
    """
    return {"uid": SANDBOX_UID, "gid": SANDBOX_GID, "drop": privileged()}


#: What the unsafe level's program may read and write besides its runtime (Landlock).
UNSAFE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
_UNSAFE_READ = ("/etc/ld.so.cache", "/sys/devices/system/cpu")
_UNSAFE_WARNED: set[str] = set()


def unsafe_confinement(mounts: Mounts, write: Sequence[str]) -> dict[str, list[str]]:
    """The Landlock rules of a program at the unsafe level (``none``).

    Read-only: what the wall would bind (the system's libraries, the interpreter's
    prefix, the directories that hold the packages of ``mounts``, and for the Ein worker
    the directory that holds ``closurebench``); read-write: ``write`` (the program's
    temporary directory) and the harmless devices. Nothing else: not the dataset, its
    answer key, the run folder, the home directory or another process's ``/proc``.

    Args:
        mounts: The packages the process imports.
        write: Its writable directories.
    """
    read = [p for p in (*_SYSTEM_LIBS, *_SYSTEM_DIRS) if os.path.isdir(p)]
    read += [os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)]
    read.append(interpreter())
    names = mounts.packages + (EIN_PACKAGES if mounts.closurebench else ())
    read += sorted({os.path.dirname(host) for host, _ in _package_dirs(names)})
    if mounts.closurebench:
        read.append(os.path.dirname(_closurebench_dir()))
    read += _UNSAFE_READ
    return {"read": sorted(set(read)), "write": list(write), "devices": list(UNSAFE_DEVICES)}


@functools.cache
def _private_mounts_work() -> bool:
    """Whether a process of this harness may make a mount namespace (root with
    ``CAP_SYS_ADMIN``; a default container's root lacks it). Asked once, of a child."""
    probe = "import ctypes, sys; sys.exit(ctypes.CDLL(None, use_errno=True).unshare(0x20000) != 0)"
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", probe], timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def unsafe_layers(mounts: Mounts, write: Sequence[str], *, warn: bool = True) -> dict[str, Any]:
    """The kernel layers a program gets at the unsafe level, as bootstrap config keys.

    ``landlock`` (:func:`unsafe_confinement`; where the kernel has Landlock) and
    ``exec_filter`` (the wall's inner seccomp allow-list, where libseccomp is: no
    process, socket or ``execve``, so nothing outlives the program or reaches the
    network), and for a root harness ``identity``: the program drops to
    :data:`SANDBOX_UID` with no capability before anything of it runs (the directories
    of ``write`` are handed to that uid). A layer this machine lacks is left out, with
    one warning per process that says what the program can then do.

    Args:
        mounts: The packages the program imports.
        write: Its writable directories (created by the harness for this program).
        warn: Warn about a missing layer (off where only the plan is described).
    """
    from closurebench.sandbox import bootstrap
    from closurebench.sandbox.seccomp import inner_filter, seccomp_available

    out: dict[str, Any] = {}
    missing = []
    if privileged():
        # A root harness's program drops to the sandbox's uid here too: its directories
        # become that uid's, and the runtime is made reachable for it (bootstrap.reach).
        needed = [*unsafe_confinement(mounts, write)["read"], *write]
        if not any(map(bootstrap.closed_ancestor, needed)) or _private_mounts_work():
            out["identity"] = {**identity(), "reach": needed}
        else:
            out["identity"] = {"uid": 0, "gid": 0, "drop": True}
            missing.append(
                "the runtime or the temporary directory lies under a directory closed to "
                "other users and this root "
                "has no mount namespace to open it in (no CAP_SYS_ADMIN): a program keeps "
                "uid 0, without any capability"
            )
    if bootstrap.landlock_abi() >= 1:
        out["landlock"] = unsafe_confinement(mounts, write)
    else:
        missing.append(
            "the kernel has no Landlock (Linux 5.13+): a program can read every file the "
            "harness can, the dataset's answers included"
        )
    works, why = seccomp_available()
    if works:
        out["exec_filter"] = inner_filter().hex()
    else:
        missing.append(f"no seccomp filter ({why}): a program can start processes and open sockets")
    if out.get("identity", {}).get("uid"):
        for path in write:  # the program's own directories become its uid's
            os.chown(path, SANDBOX_UID, SANDBOX_GID)
    for line in missing if warn else ():
        if line not in _UNSAFE_WARNED:
            _UNSAFE_WARNED.add(line)
            warnings.warn(
                f"closurebench sandbox, isolation 'none': {line}", RuntimeWarning, stacklevel=3
            )
    return out


@functools.cache
def _proc_masks() -> tuple[str, ...]:
    """bubblewrap arguments that hide every top-level ``/proc`` entry but
    :data:`PROC_KEPT` (directories under an empty read-only tmpfs, files under
    ``/dev/null``): ``/proc/sys``, ``sysrq-trigger``, ``kcore``, ``kmsg``, ``keys``,
    ``timer_list`` and the rest of the kernel's interfaces are not there to write or read.
    """
    args: list[str] = []
    with contextlib.suppress(OSError):
        for name in sorted(os.listdir("/proc")):
            path = f"/proc/{name}"
            if name.isdigit() or name in PROC_KEPT or os.path.islink(path):
                continue
            if os.path.isdir(path):
                args += ["--size", "4096", "--tmpfs", path, "--remount-ro", path]
            else:
                args += ["--ro-bind", os.devnull, path]
    return tuple(args)


def _dev_args() -> list[str]:
    """A read-only ``/dev`` with :data:`DEVICES` only (no pts, ptmx, shm or core)."""
    args = ["--size", "65536", "--tmpfs", "/dev"]
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            args += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    args += ["--symlink", "/proc/self/fd", "/dev/fd"]
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        args += ["--symlink", f"/proc/self/fd/{fd}", f"/dev/{name}"]
    return [*args, "--remount-ro", "/dev"]


def bwrap_command(
    argv: Sequence[str],
    *,
    mounts: Mounts,
    tmpfs_bytes: int,
    seccomp_fd: int,
    data: Sequence[tuple[int, str]] = (),
    files: Sequence[tuple[str, str]] = (),
    init: bool = False,
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` behind the wall.

    Args:
        argv: The child's command as it runs inside (paths under :data:`INSIDE_ROOT`).
        mounts: The read-only trees it needs.
        tmpfs_bytes: Size cap of the private tmpfs (home, working directory, /tmp).
        seccomp_fd: A descriptor holding the compiled filter (:func:`.seccomp.seccomp_fd`).
        data: ``(descriptor, path inside)`` files copied in read-only (the program).
        files: ``(host file, path inside)`` files bound read-only (the bootstrap script).
        init: ``argv`` is trusted to be its pid namespace's init (the warm zygote:
            from inside the namespace, only the signals it handles reach it). An
            untrusted program is init only when the harness is an ordinary user (it
            keeps the harness's uid, so bubblewrap's parent-death signal reaches it);
            behind a root harness bubblewrap's own init is its parent (see below).

    Returns:
        The full command line (the descriptors must be inherited by bwrap). The child
        must call :func:`closurebench.sandbox.bootstrap.become` with :func:`identity`
        before anything else.
    """
    if privileged():
        args = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
        # No --as-pid-1 here: bubblewrap's parent runs with no capability left, so
        # it may not signal a process of another uid, and the parent-death signal
        # would never reach the program after its drop to 65534. bubblewrap's own
        # init (uid 0, a different uid from the program's: the program can neither
        # signal nor trace it) gets that signal instead, and its death kills
        # everything in the pid namespace; that is the kernel's, not a permission.
        args += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        args += ["--as-pid-1"] if init else []
        args += ["--cap-drop", "ALL"]
        for cap in _DROP_CAPS:
            args += ["--cap-add", cap]
    else:
        args = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns"]
        args += ["--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL"]
        args += ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
    args += ["--hostname", "sandbox"]
    for lib in _SYSTEM_LIBS:
        if os.path.isdir(lib) and not os.path.islink(lib):
            args += ["--ro-bind", lib, lib]
    for path in _SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path) and path not in ("/bin", "/sbin"):
            args += ["--ro-bind", path, path]
    if os.path.isfile("/etc/ld.so.cache"):
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    args += _prefix_mounts()
    names = tuple(dict.fromkeys(mounts.packages))
    for host, inside in _package_dirs(names):
        args += ["--ro-bind", host, f"{INSIDE_SITE}/{inside}"]
    if mounts.closurebench:
        args += ["--ro-bind", _closurebench_dir(), f"{INSIDE_LIB}/closurebench"]
    args += ["--proc", "/proc", *_proc_masks(), *_dev_args()]
    args += ["--perms", "1777", "--size", str(tmpfs_bytes), "--tmpfs", INSIDE_HOME]
    args += ["--symlink", INSIDE_HOME, "/tmp"]
    for fd, inside in data:
        args += ["--perms", "0444", "--ro-bind-data", str(fd), inside]
    for host_file, inside in files:
        args += ["--ro-bind", host_file, inside]
    # The root itself is a tmpfs bubblewrap made: read-only, or a program could fill
    # memory through it (only the size-capped home is writable).
    args += ["--remount-ro", "/"]
    args += ["--seccomp", str(seccomp_fd), "--chdir", INSIDE_HOME, "--", *argv]
    return _with_open_parents(args)


#: bubblewrap options with a destination path, and how many arguments each takes.
_DEST_OPS = {
    "--ro-bind": 2,
    "--dev-bind": 2,
    "--ro-bind-data": 2,
    "--symlink": 2,
    "--tmpfs": 1,
    "--dir": 1,
}


def _with_open_parents(args: list[str]) -> list[str]:
    """``args`` with every directory leading to a destination made first, mode 0755.

    bubblewrap creates missing parents itself, but as root it copies restrictive host
    modes (pyenv's ``/root`` is 0700), which would close them to the sandbox's uid.
    """
    out: list[str] = []
    made: set[str] = {"/"}
    pending: list[str] = []  # --perms/--size, which apply to the next operation
    i = 0
    while i < len(args):
        op = args[i]
        if op == "--":
            out += args[i:]
            break
        if op in ("--perms", "--size"):
            pending += args[i : i + 2]
            i += 2
            continue
        width = _DEST_OPS.get(op)
        if width is not None:
            dest = args[i + width]
            parent = os.path.dirname(dest)
            missing: list[str] = []
            while parent not in made:
                missing.append(parent)
                made.add(parent)
                parent = os.path.dirname(parent)
            for directory in reversed(missing):
                out += ["--perms", "0755", "--dir", directory]
            if op in ("--tmpfs", "--dir"):
                made.add(dest)
            out += pending + args[i : i + width + 1]
            pending = []
            i += width + 1
            continue
        out += [*pending, op]
        pending = []
        i += 1
    return out


def _probe(level: Isolation) -> tuple[bool, str]:
    """Whether ``level`` can start this interpreter behind its wall, and why not."""
    if level is Isolation.NONE:
        return True, ""
    if shutil.which("bwrap") is None:
        return False, "`bwrap` (bubblewrap) is not installed"
    from closurebench.sandbox.seccomp import seccomp_available, seccomp_fd

    works, why = seccomp_available()
    if not works:
        return False, why
    fd = seccomp_fd()
    try:
        check = (
            f"import sys; sys.path[:0] = [{INSIDE_ROOT!r}]; import bootstrap; "
            f"bootstrap.become({identity()!r}); sys.path.append({INSIDE_SITE!r}); "
            "import numpy, networkx; print('ok')"
        )
        argv = bwrap_command(
            [interpreter(), "-I", "-S", "-B", "-c", check],
            mounts=Mounts(),
            tmpfs_bytes=1 << 20,
            seccomp_fd=fd,
            files=[(BOOTSTRAP, INSIDE_BOOTSTRAP)],
        )
        res = subprocess.run(
            argv,
            env={"PATH": "/usr/bin:/bin", "HOME": INSIDE_HOME, "OPENBLAS_NUM_THREADS": "1"},
            cwd=tempfile.gettempdir(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_SECONDS,
            check=False,
            pass_fds=(fd,),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"`bwrap` failed to start: {exc}"
    finally:
        os.close(fd)
    if res.returncode != 0 or res.stdout.strip() != b"ok":
        why_lines = res.stderr.decode(errors="replace").strip().splitlines()[-1:]
        return False, f"`bwrap` failed (exit {res.returncode}): {' '.join(why_lines)}"
    return True, ""


def isolation_available(level: Isolation | str) -> tuple[bool, str]:
    """``(works, reason it does not)`` for ``level`` on this machine (probed once, cached)."""
    level = resolve_isolation(level)
    if level not in _PROBED:
        _PROBED[level] = _probe(level)
    return _PROBED[level]


def available_isolations() -> tuple[Isolation, ...]:
    """The walls that work here, strongest first (``none``, not a wall, is not listed)."""
    return tuple(level for level in WALLS if isolation_available(level)[0])


def resolve_isolation(value: Isolation | str, *, source: str = "isolation") -> Isolation:
    """``value`` as an :class:`Isolation`.

    Raises:
        ConfigError: ``value`` is not ``bwrap`` or ``none``.
    """
    if isinstance(value, Isolation):
        return value
    text = str(value).strip().lower()
    if text == "unshare":
        raise ConfigError(
            f"{source} is 'unshare', which is not a wall (the network namespace alone left "
            "the host's files and processes reachable); pass 'bwrap', or 'none' with "
            "--unsafe-no-sandbox"
        )
    try:
        return Isolation(text)
    except ValueError:
        raise ConfigError(
            f"{source} is {value!r}; pass one of {', '.join(repr(str(x)) for x in ORDER)} "
            "('none' only with --unsafe-no-sandbox)"
        ) from None


def require_wall(level: Isolation | str | None = None) -> Isolation:
    """The level a program runs at: a working wall, or ``none`` when asked for by name.

    Args:
        level: ``None`` (the strongest wall that works, or the one
            ``CLOSUREBENCH_SANDBOX_ISOLATION`` forces: ``bwrap`` only — the variable
            alone never selects ``none``), a wall's name (it must work), or ``"none"``
            (the explicit unsafe choice, ``--unsafe-no-sandbox``: no wall).

    Returns:
        The level.

    Raises:
        SandboxUnavailableError: No wall works here (or the named one does not), or
            the environment variable alone asks for ``none``.
        ConfigError: An unknown level.
    """
    if level is None:
        forced = os.environ.get(ISOLATION_ENV, "").strip()
        if forced:
            level = resolve_isolation(forced, source=ISOLATION_ENV)
            if level is Isolation.NONE:
                raise SandboxUnavailableError(UNSAFE_ENV_REFUSAL)
    if level is not None:
        chosen = resolve_isolation(level)
        if chosen is Isolation.NONE:
            return chosen
        works, why = isolation_available(chosen)
        if not works:
            raise SandboxUnavailableError(
                f"the sandbox {chosen!s} does not work here ({why}); {INSTALL_HINT}"
            )
        return chosen
    walls = available_isolations()
    if walls:
        return walls[0]
    why = "; ".join(f"{w}: {isolation_available(w)[1]}" for w in WALLS)
    raise SandboxUnavailableError(
        f"no sandbox wall works on this machine ({why}); model-written programs run only "
        f"behind one: {INSTALL_HINT}"
    )


def describe_isolation(level: Isolation | str | None = None) -> dict[str, Any]:
    """A JSON-ready description for ``run.json`` and the summary.

    Args:
        level: The level in use (``None``: :func:`require_wall`'s choice).

    Example:
        >>> d = describe_isolation("none")
        >>> d["isolation"], d["unsafe"], d["wall"]
        ('none', True, False)
    """
    used = require_wall(level)
    layers = ["process", "setsid", "rlimits", "scrubbed_env", "audit_hook"]
    if used is Isolation.BWRAP:
        layers += [
            "user_pid_net_ipc_uts_cgroup_namespaces",
            "minimal_read_only_mounts",
            "private_tmpfs",
            "no_capabilities",
            "unprivileged_uid",
            "seccomp",
            "die_with_parent",
        ]
    else:
        layers.append("temporary_directory")
        planned = unsafe_layers(Mounts(), [], warn=False)
        names = {"landlock": "landlock_runtime_only", "exec_filter": "seccomp"}
        layers += sorted(names[key] for key in planned if key in names)
        if "identity" in planned:
            layers.append("no_capabilities")
            if planned["identity"]["uid"]:
                layers.append("unprivileged_uid")
    return {
        "isolation": str(used),
        "wall": used is not Isolation.NONE,
        "unsafe": used is Isolation.NONE,
        "forced": os.environ.get(ISOLATION_ENV) or None,
        "available": [str(x) for x in available_isolations()],
        "unavailable": {
            str(x): isolation_available(x)[1] for x in WALLS if not isolation_available(x)[0]
        },
        "bwrap": shutil.which("bwrap"),
        "layers": layers,
    }
