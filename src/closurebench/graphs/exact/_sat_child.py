"""Child process of the colouring's SAT method: prove the chromatic number with CaDiCaL.

Run as a script by :mod:`closurebench.graphs.exact._sat_worker`, which kills it when the
time limit is spent (CaDiCaL cannot be interrupted from within the process through
python-sat). It imports nothing of closurebench, only python-sat (~0.15 s), so the parent
keeps one warm child per process (``--serve``) and starts a new one after a kill.

Input: one JSON object per line on stdin: ``n``, ``edges`` (``[u, v]`` pairs), ``order``
(all vertices, a maximum clique first), ``omega`` (the clique's size) and ``colouring`` (a
proper colouring with ``h`` colours, the upper bound). Output: one JSON line per job on
stdout: ``colouring``, an optimal proper colouring, and ``calls``, the SAT calls made; or
``error``, a one-line message. Without ``--serve`` the child answers one job and exits.

Encoding with ``k = h - 1`` colours: ``x[v, c]`` for each vertex and colour, at least and
at most one colour per vertex, ``not (x[u, c] and x[v, c])`` per edge and colour. Colour
symmetry is broken completely: along ``order``, the clique's vertices take colours
``0..omega-1`` and a vertex may take a colour ``c >= omega`` only if colour ``c - 1``
was taken earlier in the order (auxiliary ``y[i, c]``: colour ``c`` is used among the
first ``i + 1`` vertices). Every proper colouring with ``k`` colours becomes one of these
by renumbering colours in order of first use, so UNSAT proves ``chi > k``. Each SAT answer
gives a colouring with ``k' <= k`` colours; the colours ``>= k' - 1`` are then forbidden
by unit clauses and the same solver (learnt clauses kept) is asked again, until UNSAT.
"""

from __future__ import annotations

import json
import sys


def solve(n: int, edges: list[list[int]], order: list[int], omega: int, colouring: list[int]):
    """The optimal colouring and the number of SAT calls (see the module docstring)."""
    from pysat.solvers import Solver

    best = list(colouring)
    width = max(best)  # h - 1 colours: is there a colouring better than the bound?
    if width < omega:
        return best, 0
    nv = n * width

    def x(v: int, c: int) -> int:  # indexed by the fixed width, not the shrinking k
        return v * width + c + 1

    k = width

    clauses: list[list[int]] = []
    for v in range(n):
        clauses.append([x(v, c) for c in range(k)])
        for a in range(k):
            for b in range(a + 1, k):
                clauses.append([-x(v, a), -x(v, b)])
    for u, v in edges:
        for c in range(k):
            clauses.append([-x(u, c), -x(v, c)])
    for c, v in enumerate(order[:omega]):
        clauses.append([x(v, c)])
    # prev[c]: True (colour used), False (not yet usable) or the variable y[i-1, c].
    prev: list[bool | int] = [c < omega for c in range(k)]
    for v in order[omega:]:
        cur: list[bool | int] = []
        for c in range(k):
            if c >= omega:
                p = prev[c - 1]
                if p is False:
                    clauses.append([-x(v, c)])
                elif p is not True:
                    clauses.append([-x(v, c), p])
            pc = prev[c]
            if pc is True:
                cur.append(True)
                continue
            nv += 1
            y = nv
            clauses.append([-x(v, c), y])
            if pc is False:
                clauses.append([-y, x(v, c)])
            else:
                clauses.append([-pc, y])
                clauses.append([-y, pc, x(v, c)])
            cur.append(y)
        prev = cur
    calls = 0
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        while k >= omega:
            calls += 1
            if not solver.solve():
                break
            model = solver.get_model() or []
            true = {lit for lit in model if lit > 0}
            best = [next(c for c in range(k) if x(v, c) in true) for v in range(n)]
            used = len(set(best))
            for c in range(used - 1, width):
                for v in range(n):
                    solver.add_clause([-x(v, c)])
            k = used - 1
    return best, calls


def answer(line: str) -> str:
    """The JSON reply line to one JSON job line (errors are replies, not crashes)."""
    try:
        job = json.loads(line)
        best, calls = solve(job["n"], job["edges"], job["order"], job["omega"], job["colouring"])
        return json.dumps({"colouring": best, "calls": calls})
    except Exception as exc:  # reported to the parent, which raises SolverError
        return json.dumps({"error": f"{type(exc).__name__}: {exc}"})


def main() -> None:
    """Answer jobs from stdin: one (default) or every line until EOF (``--serve``)."""
    if "--serve" not in sys.argv[1:]:
        sys.stdout.write(answer(sys.stdin.read()) + "\n")
        return
    while line := sys.stdin.readline():  # not `for line in sys.stdin`: no read-ahead
        if line.strip():
            sys.stdout.write(answer(line) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
