"""Fixtures of the sandbox tests: one run per level (the wall, and the unsafe ``none``).

A machine without a working bubblewrap skips the ``bwrap`` runs here; CI installs it,
and ``CLOSUREBENCH_REQUIRE_WALL=1`` turns that skip into a failure.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The fake OpenAI-compatible server of the harness tests (the end-to-end attack run).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evaluate"))

from closurebench.sandbox import Isolation, SandboxLimits, isolation_available

#: Caps small enough to keep the escape tests fast on two cores.
LIMITS = SandboxLimits(
    cpu_seconds=5, wall_seconds=5, memory_bytes=512 * 2**20, stdout_bytes=64 * 2**10
)


@pytest.fixture(params=[str(level) for level in Isolation])
def level(request: pytest.FixtureRequest) -> str:
    """Each isolation level; a level the machine lacks is skipped with the reason."""
    works, why = isolation_available(request.param)
    if not works:
        if os.environ.get("CLOSUREBENCH_REQUIRE_WALL") == "1":
            pytest.fail(f"isolation {request.param!r} is required but does not work: {why}")
        pytest.skip(f"isolation {request.param!r} is not available here: {why}")
    return str(request.param)


@pytest.fixture
def limits() -> SandboxLimits:
    """The tests' caps (see :data:`LIMITS`)."""
    return LIMITS


@pytest.fixture
def no_idle_zygotes() -> Iterator[None]:
    """End this process's idle warm zygotes around a test that counts sandbox processes.

    Idle zygotes (``bwrap ... bootstrap.py``) legitimately outlive the programs they ran;
    a test that asserts no sandbox process is left must only see its own.
    """
    from closurebench.sandbox.warm import shutdown_zygotes

    shutdown_zygotes()
    yield
    shutdown_zygotes()
