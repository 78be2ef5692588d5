"""Child process of the colouring's SAT method: prove the chromatic number with CaDiCaL.

Run as a script by :mod:`closurebench.graphs.exact._sat_worker`, which kills it when the
time limit is spent (CaDiCaL cannot be interrupted from within the process through
python-sat). It imports nothing of closurebench, only python-sat (~0.15 s), so the parent
keeps warm children (``--serve``) and starts new ones after a kill.

Encoding with ``w`` colours (:func:`clauses`): ``x[v, c]`` for each vertex and colour, at
least and at most one colour per vertex, ``not (x[u, c] and x[v, c])`` per edge and
colour. Colour symmetry is broken completely: along ``order``, the first ``omega``
vertices (a clique) take colours ``0..omega-1`` and a vertex may take a colour
``c >= omega`` only if colour ``c - 1`` was taken earlier in the order (auxiliary
``y[i, c]``: colour ``c`` is used among the first ``i + 1`` vertices). Every proper
colouring with ``w`` colours becomes one of these by renumbering colours in order of first
use along ``order`` (the clique's vertices come first and are pairwise adjacent, so they
get ``0..omega-1``), hence UNSAT proves ``chi > w``.

Protocol: one JSON object per line on stdin, one JSON reply line per request on stdout
(``error``, a one-line message, when a request fails; the child keeps serving):

* no ``op`` (a *job*): ``n``, ``edges`` (``[u, v]`` pairs), ``order`` (all vertices, a
  clique first), ``omega`` (the clique's size) and ``colouring`` (a proper colouring with
  ``h`` colours, the upper bound) → ``colouring`` (optimal) and ``calls`` (SAT calls):
  the whole descent, unlimited (:func:`solve`).
* ``"descend"``: a job plus ``budget`` (conflicts per SAT call; ``None`` or ``0``:
  unlimited; negative: leave every level open, for tests) → ``colouring`` (the best
  found), ``calls`` and ``open``: ``None`` when the descent ended with UNSAT (the colouring
  is optimal), else the level ``k`` whose call ran out of budget (the colouring has
  ``k + 1`` colours and ``chi <= k + 1``). The descent's solver stays in this child.
* ``"resume"``: ``cube`` (``[v, c]`` pairs), known to allow a ``k``-colouring at the open
  level → the descent solver solves under the cube's assumptions (unlimited), then goes on
  descending with the budget; the reply is as for ``"descend"``.
* ``"improve"``: ``colouring``, a proper colouring with at most ``k`` colours at the open
  level (found by a tabu search) → the descent takes it, then goes on descending with the
  budget; the reply is as for ``"descend"``.
* ``"load"``: ``n``, ``edges``, ``order``, ``omega`` and ``k`` → a fresh cube solver for
  "is there a ``k``-colouring?" (the same encoding, width ``k``); reply ``ok``.
* ``"cube"``: ``cube`` → ``sat``: whether the loaded formula is satisfiable under the
  cube's assumptions (learnt clauses kept between cubes).

Descent: each SAT answer gives a colouring with ``k' <= k`` colours; the colours
``>= k' - 1`` are then forbidden by unit clauses and the same solver (learnt clauses kept)
is asked again, until UNSAT. The descent solver's formula at level ``k`` (width ``h - 1``,
colours ``>= k`` forbidden) has exactly the models of the width-``k`` formula a cube solver
loads (the first-use chain of a colour ``>= k`` is then constantly false), so a cube that a
cube solver finds satisfiable is satisfiable for the descent solver too. Every answer
depends only on the requests this child received (CaDiCaL is deterministic and conflict
budgets are deterministic), never on timing.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def clauses(
    n: int, edges: list[list[int]], order: list[int], omega: int, width: int
) -> list[list[int]]:
    """The symmetry-broken ``width``-colouring CNF (module docstring); ``x[v, c] = v*width+c+1``.

    Example:
        >>> cnf = clauses(3, [[0, 1], [1, 2]], [0, 1, 2], 2, 2)  # the path 0 - 1 - 2
        >>> [1] in cnf and [4] in cnf  # the clique (0, 1) is pinned to colours 0 and 1
        True
        >>> [-1, -2] in cnf and [-5, -6] in cnf  # at most one colour per vertex
        True
        >>> [-3, -5] in cnf and [-4, -6] in cnf  # edge 1 - 2 in colours 0 and 1
        True
    """

    def x(v: int, c: int) -> int:
        return v * width + c + 1

    k = width
    nv = n * width
    out: list[list[int]] = []
    for v in range(n):
        out.append([x(v, c) for c in range(k)])
        for a in range(k):
            for b in range(a + 1, k):
                out.append([-x(v, a), -x(v, b)])
    for u, v in edges:
        for c in range(k):
            out.append([-x(u, c), -x(v, c)])
    if omega > k:
        raise ValueError(f"a clique of {omega} vertices cannot take {k} colours")
    for c, v in enumerate(order[:omega]):
        out.append([x(v, c)])
    # prev[c]: True (colour used), False (not yet usable) or the variable y[i-1, c].
    prev: list[bool | int] = [c < omega for c in range(k)]
    for v in order[omega:]:
        cur: list[bool | int] = []
        for c in range(k):
            if c >= omega:
                p = prev[c - 1]
                if p is False:
                    out.append([-x(v, c)])
                elif p is not True:
                    out.append([-x(v, c), p])
            pc = prev[c]
            if pc is True:
                cur.append(True)
                continue
            nv += 1
            y = nv
            out.append([-x(v, c), y])
            if pc is False:
                out.append([-y, x(v, c)])
            else:
                out.append([-pc, y])
                out.append([-y, pc, x(v, c)])
            cur.append(y)
        prev = cur
    return out


class Descent:
    """One incremental CaDiCaL solver descending from a colouring's width to the optimum."""

    def __init__(
        self, n: int, edges: list[list[int]], order: list[int], omega: int, colouring: list[int]
    ) -> None:
        from pysat.solvers import Solver

        self.n = n
        self.omega = omega
        self.best = list(colouring)
        self.width = max(self.best)  # h - 1 colours: is there a colouring better than h?
        self.k = self.width
        self.calls = 0
        self.solver: Any = None
        if self.width >= omega:
            self.solver = Solver(
                name="cadical195", bootstrap_with=clauses(n, edges, order, omega, self.width)
            )

    def _x(self, v: int, c: int) -> int:  # indexed by the fixed width, not the shrinking k
        return v * self.width + c + 1

    def _take_model(self) -> None:
        true = {lit for lit in self.solver.get_model() or [] if lit > 0}
        self._take([next(c for c in range(self.k) if self._x(v, c) in true) for v in range(self.n)])

    def _take(self, colouring: list[int]) -> None:
        """Keep ``colouring`` (proper, at most ``k`` colours) and ask for one colour fewer."""
        self.best = list(colouring)
        used = len(set(self.best))
        for c in range(used - 1, self.width):
            for v in range(self.n):
                self.solver.add_clause([-self._x(v, c)])
        self.k = used - 1

    def run(self, budget: int | None) -> int | None:
        """Descend until UNSAT (returns ``None``) or a call runs out of ``budget`` conflicts.

        Returns the open level ``k`` in the second case (``best`` then has ``k + 1`` colours).
        ``budget`` ``None`` or ``0``: unlimited; negative: every level is left open.
        """
        while self.solver is not None and self.k >= self.omega:
            if budget is not None and budget < 0:
                return self.k  # split every level (the cube path alone proves the answer)
            self.calls += 1
            if budget:
                self.solver.conf_budget(budget)
                status = self.solver.solve_limited()
            else:
                status = self.solver.solve()
            if status is None:
                return self.k
            if not status:
                break
            self._take_model()
        self.close()
        return None

    def resume(self, cube: list[list[int]], budget: int | None) -> int | None:
        """Take the model under a cube known to be satisfiable at the open level, go on."""
        if self.solver is None:
            raise RuntimeError("resume without an open descent")
        self.calls += 1
        if not self.solver.solve(assumptions=[self._x(v, c) for v, c in cube]):
            raise RuntimeError(f"the cube {cube} is unsatisfiable at level {self.k}")
        self._take_model()
        return self.run(budget)

    def improve(
        self, colouring: list[int], edges: list[list[int]], budget: int | None
    ) -> int | None:
        """Take a colouring found elsewhere with at most ``k`` colours (checked), go on."""
        if self.solver is None:
            raise RuntimeError("improve without an open descent")
        if len(colouring) != self.n or any(colouring[u] == colouring[v] for u, v in edges):
            raise ValueError("the colouring to improve from is not proper")
        if len(set(colouring)) > self.k:
            raise ValueError(f"the colouring has more than {self.k} colours")
        self._take(colouring)
        return self.run(budget)

    def close(self) -> None:
        """Free the solver."""
        if self.solver is not None:
            self.solver.delete()
            self.solver = None


def solve(n: int, edges: list[list[int]], order: list[int], omega: int, colouring: list[int]):
    """The optimal colouring and the number of SAT calls (one unlimited descent)."""
    d = Descent(n, edges, order, omega, colouring)
    d.run(None)
    return d.best, d.calls


class Server:
    """The state of a serving child: an open descent and a loaded cube solver."""

    def __init__(self) -> None:
        self.descent: Descent | None = None
        self.edges: list[list[int]] = []
        self.cubes: Any = None
        self.cube_width = 0

    def _descend_reply(self, d: Descent, level: int | None) -> dict[str, object]:
        return {"colouring": d.best, "calls": d.calls, "open": level}

    def handle(self, job: dict[str, Any]) -> dict[str, object]:
        """The reply to one request (see the module docstring)."""
        op = job.get("op")
        if op is None:
            best, calls = solve(
                job["n"], job["edges"], job["order"], job["omega"], job["colouring"]
            )
            return {"colouring": best, "calls": calls}
        if op == "descend":
            if self.descent is not None:
                self.descent.close()
            self.edges = job["edges"]
            self.descent = Descent(
                job["n"], job["edges"], job["order"], job["omega"], job["colouring"]
            )
            return self._descend_reply(self.descent, self.descent.run(job["budget"]))
        if op == "resume":
            if self.descent is None:
                raise RuntimeError("resume without an open descent")
            return self._descend_reply(
                self.descent, self.descent.resume(job["cube"], job["budget"])
            )
        if op == "improve":
            if self.descent is None:
                raise RuntimeError("improve without an open descent")
            level = self.descent.improve(job["colouring"], self.edges, job["budget"])
            return self._descend_reply(self.descent, level)
        if op == "load":
            from pysat.solvers import Solver

            if self.cubes is not None:
                self.cubes.delete()
            self.cube_width = int(job["k"])
            cnf = clauses(job["n"], job["edges"], job["order"], job["omega"], self.cube_width)
            self.cubes = Solver(name="cadical195", bootstrap_with=cnf)
            return {"ok": True}
        if op == "cube":
            if self.cubes is None:
                raise RuntimeError("cube before load")
            w = self.cube_width
            return {
                "sat": bool(self.cubes.solve(assumptions=[v * w + c + 1 for v, c in job["cube"]]))
            }
        raise ValueError(f"unknown op {op!r}")


def answer(line: str, server: Server | None = None) -> str:
    """The JSON reply line to one JSON request line (errors are replies, not crashes)."""
    try:
        return json.dumps((server or Server()).handle(json.loads(line)))
    except Exception as exc:  # reported to the parent, which raises SolverError
        return json.dumps({"error": f"{type(exc).__name__}: {exc}"})


def main() -> None:
    """Answer requests from stdin: one (default) or every line until EOF (``--serve``)."""
    if "--serve" not in sys.argv[1:]:
        sys.stdout.write(answer(sys.stdin.read()) + "\n")
        return
    server = Server()
    while line := sys.stdin.readline():  # not `for line in sys.stdin`: no read-ahead
        if line.strip():
            sys.stdout.write(answer(line, server) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
