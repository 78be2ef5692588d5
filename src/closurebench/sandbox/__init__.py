"""A sandbox for model-written programs: Python + NetworkX, and Ein.

Layers, outermost first:

1. a kernel boundary when the machine has one (:mod:`.isolation`): bubblewrap (user,
   pid, network, IPC, UTS namespaces; read-only root; no capabilities) or a network
   namespace (``unshare -n``), detected at run time;
2. a fresh interpreter per program (``-I -B``) in its own session and temporary
   directory, with an environment built from scratch (:mod:`.process`);
3. rlimits set by the child on itself: CPU, address space, file size, open files,
   processes (:class:`.SandboxLimits`); a wall-clock deadline and stdout/stderr caps
   enforced by the parent, which kills the whole process group;
4. an audit hook installed before the program runs (:mod:`.bootstrap`) refusing
   sockets, process creation, signals, ctypes/cffi, rlimit changes and file-system
   changes outside the temporary directory.

Every ending is an :class:`.Outcome` (``ok``, ``syntax_error``, ``runtime_error``,
``timeout``, ``memory_limit``, ``output_limit``, ``forbidden``); nothing a program does
raises in the caller. :func:`run_python` also returns the networkx graphs the program
built (:class:`.CapturedGraph`), for the graph-reading error class.

Example:
    >>> res = run_python("import os\\nos.fork()", isolation="none")
    >>> res.outcome, res.detail
    (<Outcome.FORBIDDEN: 'forbidden'>, 'os.fork')
    >>> run_ein("A = edges([[0,1],[1,2]])\\n:print sum(reach(A, 0))").printed
    (('sum(reach(A, 0))', 3),)
"""

from __future__ import annotations

from closurebench.sandbox.ein_runner import run_ein
from closurebench.sandbox.isolation import (
    ISOLATION_ENV,
    Isolation,
    available_isolations,
    describe_isolation,
    detect_isolation,
    isolation_available,
)
from closurebench.sandbox.limits import DEFAULT_SANDBOX_LIMITS, SandboxLimits
from closurebench.sandbox.python import run_python
from closurebench.sandbox.result import (
    CapturedEdge,
    CapturedGraph,
    EinSandboxResult,
    Outcome,
    SandboxResult,
)

__all__ = [
    "DEFAULT_SANDBOX_LIMITS",
    "ISOLATION_ENV",
    "CapturedEdge",
    "CapturedGraph",
    "EinSandboxResult",
    "Isolation",
    "Outcome",
    "SandboxLimits",
    "SandboxResult",
    "available_isolations",
    "describe_isolation",
    "detect_isolation",
    "isolation_available",
    "run_ein",
    "run_python",
]
