"""Fixtures of the sandbox tests: one run per isolation level the machine has."""

from __future__ import annotations

import pytest

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
        pytest.skip(f"isolation {request.param!r} is not available here: {why}")
    return str(request.param)


@pytest.fixture
def limits() -> SandboxLimits:
    """The tests' caps (see :data:`LIMITS`)."""
    return LIMITS
