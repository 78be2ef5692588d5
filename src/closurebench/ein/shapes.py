"""The static shape checker: runs before evaluation and fails fast with a location.

It walks the program once, top to bottom, tracking an
:class:`~closurebench.ein.abstract.Abstract` per name: the rank and every dimension
that literals and literal sizes fix (``edges([[0,1],[1,2]])`` is 3×3, ``ones(N)``
has length N when N is a literal or a name bound to one). It checks

* that every name is assigned before use and every called builtin exists;
* arity, argument ranks and integer arguments of every call, and axis/node ranges
  that are known;
* broadcasting of ``+ - * /`` and comparisons, and division by a known zero;
* einsum structure and indices: a factor's rank equals its index count, one index
  never has two sizes (both shapes are reported), left-hand indices appear on the
  right and are distinct, at most two output axes, the factor cap;
* the live-bytes budget, as far as shapes are known: it replays the evaluator's
  liveness (:mod:`closurebench.ein.liveness`) over the statically known sizes of
  the bindings and printed values, a lower bound of what the run will hold, and
  fails before anything runs when even that exceeds :attr:`Limits.max_live_bytes`;
* sizes: a size argument (``ones(N)``, ``eye(N)``, ``edges(L, N)``, ``vec(L, N)``)
  above :attr:`Limits.max_elements`, and a builtin result of known shape over the
  element cap (``edges([[0, 1e9]])``), before anything is allocated;
* the output limit, as far as shapes are known: the fewest bytes every printed value
  of known shape can take (:mod:`closurebench.ein.output`) against
  :attr:`Limits.max_output_bytes`.

Whatever it cannot know statically (data-dependent sizes and indices) the evaluator
checks again at run time, with the same error classes and messages.

Example:
    >>> from closurebench.ein.parser import parse
    >>> check_program(parse("A = edges([[0,1],[1,2]])\\nv = sum(A, 1)"))["v"].shape
    (3,)
    >>> check_program(parse("A = ones(2,3)\\nC[i,k] = A[i,j] A[j,k]"))
    Traceback (most recent call last):
    ...
    closurebench.ein.errors.ShapeError: line 2, column 19: index j has size 2 in `A[j,k]` ...
"""

from __future__ import annotations

import numpy as np

from closurebench.ein import ast
from closurebench.ein.abstract import (
    Abstract,
    broadcast_shapes,
    element_count,
    ensure_elements,
)
from closurebench.ein.budget import format_bytes
from closurebench.ein.builtins import BUILTINS
from closurebench.ein.calls import (
    check_arity,
    check_int_rank,
    check_int_value,
    check_tensor_rank,
    unknown_builtin,
    unknown_name,
)
from closurebench.ein.einsum import (
    check_factor_count,
    check_output_indices,
    contains_indexed,
    split_product,
    stray_indexed_error,
    unify_indices,
)
from closurebench.ein.errors import (
    DivisionByZeroError,
    EinBudgetError,
    EinError,
    EinSyntaxError,
    ShapeError,
)
from closurebench.ein.limits import DEFAULT_LIMITS, Limits
from closurebench.ein.liveness import dead_after, result_index
from closurebench.ein.output import OutputMeter
from closurebench.ein.values import literal_value, rank_name

__all__ = ["check_program"]


class _Checker:
    def __init__(self, program: ast.Program, limits: Limits) -> None:
        self.program = program
        self.limits = limits
        self.env: dict[str, Abstract] = {}

    def fail(self, err: EinError, node: ast.Expr | ast.Statement | ast.Index) -> EinError:
        line = node.span.line
        return err.locate(line, node.span.column, self.program.line_text(line))

    # statements ----------------------------------------------------------------
    def statement(self, stmt: ast.Statement) -> Abstract:
        if isinstance(stmt, ast.EinsumAssign):
            value = self.einsum(stmt.value, stmt.indices)
        else:
            value = self.top(stmt.value)
        if not isinstance(stmt, ast.Print):
            self.env[stmt.target] = value
        return value

    def top(self, value: ast.Expr) -> Abstract:
        if contains_indexed(value):
            return self.einsum(value, ())
        return self.expr(value)

    # einsum ----------------------------------------------------------------------
    def einsum(self, value: ast.Expr, out: tuple[ast.Index, ...]) -> Abstract:
        product = split_product(value)
        check_factor_count(product, self.limits)
        for const in product.multipliers:
            self.scalar_constant(const)
        for const, op in product.divisors:
            a = self.scalar_constant(const)
            if a.value is not None and float(a.value) == 0.0:
                raise self.fail(DivisionByZeroError(_zero_text(self.program, const)), op)
        factors = []
        for f in product.factors:
            base = self.expr(f.base)
            factors.append((f, base.shape, self.program.text(f)))
        sizes = unify_indices(factors)
        right = {ix.name for f in product.factors for ix in f.indices}
        check_output_indices(out, right)
        return Abstract(tuple(sizes[ix.name] for ix in out))

    def scalar_constant(self, node: ast.Expr) -> Abstract:
        a = self.expr(node)
        if a.rank not in (None, 0):
            raise self.fail(
                ShapeError(
                    f"`{self.program.text(node)}` is {rank_name(a.rank or 0)} of "
                    f"{a.describe()} with no indices; in an einsum product every tensor "
                    "needs an index per axis, e.g. v[i], and only scalars may stand alone"
                ),
                node,
            )
        return a

    # expressions -------------------------------------------------------------
    def expr(self, node: ast.Expr) -> Abstract:
        try:
            return self._expr(node)
        except EinError as err:
            raise self.fail(err, node) from None

    def _expr(self, node: ast.Expr) -> Abstract:
        if isinstance(node, ast.Number):
            return Abstract.scalar(node.value)
        if isinstance(node, ast.Name):
            if node.name not in self.env:
                raise unknown_name(node.name, list(self.env))
            return self.env[node.name]
        if isinstance(node, ast.ListLiteral):
            return Abstract.known(literal_value(node))
        if isinstance(node, ast.Group):
            return self.expr(node.inner)
        if isinstance(node, ast.Neg):
            a = self.expr(node.operand)
            return Abstract(a.shape, None if a.value is None else -a.value)
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise stray_indexed_error(node)

    def binop(self, node: ast.BinOp) -> Abstract:
        left, right = self.expr(node.left), self.expr(node.right)
        if node.implicit:  # juxtaposition outside an einsum product
            raise self.fail(stray_indexed_error(node.right), node.right)  # type: ignore[arg-type]
        try:
            shape = broadcast_shapes(left.shape, right.shape)
        except ShapeError as err:
            raise self.fail(
                ShapeError(f"`{node.op}`: {err.message}; the operands must broadcast"), node
            ) from None
        if node.op == "/" and right.value is not None and (right.value == 0).any():
            raise self.fail(DivisionByZeroError(_zero_text(self.program, node.right)), node)
        value = None
        if left.value is not None and right.value is not None and shape == ():
            x, y = float(left.value), float(right.value)
            folded = {"+": x + y, "-": x - y, "*": x * y, "/": x / y if y else 0.0}[node.op]
            value = np.asarray(folded) if np.isfinite(folded) else None
        return Abstract(shape, value)

    def call(self, node: ast.Call) -> Abstract:
        b = BUILTINS.get(node.func)
        if b is None:
            raise self.fail(unknown_builtin(node.func), node)
        try:
            check_arity(b, len(node.args))
        except EinError as err:
            raise self.fail(err, node) from None
        args = [self.expr(a) for a in node.args]
        for p, a, arg_node in zip(b.params, args, node.args, strict=False):
            try:
                if p.kind == "tensor":
                    check_tensor_rank(b, p, a.rank, a.describe())
                else:
                    check_int_rank(b, p, a.rank, a.describe())
                    if a.value is not None and a.value.ndim == 0:
                        check_int_value(b, p, float(a.value), self.limits)
            except EinError as err:
                raise self.fail(err, arg_node) from None
        try:
            out = b.infer(*args)
            if out.shape is not None and None not in out.shape:
                ensure_elements(out.shape, self.limits, f"{b.name}(...)")  # type: ignore[arg-type]
            return out
        except EinError as err:
            raise self.fail(err, _target(err, node)) from None


def _zero_text(program: ast.Program, divisor: ast.Expr) -> str:
    return (
        f"division by zero: the divisor `{program.text(divisor)}` is (or contains) 0; "
        "Ein does not produce inf"
    )


def check_program(program: ast.Program, limits: Limits | None = None) -> dict[str, Abstract]:
    """Statically check a parsed program; return what is known about each name.

    Raises:
        EinError: The first problem found, with its line and column.
    """
    if not program.statements:
        raise EinSyntaxError(
            "the program has no statements; assign a value, e.g. A = edges([[0,1]]), and :print it",
            line=1,
            column=1,
            source_line=program.line_text(1),
        )
    limits = limits or DEFAULT_LIMITS
    checker = _Checker(program, limits)
    dead = dead_after(program)
    held: dict[str, int] = {}  # known bytes of each live binding
    total = 0  # known bytes of live bindings and printed values
    printed: set[str] = set()  # live bindings whose array a print also holds
    meter = OutputMeter(limits)
    final = result_index(program)
    prints = any(isinstance(stmt, ast.Print) for stmt in program.statements)
    for k, stmt in enumerate(program.statements):
        try:
            value = checker.statement(stmt)
            if value.shape is not None and None not in value.shape:
                shape: tuple[int, ...] = value.shape  # type: ignore[assignment]
                if isinstance(stmt, ast.Print):
                    meter.charge_static(stmt.label, shape)
                elif k == final and not prints:
                    meter.charge_static(stmt.target, shape, result=True)
            nbytes = _fresh_bytes(stmt, value)
            if total + nbytes > limits.max_live_bytes:
                raise EinBudgetError(
                    f"this statement's value ({format_bytes(nbytes)}) would join "
                    f"{format_bytes(total)} of live tensors, {format_bytes(total + nbytes)} "
                    f"in all; the budget is {format_bytes(limits.max_live_bytes)} "
                    "(Limits.max_live_bytes): raise Limits.max_live_bytes (closurebench ein "
                    "run --max-live-bytes) or keep fewer or smaller values alive"
                )
        except EinError as err:
            raise checker.fail(err, stmt) from None
        total += nbytes
        if isinstance(stmt, ast.Print):
            alias = _alias(stmt)
            if alias is not None and alias in held:
                printed.add(alias)  # the print keeps the binding's array alive
        else:
            old = held.pop(stmt.target, 0)
            if stmt.target not in printed:
                total -= old
            printed.discard(stmt.target)
            held[stmt.target] = nbytes
        for name in dead[k]:
            old = held.pop(name, 0)
            if name not in printed:
                total -= old
            printed.discard(name)
    return checker.env


def _alias(stmt: ast.Statement) -> str | None:
    """The name a statement's value merely refers to (``B = A``, ``:print (A)``), if any."""
    node = stmt.value
    while isinstance(node, ast.Group):
        node = node.inner
    return node.name if isinstance(node, ast.Name) else None


def _fresh_bytes(stmt: ast.Statement, value: Abstract) -> int:
    """Known bytes of a statement's new value (0 for an alias ``B = A`` or an unknown size)."""
    if _alias(stmt) is not None or value.shape is None or None in value.shape:
        return 0
    return 8 * element_count(value.shape)  # type: ignore[arg-type]


def _target(err: EinError, node: ast.Call) -> ast.Expr:
    """The argument a builtin's error points at, else the call itself."""
    if err.arg is not None and 0 <= err.arg < len(node.args):
        return node.args[err.arg]
    return node
