"""The seccomp filters of the sandbox: an allow-list of what a graph program needs.

A model-written graph program computes: it reads files of the read-only runtime,
allocates, starts threads (numpy and OpenBLAS may), writes in its private tmpfs and
prints. Every system call it needs is in :data:`ALLOWED` (some only with the arguments
of :data:`ARGUMENT_RULES`); **every other call fails with** ``EPERM`` — it never kills
the program or the harness: a program that tries ``ptrace``, ``mount``, ``unshare``,
``bpf``, ``io_uring_setup``, ``socket``, ``execve``, ``fork`` or ``prctl(PR_SET_DUMPABLE)``
gets a ``PermissionError`` back and goes on (:data:`REQUIRED_DENIALS` lists the calls the
tests check by name). ``clone3``, whose flags a filter cannot read, fails with
``ENOSYS`` so that the C library falls back to ``clone``, whose flags it can: a thread
(``CLONE_THREAD``, no namespace flag) is allowed, a process is not. A system call of
another ABI (32-bit ``int 0x80``, x32) fails with ``EPERM`` too.

Two filters are stacked (the kernel applies both; the stricter answer wins):

* the **outer** filter (:func:`outer_filter`), loaded by bubblewrap just before it
  starts the interpreter: :data:`ALLOWED` plus :data:`STARTUP` (``execve`` of the
  interpreter, the calls the bootstrap uses to drop to the unprivileged uid — see
  :func:`closurebench.sandbox.bootstrap.become`) and, for a warm zygote,
  :data:`ZYGOTE` (``fork`` through ``clone``, its control socket);
* the **inner** filter (:func:`inner_filter`), loaded by the bootstrap (a cold program,
  the child of a zygote, the Ein worker) after it has dropped its privileges and
  before the program's first instruction: :data:`ALLOWED` only.

Example:
    >>> {"ptrace", "mount", "unshare", "bpf", "execve", "socket"} & set(ALLOWED)
    set()
    >>> sorted(ARGUMENT_RULES)
    ['clone', 'fcntl', 'ioctl', 'prctl', 'prlimit64']
    >>> set(REQUIRED_DENIALS) & (set(ALLOWED) | set(STARTUP) | set(ZYGOTE))
    set()
"""

from __future__ import annotations

import errno
import threading
from typing import Any, Literal

from closurebench.errors import ConfigError
from closurebench.sandbox.process import memfd

__all__ = [
    "ALLOWED",
    "ARGUMENT_RULES",
    "NAMESPACE_FLAGS",
    "REQUIRED_DENIALS",
    "STARTUP",
    "ZYGOTE",
    "inner_filter",
    "outer_filter",
    "seccomp_available",
    "seccomp_fd",
]

#: System calls a graph program may make (any arguments unless :data:`ARGUMENT_RULES`
#: names it), grouped by what they are for.
ALLOWED: dict[str, str] = {
    **dict.fromkeys(
        (
            "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv",
            "pwritev", "preadv2", "pwritev2", "lseek", "close", "close_range", "dup",
            "dup2", "dup3", "pipe", "pipe2", "sendfile", "copy_file_range", "fsync",
            "fdatasync", "fallocate", "fadvise64", "ftruncate", "truncate", "flock",
        ),
        "reading and writing its descriptors",
    ),
    **dict.fromkeys(
        (
            "open", "openat", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs",
            "fstatfs", "access", "faccessat", "faccessat2", "readlink", "readlinkat",
            "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat",
            "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "chmod",
            "fchmod", "fchmodat", "utimensat", "getxattr", "lgetxattr", "fgetxattr",
            "listxattr", "llistxattr", "flistxattr", "umask",
        ),
        "files (the mounts decide which: the runtime read-only, the tmpfs writable)",
    ),
    **dict.fromkeys(
        (
            "mmap", "munmap", "mprotect", "mremap", "msync", "mincore", "madvise", "brk",
            "mbind", "get_mempolicy", "membarrier",
        ),
        "memory",
    ),
    **dict.fromkeys(
        (
            "futex", "futex_waitv", "get_robust_list", "set_robust_list", "set_tid_address",
            "rseq", "arch_prctl", "sched_yield", "sched_getaffinity", "sched_getparam",
            "sched_getscheduler", "getcpu", "clone",
        ),
        "threads",
    ),
    **dict.fromkeys(
        (
            "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend",
            "rt_sigpending", "rt_sigtimedwait", "sigaltstack", "pause", "restart_syscall",
            "kill", "tgkill", "tkill",
        ),
        "signals (its pid namespace holds only the sandbox)",
    ),
    **dict.fromkeys(
        (
            "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday",
            "time", "times", "getitimer", "setitimer", "alarm", "timer_create",
            "timer_settime", "timer_gettime", "timer_getoverrun", "timer_delete",
        ),
        "time",
    ),
    **dict.fromkeys(
        (
            "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1",
            "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd2",
        ),
        "waiting on its descriptors",
    ),
    **dict.fromkeys(
        (
            "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
            "getresuid", "getresgid", "getgroups", "getpgrp", "getpgid", "getsid",
            "getrusage", "sysinfo", "uname", "getrlimit", "setrlimit", "prlimit64",
            "getpriority", "getrandom", "capget", "wait4", "waitid", "exit", "exit_group",
            "prctl", "ioctl", "fcntl",
        ),
        "its own process",
    ),
}  # fmt: skip

_CLONE_THREAD = 0x00010000
#: ``clone`` flags that make a namespace (``CLONE_NEWNS``, ``NEWCGROUP``, ``NEWUTS``,
#: ``NEWIPC``, ``NEWUSER``, ``NEWPID``, ``NEWNET``): never allowed.
NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000
NAMESPACE_FLAGS |= 0x20000000 | 0x40000000

_PR = {
    "PR_GET_DUMPABLE": 3,
    "PR_SET_PDEATHSIG": 1,
    "PR_SET_DUMPABLE": 4,
    "PR_SET_NAME": 15,
    "PR_GET_NAME": 16,
    "PR_GET_SECCOMP": 21,
    "PR_SET_SECCOMP": 22,
    "PR_CAPBSET_READ": 23,
    "PR_CAPBSET_DROP": 24,
    "PR_SET_NO_NEW_PRIVS": 38,
    "PR_GET_NO_NEW_PRIVS": 39,
    "PR_CAP_AMBIENT": 47,
}
#: ``prctl`` options a program may use: reading its own state, naming a thread, and the
#: two that only ever narrow it (no new privileges, one more seccomp filter).
_PRCTL_ALLOWED = (
    "PR_GET_DUMPABLE",
    "PR_SET_NAME",
    "PR_GET_NAME",
    "PR_GET_SECCOMP",
    "PR_SET_SECCOMP",
    "PR_CAPBSET_READ",
    "PR_SET_NO_NEW_PRIVS",
    "PR_GET_NO_NEW_PRIVS",
)
_F_CMDS = (0, 1, 2, 3, 4, 5, 6, 7, 1030)  # DUPFD GETFD SETFD GETFL SETFL GETLK SETLK(W) CLOEXEC
#: TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIONCLEX, FIOCLEX (``isatty`` and friends).
_IOCTLS = (0x5401, 0x5413, 0x541B, 0x5421, 0x5450, 0x5451)

#: The calls of :data:`ALLOWED` that are allowed only with some arguments.
ARGUMENT_RULES: dict[str, str] = {
    "clone": "a thread only: CLONE_THREAD set, no namespace flag",
    "prctl": "reading its own state, PR_SET_NAME, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP "
    "(never PR_SET_DUMPABLE)",
    "prlimit64": "its own limits only (pid 0)",
    "fcntl": "F_DUPFD(_CLOEXEC), F_GETFD/F_SETFD, F_GETFL/F_SETFL, record locks "
    "(no F_SETOWN/F_SETSIG/leases/notifications)",
    "ioctl": "TCGETS, TIOCGWINSZ, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX (no TIOCSTI)",
}

#: Allowed only in the outer filter, before the program: starting the interpreter and
#: dropping to the unprivileged uid when the harness is root.
STARTUP: dict[str, str] = {
    "execve": "bubblewrap starts the interpreter",
    "setgroups": "dropping the supplementary groups",
    "setresgid": "dropping to the sandbox's gid",
    "setresuid": "dropping to the sandbox's uid",
    "capset": "clearing the capability sets",
    "prctl": "PR_CAPBSET_DROP, PR_CAP_AMBIENT (clearing capabilities), "
    "PR_SET_PDEATHSIG (dying with bubblewrap again after the uid change), "
    "PR_SET_DUMPABLE 0 (the zygote)",
}

#: Allowed only in a warm zygote's outer filter: forking a child per program and its
#: control socket (inherited; no socket can be created).
ZYGOTE: dict[str, str] = {
    "clone": "a process without namespace flags (the zygote's fork)",
    "recvmsg": "receiving a job and its descriptors",
    "sendto": "answering the harness",
    "sendmsg": "answering the harness",
    "getsockopt": "reading the inherited socket's type",
    "getsockname": "reading the inherited socket's address",
}

#: Calls a program must never reach (each is absent from every filter's allow-list;
#: the tests try each one).
REQUIRED_DENIALS: dict[str, str] = {
    "ptrace": "tracing another process",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "mount": "mounting",
    "umount2": "unmounting",
    "pivot_root": "changing the root",
    "chroot": "changing the root",
    "open_tree": "mounting",
    "move_mount": "mounting",
    "fsopen": "mounting",
    "fsmount": "mounting",
    "mount_setattr": "mounting",
    "unshare": "making a namespace",
    "setns": "entering a namespace",
    "keyctl": "the kernel key store",
    "add_key": "the kernel key store",
    "request_key": "the kernel key store",
    "bpf": "BPF programs",
    "userfaultfd": "user-space page faults",
    "io_uring_setup": "io_uring (bypasses seccomp)",
    "io_uring_enter": "io_uring (bypasses seccomp)",
    "io_uring_register": "io_uring (bypasses seccomp)",
    "perf_event_open": "performance counters",
    "personality": "the execution domain",
    "kexec_load": "the kernel",
    "kexec_file_load": "the kernel",
    "init_module": "kernel modules",
    "finit_module": "kernel modules",
    "delete_module": "kernel modules",
    "socket": "sockets of any family (raw, network, netlink, unix)",
    "socketpair": "sockets",
    "fork": "process creation",
    "vfork": "process creation",
    "execveat": "running another program",
    "mknod": "device nodes and FIFOs",
    "mknodat": "device nodes and FIFOs",
    "pidfd_open": "reaching other processes",
    "pidfd_getfd": "taking another process's descriptors",
    "kcmp": "comparing other processes' resources",
    "seccomp": "seccomp's own call (filters load through prctl)",
    "name_to_handle_at": "file handles",
    "open_by_handle_at": "file handles",
    "shmget": "System V shared memory (outlives the program)",
    "msgget": "System V message queues",
    "semget": "System V semaphores",
    "mq_open": "POSIX message queues",
    "reboot": "the machine",
    "syslog": "the kernel log",
    "acct": "process accounting",
    "swapon": "swap",
    "settimeofday": "the clock",
    "clock_settime": "the clock",
    "adjtimex": "the clock",
    "iopl": "I/O ports",
    "ioperm": "I/O ports",
    "setuid": "changing identity",
    "setgid": "changing identity",
    "symlink": "links (a tmpfs file is enough)",
    "link": "links",
}

_LOCK = threading.Lock()
_BPF: dict[str, bytes] = {}
Kind = Literal["cold", "zygote", "inner"]


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


def _allow(sc: Any, flt: Any, name: str, *args: Any) -> None:
    try:
        flt.add_rule(sc.ALLOW, name, *args)
    except (ValueError, RuntimeError, OSError):  # a call this architecture lacks
        return


def _build(kind: Kind) -> bytes:
    sc = _module()
    eperm = sc.ERRNO(errno.EPERM)
    flt: Any = sc.SyscallFilter(defaction=eperm)
    flt.set_attr(sc.Attr.ACT_BADARCH, eperm)
    for name in ALLOWED:
        if name not in ARGUMENT_RULES:
            _allow(sc, flt, name)
    masked = sc.MASKED_EQ
    _allow(sc, flt, "clone", sc.Arg(0, masked, _CLONE_THREAD | NAMESPACE_FLAGS, _CLONE_THREAD))
    _allow(sc, flt, "prlimit64", sc.Arg(0, sc.EQ, 0))
    for cmd in _F_CMDS:
        _allow(sc, flt, "fcntl", sc.Arg(1, sc.EQ, cmd))
    for cmd in _IOCTLS:
        _allow(sc, flt, "ioctl", sc.Arg(1, masked, 0xFFFFFFFF, cmd))
    options = list(_PRCTL_ALLOWED)
    if kind != "inner":
        options += ["PR_CAPBSET_DROP", "PR_CAP_AMBIENT", "PR_SET_PDEATHSIG"]
        _allow(sc, flt, "prctl", sc.Arg(0, sc.EQ, _PR["PR_SET_DUMPABLE"]), sc.Arg(1, sc.EQ, 0))
        for name in STARTUP:
            if name != "prctl":
                _allow(sc, flt, name)
    for option in options:
        _allow(sc, flt, "prctl", sc.Arg(0, sc.EQ, _PR[option]))
    if kind == "zygote":
        _allow(sc, flt, "clone", sc.Arg(0, masked, NAMESPACE_FLAGS, 0))
        for name in ZYGOTE:
            if name != "clone":
                _allow(sc, flt, name)
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    return _export(flt)


def _cached(kind: Kind) -> bytes:
    with _LOCK:
        if kind not in _BPF:
            _BPF[kind] = _build(kind)
        return _BPF[kind]


def outer_filter(kind: Literal["cold", "zygote"] = "cold") -> bytes:
    """The filter bubblewrap loads (classic BPF, as ``--seccomp`` reads it).

    Args:
        kind: ``"cold"`` (a program's own interpreter, the Ein worker) or ``"zygote"``
            (also :data:`ZYGOTE`).

    Raises:
        ConfigError: libseccomp is missing.
    """
    return _cached(kind)


def inner_filter() -> bytes:
    """The filter the bootstrap stacks before the program runs: :data:`ALLOWED` only.

    Raises:
        ConfigError: libseccomp is missing.
    """
    return _cached("inner")


def seccomp_available() -> tuple[bool, str]:
    """``(works, why not)``: whether the filters can be built here."""
    try:
        outer_filter()
    except ConfigError as exc:
        return False, str(exc)
    return True, ""


def seccomp_fd(*, zygote: bool = False) -> int:
    """A fresh descriptor holding the outer filter at offset 0 (the caller passes and
    closes it).

    Args:
        zygote: Hold the zygote's outer filter.

    Raises:
        ConfigError: libseccomp is missing.
    """
    return memfd("closurebench-seccomp", outer_filter("zygote" if zygote else "cold"))
