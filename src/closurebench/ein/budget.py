"""The run-wide budget of one Ein evaluation: live tensor bytes and a deadline.

Ein runs untrusted, model-written programs, so one run must never exhaust the
machine. Per-tensor caps (:attr:`Limits.max_elements`) are not enough: 400 lines
of ``Bk = A + k`` over a 3000×3000 ``A`` stay under every per-tensor cap and still
grow to 24 GB. A :class:`Budget` therefore tracks, for the whole run,

* **held bytes**: every distinct array kept by a binding or a ``:print`` (an alias
  ``B = A`` or a printed binding counts once; a view counts its whole base, which
  it keeps alive);
* **temporary bytes**: the values the statement being evaluated holds (operands
  waiting for their operator, einsum factors and intermediates);

and every allocation is :meth:`~Budget.check`-ed *before* it happens against
:attr:`Limits.max_live_bytes`, counting the predicted result plus any scratch
memory the operation needs. :meth:`~Budget.tick` compares the clock with the
deadline (:attr:`Limits.max_seconds` after the run started); the evaluator calls
it before every operation and einsum step.

Builtins reach the active budget through :func:`charge`, which checks against the
budget of the evaluation running in the current context (a no-op outside one, so
builtins stay callable on their own).

Example:
    >>> from closurebench.ein.limits import Limits
    >>> b = Budget(Limits(max_live_bytes=1000), clock=lambda: 0.0)
    >>> b.hold(np.zeros(100))  # 800 bytes
    >>> b.live
    800
    >>> b.check(100, "`+`")
    >>> b.check(400, "`+`")
    Traceback (most recent call last):
    ...
    closurebench.ein.errors.EinBudgetError: `+` would allocate 400 B while 800 B of \
tensors are live, 1.2 KB in all; the budget is 1000 B (Limits.max_live_bytes): raise \
Limits.max_live_bytes (closurebench ein run --max-live-bytes) or keep fewer or smaller \
values alive
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from closurebench.ein.errors import EinBudgetError, EinTimeoutError
from closurebench.ein.limits import Limits

__all__ = ["Budget", "charge", "format_bytes", "owner", "tick"]

Clock = Callable[[], float]

_ACTIVE: ContextVar[Budget | None] = ContextVar("ein_budget", default=None)


def format_bytes(n: int) -> str:
    """Render a byte count for messages (binary units).

    Example:
        >>> format_bytes(512), format_bytes(3 * 2**20), format_bytes(24 * 2**30)
        ('512 B', '3.0 MB', '24.0 GB')
    """
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1024
        if value < 1024 or unit == "TB":
            break
    return f"{value:.1f} {unit}"


def owner(arr: np.ndarray) -> np.ndarray:
    """The array that owns ``arr``'s memory (``arr`` itself unless it is a view).

    Example:
        >>> a = np.zeros((4, 4))
        >>> owner(a[0]) is a, owner(a.T) is a, owner(a) is a
        (True, True, True)
    """
    cur = arr
    while isinstance(cur.base, np.ndarray):
        cur = cur.base
    return cur


class Budget:
    """Live-bytes accounting and the deadline of one evaluation.

    Args:
        limits: The caps; :attr:`Limits.max_live_bytes` and :attr:`Limits.max_seconds`.
        clock: Monotonic clock in seconds (injectable for deterministic tests).
        started: When the run started on ``clock`` (default: now).

    Attributes:
        held: Bytes of the distinct arrays held by bindings and prints.
        temp: Bytes of the current statement's temporaries (set by the evaluator).
        peak: The largest ``held + temp + allocation`` checked so far.
    """

    def __init__(self, limits: Limits, clock: Clock = time.monotonic, started: float | None = None):
        self.limits = limits
        self.clock = clock
        self.started = clock() if started is None else started
        self.deadline = self.started + limits.max_seconds
        self.held = 0
        self.temp = 0
        self.peak = 0
        self._refs: dict[int, tuple[np.ndarray, int]] = {}

    @property
    def live(self) -> int:
        """Bytes live right now: held values plus the statement's temporaries."""
        return self.held + self.temp

    def check(self, nbytes: int, what: str) -> None:
        """Raise :class:`EinBudgetError` unless ``nbytes`` more fit the budget.

        Args:
            nbytes: Bytes the coming operation allocates (result and scratch).
            what: The operation, for the message (``"`+`"``, ``"ones(3000, 3000)"``).
        """
        live = self.held + self.temp
        need = live + nbytes
        if need > self.limits.max_live_bytes:
            raise EinBudgetError(
                f"{what} would allocate {format_bytes(nbytes)} while {format_bytes(live)} "
                f"of tensors are live, {format_bytes(need)} in all; the budget is "
                f"{format_bytes(self.limits.max_live_bytes)} (Limits.max_live_bytes): raise "
                "Limits.max_live_bytes (closurebench ein run --max-live-bytes) or keep fewer "
                "or smaller values alive"
            )
        if need > self.peak:
            self.peak = need

    def tick(self, what: str) -> None:
        """Raise :class:`EinTimeoutError` if the deadline has passed.

        Example:
            >>> from closurebench.ein.limits import Limits
            >>> now = iter([0.0, 3.0])
            >>> b = Budget(Limits(max_seconds=2.0), clock=lambda: next(now))
            >>> b.tick("`+`")
            Traceback (most recent call last):
            ...
            closurebench.ein.errors.EinTimeoutError: the program ran 3.00 s, past its \
deadline of 2 s (Limits.max_seconds), before `+`: raise Limits.max_seconds \
(closurebench ein run --max-seconds) or shorten the program
        """
        now = self.clock()
        if now > self.deadline:
            raise EinTimeoutError(
                f"the program ran {now - self.started:.2f} s, past its deadline of "
                f"{self.limits.max_seconds:g} s (Limits.max_seconds), before {what}: raise "
                "Limits.max_seconds (closurebench ein run --max-seconds) or shorten the program"
            )

    def hold(self, arr: np.ndarray) -> None:
        """Count ``arr`` (by the array owning its memory) as held until :meth:`release`."""
        base = owner(arr)
        key = id(base)
        entry = self._refs.get(key)
        if entry is None:
            self._refs[key] = (base, 1)
            self.held += base.nbytes
        else:
            self._refs[key] = (base, entry[1] + 1)

    def release(self, arr: np.ndarray) -> None:
        """Undo one :meth:`hold`; the bytes leave the count with the last holder."""
        base = owner(arr)
        key = id(base)
        entry = self._refs.get(key)
        if entry is None:
            return
        if entry[1] <= 1:
            del self._refs[key]
            self.held -= base.nbytes
        else:
            self._refs[key] = (base, entry[1] - 1)

    @contextmanager
    def active(self) -> Iterator[Budget]:
        """Make this the budget that :func:`charge` and :func:`tick` consult."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)


def charge(nbytes: int, what: str) -> None:
    """Check ``nbytes`` against the active evaluation's budget (no-op outside one).

    Example:
        >>> charge(10**15, "ones(10**7, 10**8)")  # no evaluation is running
    """
    budget = _ACTIVE.get()
    if budget is not None:
        budget.check(nbytes, what)


def tick(what: str) -> None:
    """Check the active evaluation's deadline (no-op outside one)."""
    budget = _ACTIVE.get()
    if budget is not None:
        budget.tick(what)
