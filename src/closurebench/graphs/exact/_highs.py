"""HiGHS plumbing shared by the ILP methods (``scipy.optimize.milp``), imported lazily.

scipy is imported inside these functions, so importing the exact solvers (and the
checkers that scoring uses) does not load it; only solving with a HiGHS method does.

* :func:`sparse_rows` builds a CSR constraint matrix from ``(row, col, value)`` triplets;
* :func:`time_options` gives HiGHS's ``time_limit`` option from a :class:`Deadline`;
* :func:`solve_binary_milp` solves a minimisation over binary variables to a proven zero
  gap, turning HiGHS statuses into :class:`SolverTimeout` / :class:`SolverError`;
* :meth:`MilpSolution.certify` checks that the proven dual bound closes the gap on the
  value read from the solution.

Example:
    >>> from closurebench.graphs.exact._common import Deadline
    >>> # min x0 + x1  s.t.  x0 + x1 >= 1  (one edge's cover)
    >>> sol = solve_binary_milp("doc", [1.0, 1.0], sparse_rows([0, 0], [0, 1], [1.0, 1.0], (1, 2)),
    ...                         [1.0], [float("inf")], Deadline(10.0, "doc"))
    >>> int(round(sum(sol.x))), sol.certify(1)
    (1, 1)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from closurebench.graphs.exact._common import Deadline
from closurebench.graphs.exact.errors import SolverError, SolverTimeout

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

__all__ = ["MilpSolution", "solve_binary_milp", "sparse_rows", "time_options"]


def sparse_rows(
    rows: Sequence[int] | np.ndarray,
    cols: Sequence[int] | np.ndarray,
    vals: Sequence[float] | np.ndarray,
    shape: tuple[int, int],
) -> csr_matrix:
    """A CSR matrix with ``vals[k]`` at ``(rows[k], cols[k])`` (duplicates summed)."""
    from scipy.sparse import coo_matrix, csr_matrix  # heavy: only HiGHS methods need it

    return csr_matrix(coo_matrix((vals, (rows, cols)), shape=shape))


def time_options(remaining: float, **options: object) -> dict[str, object]:
    """HiGHS options with ``time_limit`` set from the seconds ``remaining`` (when finite).

    Example:
        >>> time_options(float("inf"), mip_rel_gap=0.0), time_options(0.0)
        ({'mip_rel_gap': 0.0}, {'time_limit': 0.001})
    """
    out: dict[str, object] = dict(options)
    if math.isfinite(remaining):
        out["time_limit"] = max(remaining, 1e-3)
    return out


@dataclass(frozen=True)
class MilpSolution:
    """An optimal HiGHS solution.

    Attributes:
        what: The solver's name, for messages.
        x: The variable values.
        dual_bound: HiGHS's proven lower bound on the objective.
    """

    what: str
    x: np.ndarray
    dual_bound: float

    def certify(self, value: int) -> int:
        """Check that the proven bound closes the gap on ``value``; return ``value``.

        Raises:
            SolverError: the bound (rounded up) is below ``value``.
        """
        bound = math.ceil(self.dual_bound - 1e-6)
        if bound < value:
            raise SolverError(f"{self.what}: value {value} but proven bound {self.dual_bound}")
        return value


def solve_binary_milp(
    what: str,
    cost: Sequence[float] | np.ndarray,
    a: Any,
    lo: Sequence[float] | np.ndarray,
    hi: Sequence[float] | np.ndarray,
    deadline: Deadline,
    *,
    lower: float | np.ndarray = 0.0,
    upper: float | np.ndarray = 1.0,
) -> MilpSolution:
    """Minimise ``cost @ x`` over integer ``x`` in ``[lower, upper]`` with ``lo <= a @ x <= hi``.

    Solved by HiGHS to a proven zero gap (``mip_rel_gap=0``) within the deadline.

    Raises:
        SolverTimeout: HiGHS hit the time limit.
        SolverError: any other status than optimal.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp  # heavy: only HiGHS needs it

    res = milp(
        np.asarray(cost, dtype=float),
        integrality=np.ones(len(cost)),
        bounds=Bounds(lower, upper),
        constraints=[LinearConstraint(a, np.asarray(lo), np.asarray(hi))],
        options=time_options(deadline.remaining(), mip_rel_gap=0.0),
    )
    if res.status == 1:
        raise SolverTimeout(what, deadline.time_limit, f"HiGHS: {res.message}")
    if res.status != 0:
        raise SolverError(f"{what}: HiGHS returned status {res.status}: {res.message}")
    return MilpSolution(what, np.asarray(res.x), float(res.mip_dual_bound))
