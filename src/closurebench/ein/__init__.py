"""Ein, the tensor-logic language that computes the ClosureBench answers.

The language is specified in ``docs/ein.md`` (following the paper's §2.5 and
Appendices D, E, F): assignments, Einstein summation with full semantics, graph
builtins (``tc``, ``reach``, ``desc``, ``has_path``, ...), and loud, located errors.

Pipeline: :func:`~closurebench.ein.parser.parse` (lark LALR grammar → typed AST
with spans) → :func:`~closurebench.ein.shapes.check_program` (static shape
checker) → :func:`~closurebench.ein.evaluator.evaluate` (numpy). :func:`run` and
:func:`check` wrap the pipeline and guarantee that only
:class:`~closurebench.ein.errors.EinError` ever escapes.

Design decisions:

* ``s = A[i,j] B[i,j]``: an assignment without left indices whose right side holds
  indexed factors is a full contraction to a scalar.
* ``edges(L, N)``: a list whose rows have length 2 (or an empty list) is an edge
  list; anything else must be a square dense 0/1 matrix.
* JSON: integral values below 2**53 in magnitude become ints; see
  :func:`~closurebench.ein.values.to_json_value`.

Example:
    >>> result = run('''
    ... // triangle count (paper §2.5)
    ... A = edges([[0,1,1],[1,0,1],[1,1,0]], 3)
    ... A2[i,k] = A[i,j] A[j,k]
    ... A3[i,j] = A2[i,k] A[k,j]
    ... Result = trace(A3) / 6.0
    ... :print Result
    ... ''')
    >>> result.printed[0][0], format_value(result.value), to_json_value(result.value)
    ('Result', '1', 1)
    >>> check("X = Y + 1")
    Traceback (most recent call last):
    ...
    closurebench.ein.errors.UnknownNameError: line 1, column 5: unknown name `Y` ...
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from closurebench.ein.card import EIN_CARDS, PAPER_CARD, ein_card, syntax_card
from closurebench.ein.errors import (
    ArgumentError,
    ArityError,
    DivisionByZeroError,
    EinBudgetError,
    EinError,
    EinInternalError,
    EinOutputLimitError,
    EinRuntimeError,
    EinSyntaxError,
    EinTimeoutError,
    IndexOutOfRangeError,
    NonIntegerIndexError,
    ResourceLimitError,
    ShapeError,
    UnknownNameError,
)
from closurebench.ein.evaluator import EinResult, evaluate
from closurebench.ein.limits import DEFAULT_LIMITS, Limits
from closurebench.ein.parser import parse, with_source
from closurebench.ein.shapes import check_program
from closurebench.ein.values import format_value, to_json_value

__all__ = [
    "DEFAULT_LIMITS",
    "EIN_CARDS",
    "PAPER_CARD",
    "ArgumentError",
    "ArityError",
    "DivisionByZeroError",
    "EinBudgetError",
    "EinError",
    "EinInternalError",
    "EinOutputLimitError",
    "EinResult",
    "EinRuntimeError",
    "EinSyntaxError",
    "EinTimeoutError",
    "IndexOutOfRangeError",
    "Limits",
    "NonIntegerIndexError",
    "ResourceLimitError",
    "ShapeError",
    "UnknownNameError",
    "check",
    "ein_card",
    "format_value",
    "parse",
    "run",
    "syntax_card",
    "to_json_value",
]


def _guarded(
    source: str, limits: Limits | None, execute: bool, keep: Iterable[str] = ()
) -> EinResult | None:
    limits = limits or DEFAULT_LIMITS
    started = time.monotonic()  # the deadline covers parsing and checking too
    try:
        program = parse(source, limits=limits)
        check_program(program, limits)
        return evaluate(program, limits, keep=keep, started=started) if execute else None
    except EinError as err:
        raise with_source(err, source if isinstance(source, str) else "") from None
    except (RecursionError, MemoryError) as exc:
        raise ResourceLimitError(
            f"out of resources ({type(exc).__name__})", line=1, column=1
        ) from None
    except Exception as exc:  # never let an internal bug crash the caller
        raise EinInternalError(
            f"internal error: {type(exc).__name__}: {exc}", line=1, column=1
        ) from exc


def run(source: str, *, limits: Limits | None = None, keep: Iterable[str] = ()) -> EinResult:
    """Parse, check and run an Ein program.

    The run is bounded by ``limits``: per-tensor caps, a live-bytes budget for all
    tensors alive at once (:attr:`Limits.max_live_bytes`; bindings no later
    statement reads are freed) and a deadline (:attr:`Limits.max_seconds`).

    Args:
        source: The program text.
        limits: Resource caps (default :data:`DEFAULT_LIMITS`).
        keep: Names to keep alive to the end, so that they appear in
            :attr:`EinResult.env` (by default it holds only the result's binding).

    Returns:
        :class:`EinResult` with ``value`` (the last printed value, or the last
        assignment when nothing is printed), ``label`` and ``printed``.

    Raises:
        EinError: Any failure, located, with a caret rendering in ``str(err)``.

    Example:
        >>> float(run("A = edges([[0,1],[1,2]])\\n:print sum(reach(A, 0))").value)
        3.0
    """
    out = _guarded(source, limits, execute=True, keep=keep)
    if out is None:  # pragma: no cover - execute=True always returns a result
        raise EinInternalError("no result", line=1, column=1)
    return out


def check(source: str, *, limits: Limits | None = None) -> None:
    """Parse and statically check a program without running it.

    Raises:
        EinError: The first syntax, name, arity, argument or shape problem found.

    Example:
        >>> check("A = edges([[0,1]])\\nB[i,k] = A[i,j] A[j,k]")
    """
    _guarded(source, limits, execute=False)
