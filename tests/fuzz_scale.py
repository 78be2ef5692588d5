"""How many cases the suite's fuzz tests run: ``CLOSUREBENCH_FUZZ_SCALE`` times their default.

The default counts keep the suite quick on two cores; every outcome the fuzz tests
require is reached well within them. ``CLOSUREBENCH_FUZZ_SCALE=10`` runs 10x as many
(e.g. the 20,000 scored replies and 20,000 Ein programs of earlier versions); any
positive number works, though far fewer than the default may miss a required outcome.
``benchmarks/bench_scoring_fuzz.py`` and ``benchmarks/bench_ein_fuzz.py`` run the same
corpora at any size without the test's assertions.
"""

from __future__ import annotations

import os

#: The environment variable that scales every fuzz count of the suite.
FUZZ_SCALE_ENV = "CLOSUREBENCH_FUZZ_SCALE"


def fuzz_scale() -> float:
    """The factor from :data:`FUZZ_SCALE_ENV` (1 when unset or empty).

    Raises:
        ValueError: the variable is set to something that is not a positive number.
    """
    raw = os.environ.get(FUZZ_SCALE_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        scale = float(raw)
    except ValueError:
        scale = float("nan")
    if not scale > 0 or scale == float("inf"):
        raise ValueError(f"{FUZZ_SCALE_ENV}={raw!r}: expected a positive number, e.g. 4")
    return scale


def fuzz_count(default: int) -> int:
    """``default`` cases scaled by :func:`fuzz_scale` (at least 1)."""
    return max(1, round(default * fuzz_scale()))
