"""Einstein summation: the structure of an einsum product and its capped contraction.

The right side of ``Name[i,j] = ...`` (or of ``Name = ...`` when it holds indexed
factors: a full contraction to a scalar) is a *product*: indexed factors
(``A[i,j]``, ``ones(3)[j]``) and scalar constants joined by juxtaposition or
``*``, optionally divided by scalar constants and negated. An index that appears
on the right but not on the left is summed; the left side's index list fixes the
output's axis order.

The contraction pre-sums indices that occur in one factor only, asks
:func:`numpy.einsum_path` for a greedy pairwise order, replays that order to check
every intermediate against :attr:`Limits.max_elements` and every pairwise step
against :attr:`Limits.max_einsum_work` *before* computing, then runs the steps one
by one with :func:`numpy.einsum` (BLAS where possible). Before each step it checks
the run's deadline and live-bytes budget (:mod:`closurebench.ein.budget`) for the
step's result, the intermediates still waiting, and the scratch copies BLAS may
make of the step's operands.

Example:
    >>> A = np.array([[0.0, 1.0], [2.0, 3.0]])
    >>> contract([(A, ("i", "j"))], ("j", "i")).tolist()
    [[0.0, 2.0], [1.0, 3.0]]
    >>> float(contract([(A, ("i", "j")), (A, ("i", "j"))], ()))
    14.0
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod

import numpy as np

from closurebench.ein import ast
from closurebench.ein.abstract import Dim, describe_shape, element_count, ensure_elements
from closurebench.ein.budget import charge, owner, tick
from closurebench.ein.errors import EinSyntaxError, ResourceLimitError, ShapeError
from closurebench.ein.limits import DEFAULT_LIMITS, Limits

__all__ = [
    "Product",
    "check_factor_count",
    "check_output_indices",
    "contains_indexed",
    "contract",
    "first_indexed",
    "split_product",
    "stray_indexed_error",
    "unify_indices",
]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def first_indexed(node: ast.Expr) -> ast.Indexed | None:
    """The first indexed factor anywhere inside ``node`` (iterative walk), else ``None``."""
    stack: list[ast.Expr] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, ast.Indexed):
            return cur
        if isinstance(cur, ast.BinOp):
            stack.extend((cur.right, cur.left))
        elif isinstance(cur, ast.Neg):
            stack.append(cur.operand)
        elif isinstance(cur, ast.Group):
            stack.append(cur.inner)
        elif isinstance(cur, ast.Call):
            stack.extend(reversed(cur.args))
    return None


def contains_indexed(node: ast.Expr) -> bool:
    """Whether ``node`` holds an indexed factor (so it is an einsum product)."""
    return first_indexed(node) is not None


def stray_indexed_error(node: ast.Indexed) -> EinSyntaxError:
    """The error for an indexed factor outside an einsum product."""
    return EinSyntaxError(
        "an indexed factor like A[i,j] may only appear in an einsum product at the top of "
        "an assignment, e.g. C[i,k] = A[i,j] B[j,k] or s = A[i,j] B[i,j]; assign the "
        "product to a name first",
        line=node.span.line,
        column=node.span.column,
    )


@dataclass
class Product:
    """An einsum right side, flattened.

    Attributes:
        factors: The indexed factors, left to right.
        multipliers: Scalar constant expressions multiplied in.
        divisors: Scalar constant expressions divided by (with the ``/`` node for errors).
        sign: +1.0 or -1.0 from unary minus signs.
    """

    factors: list[ast.Indexed] = field(default_factory=list)
    multipliers: list[ast.Expr] = field(default_factory=list)
    divisors: list[tuple[ast.Expr, ast.BinOp]] = field(default_factory=list)
    sign: float = 1.0


def split_product(node: ast.Expr) -> Product:
    """Flatten an einsum right side into factors and constants.

    Raises:
        EinSyntaxError: ``+``/``-`` between indexed terms, an indexed divisor, or an
            indexed factor nested inside a call or another factor's base.

    Example:
        >>> from closurebench.ein.parser import parse
        >>> p = split_product(parse("s = -2 A[i,j] B[j,i] / 3").statements[0].value)
        >>> len(p.factors), len(p.multipliers), len(p.divisors), p.sign
        (2, 1, 1, -1.0)
    """
    out = Product()
    stack: list[ast.Expr] = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, ast.Group):
            stack.append(cur.inner)
        elif isinstance(cur, ast.Neg):
            out.sign = -out.sign
            stack.append(cur.operand)
        elif isinstance(cur, ast.Indexed):
            for arg in cur.base.args if isinstance(cur.base, ast.Call) else ():
                nested = first_indexed(arg)
                if nested is not None:
                    raise stray_indexed_error(nested)
            out.factors.append(cur)
        elif not contains_indexed(cur):
            out.multipliers.append(cur)
        elif isinstance(cur, ast.BinOp) and cur.op == "*":
            stack.extend((cur.right, cur.left))
        elif isinstance(cur, ast.BinOp) and cur.op == "/":
            nested = first_indexed(cur.right)
            if nested is not None:
                raise EinSyntaxError(
                    "an einsum product cannot divide by an indexed factor; divide only by "
                    "scalar constants, or compute the quotient elementwise with names",
                    line=cur.span.line,
                    column=cur.span.column,
                )
            out.divisors.append((cur.right, cur))
            stack.append(cur.left)
        elif isinstance(cur, ast.BinOp):
            raise EinSyntaxError(
                f"`{cur.op}` cannot combine einsum terms: the right side of an einsum is a "
                "product of indexed factors and constants; assign each product to its own "
                f"name, then combine the names with `{cur.op}`",
                line=cur.span.line,
                column=cur.span.column,
            )
        else:  # a call whose arguments hold an indexed factor
            nested = first_indexed(cur)
            if nested is None:  # pragma: no cover - contains_indexed(cur) was true
                raise EinSyntaxError("malformed einsum product")
            raise stray_indexed_error(nested)
    # The stack pops right-to-left pushes in reverse, so factors come out left to right.
    return out


def unify_indices(
    factors: list[tuple[ast.Indexed, tuple[Dim, ...] | None, str]],
) -> dict[str, Dim]:
    """Check ranks and index sizes of einsum factors; return each index's size.

    Args:
        factors: ``(node, shape, text)`` per factor (``shape`` ``None`` if unknown,
            dimensions ``None`` if unknown; ``text`` is the factor's source).

    Raises:
        ShapeError: A factor's rank differs from its index count, or one index has two
            different sizes (the message names both factors and shapes).
    """
    sizes: dict[str, tuple[Dim, str, tuple[Dim, ...]]] = {}
    for node, shape, text in factors:
        if shape is None:
            continue
        if len(shape) != len(node.indices):
            raise ShapeError(
                f"`{text}` gives {len(node.indices)} index(es) to {rank_text(shape)} of "
                f"{describe_shape(shape)}; use exactly one index per axis",
                line=node.span.line,
                column=node.span.column,
            )
        for ix, dim in zip(node.indices, shape, strict=True):
            seen = sizes.get(ix.name)
            if seen is None or seen[0] is None:
                sizes[ix.name] = (dim, text, shape)
            elif dim is not None and dim != seen[0]:
                raise ShapeError(
                    f"index {ix.name} has size {dim} in `{text}` ({describe_shape(shape)}) but "
                    f"size {seen[0]} in `{seen[1]}` ({describe_shape(seen[2])})",
                    line=ix.span.line,
                    column=ix.span.column,
                )
    out: dict[str, Dim] = {}
    for node, _shape, _text in factors:
        for ix in node.indices:
            out[ix.name] = sizes[ix.name][0] if ix.name in sizes else None
    return out


def rank_text(shape: tuple[Dim, ...]) -> str:
    """``a rank-2 value`` etc."""
    return f"a rank-{len(shape)} value"


def check_output_indices(out: tuple[ast.Index, ...], right: set[str]) -> None:
    """Left-hand indices: distinct, at most two, and each present on the right."""
    seen: set[str] = set()
    for ix in out:
        if ix.name in seen:
            raise EinSyntaxError(
                f"index {ix.name} appears twice on the left; each output axis needs its own "
                "index (use diag(...) for a diagonal)",
                line=ix.span.line,
                column=ix.span.column,
            )
        seen.add(ix.name)
    if len(out) > 2:
        raise ShapeError(
            f"the left side has {len(out)} indices, but values have rank at most 2 "
            "(rank >= 3 exists only inside an einsum); sum an index out",
            line=out[2].span.line,
            column=out[2].span.column,
        )
    for ix in out:
        if ix.name not in right:
            raise ShapeError(
                f"left-hand index {ix.name} does not appear on the right side, so its size "
                "is unknown; every output index must index some factor",
                line=ix.span.line,
                column=ix.span.column,
            )


def check_factor_count(product: Product, limits: Limits) -> None:
    """Raise :class:`ResourceLimitError` for too many indexed factors."""
    n = len(product.factors)
    if n > limits.max_einsum_factors:
        node = product.factors[limits.max_einsum_factors]
        raise ResourceLimitError(
            f"einsum has {n} indexed factors; the limit is {limits.max_einsum_factors} "
            "(Limits.max_einsum_factors) — split it into several assignments",
            line=node.span.line,
            column=node.span.column,
        )


def _plan_check(
    subs: list[str], out: str, size: dict[str, int], path: list[object], limits: Limits
) -> None:
    """Replay numpy's pairwise contraction order and check every cap."""
    ops = [set(s) for s in subs]
    for step in path[1:]:
        picked = sorted(step, reverse=True)  # type: ignore[call-overload]
        touched: set[str] = set()
        for k in picked:
            touched |= ops.pop(k)
        work = prod(size[c] for c in touched)
        if work > limits.max_einsum_work:
            raise ResourceLimitError(
                f"an einsum contraction step would take {work} multiply-adds; the limit is "
                f"{limits.max_einsum_work} (Limits.max_einsum_work)"
            )
        remaining = set(out).union(*ops) if ops else set(out)
        new = touched & remaining
        n = prod(size[c] for c in new)
        if n > limits.max_elements:
            raise ResourceLimitError(
                f"an einsum intermediate would have {n} elements; the limit is "
                f"{limits.max_elements} (Limits.max_elements)"
            )
        ops.append(new)


def contract(
    factors: list[tuple[np.ndarray, tuple[str, ...]]],
    output: tuple[str, ...],
    limits: Limits = DEFAULT_LIMITS,
) -> np.ndarray:
    """Einstein summation of ``factors`` (array, index names) into ``output`` order.

    Sizes must already agree (see :func:`unify_indices`). Every intermediate and the
    output are checked against ``limits`` before anything is allocated.

    Example:
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
        >>> contract([(A, ("i", "j")), (A, ("j", "i"))], ("i", "j")).tolist()
        [[1.0, 6.0], [6.0, 16.0]]
        >>> contract([(A, ("i", "i"))], ("i",)).tolist()
        [1.0, 4.0]
    """
    letter: dict[str, str] = {}
    size: dict[str, int] = {}
    for arr, names in factors:
        for name, dim in zip(names, arr.shape, strict=True):
            letter.setdefault(name, _LETTERS[len(letter) % len(_LETTERS)])
            size[letter[name]] = int(dim)
    if len(letter) > len(_LETTERS):
        raise ResourceLimitError(f"einsum uses {len(letter)} distinct indices; at most 52")
    out = "".join(letter[n] for n in output)
    ensure_elements(tuple(size[c] for c in out), limits, "the einsum result")
    subs = ["".join(letter[n] for n in names) for _, names in factors]
    ops = [arr for arr, _ in factors]
    fresh = [False] * len(ops)  # which operands are intermediates made here
    # Pre-sum indices private to one factor (and take diagonals of repeated ones): cheap,
    # and it keeps e.g. s = A[i,j] B[k,l] from iterating over i*j*k*l.
    for k, sub in enumerate(subs):
        others = set(out).union(*(set(s) for m, s in enumerate(subs) if m != k))
        keep = "".join(dict.fromkeys(c for c in sub if c in others))
        if keep != sub:
            charge(_held(ops, fresh) + 8 * prod(size[c] for c in keep), "an einsum pre-sum")
            ops[k] = np.einsum(f"{sub}->{keep}", ops[k])
            subs[k] = keep
            fresh[k] = True
    spec = ",".join(subs) + "->" + out
    if len(ops) == 1:
        work = element_count(ops[0].shape)
        if work > limits.max_einsum_work:
            raise ResourceLimitError(
                f"the einsum would take {work} steps; the limit is {limits.max_einsum_work}"
            )
        charge(_held(ops, fresh) + 8 * prod(size[c] for c in out), "the einsum")
        res = np.einsum(spec, ops[0])
        if res.base is not None or not res.flags.c_contiguous:
            res = np.array(res, dtype=np.float64, order="C")
        return np.asarray(res, dtype=np.float64)
    path, _ = np.einsum_path(spec, *ops, optimize="greedy")
    _plan_check(subs, out, size, path, limits)
    for step in path[1:]:
        picked = sorted(step, reverse=True)
        taken = [(ops.pop(k), subs.pop(k), fresh.pop(k)) for k in picked]
        remaining = set(out).union(*(set(s) for s in subs))
        seen = dict.fromkeys("".join(sub for _, sub, _ in taken))
        new = out if not ops else "".join(c for c in seen if c in remaining)
        # The result, every intermediate still alive (the waiting ones and this step's
        # operands), and the copies tensordot may make of this step's operands.
        need = 8 * prod(size[c] for c in new) + _held(ops, fresh)
        need += sum((owner(a).nbytes if made else 0) + a.nbytes for a, _, made in taken)
        tick("an einsum contraction step")
        charge(need, "an einsum contraction step")
        step_spec = ",".join(sub for _, sub, _ in taken) + "->" + new
        arrays = [a for a, _, _ in taken]
        del taken
        ops.append(np.einsum(step_spec, *arrays, optimize=True))
        subs.append(new)
        fresh.append(True)
        del arrays
    return np.asarray(ops[0], dtype=np.float64)


def _held(ops: list[np.ndarray], fresh: list[bool]) -> int:
    """Bytes of the einsum intermediates (not the input factors) in ``ops``."""
    return sum(owner(a).nbytes for a, made in zip(ops, fresh, strict=True) if made)
