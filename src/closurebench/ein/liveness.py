"""Liveness of names in an Ein program, computed once from the AST.

Ein has no loops or branches, so liveness is one backward pass over the statements:
a binding is dead after statement ``k`` when no later statement reads the name
before it is assigned again. The evaluator frees dead bindings right after the
statement that last reads them, so a long program of short-lived intermediates
needs memory for its live values only.

A name stays live to the end when it is the program's result (the last statement,
when the program prints nothing) or when the caller asks to keep it.

Example:
    >>> from closurebench.ein.parser import parse
    >>> prog = parse("A = ones(3)\\nB = A + 1\\nC = A + 2\\n:print B")
    >>> [sorted(d) for d in dead_after(prog)]
    [[], [], ['A', 'C'], ['B']]
    >>> [sorted(d) for d in dead_after(parse("A = ones(2)\\nB = A + 1"))]
    [[], ['A']]
    >>> [sorted(d) for d in dead_after(parse("A = ones(2)\\nB = A + 1"), keep={"A"})]
    [[], []]
"""

from __future__ import annotations

from collections.abc import Iterable

from closurebench.ein import ast

__all__ = ["dead_after", "names_read", "result_index"]


def names_read(node: ast.Expr) -> frozenset[str]:
    """Every name an expression reads (iterative walk).

    Example:
        >>> from closurebench.ein.parser import parse
        >>> sorted(names_read(parse("C[i,k] = A[i,j] B[j,k] / n").statements[0].value))
        ['A', 'B', 'n']
    """
    out: set[str] = set()
    stack: list[ast.Expr | ast.Number | ast.ListLiteral] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, ast.Name):
            out.add(cur.name)
        elif isinstance(cur, ast.BinOp):
            stack.extend((cur.left, cur.right))
        elif isinstance(cur, ast.Neg):
            stack.append(cur.operand)
        elif isinstance(cur, ast.Group):
            stack.append(cur.inner)
        elif isinstance(cur, ast.Call):
            stack.extend(cur.args)
        elif isinstance(cur, ast.Indexed):
            stack.append(cur.base)
    return frozenset(out)


def result_index(program: ast.Program) -> int:
    """Index of the statement whose value is the program's result.

    That is the last ``:print``, or the last statement when nothing is printed
    (then it is an assignment).

    Example:
        >>> from closurebench.ein.parser import parse
        >>> result_index(parse(":print 1\\nx = 2")), result_index(parse("x = 1\\ny = 2"))
        (0, 1)
    """
    stmts = program.statements
    for k in range(len(stmts) - 1, -1, -1):
        if isinstance(stmts[k], ast.Print):
            return k
    return len(stmts) - 1


def dead_after(program: ast.Program, keep: Iterable[str] = ()) -> tuple[frozenset[str], ...]:
    """For each statement, the names whose bindings die right after it.

    Args:
        program: The parsed program.
        keep: Names to keep alive to the end anyway.

    Returns:
        One set per statement: names it reads or assigns that no later statement
        reads before reassigning them (and that are not kept).
    """
    stmts = program.statements
    live: set[str] = set(keep)
    last = result_index(program) if stmts else -1
    if stmts and not isinstance(stmts[last], ast.Print):
        live.add(stmts[last].target)  # type: ignore[union-attr]
    out: list[frozenset[str]] = []
    for stmt in reversed(stmts):
        reads = names_read(stmt.value)
        target = None if isinstance(stmt, ast.Print) else stmt.target
        touched = set(reads) if target is None else {*reads, target}
        out.append(frozenset(touched - live))
        if target is not None:
            live.discard(target)
        live |= reads
        live |= set(keep)
    out.reverse()
    return tuple(out)
