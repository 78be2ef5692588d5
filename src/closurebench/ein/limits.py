"""Resource caps of the Ein interpreter.

Every cap is checked *before* the work or allocation it guards, so a hostile or
careless program fails fast with a :class:`~closurebench.ein.errors.ResourceLimitError`
instead of exhausting memory or time.

Example:
    >>> Limits().max_elements
    10000000
    >>> Limits(max_elements=100).max_elements
    100
    >>> Limits(max_elements=0)
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: Limits.max_elements is 0; pass an integer >= 1
    >>> Limits().max_live_bytes // 2**20, Limits().max_seconds, Limits().max_output_bytes // 2**20
    (512, 10.0, 16)
    >>> Limits(max_seconds=0)
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: Limits.max_seconds is 0; pass a number of seconds > 0 \
(math.inf turns the deadline off)
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from closurebench.errors import ConfigError

__all__ = ["DEFAULT_LIMITS", "Limits"]

# Upper bounds on the caps themselves: the evaluator recurses over expressions, and
# numpy's einsum names indices with single letters (52 of them).
_HARD_MAX_DEPTH = 200
_HARD_MAX_FACTORS = 26


@dataclass(frozen=True)
class Limits:
    """Caps on one Ein run.

    Attributes:
        max_elements: Most elements any tensor may hold — values, builtin results,
            einsum intermediates and outputs (default 10**7, i.e. about 80 MB) — and
            so the largest size argument (``ones(N, M)``, ``zeros``, ``eye(N)``,
            ``vec(L, N)``, ``edges(L, N)``) and axis length: ``ones(1e308)`` is refused
            at its argument.
        max_source_chars: Longest accepted program text, in characters.
        max_lines: Most physical lines in a program.
        max_depth: Deepest expression nesting (parentheses, operators, calls); at most 200.
        max_einsum_factors: Most indexed factors in one einsum product; at most 26.
        max_einsum_work: Most scalar multiply-adds one pairwise einsum contraction may
            take (the product of the sizes of the indices it touches).
        max_live_bytes: Budget for all tensors alive at once during a run (default
            512 MiB): every value still bound to a name a later statement reads, every
            printed value, the current statement's temporaries (operands, einsum
            intermediates) and the result plus scratch memory of the operation about to
            run, checked *before* it allocates. Values no later statement reads are
            freed as soon as they are dead, so long programs of short-lived
            intermediates fit.
        max_seconds: Deadline of one run in wall-clock seconds (default 10), counted
            from the start of parsing and checked before every operation and every
            einsum contraction step; one builtin call (e.g. ``tc`` of a dense
            3000-node DAG) runs to its end before the check. ``math.inf`` turns it off.
        max_output_bytes: Most bytes a run may print (default 16 MiB): the lines
            ``label = value`` of all its ``:print`` statements (or of its result when
            it prints nothing), as the CLI writes them and about as long as their JSON.
            Each value's size is bounded from its shape (and, when that is not enough,
            counted from its entries) before any text is made, so a print that would
            pass the limit fails with a located error instead of producing the bytes.
    """

    max_elements: int = 10**7
    max_source_chars: int = 200_000
    max_lines: int = 5_000
    max_depth: int = 100
    max_einsum_factors: int = 16
    max_einsum_work: int = 10**9
    max_live_bytes: int = 512 * 2**20
    max_seconds: float = 10.0
    max_output_bytes: int = 16 * 2**20

    def __post_init__(self) -> None:
        secs = self.max_seconds
        if isinstance(secs, bool) or not isinstance(secs, int | float) or not secs > 0:
            raise ConfigError(
                f"Limits.max_seconds is {secs!r}; pass a number of seconds > 0 "
                "(math.inf turns the deadline off)"
            )
        for f in fields(self):
            if f.name == "max_seconds":
                continue
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"Limits.{f.name} is {value!r}; pass an integer >= 1")
        if self.max_depth > _HARD_MAX_DEPTH:
            raise ConfigError(
                f"Limits.max_depth is {self.max_depth}; it must be <= {_HARD_MAX_DEPTH} "
                "so that evaluation stays within Python's recursion limit"
            )
        if self.max_einsum_factors > _HARD_MAX_FACTORS:
            raise ConfigError(
                f"Limits.max_einsum_factors is {self.max_einsum_factors}; it must be "
                f"<= {_HARD_MAX_FACTORS} (einsum names at most 52 distinct indices)"
            )


DEFAULT_LIMITS = Limits()
