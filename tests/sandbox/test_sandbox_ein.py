"""run_ein: Ein programs in a worker process under a wall-clock deadline."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from closurebench.ein import Limits
from closurebench.errors import ConfigError
from closurebench.sandbox import Outcome, SandboxLimits, run_ein
from closurebench.sandbox.ein_runner import _died, _Worker


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
    # The sandbox's wall deadline ended it (Ein's own clock is off, the CPU cap is 30 s).
    assert res.outcome is Outcome.TIMEOUT and res.error == "timeout"
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


def test_ein_output_limit_is_output_limit_with_a_located_message() -> None:
    src = "n = sum(ones(1000))\nA = ones(n, n) / 3\n:print A\n"
    res = run_ein(src, ein_limits=Limits(max_output_bytes=2**20))
    assert res.outcome is Outcome.OUTPUT_LIMIT and res.error == "EinOutputLimitError"
    assert "line 3, column 1" in res.message and "Limits.max_output_bytes" in res.message
    assert res.printed == () and res.value is None


def test_reply_cap_is_output_limit_naming_the_cap() -> None:
    res = run_ein(":print ones(20000)\n", reply_bytes=4096)
    assert res.outcome is Outcome.OUTPUT_LIMIT and res.error == "output_limit"
    assert "reply cap of 4.0 KB (4096 bytes" in res.message and "reply_bytes" in res.message
    # the worker was replaced; the next run works, and a reply that fits passes
    ok = run_ein(":print ones(20)\n", reply_bytes=4096)
    assert ok.outcome is Outcome.OK and ok.value == [1] * 20


def test_reply_carries_the_last_printed_value_once() -> None:
    res = run_ein("A = ones(3)\n:print A\n:print sum(A)\n")
    assert res.value == 3 and res.printed[-1] == ("sum(A)", 3)
    res = run_ein("A = ones(3)\nB = A * 2\n")  # nothing printed: the result travels
    assert res.value == [2, 2, 2] and res.printed == () and res.label == "B"


def test_cpu_limit_is_named_as_such() -> None:
    heavy = "A = ones(1500, 1500)\n" + "".join("A[i,k] = A[i,j] A[j,k] / 1500\n" for _ in range(40))
    limits = SandboxLimits(cpu_seconds=1, wall_seconds=60)
    ein_limits = Limits(max_seconds=math.inf, max_einsum_work=10**12)
    res = run_ein(heavy, limits=limits, ein_limits=ein_limits)
    assert res.outcome is Outcome.TIMEOUT and res.error == "cpu_limit"
    assert "CPU limit of 1 s" in res.message and "SIGXCPU" in res.message


def _dead_worker(code: str) -> _Worker:
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    proc.wait(timeout=30)
    return _Worker(proc)


@pytest.mark.parametrize(
    ("code", "outcome", "error", "text"),
    [
        ("import os, signal; os.kill(os.getpid(), signal.SIGXCPU)", "timeout", "cpu_limit",
         "CPU limit of 10 s"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "memory_limit", "MemoryError",
         "SIGKILL"),
        ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "runtime_error",
         "worker_crash", "died of SIGSEGV"),
        ("raise SystemExit(3)", "runtime_error", "worker_crash", "exited with status 3"),
        ("raise SystemExit(137)", "memory_limit", "MemoryError", "SIGKILL"),  # 128 + 9
    ],
)  # fmt: skip
def test_a_dead_worker_is_named_by_its_exit_status(
    code: str, outcome: str, error: str, text: str
) -> None:
    res = _died(_dead_worker(code), SandboxLimits(), 0.5)
    assert (res.outcome, res.error) == (outcome, error)
    assert text in res.message and res.wall_seconds == 0.5
    if outcome == "memory_limit":
        assert "memory_bytes=1073741824 (1.0 GB)" in res.message


def test_reply_bytes_is_validated() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ConfigError, match="reply_bytes"):
            run_ein(":print 1", reply_bytes=bad)  # type: ignore[arg-type]
