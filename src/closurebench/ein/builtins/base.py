"""How an Ein builtin is declared: parameters, runtime function, static shape rule.

A builtin is a plain Python function decorated with :func:`builtin`. Its
docstring is its help text: the first paragraph becomes its line in the prompt
syntax card (:mod:`closurebench.ein.card`). The decorator records a
:class:`Builtin` on the function as ``__ein__``; the explicit registry table is
:data:`closurebench.ein.builtins.BUILTINS`.

The runtime function receives already-converted arguments — ``numpy`` float64
arrays for ``tensor`` parameters and non-negative Python ``int`` for ``index``,
``axis`` and ``size`` parameters (``None`` for an omitted optional one) — plus the
keyword ``limits``. It raises :class:`~closurebench.ein.errors.EinError`
subclasses without a location; the caller attaches the call's line and column.

Example:
    >>> from closurebench.ein.builtins import BUILTINS
    >>> b = BUILTINS["sum"]
    >>> b.forms()
    ['sum(T)', 'sum(T, d)']
    >>> b.arity()
    (1, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from closurebench.ein.abstract import Abstract
from closurebench.ein.errors import IndexOutOfRangeError, ShapeError
from closurebench.ein.values import int_text

__all__ = [
    "Builtin",
    "Param",
    "builtin",
    "check_axis",
    "check_node",
    "check_square",
    "known_int",
    "result",
]

Kind = Literal["tensor", "index", "axis", "size"]


@dataclass(frozen=True)
class Param:
    """One parameter of a builtin.

    Attributes:
        name: Name used in forms and messages (``A``, ``i``, ``d``, ``N``).
        kind: ``tensor`` (any value), ``index`` (node id or position, integer >= 0),
            ``axis`` (0 or 1, integer >= 0) or ``size`` (integer >= 0).
        ranks: Ranks accepted for a ``tensor`` parameter.
        optional: Whether the parameter may be omitted (only trailing ones).
    """

    name: str
    kind: Kind = "tensor"
    ranks: tuple[int, ...] = (0, 1, 2)
    optional: bool = False


InferFn = Callable[..., Abstract]


@dataclass(frozen=True)
class Builtin:
    """A registered builtin: name, parameters, runtime function and static shape rule.

    Attributes:
        name: The name called in Ein.
        func: Runtime implementation (docstring = help text).
        params: Declared parameters, in order.
        infer: Static rule mapping argument :class:`Abstract` values to the result's.
        group: Builtins sharing a group share one line of the syntax card.
        extension: True for project extensions beyond the paper's language.
    """

    name: str
    func: Callable[..., np.ndarray]
    params: tuple[Param, ...]
    infer: InferFn
    group: str | None = None
    extension: bool = False

    @property
    def doc(self) -> str:
        """The full help text (the function's docstring)."""
        return (self.func.__doc__ or "").strip()

    @property
    def summary(self) -> str:
        """The first paragraph of the docstring, on one line."""
        first = self.doc.split("\n\n", 1)[0]
        return " ".join(first.split())

    def arity(self) -> tuple[int, int]:
        """(fewest, most) arguments accepted."""
        required = sum(1 for p in self.params if not p.optional)
        return required, len(self.params)

    def forms(self) -> list[str]:
        """Call forms, e.g. ``['sum(T)', 'sum(T, d)']``."""
        lo, hi = self.arity()
        names = [p.name for p in self.params]
        return [f"{self.name}({', '.join(names[:k])})" for k in range(lo, hi + 1)]


def builtin(
    name: str,
    *params: Param,
    infer: InferFn,
    group: str | None = None,
    extension: bool = False,
) -> Callable[[Callable[..., np.ndarray]], Callable[..., np.ndarray]]:
    """Declare a function as the Ein builtin ``name`` (records ``func.__ein__``)."""

    def wrap(func: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        func.__ein__ = Builtin(name, func, params, infer, group, extension)  # type: ignore[attr-defined]
        return func

    return wrap


def known_int(a: Abstract | None) -> int | None:
    """The statically known integer held by an argument, if any."""
    return None if a is None else a.int_value()


def result(value: Any) -> np.ndarray:
    """Coerce a builtin's output to a float64 numpy array."""
    return np.asarray(value, dtype=np.float64)


def check_axis(fname: str, d: int, rank: int, arg: int | None = None) -> None:
    """Raise :class:`IndexOutOfRangeError` unless ``0 <= d < rank`` (``arg``: its position)."""
    if not 0 <= d < rank:
        axes = ", ".join(str(k) for k in range(rank)) or "none"
        raise IndexOutOfRangeError(
            f"{fname}: axis {int_text(d)} is out of range for a rank-{rank} value "
            f"(valid axes: {axes})",
            arg=arg,
        )


def check_node(fname: str, what: str, i: int, n: int, arg: int | None = None) -> None:
    """Raise :class:`IndexOutOfRangeError` unless ``0 <= i < n`` (``arg``: its position)."""
    if not 0 <= i < n:
        valid = f"0..{n - 1}" if n else "none: the graph is empty"
        raise IndexOutOfRangeError(
            f"{fname}: {what} {int_text(i)} is out of range (valid: {valid})", arg=arg
        )


def check_square(fname: str, shape: tuple[Any, ...] | None) -> None:
    """Raise :class:`ShapeError` if a known rank-2 shape is not square."""
    if shape is None or len(shape) != 2:
        return
    n, m = shape
    if n is not None and m is not None and n != m:
        raise ShapeError(f"{fname} needs a square matrix, got shape ({n}, {m})")
