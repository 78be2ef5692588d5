"""A sandbox for model-written programs: Python + NetworkX, and Ein.

No wall, no run. Layers, outermost first:

1. the kernel wall (:mod:`.isolation`): bubblewrap with every namespace unshared,
   minimal read-only mounts (the system's libraries, the interpreter, the packages a
   program may import; nothing of the host's home, temporary directory, project,
   datasets or run folder), a private size-capped tmpfs as home and working directory,
   a fresh ``/proc`` with its kernel interfaces masked, a read-only six-node ``/dev``,
   the unprivileged uid/gid 65534 with every capability set empty and
   ``no_new_privs`` whatever uid the harness has (checked before any program runs),
   and a seccomp allow-list (:mod:`.seccomp`): what a graph program needs, every
   other system call fails with ``EPERM`` (new processes, sockets, mounts,
   namespaces, ``ptrace``, BPF, io_uring, ``PR_SET_DUMPABLE``, ``execve`` once
   started). Where no wall works, program modes refuse
   (:class:`.SandboxUnavailableError`), unless the caller asks for
   ``isolation="none"`` (``--unsafe-no-sandbox``) by name; even there a program is
   Landlocked to its runtime and temporary directory and gets the same allow-list,
   where the kernel has them;
2. a process per program, with an environment built from scratch (:mod:`.process`):
   a fresh interpreter (``-I -S -B``) in its own session (the default), or forked
   from a warm zygote behind the same wall (:mod:`.warm`, ``warm=True``);
3. rlimits set by the child on itself: CPU, address space, file size, open files,
   threads (:class:`.SandboxLimits`); a wall-clock deadline and stdout/stderr caps
   enforced by the parent, which kills the sandbox (its pid namespace dies with it);
4. an audit hook installed before the program runs (:mod:`.bootstrap`): a tripwire
   that names what the program tried (sockets, processes, signals, ctypes, writes
   outside its directory), not the wall.

Every ending is an :class:`.Outcome` (``ok``, ``syntax_error``, ``runtime_error``,
``timeout``, ``memory_limit``, ``output_limit``, ``forbidden``); nothing a program does
raises in the caller. :func:`run_python` also returns the networkx graphs the program
built (:class:`.CapturedGraph`), for the graph-reading error class.

Example:
    >>> res = run_python("import os\\nos.fork()", isolation="none")
    >>> res.outcome, res.detail
    (<Outcome.FORBIDDEN: 'forbidden'>, 'os.fork')
    >>> run_ein("A = edges([[0,1],[1,2]])\\n:print sum(reach(A, 0))", isolation="none").printed
    (('sum(reach(A, 0))', 3),)
"""

from __future__ import annotations

from closurebench.sandbox.ein_runner import run_ein
from closurebench.sandbox.isolation import (
    INSTALL_HINT,
    ISOLATION_ENV,
    Isolation,
    SandboxUnavailableError,
    available_isolations,
    describe_isolation,
    isolation_available,
    require_wall,
)
from closurebench.sandbox.limits import DEFAULT_SANDBOX_LIMITS, SandboxLimits
from closurebench.sandbox.python import SandboxStartError, run_python
from closurebench.sandbox.result import (
    CapturedEdge,
    CapturedGraph,
    EinSandboxResult,
    Outcome,
    SandboxResult,
)

__all__ = [
    "DEFAULT_SANDBOX_LIMITS",
    "INSTALL_HINT",
    "ISOLATION_ENV",
    "CapturedEdge",
    "CapturedGraph",
    "EinSandboxResult",
    "Isolation",
    "Outcome",
    "SandboxLimits",
    "SandboxResult",
    "SandboxStartError",
    "SandboxUnavailableError",
    "available_isolations",
    "describe_isolation",
    "isolation_available",
    "require_wall",
    "run_ein",
    "run_python",
]
