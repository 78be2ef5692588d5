"""Errors raised by the certified exact solvers.

Every solver either returns a *proven* answer or raises one of these; none of them
ever falls back to a heuristic answer.

Example:
    >>> from closurebench.errors import ClosureBenchError
    >>> from closurebench.graphs.exact.errors import SolverTimeout
    >>> exc = SolverTimeout("tsp", 0.5, "HiGHS stopped with gap 0.03")
    >>> isinstance(exc, ClosureBenchError), exc.task, exc.time_limit
    (True, 'tsp', 0.5)
    >>> str(exc).startswith("tsp: optimality not proven within time_limit=0.5 s")
    True
"""

from __future__ import annotations

from closurebench.errors import ClosureBenchError

__all__ = ["SolverError", "SolverTimeout", "UnreachableError"]


class SolverError(ClosureBenchError, RuntimeError):
    """An exact solver could not produce a proven answer (status not optimal, inconsistency)."""


class SolverTimeout(SolverError):
    """Optimality was not proven within ``time_limit`` seconds.

    Attributes:
        task: The solver that gave up (``"tsp"``, ``"vertex_cover"``, ...).
        time_limit: The limit in seconds that was exceeded.
    """

    def __init__(self, task: str, time_limit: float, detail: str = "") -> None:
        self.task = task
        self.time_limit = time_limit
        extra = f" ({detail})" if detail else ""
        super().__init__(
            f"{task}: optimality not proven within time_limit={time_limit:g} s{extra}; "
            "raise time_limit or resample the instance"
        )


class UnreachableError(SolverError):
    """The target of a path query cannot be reached from the source."""
