"""Certified exact solvers for the GRIT tasks, and checkers for candidate answers.

Inputs are plain: ``n`` and an edge list of ``(u, v)`` / ``(u, v, w)`` tuples on nodes
``0..n-1`` (or a weight matrix for the TSP), so the solvers do not depend on any graph
class. Results are frozen dataclasses with the answer (``.value``), one optimal solution
(``.solution``) and, for the NP-hard tasks, a :class:`Certificate`
``{"method", "bound", "gap": 0}``. An NP-hard solver that cannot prove optimality within
``time_limit`` seconds raises :class:`SolverTimeout`; it never returns a heuristic answer.

Solver choice. HiGHS (``scipy.optimize.milp``) and OR-Tools CP-SAT 9.15 (2 workers,
``AddCircuit`` for the TSP, the same symmetry-broken model for colouring) were timed on
this 2-core machine (shared with other jobs; 5 instances per cell, 60 s limit; wall-clock
seconds, median / max; "k/5" = unproven in time):

==================  ==================  ===================  ===================
task, n = 60        HiGHS               CP-SAT               custom B&B (chosen)
==================  ==================  ===================  ===================
TSP (grid points)   1.74 / 1.87 (DFJ)   20.1 / 60, 2/5       --
TSP, n = 40         0.49 / 10.5         23.0 / 60, 1/5       --
vertex cover p=0.3  0.80 / 1.32         0.20 / 0.37          0.005 / 0.006
vertex cover p=0.5  0.81 / 1.33         0.24 / 0.38          0.008 / 0.009
colouring p=0.3     18.4 / 36.6         0.99 / 7.08          0.079 / 0.48
colouring p=0.5     60 / 60, 4/5        31.7 / 60, 2/5       4.0 / 9.9
==================  ==================  ===================  ===================

So the TSP uses HiGHS with lazy DFJ cuts and reduced-cost fixing; vertex cover a bitset
maximum-clique branch and bound on the complement; the chromatic number a DSATUR branch
and bound with a maximum-clique bound (since issue 42 the default ``"auto"`` runs the
later SAT method instead on graphs with ``n >= 50`` and density ``>= 0.4``, where it is
faster; the colouring returned is the same canonical one either way). The second,
independent method of each is a HiGHS ILP (``method="ilp"``; SAT for colouring).
CP-SAT lost to the chosen method everywhere, so OR-Tools is not a dependency. Full
timings: ``benchmarks/bench_exact.py``.

Example:
    >>> from closurebench.graphs.exact import chromatic_number, check_colouring
    >>> r = chromatic_number(3, [(0, 1), (1, 2)])
    >>> r.value, r.certificate.as_dict()
    (2, {'method': 'dsatur-bnb', 'bound': 2, 'gap': 0})
    >>> check_colouring(3, [(0, 1), (1, 2)], r.solution, optimum=r.value).ok
    True
"""

from closurebench.graphs.exact import check as _check
from closurebench.graphs.exact._common import DEFAULT_TIME_LIMIT, Certificate
from closurebench.graphs.exact.centrality import CENTRALITY_KINDS, CentralityResult, centrality
from closurebench.graphs.exact.check import *  # noqa: F403 - Verdict and check_*
from closurebench.graphs.exact.clique import max_clique
from closurebench.graphs.exact.coloring import ColouringResult, chromatic_number
from closurebench.graphs.exact.cover import VertexCoverResult, vertex_cover
from closurebench.graphs.exact.errors import SolverError, SolverTimeout, UnreachableError
from closurebench.graphs.exact.paths import BfsResult, ShortestPathResult, bfs_order, shortest_path
from closurebench.graphs.exact.tsp import TspResult, tour_cost, tsp

__all__ = [
    "CENTRALITY_KINDS",
    "DEFAULT_TIME_LIMIT",
    "BfsResult",
    "CentralityResult",
    "Certificate",
    "ColouringResult",
    "ShortestPathResult",
    "SolverError",
    "SolverTimeout",
    "TspResult",
    "UnreachableError",
    "VertexCoverResult",
    "bfs_order",
    "centrality",
    "chromatic_number",
    "max_clique",
    "shortest_path",
    "tour_cost",
    "tsp",
    "vertex_cover",
]
__all__ += _check.__all__  # Verdict and the check_* functions (star-imported above)
