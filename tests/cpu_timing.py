"""CPU-time measurement for ratio tests (no test asserts wall-clock time).

``tests/`` is on the import path of every test module (pytest puts the root conftest's
folder there), so ``from cpu_timing import best_cpu_seconds`` works from any subfolder.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def best_cpu_seconds(fn: Callable[[], object], repeats: int = 3) -> float:
    """Fewest CPU seconds of this process over ``repeats`` calls of ``fn`` (at least 1 µs)."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return max(best, 1e-6)
