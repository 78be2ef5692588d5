"""The paper's example Ein programs, as constants, with notes on where the paper
and this project's spec (``spec/ein.md``) disagree.

Programs (all run unchanged through :func:`closurebench.ein.run`):

* :data:`TRIANGLE_COUNT` — §2.5. The 3-clique as a dense 0/1 matrix with N = 3;
  ``trace(A³) / 6`` counts triangles. Answer: ``1.0``, as in the paper.
* :data:`REACH_THEN_COUNT` — Appendix D, rewritten with this spec's ``select``.
  The paper writes ``Row[j] = select(TC, 2, j)``, but ``select(T, i, d)`` takes an
  integer axis ``d``, so the row is ``Row = select(TC, 2, 0)``; the paper's line
  fails with an :class:`~closurebench.ein.errors.UnknownNameError` for ``j``
  (:data:`REACH_THEN_COUNT_PAPER` keeps it), whose message points to ``select``.

  **Inconsistency in the paper:** it states the result is 3, but with the strict
  transitive closure ``tc`` that the paper's own Appendix E/F describe (paths of
  length ≥ 1), row 2 holds only nodes 3 and 4, so ``sum(select(tc(A), 2, 0))`` is
  **2**. The paper's 3 is what ``reach`` gives (it includes the source node 2):
  ``sum(reach(A, 2))`` is 3 — see :data:`REACH_THEN_COUNT_WITH_REACH`. (The paper's
  walkthrough also lists the edge 2→3 twice.)
* :data:`MULTI_QUERY` — Appendix L.4, rewritten with this spec's ``select``. The
  paper's ``Reachable = select(TC, 0, 2)`` is **invalid** here: axis 2 of a matrix
  does not exist, and Ein reports an :class:`~closurebench.ein.errors.IndexOutOfRangeError`
  (:data:`MULTI_QUERY_PAPER` keeps the paper's text to test that error). The
  paper's intent — does 0 reach 2? — is ``select(select(TC, 0, 0), 2, 0)``.
  Answers: ``Reachable = 1.0`` and ``Degree = 1.0``, as in the paper.

Example:
    >>> from closurebench.ein import run
    >>> float(run(TRIANGLE_COUNT).value), float(run(REACH_THEN_COUNT).value)
    (1.0, 2.0)
    >>> float(run(REACH_THEN_COUNT_WITH_REACH).value)
    3.0
    >>> [(label, float(v)) for label, v in run(MULTI_QUERY).printed]
    [('Reachable', 1.0), ('Degree', 1.0)]
"""

from __future__ import annotations

__all__ = [
    "MULTI_QUERY",
    "MULTI_QUERY_PAPER",
    "PAPER_PROGRAMS",
    "REACH_THEN_COUNT",
    "REACH_THEN_COUNT_PAPER",
    "REACH_THEN_COUNT_WITH_REACH",
    "TRIANGLE_COUNT",
]

TRIANGLE_COUNT = """\
// triangle_count (paper §2.5)
A = edges([[0,1,1],[1,0,1],[1,1,0]], 3)
A2[i,k] = A[i,j] A[j,k]
A3[i,j] = A2[i,k] A[k,j]
Result = trace(A3) / 6.0
"""

REACH_THEN_COUNT = """\
// reach_then_count (paper Appendix D, with this spec's select)
A = edges([[0,1,0,0,0],
           [0,0,1,0,0],
           [0,0,0,1,1],
           [0,0,0,0,0],
           [0,0,0,0,0]], 5)
TC = tc(A)
Row = select(TC, 2, 0)
Result = sum(Row)
"""

REACH_THEN_COUNT_PAPER = """\
// reach_then_count exactly as printed in the paper: select(TC, 2, j) is invalid here
A = edges([[0,1,0,0,0],
           [0,0,1,0,0],
           [0,0,0,1,1],
           [0,0,0,0,0],
           [0,0,0,0,0]], 5)
TC = tc(A)
Row[j] = select(TC, 2, j)
Result = sum(Row)
"""

REACH_THEN_COUNT_WITH_REACH = """\
// reach_then_count, counting the source too (gives the paper's stated 3)
A = edges([[0,1,0,0,0],
           [0,0,1,0,0],
           [0,0,0,1,1],
           [0,0,0,0,0],
           [0,0,0,0,0]], 5)
Result = sum(reach(A, 2))
"""

MULTI_QUERY = """\
// multi_query (paper Appendix L.4, with this spec's select)
A = edges([[0,1],[1,2],[3,2],[3,8],[4,0],[4,7],[5,1],[5,4],[6,0],[6,5],[8,4],[8,6]])
TC = tc(A)
Reachable = select(select(TC, 0, 0), 2, 0)
Degree = select(sum(A, 1), 0, 0)
:print Reachable
:print Degree
"""

MULTI_QUERY_PAPER = """\
// multi_query exactly as printed in the paper: select(TC, 0, 2) is invalid here
A = edges([[0,1],[1,2],[3,2],[3,8],[4,0],[4,7],[5,1],[5,4],[6,0],[6,5],[8,4],[8,6]])
TC = tc(A)
Reachable = select(TC, 0, 2)
Degree = select(sum(A, 1), 0, 0)
:print Reachable
:print Degree
"""

# name -> (program, expected printed/final values under this spec)
PAPER_PROGRAMS: dict[str, tuple[str, tuple[float, ...]]] = {
    "triangle_count": (TRIANGLE_COUNT, (1.0,)),
    "reach_then_count": (REACH_THEN_COUNT, (2.0,)),
    "reach_then_count_with_reach": (REACH_THEN_COUNT_WITH_REACH, (3.0,)),
    "multi_query": (MULTI_QUERY, (1.0, 1.0)),
}
