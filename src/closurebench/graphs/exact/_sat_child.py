"""Child process of the colouring's SAT method: prove the chromatic number with CaDiCaL.

Run as a script (``python _sat_child.py``) by :func:`closurebench.graphs.exact.coloring.
_by_sat`, which kills it when the time limit is spent (CaDiCaL cannot be interrupted from
within the process through python-sat). It imports nothing of closurebench, only
python-sat, so it starts in a few tens of milliseconds.

Input (one JSON object on stdin): ``n``, ``edges`` (``[u, v]`` pairs), ``order`` (all
vertices, a maximum clique first), ``omega`` (the clique's size) and ``colouring`` (a
proper colouring with ``h`` colours, the upper bound). Output (one JSON object on
stdout): ``colouring``, an optimal proper colouring, and ``calls``, the SAT calls made.

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


def main() -> None:
    """Read the instance from stdin, write the result to stdout."""
    job = json.load(sys.stdin)
    best, calls = solve(job["n"], job["edges"], job["order"], job["omega"], job["colouring"])
    json.dump({"colouring": best, "calls": calls}, sys.stdout)


if __name__ == "__main__":
    main()
