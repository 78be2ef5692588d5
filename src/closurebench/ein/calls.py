"""Argument checks shared by the shape checker (static) and the evaluator (runtime).

Both sides give the same error for the same mistake: wrong arity
(:class:`ArityError`), a tensor of a rank the builtin does not take
(:class:`ArgumentError`), a node id / axis / size that is not a scalar integer
(:class:`NonIntegerIndexError`), a negative one, or a size larger than the element cap
(:class:`ResourceLimitError`: no tensor can have an axis longer than
:attr:`Limits.max_elements`, so ``ones(1e308)`` fails at its argument before any
shape arithmetic). Huge values are shown as ``1e+308``, not as 309 digits.

Example:
    >>> from closurebench.ein.builtins import BUILTINS
    >>> check_arity(BUILTINS["tc"], 2)
    Traceback (most recent call last):
    ...
    closurebench.ein.errors.ArityError: tc takes 1 argument (tc(A)), got 2
    >>> int_argument(BUILTINS["reach"], BUILTINS["reach"].params[1], np.asarray(2.0))
    2
    >>> int_argument(BUILTINS["ones"], BUILTINS["ones"].params[0], np.asarray(1e308))
    Traceback (most recent call last):
    ...
    closurebench.ein.errors.ResourceLimitError: ones: size N = 1e+308 is larger than the \
element cap 10000000 (Limits.max_elements), so no tensor can have it; pass a size of at \
most 10000000 (or raise Limits.max_elements)
"""

from __future__ import annotations

import difflib

import numpy as np

from closurebench.ein.builtins import BUILTINS, Builtin, Param
from closurebench.ein.errors import (
    ArgumentError,
    ArityError,
    IndexOutOfRangeError,
    NonIntegerIndexError,
    ResourceLimitError,
    UnknownNameError,
)
from closurebench.ein.limits import DEFAULT_LIMITS, Limits
from closurebench.ein.values import int_text, rank_name

__all__ = [
    "check_arity",
    "check_int_rank",
    "check_tensor_rank",
    "int_argument",
    "unknown_builtin",
    "unknown_name",
]

_KIND_TEXT = {"index": "node id / position", "axis": "axis", "size": "size"}


def unknown_builtin(name: str) -> UnknownNameError:
    """The error for a call to a builtin that does not exist, with suggestions."""
    close = difflib.get_close_matches(name, list(BUILTINS), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return UnknownNameError(
        f"unknown builtin `{name}`{hint} (builtins: {', '.join(sorted(BUILTINS))})"
    )


def unknown_name(name: str, defined: list[str]) -> UnknownNameError:
    """The error for a reference to a name that was never assigned."""
    if name in BUILTINS:
        return UnknownNameError(
            f"`{name}` is a builtin, not a value; call it, e.g. {BUILTINS[name].forms()[0]}"
        )
    close = difflib.get_close_matches(name, defined, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    known = ", ".join(defined) if defined else "none yet"
    index_hint = ""
    if len(name) == 1 and name.islower():
        index_hint = (
            f"; an index like `{name}` exists only inside indexed factors such as "
            f"A[i,{name}], and builtins take integer positions, e.g. select(T, 2, 0) for row 2"
        )
    return UnknownNameError(
        f"unknown name `{name}`{hint} — assign it before use (defined so far: {known})" + index_hint
    )


def check_arity(b: Builtin, n_args: int) -> None:
    """Raise :class:`ArityError` if ``n_args`` does not fit ``b``."""
    lo, hi = b.arity()
    if lo <= n_args <= hi:
        return
    count = str(lo) if lo == hi else f"{lo} or {hi}" if hi == lo + 1 else f"{lo} to {hi}"
    noun = "argument" if hi == 1 else "arguments"
    raise ArityError(f"{b.name} takes {count} {noun} ({' / '.join(b.forms())}), got {n_args}")


def check_tensor_rank(b: Builtin, p: Param, rank: int | None, shape_text: str) -> None:
    """Raise :class:`ArgumentError` if a known rank is not accepted by tensor parameter ``p``."""
    if rank is None or rank in p.ranks:
        return
    wanted = " or ".join(f"{rank_name(r)} (rank {r})" for r in p.ranks)
    raise ArgumentError(
        f"{b.name}: {p.name} must be {wanted}, got {rank_name(rank)} of {shape_text}"
    )


def check_int_rank(b: Builtin, p: Param, rank: int | None, shape_text: str) -> None:
    """Raise :class:`ArgumentError` if an integer parameter got a non-scalar."""
    if rank is None or rank == 0:
        return
    raise ArgumentError(
        f"{b.name}: {p.name} is a {_KIND_TEXT[p.kind]} and must be a scalar integer, "
        f"got {rank_name(rank)} of {shape_text}"
    )


def check_int_value(b: Builtin, p: Param, x: float, limits: Limits | None = None) -> int:
    """Return ``x`` as an ``int``; raise unless it is a non-negative integer (and a size fits).

    Args:
        b: The builtin called.
        p: The integer parameter ``x`` is passed for.
        x: The argument's value.
        limits: The caps; a ``size`` above :attr:`Limits.max_elements` is refused.
    """
    x = float(x)
    if not x.is_integer():  # also inf and nan
        raise NonIntegerIndexError(
            f"{b.name}: {p.name} is a {_KIND_TEXT[p.kind]} and must be an integer, got {x!r}"
        )
    i = int(x)
    if i < 0:
        if p.kind == "size":
            raise ArgumentError(f"{b.name}: size {p.name} must be >= 0, got {int_text(i)}")
        raise IndexOutOfRangeError(
            f"{b.name}: {_KIND_TEXT[p.kind]} {p.name} = {int_text(i)} is negative; use 0 or more"
        )
    cap = (limits or DEFAULT_LIMITS).max_elements
    if p.kind == "size" and i > cap:
        raise ResourceLimitError(
            f"{b.name}: size {p.name} = {int_text(i)} is larger than the element cap {cap} "
            f"(Limits.max_elements), so no tensor can have it; pass a size of at most {cap} "
            "(or raise Limits.max_elements)"
        )
    return i


def int_argument(b: Builtin, p: Param, value: np.ndarray, limits: Limits | None = None) -> int:
    """Convert a runtime integer argument (literal or rank-0 value holding an integer)."""
    check_int_rank(b, p, value.ndim, f"shape {value.shape}")
    return check_int_value(b, p, float(value), limits)
