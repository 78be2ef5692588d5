"""The paper's example Ein programs, as constants, with notes on where the paper
and this project's language reference (``docs/ein.md``) disagree.

Programs (all run unchanged through :func:`closurebench.ein.run`):

* :data:`TRIANGLE_COUNT` — §2.5. The 3-clique as a dense 0/1 matrix with N = 3;
  ``trace(A³) / 6`` counts triangles. Answer: ``1.0``, as in the paper.
* :data:`REACH_THEN_COUNT` — Appendix D, rewritten with this project's ``select``.
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
* :data:`MULTI_QUERY` — Appendix L.4, rewritten with this project's ``select``. The
  paper's ``Reachable = select(TC, 0, 2)`` is **invalid** here: axis 2 of a matrix
  does not exist, and Ein reports an :class:`~closurebench.ein.errors.IndexOutOfRangeError`
  (:data:`MULTI_QUERY_PAPER` keeps the paper's text to test that error). The
  paper's intent — does 0 reach 2? — is ``select(select(TC, 0, 0), 2, 0)``.
  Answers: ``Reachable = 1.0`` and ``Degree = 1.0``, as in the paper.

The paper's own syntax card (``closurebench.ein.card.PAPER_CARD``, ``--ein-card
paper``) is checked line by line in :data:`PAPER_CARD_CHECKS`: each construct as the card
writes it and, where that is not what it means, as it means it, with what this
interpreter does (the Ein reference page shows the table, run live).

Example:
    >>> from closurebench.ein import run
    >>> float(run(TRIANGLE_COUNT).value), float(run(REACH_THEN_COUNT).value)
    (1.0, 2.0)
    >>> float(run(REACH_THEN_COUNT_WITH_REACH).value)
    3.0
    >>> [(label, float(v)) for label, v in run(MULTI_QUERY).printed]
    [('Reachable', 1.0), ('Degree', 1.0)]
    >>> [c.construct for c in PAPER_CARD_CHECKS if not c.agrees][:2]
    ['Result = tc(A)', ':print Result']
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MULTI_QUERY",
    "MULTI_QUERY_PAPER",
    "PAPER_CARD_CHECKS",
    "PAPER_PROGRAMS",
    "REACH_THEN_COUNT",
    "REACH_THEN_COUNT_PAPER",
    "REACH_THEN_COUNT_WITH_REACH",
    "TRIANGLE_COUNT",
    "CardCheck",
]

TRIANGLE_COUNT = """\
// triangle_count (paper §2.5)
A = edges([[0,1,1],[1,0,1],[1,1,0]], 3)
A2[i,k] = A[i,j] A[j,k]
A3[i,j] = A2[i,k] A[k,j]
Result = trace(A3) / 6.0
"""

REACH_THEN_COUNT = """\
// reach_then_count (paper Appendix D, with this project's select)
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
// multi_query (paper Appendix L.4, with this project's select)
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

# name -> (program, expected printed/final values under docs/ein.md)
PAPER_PROGRAMS: dict[str, tuple[str, tuple[float, ...]]] = {
    "triangle_count": (TRIANGLE_COUNT, (1.0,)),
    "reach_then_count": (REACH_THEN_COUNT, (2.0,)),
    "reach_then_count_with_reach": (REACH_THEN_COUNT_WITH_REACH, (3.0,)),
    "multi_query": (MULTI_QUERY, (1.0, 1.0)),
}


# -- the paper's syntax card, construct by construct ------------------------------------

#: A path 0 -> 1 -> 2: node 2 is a sink (out-degree 0), node 0 is on no cycle.
_PATH = "A = edges([[0,1],[1,2]], 3)\n"


@dataclass(frozen=True)
class CardCheck:
    """One construct of the paper's Ein card (or one of its example programs), run here.

    Attributes:
        construct: The card's line left of ``--`` (a RULES line, or the program's name).
        says: What the paper says it does.
        written: An Ein program using the construct exactly as the paper writes it.
        runs: Whether ``written`` runs under this interpreter.
        meant: The program the line means, where ``written`` fails or reads otherwise
            (``None``: ``written`` is what it means).
        agrees: Whether the construct, read as meant, does here exactly what the paper
            says (False: it computes something else, or a rule is not enforced). An
            extra that only accepts more, e.g. an optional argument, still agrees.
        note: How this interpreter reads it, and where that differs.
    """

    construct: str
    says: str
    written: str
    runs: bool
    meant: str | None
    agrees: bool
    note: str


#: The paper's card (App. F) line by line, then its example programs (App. D, L.4).
PAPER_CARD_CHECKS: tuple[CardCheck, ...] = (
    CardCheck(
        "A = edges([[0,1],[1,2]], N)",
        "adjacency matrix from edge list, N nodes",
        "N = 3\nA = edges([[0,1],[1,2]], N)\n:print A\n",
        True,
        None,
        True,
        "`N` may also be left out (the size is then the largest id + 1), as the "
        "paper's App. L.4 program does; a dense 0/1 matrix is accepted too (App. D).",
    ),
    CardCheck(
        "B[i,k] = A[i,j] A[j,k]",
        "Einstein summation (repeated indices summed)",
        _PATH + "B[i,k] = A[i,j] A[j,k]\n:print B\n",
        True,
        None,
        True,
        "Indices missing on the left are summed.",
    ),
    CardCheck(
        "Result = trace(A)",
        "trace (sum of diagonal)",
        _PATH + "Result = trace(A)\n:print Result\n",
        True,
        None,
        True,
        "As the card says.",
    ),
    CardCheck(
        "Result = sum(A) / sum(A, 1)",
        "sum all / along axis",
        _PATH + "Result = sum(A) / sum(A, 1)\n:print Result\n",
        False,
        _PATH + "All = sum(A)\nOut = sum(A, 1)\n:print All\n:print Out\n",
        True,
        "The `/` means *or*: two forms, `sum(A)` of all entries and `sum(A, 1)` along axis "
        "1 (the row sums, i.e. out-degrees). Read as written it is a division of "
        "a scalar by the out-degree vector, which fails with `DivisionByZeroError` on any "
        "graph with a sink (Ein never produces inf).",
    ),
    CardCheck(
        "Result = tc(A)",
        "transitive closure (reachability matrix)",
        _PATH + "Result = tc(A)\nSelf = trace(tc(A))\n:print Result\n:print Self\n",
        True,
        None,
        False,
        "`tc` is the strict closure (paths of length >= 1): `tc[i,i]` is 1 only when `i` is "
        "on a cycle, so a row of `tc` leaves out its source. The card does not say which; "
        "the paper's App. D counts with a row of `tc` and states 3, which only `reach` "
        "gives (this interpreter: 2).",
    ),
    CardCheck(
        "Result = reach(A, i)",
        "nodes reachable from i, INCLUDING i",
        _PATH + "Result = reach(A, 0)\n:print Result\n",
        True,
        None,
        True,
        "A 0/1 vector with `i` set.",
    ),
    CardCheck(
        "Result = desc(A, i)",
        "descendants of i, EXCLUDING i",
        _PATH + "Result = desc(A, 0)\n:print Result\n",
        True,
        None,
        True,
        "As the card says. (The paper's App. E calls `desc` an alias for `reach`; this "
        "interpreter follows the card: the two differ by the source.)",
    ),
    CardCheck(
        "Result = has_path(A, i, j)",
        "1.0 if path exists, else 0.0",
        _PATH + "Result = has_path(A, 0, 2)\nSelf = has_path(A, 0, 0)\n"
        ":print Result\n:print Self\n",
        True,
        None,
        True,
        "`has_path(A, i, i)` is 1.0 (the empty path), although `tc(A)[i,i]` is 0 "
        "off a cycle: the card does not say.",
    ),
    CardCheck(
        "Result = select(V, i, d)",
        "select element i along dim d",
        _PATH + "V = sum(A, 1)\nResult = select(V, 1, 0)\nRow = select(A, 0, 0)\n"
        ":print Result\n:print Row\n",
        True,
        None,
        True,
        "`d` is an integer axis (0 or 1); on a matrix `select(A, i, 0)` is row `i`, "
        "`select(A, j, 1)` column `j`. The paper's own programs use `d` otherwise and fail "
        "(App. D, App. L.4 below).",
    ),
    CardCheck(
        "Result = ge/gt/eq(A, x)",
        "comparison predicates (return 0/1)",
        _PATH + "Result = ge/gt/eq(A, 1)\n:print Result\n",
        False,
        _PATH + "G = ge(A, 1)\nT = gt(A, 0)\nE = eq(A, 0)\n:print G\n:print T\n:print E\n",
        True,
        "Three builtins, `ge(A, x)`, `gt(A, x)` and `eq(A, x)`; the line itself is not a "
        "program (written out, `ge` is a builtin, not a value: `UnknownNameError`). "
        "This interpreter also has `le`, `lt`, `ne`.",
    ),
    CardCheck(
        "U = ones(N) / zeros(N)",
        "constructors",
        "N = 3\nU = ones(N) / zeros(N)\n:print U\n",
        False,
        "N = 3\nU = ones(N)\nZ = zeros(N)\n:print U\n:print Z\n",
        True,
        "Two constructors; written out, the line divides by zeros (`DivisionByZeroError`).",
    ),
    CardCheck(
        "X = A * B / A + B / A - B",
        "elementwise ops",
        _PATH + "B = A\nX = A * B / A + B / A - B\n:print X\n",
        False,
        _PATH + "B = A\nP = A * B\nS = A + B\nD = A - B\n:print P\n:print S\n:print D\n",
        True,
        "Three operators, with broadcasting (`/` works too, refusing a zero divisor); "
        "written out, the line divides by a 0/1 matrix (`DivisionByZeroError`).",
    ),
    CardCheck(
        ":print Result",
        "output (MUST be last line)",
        _PATH + ":print A\nResult = sum(A)\n",
        True,
        None,
        False,
        "Not enforced: statements may follow a `:print`, a program may print several values "
        "(the answer is the last one printed; App. L.4 prints two), and one with no "
        "`:print` outputs its last assignment (App. E's rule).",
    ),
    CardCheck(
        "Start with comment: // category_name",
        "rule",
        _PATH + "Result = sum(A)\n:print Result\n",
        True,
        None,
        False,
        "Not enforced: a comment is optional (App. D's own program has none).",
    ),
    CardCheck(
        "App. D program, as printed",
        "reach_then_count; the result is 3",
        REACH_THEN_COUNT_PAPER,
        False,
        REACH_THEN_COUNT,
        False,
        "`Row[j] = select(TC, 2, j)` uses `d` as an index name: `UnknownNameError`. "
        "With `select(TC, 2, 0)` it gives 2, not the stated 3 (`tc` is strict; "
        "`sum(reach(A, 2))` is 3). It also has no `:print` and no comment, against the "
        "card's RULES.",
    ),
    CardCheck(
        "App. L.4 program, as printed",
        "multi_query; reachable 1.0, degree 1.0",
        MULTI_QUERY_PAPER,
        False,
        MULTI_QUERY,
        True,
        "`select(TC, 0, 2)` uses `d` as a column: axis 2 of a matrix does not exist "
        "(`IndexOutOfRangeError`). Meant as `select(select(TC, 0, 0), 2, 0)`, it gives "
        "the stated 1.0 and 1.0.",
    ),
)
