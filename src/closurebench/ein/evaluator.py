"""The numpy evaluator: runs a checked program top to bottom.

Values are float64 numpy arrays of rank 0, 1 or 2. Einsum products go through
:func:`closurebench.ein.einsum.contract`; builtins through the registry. Every
argument, shape, size and divisor is validated again at run time (whatever the
static checker could not know), always *before* the allocation or computation it
guards. An :class:`~closurebench.ein.errors.EinError` raised without a location
is located at the innermost enclosing node.

The whole run is bounded by a :class:`~closurebench.ein.budget.Budget`: the bytes
of all live tensors (bindings, printed values, the statement's temporaries and the
coming allocation) against :attr:`Limits.max_live_bytes`, and the wall clock
against :attr:`Limits.max_seconds`, checked before every operation. Bindings that
no later statement reads (:mod:`closurebench.ein.liveness`) are freed right after
their last use, so :attr:`EinResult.env` holds only what is still live at the end:
the result's binding and the names passed in ``keep``.

The run's output (the ``label = value`` lines of its prints, or of its result when it
prints nothing) is counted by an :class:`~closurebench.ein.output.OutputMeter` against
:attr:`Limits.max_output_bytes` as each value is printed, before any text is made.

Example:
    >>> from closurebench.ein.parser import parse
    >>> out = evaluate(parse("A = edges([[0,1],[1,2],[2,0]])\\n:print trace(tc(A))"))
    >>> out.printed[0][0], float(out.value)
    ('trace(tc(A))', 3.0)
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from closurebench.ein import ast
from closurebench.ein.abstract import ensure_elements
from closurebench.ein.budget import Budget, Clock, owner
from closurebench.ein.builtins import BUILTINS
from closurebench.ein.calls import (
    check_arity,
    check_tensor_rank,
    int_argument,
    unknown_builtin,
    unknown_name,
)
from closurebench.ein.einsum import (
    check_factor_count,
    check_output_indices,
    contains_indexed,
    contract,
    split_product,
    stray_indexed_error,
    unify_indices,
)
from closurebench.ein.errors import (
    DivisionByZeroError,
    EinError,
    EinInternalError,
    EinSyntaxError,
    ResourceLimitError,
    ShapeError,
)
from closurebench.ein.limits import DEFAULT_LIMITS, Limits
from closurebench.ein.liveness import dead_after, result_index
from closurebench.ein.output import OutputMeter
from closurebench.ein.values import ensure_finite, literal_value, rank_name

__all__ = ["EinResult", "evaluate"]

_OPS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


@dataclass
class EinResult:
    """The outcome of running a program.

    Attributes:
        value: The last printed value, or the last assigned one when nothing is printed.
        label: The label of ``value``: the print label or the assigned name.
        printed: ``(label, value)`` for every ``:print``, in order; the label is the
            name for ``:print Name`` and the expression's text otherwise.
        env: The bindings still live at the end: the result's name (when the result
            is an assignment) and every name the caller asked to keep.
        peak_bytes: The most live tensor bytes the run's budget checks saw.
        output_bytes: An upper bound (exact for integral values) of the bytes of the
            run's output, the ``label = value`` lines, counted against
            :attr:`Limits.max_output_bytes`.
    """

    value: np.ndarray
    label: str
    printed: list[tuple[str, np.ndarray]] = field(default_factory=list)
    env: dict[str, np.ndarray] = field(default_factory=dict)
    peak_bytes: int = 0
    output_bytes: int = 0


class _Evaluator:
    def __init__(
        self, program: ast.Program, limits: Limits, budget: Budget, keep: Iterable[str]
    ) -> None:
        self.program = program
        self.limits = limits
        self.budget = budget
        self.keep = frozenset(keep)
        self.env: dict[str, np.ndarray] = {}

    def fail(self, err: EinError, node: ast.Expr | ast.Statement | ast.Index) -> EinError:
        line = node.span.line
        return err.locate(line, node.span.column, self.program.line_text(line))

    # statements ----------------------------------------------------------------
    def top(self, value: ast.Expr) -> np.ndarray:
        if contains_indexed(value):
            return self.einsum(value, ())
        return self.expr(value)

    def einsum(self, value: ast.Expr, out: tuple[ast.Index, ...]) -> np.ndarray:
        self.budget.tick("an einsum product")
        product = split_product(value)
        check_factor_count(product, self.limits)
        scale = product.sign
        for const in product.multipliers:
            scale *= float(self.scalar_constant(const))
        for const, op in product.divisors:
            d = float(self.scalar_constant(const))
            if d == 0.0:
                raise self.fail(
                    DivisionByZeroError(
                        f"division by zero: the divisor `{self.program.text(const)}` is 0; "
                        "Ein does not produce inf"
                    ),
                    op,
                )
            scale /= d
        arrays = [self.expr(f.base) for f in product.factors]
        unify_indices(
            [
                (f, tuple(a.shape), self.program.text(f))
                for f, a in zip(product.factors, arrays, strict=True)
            ]
        )
        right = {ix.name for f in product.factors for ix in f.indices}
        check_output_indices(out, right)
        operands = [
            (a, tuple(ix.name for ix in f.indices))
            for f, a in zip(product.factors, arrays, strict=True)
        ]
        with np.errstate(all="ignore"):
            if operands:
                result = contract(operands, tuple(ix.name for ix in out), self.limits)
            else:
                result = np.asarray(1.0)
            if scale != 1.0:  # x * 1.0 == x exactly, so skip the extra copy
                self.budget.check(owner(result).nbytes + result.nbytes, "the einsum's scale")
                result = result * scale
        return ensure_finite(np.asarray(result, dtype=np.float64), "the einsum")

    def scalar_constant(self, node: ast.Expr) -> np.ndarray:
        v = self.expr(node)
        if v.ndim != 0:
            raise self.fail(
                ShapeError(
                    f"`{self.program.text(node)}` is {rank_name(v.ndim)} of shape {v.shape} "
                    "with no indices; in an einsum product every tensor needs an index per "
                    "axis, e.g. v[i], and only scalars may stand alone"
                ),
                node,
            )
        return v

    # expressions -------------------------------------------------------------
    def expr(self, node: ast.Expr) -> np.ndarray:
        """Evaluate ``node``; its value counts as a temporary until the statement ends.

        The temporaries of ``node``'s operands are released when its own value
        exists (the operands are garbage then); a name's value is counted by its
        binding, not as a temporary.
        """
        budget = self.budget
        mark = budget.temp
        try:
            value = self._expr(node)
        except EinError as err:
            raise self.fail(err, node) from None
        if not isinstance(node, ast.Name | ast.Group):
            budget.temp = mark + owner(value).nbytes
        return value

    def _expr(self, node: ast.Expr) -> np.ndarray:
        if isinstance(node, ast.Number):
            return np.asarray(node.value, dtype=np.float64)
        if isinstance(node, ast.Name):
            if node.name not in self.env:
                raise unknown_name(node.name, list(self.env))
            return self.env[node.name]
        if isinstance(node, ast.ListLiteral):
            return literal_value(node)
        if isinstance(node, ast.Group):
            return self.expr(node.inner)
        if isinstance(node, ast.Neg):
            operand = self.expr(node.operand)
            self.budget.tick("unary `-`")
            self.budget.check(operand.nbytes, "unary `-`")
            return -operand
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise stray_indexed_error(node)

    def binop(self, node: ast.BinOp) -> np.ndarray:
        left, right = self.expr(node.left), self.expr(node.right)
        self.budget.tick(f"`{node.op}`")
        if node.implicit:
            raise self.fail(stray_indexed_error(node.right), node.right)  # type: ignore[arg-type]
        try:
            shape = np.broadcast_shapes(left.shape, right.shape)
        except ValueError:
            raise self.fail(
                ShapeError(
                    f"`{node.op}`: cannot broadcast shape {left.shape} with shape "
                    f"{right.shape}; the operands must broadcast"
                ),
                node,
            ) from None
        ensure_elements(shape, self.limits, f"`{node.op}`")
        if node.op == "/" and (right == 0).any():
            raise self.fail(
                DivisionByZeroError(
                    f"division by zero: the divisor `{self.program.text(node.right)}` is (or "
                    "contains) 0; Ein does not produce inf"
                ),
                node,
            )
        with np.errstate(all="ignore"):
            out = _OPS[node.op](left, right)
        try:
            return ensure_finite(np.asarray(out, dtype=np.float64), f"`{node.op}`")
        except EinError as err:
            raise self.fail(err, node) from None

    def call(self, node: ast.Call) -> np.ndarray:
        b = BUILTINS.get(node.func)
        if b is None:
            raise self.fail(unknown_builtin(node.func), node)
        try:
            check_arity(b, len(node.args))
        except EinError as err:
            raise self.fail(err, node) from None
        self.budget.tick(f"{b.name}(...)")
        args: list[object] = []
        for p, arg_node in zip(b.params, node.args, strict=False):
            value = self.expr(arg_node)
            try:
                if p.kind == "tensor":
                    check_tensor_rank(b, p, value.ndim, f"shape {value.shape}")
                    args.append(value)
                else:
                    args.append(int_argument(b, p, value, self.limits))
            except EinError as err:
                raise self.fail(err, arg_node) from None
        try:
            with np.errstate(all="ignore"):
                out = np.asarray(b.func(*args, limits=self.limits), dtype=np.float64)
            if out.ndim > 2:  # pragma: no cover - builtins return rank <= 2
                raise EinInternalError(f"{b.name} returned a rank-{out.ndim} value")
            return ensure_finite(out, f"{b.name}(...)")
        except EinError as err:
            raise self.fail(err, _target(err, node)) from None

    def run(self) -> EinResult:
        printed: list[tuple[str, np.ndarray]] = []
        last: tuple[str, np.ndarray] | None = None
        budget = self.budget
        stmts = self.program.statements
        dead = dead_after(self.program, self.keep)
        final = result_index(self.program)
        meter = OutputMeter(self.limits)
        prints = any(isinstance(stmt, ast.Print) for stmt in stmts)
        for k, stmt in enumerate(stmts):
            try:
                budget.tick("this statement")
                if isinstance(stmt, ast.EinsumAssign):
                    value = self.einsum(stmt.value, stmt.indices)
                else:
                    value = self.top(stmt.value)
                if isinstance(stmt, ast.Print):
                    meter.charge(stmt.label, value)
                elif k == final and not prints:
                    meter.charge(stmt.target, value, result=True)
            except EinError as err:
                raise self.fail(err, stmt) from None
            except (RecursionError, MemoryError) as exc:
                raise self.fail(
                    ResourceLimitError(f"out of resources ({type(exc).__name__})"), stmt
                ) from None
            except Exception as exc:
                raise self.fail(
                    EinInternalError(f"internal error: {type(exc).__name__}: {exc}"), stmt
                ) from exc
            budget.temp = 0
            if isinstance(stmt, ast.Print):
                budget.hold(value)  # printed values stay in the result
                printed.append((stmt.label, value))
                label = stmt.label
            else:
                old = self.env.get(stmt.target)
                budget.hold(value)
                self.env[stmt.target] = value
                if old is not None:
                    budget.release(old)
                label = stmt.target
            if k == final:
                last = (label, value)
            for name in dead[k]:
                gone = self.env.pop(name, None)
                if gone is not None:
                    budget.release(gone)
            del value
        if last is None:
            raise EinSyntaxError(
                "the program has no statements; assign a value, e.g. A = edges([[0,1]]), "
                "and :print it",
                line=1,
                column=1,
                source_line=self.program.line_text(1),
            )
        return EinResult(
            last[1], last[0], printed, dict(self.env), budget.peak, output_bytes=meter.printed
        )


def evaluate(
    program: ast.Program,
    limits: Limits | None = None,
    *,
    keep: Iterable[str] = (),
    clock: Clock = time.monotonic,
    started: float | None = None,
) -> EinResult:
    """Run a parsed (and normally already checked) program.

    Args:
        program: The parsed program.
        limits: Resource caps (default :data:`~closurebench.ein.limits.DEFAULT_LIMITS`).
        keep: Names whose bindings stay alive to the end and appear in
            :attr:`EinResult.env` (they count against the live-bytes budget).
        clock: Monotonic clock in seconds for the deadline (injectable for tests).
        started: When the run started on ``clock`` (default: now); the deadline is
            ``started + limits.max_seconds``.

    Returns:
        The :class:`EinResult`.

    Raises:
        EinError: Any failure, with its line and column; :class:`EinBudgetError`
            or :class:`EinTimeoutError` when the run exceeds its budget or deadline.

    Example:
        >>> from closurebench.ein.parser import parse
        >>> prog = parse("A = ones(2)\\nB = A + 1\\nC = B * 2")
        >>> sorted(evaluate(prog).env), sorted(evaluate(prog, keep={"A"}).env)
        (['C'], ['A', 'C'])
    """
    limits = limits or DEFAULT_LIMITS
    budget = Budget(limits, clock, started)
    with budget.active():
        return _Evaluator(program, limits, budget, keep).run()


def _target(err: EinError, node: ast.Call) -> ast.Expr:
    """The argument a builtin's error points at, else the call itself."""
    if err.arg is not None and 0 <= err.arg < len(node.args):
        return node.args[err.arg]
    return node
