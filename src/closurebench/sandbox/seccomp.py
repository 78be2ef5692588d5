"""The seccomp filter of the sandbox: system calls a graph program never needs.

A model-written graph program computes: it reads its own file, allocates, prints. It
never creates a process, mounts, enters or makes a namespace, traces another process,
creates a device node, loads BPF, opens a non-local socket or asks for signals to be
sent on I/O. The filter below (compiled with libseccomp through :mod:`pyseccomp`, and
handed to bubblewrap with ``--seccomp FD``, so it applies from the program's first
instruction) kills the process on any of them: the parent sees ``SIGSYS`` and records
the outcome ``forbidden`` (detail ``seccomp``).

Threads stay allowed: ``clone`` with ``CLONE_THREAD`` (numpy and OpenBLAS may start
one); ``clone3``, whose flags a filter cannot read, fails with ``ENOSYS`` so that the C
library falls back to ``clone``. A system call of another ABI (32-bit ``int 0x80``,
x32) kills the process (libseccomp's default for a foreign architecture).

Example:
    >>> "mknod" in DENIED and "setns" in DENIED and "ptrace" in DENIED
    True
    >>> sorted(ARGUMENT_RULES)
    ['clone', 'fcntl', 'ioctl', 'socket']
"""

from __future__ import annotations

import errno
import threading
from typing import Any

from closurebench.errors import ConfigError
from closurebench.sandbox.process import memfd

__all__ = [
    "ARGUMENT_RULES",
    "DENIED",
    "IPC_CALLS",
    "PROCESS_CREATION",
    "bpf_program",
    "child_filter",
    "exec_filter",
    "seccomp_available",
    "seccomp_fd",
    "zygote_filter",
]

#: System calls that kill the process whatever their arguments, with the reason.
DENIED: dict[str, str] = {
    "fork": "process creation",
    "vfork": "process creation",
    "execveat": "running another program",
    "mknod": "device nodes and FIFOs",
    "mknodat": "device nodes and FIFOs",
    "ptrace": "tracing another process",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "kcmp": "comparing other processes' resources",
    "pidfd_getfd": "taking another process's descriptors",
    "mount": "mounting",
    "umount2": "unmounting",
    "pivot_root": "changing the root",
    "chroot": "changing the root",
    "open_tree": "mounting",
    "move_mount": "mounting",
    "fsopen": "mounting",
    "fsconfig": "mounting",
    "fsmount": "mounting",
    "fspick": "mounting",
    "mount_setattr": "mounting",
    "setns": "entering a namespace",
    "unshare": "making a namespace",
    "bpf": "BPF programs",
    "perf_event_open": "performance counters",
    "userfaultfd": "user-space page faults",
    "keyctl": "the kernel key store",
    "add_key": "the kernel key store",
    "request_key": "the kernel key store",
    "io_uring_setup": "io_uring (bypasses this filter)",
    "io_uring_enter": "io_uring (bypasses this filter)",
    "io_uring_register": "io_uring (bypasses this filter)",
    "name_to_handle_at": "file handles",
    "open_by_handle_at": "file handles",
    "kexec_load": "the kernel",
    "kexec_file_load": "the kernel",
    "init_module": "kernel modules",
    "finit_module": "kernel modules",
    "delete_module": "kernel modules",
    "reboot": "the machine",
    "swapon": "swap",
    "swapoff": "swap",
    "acct": "process accounting",
    "quotactl": "disk quotas",
    "syslog": "the kernel log",
    "iopl": "I/O ports",
    "ioperm": "I/O ports",
    "settimeofday": "the clock",
    "clock_settime": "the clock",
    "adjtimex": "the clock",
    "clock_adjtime": "the clock",
    "vhangup": "terminals",
    "personality": "the execution domain",
}

#: The calls of :data:`DENIED` that create a process: the warm zygote
#: (:mod:`.zygote`) needs ``fork``, so its filter leaves them out and every child it
#: forks loads :func:`child_filter`, which kills them again before the program runs.
PROCESS_CREATION = ("fork", "vfork")
#: What outlives a process inside its IPC namespace. A cold program has that namespace
#: to itself; a zygote's children share one, so :func:`child_filter` kills these calls
#: (nothing one program leaves there can reach the next).
IPC_CALLS = (
    "shmget",
    "shmat",
    "shmctl",
    "shmdt",
    "msgget",
    "msgsnd",
    "msgrcv",
    "msgctl",
    "semget",
    "semop",
    "semtimedop",
    "semctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
)

_CLONE_THREAD = 0x00010000
_AF_UNIX = 1
_F_SETOWN, _F_SETSIG, _F_SETOWN_EX = 8, 10, 15
_TIOCSTI = 0x5412

#: System calls that kill the process for some arguments: ``name -> why``.
ARGUMENT_RULES: dict[str, str] = {
    "clone": "process creation (a clone without CLONE_THREAD)",
    "socket": "a socket other than AF_UNIX",
    "fcntl": "signals on I/O (F_SETOWN, F_SETSIG, F_SETOWN_EX)",
    "ioctl": "injecting terminal input (TIOCSTI)",
}

_LOCK = threading.Lock()
_BPF: dict[str, bytes] = {}


def _module() -> Any:
    try:
        import pyseccomp
    except (ImportError, OSError) as exc:  # the module loads libseccomp.so.2 at import
        raise ConfigError(
            f"the sandbox's seccomp filter needs libseccomp ({exc}); install it "
            "(Debian/Ubuntu: apt-get install libseccomp2)"
        ) from None
    return pyseccomp


def _export(flt: Any) -> bytes:
    import tempfile

    with tempfile.TemporaryFile() as handle:  # unnamed: nothing left behind
        flt.export_bpf(handle)
        handle.seek(0)
        return handle.read()


def _build_exec() -> bytes:
    sc = _module()
    flt: Any = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in ("execve", "execveat"):
        flt.add_rule(sc.KILL_PROCESS, name)
    return _export(flt)


def _kill_all(sc: Any, flt: Any, names: Any) -> None:
    for name in names:
        try:
            flt.add_rule(sc.KILL_PROCESS, name)
        except (ValueError, RuntimeError, OSError):  # a call this architecture lacks
            continue


def _build_child() -> bytes:
    sc = _module()
    flt: Any = sc.SyscallFilter(defaction=sc.ALLOW)
    _kill_all(sc, flt, (*PROCESS_CREATION, "execve", "execveat", *IPC_CALLS))
    flt.add_rule(sc.KILL_PROCESS, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    return _export(flt)


def _build(*, processes: bool = True) -> bytes:
    sc = _module()
    flt: Any = sc.SyscallFilter(defaction=sc.ALLOW)
    kill = sc.KILL_PROCESS
    names = DENIED if processes else [n for n in DENIED if n not in PROCESS_CREATION]
    _kill_all(sc, flt, names)
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    if processes:
        flt.add_rule(kill, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    flt.add_rule(kill, "socket", sc.Arg(0, sc.NE, _AF_UNIX))
    for cmd in (_F_SETOWN, _F_SETSIG, _F_SETOWN_EX):
        flt.add_rule(kill, "fcntl", sc.Arg(1, sc.EQ, cmd))
    flt.add_rule(kill, "ioctl", sc.Arg(1, sc.MASKED_EQ, 0xFFFFFFFF, _TIOCSTI))
    return _export(flt)


_BUILDERS = {
    "main": _build,
    "exec": _build_exec,
    "zygote": lambda: _build(processes=False),
    "child": _build_child,
}


def _cached(name: str) -> bytes:
    with _LOCK:
        if name not in _BPF:
            _BPF[name] = _BUILDERS[name]()
        return _BPF[name]


def bpf_program() -> bytes:
    """The compiled filter (classic BPF, as ``--seccomp`` reads it); built once per process.

    Raises:
        ConfigError: libseccomp is missing.
    """
    return _cached("main")


def exec_filter() -> bytes:
    """A second filter that kills ``execve``/``execveat``, which the bootstrap loads itself
    once the interpreter is up and before the program runs (bubblewrap needs ``execve``
    to start the interpreter, so the first filter cannot deny it).

    Raises:
        ConfigError: libseccomp is missing.
    """
    return _cached("exec")


def zygote_filter() -> bytes:
    """The warm zygote's first filter: :func:`bpf_program` less process creation
    (:data:`PROCESS_CREATION` and a ``clone`` without ``CLONE_THREAD``), which the
    zygote needs to fork a child per program.

    Raises:
        ConfigError: libseccomp is missing.
    """
    return _cached("zygote")


def child_filter() -> bytes:
    """The filter each child of the zygote loads before its program runs: it kills
    process creation again, ``execve``/``execveat`` (as :func:`exec_filter`) and the
    System V and POSIX IPC calls (:data:`IPC_CALLS`). Stacked on :func:`zygote_filter`
    it denies all that :func:`bpf_program` denies, and more.

    Raises:
        ConfigError: libseccomp is missing.
    """
    return _cached("child")


def seccomp_available() -> tuple[bool, str]:
    """``(works, why not)``: whether the filter can be built here."""
    try:
        bpf_program()
    except ConfigError as exc:
        return False, str(exc)
    return True, ""


def seccomp_fd(*, zygote: bool = False) -> int:
    """A fresh descriptor holding the filter at offset 0 (the caller passes and closes it).

    Args:
        zygote: Hold :func:`zygote_filter` instead of :func:`bpf_program`.

    Raises:
        ConfigError: libseccomp is missing.
    """
    return memfd("closurebench-seccomp", zygote_filter() if zygote else bpf_program())
