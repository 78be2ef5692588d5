"""Resource caps of one sandboxed run.

The caps are enforced in layers: the kernel (``setrlimit`` in the child, before any
user code runs), the parent (a wall-clock deadline that kills the whole process group,
and byte caps on what it reads from the child's stdout and stderr).

Example:
    >>> SandboxLimits().wall_seconds
    10.0
    >>> SandboxLimits(memory_bytes=256 * 2**20).memory_bytes
    268435456
    >>> SandboxLimits(wall_seconds=0)
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: SandboxLimits.wall_seconds is 0; pass a number of \
seconds > 0 (and finite)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from closurebench.errors import ConfigError

__all__ = ["DEFAULT_SANDBOX_LIMITS", "MIN_MEMORY_BYTES", "SandboxLimits"]

#: Smallest address-space cap accepted: below it the interpreter itself cannot start.
MIN_MEMORY_BYTES = 64 * 2**20

_FLOATS = ("cpu_seconds", "wall_seconds")


@dataclass(frozen=True)
class SandboxLimits:
    """Caps on one sandboxed program (Python or Ein).

    Attributes:
        cpu_seconds: CPU time of the child (``RLIMIT_CPU``; soft limit, the hard one a
            second later). Past it the kernel stops the child (outcome ``timeout``).
        wall_seconds: Wall-clock deadline counted from the spawn; past it the parent
            kills the child's whole process group (outcome ``timeout``).
        memory_bytes: Address space of the child (``RLIMIT_AS``), at least 64 MiB.
            Importing numpy and networkx needs about 300 MiB of address space with the
            thread caps the sandbox sets (one BLAS/OpenMP thread).
        file_bytes: Largest file the child may write (``RLIMIT_FSIZE``).
        open_files: Most open file descriptors (``RLIMIT_NOFILE``).
        processes: ``RLIMIT_NPROC`` (threads count). Behind the ``bwrap`` wall the
            seccomp filter refuses every new process, so the program is one process and
            ``memory_bytes`` bounds all of it; the audit hook refuses spawns at every level.
        stdout_bytes: Most bytes of stdout kept; more is the outcome ``output_limit``.
        stderr_bytes: Most bytes of stderr kept; more is the outcome ``output_limit``.
        tmpfs_bytes: Size of the sandbox's private tmpfs (its home, working directory
            and ``/tmp``, behind the ``bwrap`` wall): everything the program writes, in
            all its files together. A full tmpfs is ``ENOSPC`` for the program.
    """

    cpu_seconds: float = 10.0
    wall_seconds: float = 10.0
    memory_bytes: int = 1024 * 2**20
    file_bytes: int = 16 * 2**20
    open_files: int = 256
    processes: int = 256
    stdout_bytes: int = 1 * 2**20
    stderr_bytes: int = 64 * 2**10
    tmpfs_bytes: int = 64 * 2**20

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _FLOATS:
                ok = (
                    not isinstance(value, bool)
                    and isinstance(value, int | float)
                    and math.isfinite(value)
                    and value > 0
                )
                if not ok:
                    raise ConfigError(
                        f"SandboxLimits.{f.name} is {value!r}; pass a number of seconds > 0 "
                        "(and finite)"
                    )
                object.__setattr__(self, f.name, float(value))
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"SandboxLimits.{f.name} is {value!r}; pass an integer >= 1")
        if self.memory_bytes < MIN_MEMORY_BYTES:
            raise ConfigError(
                f"SandboxLimits.memory_bytes is {self.memory_bytes}; pass at least "
                f"{MIN_MEMORY_BYTES} (64 MiB): the interpreter cannot start below it"
            )

    def rlimits(self) -> dict[str, tuple[int, int]]:
        """The ``resource`` limits the child sets on itself: ``RLIMIT_* name -> (soft, hard)``.

        Example:
            >>> SandboxLimits(cpu_seconds=2.5).rlimits()["RLIMIT_CPU"]
            (3, 4)
        """
        cpu = max(1, math.ceil(self.cpu_seconds))
        return {
            "RLIMIT_CPU": (cpu, cpu + 1),
            "RLIMIT_AS": (self.memory_bytes, self.memory_bytes),
            "RLIMIT_FSIZE": (self.file_bytes, self.file_bytes),
            "RLIMIT_NOFILE": (self.open_files, self.open_files),
            "RLIMIT_NPROC": (self.processes, self.processes),
            "RLIMIT_CORE": (0, 0),
        }

    def to_dict(self) -> dict[str, Any]:
        """The caps as a JSON-ready dict (for ``run.json``)."""
        return asdict(self)


#: The caps used when none are given.
DEFAULT_SANDBOX_LIMITS = SandboxLimits()
