"""The child side: run as a script (``python -I -B bootstrap.py CONFIG``) before user code.

Standard library only, and it imports nothing of closurebench, so it starts fast and
behaves the same at every level. In order it

1. drops to the sandbox's identity and proves it has no privilege
   (``CONFIG["identity"]``, :func:`become`; no proof, no run), sets its own rlimits
   (``CONFIG["rlimits"]``), puts ``CONFIG["sys_path"]`` (the
   read-only package tree behind the wall) on the import path and says
   ``{"started": pid}`` on the report descriptor (a pipe to the parent; the parent uses
   it to tell a wall that failed to start from a failing program);
2. imports ``ctypes`` (numpy imports it lazily, and ``import ctypes`` itself opens a
   library) and the modules named in ``CONFIG["preload"]`` (networkx, numpy);
3. wraps the networkx graph constructors to remember the graphs built by the program;
4. compiles the program (a ``SyntaxError`` is reported as such);
5. at the unsafe level, Landlocks itself (``CONFIG["landlock"]``, :func:`confine`);
   loads ``CONFIG["exec_filter"]`` (the seccomp allow-list: no ``execve``, process,
   socket or namespace from here on) and installs an audit hook (:func:`install_hook`)
   that refuses sockets,
   processes, signals, ctypes/cffi, rlimit changes, writes outside the temporary
   directory and reads of other processes' ``/proc`` entries: the refused operation is
   written to the report descriptor *before* the hook raises ``PermissionError``, so a
   program that swallows the exception is still reported ``forbidden``;
6. runs the program as a fresh ``__main__`` module (this script's own globals are out
   of its reach by name), reports its exception type (if any), dumps the graphs and
   leaves with ``os._exit`` (no atexit handlers or leftover threads of the program).

Report lines are JSON objects, one a line. The audit hook is a tripwire inside a
Python process, not a security boundary on its own: the kernel wall (bubblewrap's
namespaces, mounts, identity and seccomp allow-list) contains what a determined program
gets past it: the tests switch the hook off from inside the program first.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Callable
from typing import Any

__all__ = [
    "become",
    "closed_ancestor",
    "confine",
    "install_hook",
    "landlock_abi",
    "load_filter",
    "main",
    "reach",
    "report",
    "run_program",
    "set_rlimits",
]

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_PROC_PID = re.compile(r"/proc/(\d+)(?:/|$)")
_REFUSED = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "os.link",
        "os.symlink",
        "pty.spawn",
        "resource.setrlimit",
        "resource.prlimit",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
    }
)
_REFUSED_PREFIXES = ("socket.", "ctypes.", "os.exec", "os.spawn", "os.posix_spawn", "_posixsub")
_REFUSED_IMPORTS = frozenset({"cffi", "_cffi_backend"})
#: Events that change the file system: the positions of their path arguments.
_PATH_EVENTS = {
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.rename": (0, 1),
    "os.mkdir": (0,),
    "os.truncate": (0,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.utime": (0,),
    "os.setxattr": (0,),
    "os.removexattr": (0,),
    "shutil.rmtree": (0,),
}
_NAMES = {"socket.__new__": "socket.socket"}
_MAX_REPORTS = 8
_MEMORY_LINE = b'{"memory_error": true}\n'


def report(fd: int, message: dict[str, Any]) -> None:
    """Write one JSON line to the report descriptor (errors ignored: the parent may be gone)."""
    data = (json.dumps(message, default=repr) + "\n").encode()
    try:
        while data:
            data = data[os.write(fd, data) :]
    except OSError:
        pass


def set_rlimits(rlimits: dict[str, list[int]]) -> None:
    """Apply ``RLIMIT_* name -> [soft, hard]`` to this process (names unknown here skipped)."""
    import resource

    for name, (soft, hard) in rlimits.items():
        which = getattr(resource, name, None)
        if which is not None:
            try:
                resource.setrlimit(which, (soft, hard))
            except (ValueError, OSError):  # e.g. a hard limit above the inherited one
                resource.setrlimit(which, (min(soft, hard), hard))


def _cpu_exit(signum: int, frame: Any) -> None:
    os._exit(128 + signum)


def exit_on_cpu_limit() -> None:
    """Leave with status ``128 + SIGXCPU`` when the CPU soft limit passes.

    Behind the wall the program is its pid namespace's init, for which the kernel drops
    a signal that has no handler, ``SIGXCPU`` included; this handler restores the
    default's effect (the hard limit, a second later, is a ``SIGKILL`` either way).
    """
    import signal

    signal.signal(signal.SIGXCPU, _cpu_exit)


def _path(value: Any) -> str:
    path = os.fsdecode(os.fspath(value))
    if not os.path.isabs(path):
        path = os.path.join(os.getcwd(), path)
    return os.path.realpath(path)


def _verdict(event: str, args: tuple[Any, ...], tmp: str, fd: int, pid: int) -> str | None:
    """The refused operation's name, or ``None`` when ``event`` is allowed."""
    if event in _REFUSED or event.startswith(_REFUSED_PREFIXES):
        return _NAMES.get(event, event)
    if event == "import":
        return f"import {args[0]}" if args and args[0] in _REFUSED_IMPORTS else None
    if event == "open":
        target = args[0]
        flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
        if isinstance(target, int):
            return "open(report descriptor)" if target == fd else None
        path = _path(target)
        inside = path == tmp or path.startswith(tmp + os.sep)
        if flags & _WRITE_FLAGS or any(c in mode for c in "wax+"):
            return None if inside or path == os.devnull else f"open(write) {path}"
        match = _PROC_PID.match(path)
        if match and int(match.group(1)) != pid:
            return f"open(read) {path}"
        if not inside and os.path.isdir(path):  # a directory descriptor would allow dir_fd=
            return f"open(directory) {path}"
        return None
    positions = _PATH_EVENTS.get(event)
    if positions is None:
        return None
    for i in positions:
        if i >= len(args):
            continue
        if isinstance(args[i], int):
            if event == "os.truncate":  # ftruncate needs a descriptor opened for writing
                continue
            return f"{event} descriptor {args[i]}"
        path = _path(args[i])
        if not (path == tmp or path.startswith(tmp + os.sep)):
            return f"{event} {path}"
    return None


def install_hook(fd: int, tmp: str, *, allow_setrlimit: bool = False) -> None:
    """Install the audit hook: refusals are reported on ``fd``; writes allowed under ``tmp``.

    After this, the process cannot spawn, signal, open sockets, load native code with
    ctypes or cffi, change its rlimits (unless ``allow_setrlimit``: the Ein worker, whose
    programs cannot reach Python), or modify the file system outside ``tmp``.
    The hook stays for the life of the process (audit hooks cannot be removed).
    """
    tmp = os.path.realpath(tmp)
    pid = os.getpid()
    count = [0]

    # The helpers are bound now, as defaults: rebinding this module's globals (the
    # program can reach them through a frame) does not change the hook.
    def hook(
        event: str,
        args: tuple[Any, ...],
        _verdict: Callable[..., str | None] = _verdict,
        _report: Callable[[int, dict[str, Any]], None] = report,
        _permission: type[Exception] = PermissionError,
        _import: type[Exception] = ImportError,
    ) -> None:
        if allow_setrlimit and event == "resource.setrlimit":
            return
        try:
            op = _verdict(event, args, tmp, fd, pid)
        except Exception:  # an odd argument (a bad path) is not a refusal
            op = None
        if op is None:
            return
        if count[0] < _MAX_REPORTS:
            count[0] += 1
            _report(fd, {"forbidden": op})
        if event == "import":
            raise _import(f"closurebench sandbox: {op} is not allowed")
        raise _permission(f"closurebench sandbox: {op} is not allowed")

    # pidfd_open + pidfd_send_signal signal a process without an audit event.
    import signal

    for module, name in ((os, "pidfd_open"), (signal, "pidfd_send_signal")):
        if hasattr(module, name):
            delattr(module, name)
    posix = sys.modules.get("posix")
    if posix is not None and hasattr(posix, "pidfd_open"):
        delattr(posix, "pidfd_open")
    sys.addaudithook(hook)


_CAP_FIELDS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


def _status() -> dict[str, str]:
    with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
        pairs = (line.split(":", 1) for line in handle if ":" in line)
        return {key: value.strip() for key, value in pairs}


def become(identity: dict[str, Any] | None) -> None:
    """Drop to the sandbox's identity (when started as root), then prove it.

    Behind the wall of a root harness the interpreter starts as root with only
    ``CAP_SETUID``, ``CAP_SETGID`` and ``CAP_SETPCAP``: this empties the bounding and
    ambient sets, drops the supplementary groups, switches real, effective and saved
    gid and uid to ``identity["gid"]``/``["uid"]`` (for good: no saved root) and
    clears every capability set. In every case it then checks, from
    ``/proc/self/status``, that the uids and gids are the sandbox's, that no capability
    is left in any set (inheritable, permitted, effective, bounding, ambient) and that
    ``no_new_privs`` is set.

    Args:
        identity: ``{"uid", "gid", "drop"}`` (``None``: the unsafe level, no check).

    Raises:
        OSError: A step failed or the check did not hold (the caller runs nothing).
    """
    if not identity:
        return
    uid, gid = int(identity["uid"]), int(identity["gid"])
    if identity.get("drop"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if identity.get("reach"):
            reach([str(p) for p in identity["reach"]])
        if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS (bubblewrap sets it too)
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        pr_capbset_drop, pr_cap_ambient, pr_cap_ambient_clear_all = 24, 47, 4
        for cap in range(64):  # past the kernel's last capability: EINVAL, ignored
            libc.prctl(pr_capbset_drop, cap, 0, 0, 0)
        if libc.prctl(pr_cap_ambient, pr_cap_ambient_clear_all, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAP_AMBIENT_CLEAR_ALL)")
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        # A change of uid clears the parent-death signal: set it again. At the unsafe
        # level the parent is the harness (root, which may signal any uid); behind
        # the wall, bubblewrap's init is the parent and its own death empties the
        # pid namespace (the kernel's doing, no permission needed).
        if identity.get("pdeathsig", True) and libc.prctl(1, 9, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG, SIGKILL)")
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
        data = (ctypes.c_uint32 * 6)()
        if libc.capset(header, data) != 0:
            raise OSError(ctypes.get_errno(), "capset")
    status = _status()
    ids = {"Uid": uid, "Gid": gid}
    for key, want in ids.items():
        seen = [int(x) for x in status.get(key, "").split()]
        if len(seen) != 4 or any(x != want for x in seen):
            raise OSError(f"the sandbox runs with {key} {seen}, not {want}")
    groups = {int(x) for x in status.get("Groups", "").split()}
    if not groups <= {gid}:
        raise OSError(f"the sandbox keeps the supplementary groups {sorted(groups)}")
    for key in _CAP_FIELDS:
        if int(status.get(key, "1"), 16) != 0:
            raise OSError(f"the sandbox keeps capabilities: {key} {status.get(key)}")
    if status.get("NoNewPrivs") != "1":
        raise OSError("the sandbox runs without no_new_privs")


#: Landlock's file-system rights by ABI version (each version adds some): execute,
#: write and read files, read directories, remove, make every kind of node (ABI 1),
#: ``REFER`` (2), ``TRUNCATE`` (3), ``IOCTL_DEV`` (5).
_LANDLOCK_FS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
#: The rights a rule on a file (not a directory) may carry: execute, write, read,
#: truncate, device ioctls.
_LANDLOCK_FILE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 14) | (1 << 15)
_LANDLOCK_READ = (1 << 2) | (1 << 3)  # READ_FILE, READ_DIR
_LANDLOCK_WRITE_FILE = 1 << 1
# landlock_create_ruleset, landlock_add_rule, landlock_restrict_self: one number on
# every architecture.
_SYS_CREATE, _SYS_ADD, _SYS_RESTRICT = 444, 445, 446


def landlock_abi() -> int:
    """The kernel's Landlock ABI version; ``0`` where it has none (or it is disabled).

    Example:
        >>> landlock_abi() >= 0
        True
    """
    if not sys.platform.startswith("linux"):
        return 0
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    version = libc.syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(version), 0)


def confine(spec: dict[str, Any]) -> None:
    """Landlock this process for good: read ``spec["read"]``, read and write
    ``spec["write"]`` and ``spec["devices"]``, its own ``/proc/<pid>``; nothing else.

    The unsafe level's program has no mount namespace: without this it could read
    every file the harness can (the dataset and its answer key, the run folder) and
    write to all of them. Rules on paths that do not exist are skipped. Where the ABI
    has them, TCP ``bind``/``connect`` are refused too (no rule allows any port), and
    the domain is scoped: no signal to a process outside it, no connection to an
    abstract unix socket made outside it.

    Raises:
        OSError: The kernel has no Landlock, or refused a step (the caller runs nothing).
    """
    import ctypes

    abi = landlock_abi()
    if abi < 1:
        raise OSError("the kernel has no Landlock")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    handled = _LANDLOCK_FS[max(v for v in _LANDLOCK_FS if v <= abi)]
    net = 0b11 if abi >= 4 else 0  # BIND_TCP, CONNECT_TCP
    scoped = 0b11 if abi >= 6 else 0  # ABSTRACT_UNIX_SOCKET, SIGNAL
    attr = (ctypes.c_uint64 * 3)(handled, net, scoped)
    size = 8 if abi < 4 else 16 if abi < 6 else 24

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))

    ruleset = int(libc.syscall(_SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(size), 0))
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset")
    try:
        rules = [(str(p), _LANDLOCK_READ) for p in spec.get("read", ())]
        rules.append((os.path.realpath("/proc/self"), _LANDLOCK_READ))
        rules += [(str(p), handled) for p in spec.get("write", ())]
        rules += [(str(p), _LANDLOCK_READ | _LANDLOCK_WRITE_FILE) for p in spec.get("devices", ())]
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):
                    rights &= _LANDLOCK_FILE
                rule = PathBeneath(rights & handled, fd)
                if libc.syscall(_SYS_ADD, ruleset, 1, ctypes.byref(rule), 0) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule({path})")
            finally:
                os.close(fd)
        pr_set_no_new_privs = 38
        if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if libc.syscall(_SYS_RESTRICT, ruleset, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def closed_ancestor(path: str) -> str | None:
    """The topmost directory on the way to ``path`` that others may not enter."""
    parts = [p for p in path.split("/") if p]
    for depth in range(1, len(parts)):
        here = "/" + "/".join(parts[:depth])
        try:
            if not os.stat(here).st_mode & 0o001:
                return here
        except OSError:
            return None
    return None


def reach(paths: list[str]) -> None:
    """Make ``paths`` reachable for the unprivileged uid, in a mount namespace of our own.

    The unsafe level has no wall to bind the runtime where the sandbox's uid can reach
    it: a root harness's interpreter often lives under ``/root`` (``0700``; pyenv, uv).
    So, while still root: a private mount namespace of this process alone, and over
    each closed directory on the way an empty ``0755`` tmpfs holding just the
    entries on the way, each bind-mounted back from the original (through an
    ``O_PATH`` descriptor opened before the tmpfs covers it). Nothing of the host
    changes; everything else under that directory disappears for this process.

    Raises:
        OSError: A step failed (the caller runs nothing).
    """
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    clone_newns, ms_bind, ms_rec, ms_private, ms_nosuid, ms_nodev = (
        0x20000, 0x1000, 0x4000, 0x40000, 0x2, 0x4,
    )  # fmt: skip

    def mount(source: str | None, target: str, kind: str | None, flags: int, data: str) -> None:
        src, tgt, typ = (x.encode() if x is not None else None for x in (source, target, kind))
        if libc.mount(src, tgt, typ, ctypes.c_ulong(flags), data.encode()) != 0:
            raise OSError(ctypes.get_errno(), f"mount({source}, {target})")

    if libc.unshare(clone_newns) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    mount(None, "/", None, ms_rec | ms_private, "")
    for _ in range(32):  # one closed directory a round; nested ones in later rounds
        closed: dict[str, set[str]] = {}
        for path in paths:
            top = closed_ancestor(path)
            if top is not None:
                closed.setdefault(top, set()).add(path[len(top) + 1 :].split("/", 1)[0])
        if not closed:
            return
        top, children = sorted(closed.items())[0]
        held = {child: os.open(f"{top}/{child}", os.O_PATH | os.O_CLOEXEC) for child in children}
        try:
            mount("tmpfs", top, "tmpfs", ms_nosuid | ms_nodev, "mode=0755,size=4096")
            for child, fd in held.items():
                target = f"{top}/{child}"
                if os.path.isdir(f"/proc/self/fd/{fd}"):
                    os.mkdir(target, 0o755)
                else:
                    os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
                mount(f"/proc/self/fd/{fd}", target, None, ms_bind | ms_rec, "")
        finally:
            for fd in held.values():
                os.close(fd)
    raise OSError(f"the runtime stays unreachable: {paths}")


def load_filter(blob: bytes) -> None:
    """Load a classic-BPF seccomp filter (libseccomp's export) on this process.

    Raises:
        OSError: The kernel refused it.
    """
    import ctypes

    class SockFilter(ctypes.Structure):
        _fields_ = (
            ("code", ctypes.c_ushort),
            ("jt", ctypes.c_ubyte),
            ("jf", ctypes.c_ubyte),
            ("k", ctypes.c_uint),
        )

    class SockFprog(ctypes.Structure):
        _fields_ = (
            ("len", ctypes.c_ushort),
            ("filter", ctypes.POINTER(SockFilter)),
        )

    count = len(blob) // ctypes.sizeof(SockFilter)
    program = (SockFilter * count).from_buffer_copy(blob)
    fprog = SockFprog(count, ctypes.cast(program, ctypes.POINTER(SockFilter)))
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def _json_node(value: Any) -> Any:
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return value
    return repr(value)


def _dump_graph(graph: Any, name: str | None, budget: int) -> tuple[dict[str, Any], int, bool]:
    """``{"directed", "multigraph", "nodes", "edges", "name"}``, items used, truncated?"""
    nodes: list[Any] = []
    for n in graph.nodes:
        if len(nodes) >= budget:
            break
        nodes.append(_json_node(n))
    budget -= len(nodes)
    edges = []
    truncated = len(nodes) < graph.number_of_nodes()
    for u, v, data in graph.edges(data=True):
        if budget <= 0:
            truncated = True
            break
        attrs = {str(k): _json_node(x) for k, x in list(data.items())[:16]}
        edges.append([_json_node(u), _json_node(v), attrs])
        budget -= 1
    out = {
        "directed": bool(graph.is_directed()),
        "multigraph": bool(graph.is_multigraph()),
        "nodes": nodes,
        "edges": edges,
        "name": name,
    }
    return out, len(nodes) + len(edges), truncated


class _GraphRecorder:
    """Remembers the networkx graphs whose constructor the program itself called."""

    def __init__(self, nx: Any, program: str, max_graphs: int, max_items: int) -> None:
        self.nx = nx
        self.program = program
        self.max_graphs = max_graphs
        self.max_items = max_items
        self.seen: dict[int, Any] = {}

    def install(self) -> None:
        for cls_name in ("Graph", "DiGraph", "MultiGraph", "MultiDiGraph"):
            cls = getattr(self.nx, cls_name)
            cls.__init__ = self._wrap(cls.__init__)

    def _wrap(self, original: Callable[..., None]) -> Callable[..., None]:
        recorder = self

        def __init__(graph: Any, *args: Any, **kwargs: Any) -> None:
            original(graph, *args, **kwargs)
            caller = sys._getframe(1).f_code.co_filename
            if caller == recorder.program and len(recorder.seen) < 4 * recorder.max_graphs:
                recorder.seen.setdefault(id(graph), graph)

        __init__.__doc__ = original.__doc__
        __init__.__wrapped__ = original  # type: ignore[attr-defined]
        return __init__

    def dump(self, namespace: dict[str, Any]) -> dict[str, Any]:
        names: dict[int, str] = {}
        found = list(self.seen.values())
        for key, value in list(namespace.items()):
            if isinstance(value, self.nx.Graph) and id(value) not in names:
                names[id(value)] = key
                if id(value) not in self.seen:
                    found.append(value)
        truncated = len(found) > self.max_graphs
        budget = self.max_items
        graphs = []
        for graph in found[: self.max_graphs]:
            try:
                record, used, cut = _dump_graph(graph, names.get(id(graph)), budget)
            except Exception:  # a graph the program broke on purpose
                truncated = True
                continue
            graphs.append(record)
            budget -= used
            truncated = truncated or cut
        return {"graphs": graphs, "truncated": truncated}


def _run(cfg: dict[str, Any]) -> int:
    fd = int(cfg["fd"])
    tmp = str(cfg["tmp"])
    program = str(cfg["program"])
    try:
        become(cfg.get("identity"))
    except OSError as exc:  # no drop, no run
        report(fd, {"wall_error": f"the sandbox's identity: {exc}"})
        return 1
    set_rlimits(cfg.get("rlimits", {}))
    exit_on_cpu_limit()
    sys.path.extend(str(p) for p in cfg.get("sys_path", ()))
    report(fd, {"started": os.getpid()})
    import ctypes  # noqa: F401  (see the module docstring, step 2)

    for name in cfg.get("preload", ()):
        with contextlib.suppress(BaseException):  # the program's own import reports it
            __import__(name)
    recorder = None
    nx = sys.modules.get("networkx")
    if cfg.get("capture_graphs") and nx is not None:
        recorder = _GraphRecorder(nx, program, int(cfg["max_graphs"]), int(cfg["max_items"]))
        recorder.install()
    with open(program, encoding="utf-8", errors="replace") as handle:
        source = handle.read()
    try:
        code = compile(source, program, "exec", dont_inherit=True)
    except MemoryError:
        os.write(fd, _MEMORY_LINE)
        return 1
    except (SyntaxError, ValueError, RecursionError) as exc:
        where = f"line {exc.lineno}: " if isinstance(exc, SyntaxError) and exc.lineno else ""
        msg = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        report(fd, {"syntax_error": f"{type(exc).__name__}: {where}{msg}"})
        return 1
    sys.argv = [program]
    main_module = type(sys)("__main__")
    main_module.__file__ = program
    namespace: dict[str, Any] = main_module.__dict__
    sys.modules["__main__"] = main_module
    if cfg.get("landlock"):
        try:
            confine(cfg["landlock"])
        except (OSError, ValueError, TypeError, AttributeError) as exc:  # no confinement, no run
            report(fd, {"wall_error": f"the Landlock confinement did not hold: {exc}"})
            return 1
    blob = cfg.get("exec_filter")
    if blob:
        try:
            load_filter(bytes.fromhex(str(blob)))
        except (OSError, ValueError, AttributeError) as exc:  # no filter, no run
            report(fd, {"wall_error": f"the exec filter did not load: {exc}"})
            return 1
    if cfg.get("hook", True):
        install_hook(fd, tmp)
    # Everything after this line may come from the program (it can write on the
    # descriptor too): the parent trusts only what came before it.
    report(fd, {"running": True})
    status = 0
    try:
        exec(code, namespace)
    except MemoryError:
        os.write(fd, _MEMORY_LINE)
        status = 1
    except SystemExit as exc:
        if exc.code not in (None, 0):
            report(fd, {"exit": repr(exc.code)[:200]})
            status = 1
    except BaseException as exc:
        status = 1
        try:
            report(fd, {"error": type(exc).__name__, "message": str(exc)[:500]})
            import traceback

            traceback.print_exception(
                type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None
            )
        except BaseException:  # reporting must not fail on a hostile exception object
            pass
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                if stream is not None:
                    stream.flush()
            except BaseException:
                pass
    if recorder is not None:
        try:
            report(fd, recorder.dump(namespace))
        except BaseException:
            report(fd, {"graphs": [], "truncated": True})
    return status


def run_program(cfg: dict[str, Any]) -> int:
    """Steps 1–6 for the config ``cfg``, then the end marker; the exit status.

    The caller leaves with ``os._exit(status)``: :func:`main` for a cold program, the
    warm zygote's forked child (:mod:`closurebench.sandbox.zygote`) for a warm one.
    """
    try:
        status = _run(cfg)
    except MemoryError:
        os.write(int(cfg["fd"]), _MEMORY_LINE)
        status = 1
    report(int(cfg["fd"]), {"done": status})
    return status


def main(argv: list[str]) -> None:
    """Entry point: ``argv[1]`` is the JSON config; never returns (``os._exit``)."""
    os._exit(run_program(json.loads(argv[1])))


if __name__ == "__main__":
    main(sys.argv)
