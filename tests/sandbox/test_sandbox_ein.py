"""run_ein: Ein programs in a worker process under a wall-clock deadline."""

from __future__ import annotations

import math

import pytest

from closurebench.ein import Limits
from closurebench.errors import ConfigError
from closurebench.sandbox import Outcome, SandboxLimits, run_ein


def test_ok_program_returns_printed_values_as_json() -> None:
    res = run_ein("A = edges([[0,1],[1,2]], 3)\n:print reach(A, 0)\n:print sum(tc(A))\n")
    assert res.outcome is Outcome.OK and res.ok
    assert res.printed == (("reach(A, 0)", [1, 1, 1]), ("sum(tc(A))", 3))
    assert res.value == 3 and res.error == "" and res.message == ""


def test_syntax_error() -> None:
    res = run_ein("A = = edges([[0,1]])")
    assert res.outcome is Outcome.SYNTAX_ERROR and res.error == "EinSyntaxError"
    assert "line 1" in res.message and "^" in res.message


def test_runtime_error_names_the_ein_error_class() -> None:
    res = run_ein("A = edges([[0,1]])\nx = select(reach(A, 0), 7, 0)\n")
    assert res.outcome is Outcome.RUNTIME_ERROR and res.error == "IndexOutOfRangeError"
    res = run_ein("x = 1 / 0")
    assert res.outcome is Outcome.RUNTIME_ERROR and res.error == "DivisionByZeroError"


def test_heavy_program_times_out_under_a_short_wall_limit() -> None:
    heavy = "A = ones(1500, 1500)\n" + "".join("A[i,k] = A[i,j] A[j,k] / 1500\n" for _ in range(20))
    limits = SandboxLimits(wall_seconds=0.5, cpu_seconds=30)
    ein_limits = Limits(max_seconds=math.inf, max_einsum_work=10**12)
    res = run_ein(heavy, limits=limits, ein_limits=ein_limits)
    assert res.outcome is Outcome.TIMEOUT and res.error == "timeout"
    assert res.wall_seconds < 3
    # the next run gets a fresh worker and works
    assert run_ein(":print 1 + 1", limits=limits).printed == (("1 + 1", 2),)


def test_ein_own_deadline_is_a_timeout_too() -> None:
    heavy = "A = ones(2000, 2000)\nB[i,k] = A[i,j] A[j,k]\nC[i,k] = B[i,j] B[j,k]\n:print sum(C)\n"
    ein_limits = Limits(max_seconds=0.05, max_einsum_work=10**11)
    res = run_ein(heavy, ein_limits=ein_limits)
    assert res.outcome is Outcome.TIMEOUT and res.error == "EinTimeoutError"


def test_bad_arguments_raise_config_error() -> None:
    with pytest.raises(ConfigError, match="source is a bytes"):
        run_ein(b":print 1")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"closurebench\.ein\.Limits"):
        run_ein(":print 1", ein_limits=SandboxLimits())  # type: ignore[arg-type]
