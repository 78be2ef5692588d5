"""The run-wide budget: live tensor bytes, the deadline and freeing dead intermediates."""

from __future__ import annotations

import math
import resource
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.ein import (
    EinBudgetError,
    EinError,
    EinTimeoutError,
    Limits,
    ResourceLimitError,
    check,
    parse,
    run,
)
from closurebench.ein.budget import Budget
from closurebench.ein.evaluator import evaluate
from closurebench.errors import ConfigError

MB = 2**20
KB_100x100 = 100 * 100 * 8  # bytes of one 100x100 float64 matrix

# The program, except that every copy is printed and so stays alive: without
# a budget it grows by 72 MB per line to about 29 GB. The size comes from data, so the
# static checker cannot know it and the run-time checks must stop it.
_GROWING = "A = ones(3000,3000)\n" + "".join(f"B{k} = A + {k}\n:print B{k}\n" for k in range(400))
# Printing 3000x3000 matrices also passes the default output limit (16 MiB), which
# these tests lift so that the live-bytes budget is what stops the run.
_NO_OUTPUT_LIMIT = Limits(max_output_bytes=2**50)
_CHILD = """
import resource
from closurebench.ein import EinBudgetError, Limits, run
src = "n = sum(ones(3000))\\nA = ones(n,n)\\n"
src += "".join(f"B{k} = A + {k}\\n:print B{k}\\n" for k in range(400))
try:
    run(src, limits=Limits(max_output_bytes=2**50))
    print("NO ERROR")
except EinBudgetError as err:
    print(str(err).splitlines()[0])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _cap_address_space() -> None:  # runs in the child, before exec
    limit = 1536 * MB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_growing_program_stops_with_budget_error_under_1gb(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD],
        capture_output=True,
        text=True,
        preexec_fn=_cap_address_space,
        cwd=tmp_path,
        env={"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    message, maxrss_kb = proc.stdout.splitlines()
    # 7 copies of 68.7 MB fit the 512 MiB default; line 15 (B6) would be the 8th.
    assert message.startswith("line 15, column 8: `+` would allocate 68.7 MB while 480.7 MB")
    assert "the budget is 512.0 MB (Limits.max_live_bytes)" in message
    assert "raise Limits.max_live_bytes" in message
    assert int(maxrss_kb) < 1024 * 1024  # ru_maxrss is in KB on Linux


def test_static_check_rejects_known_growth_before_running() -> None:
    with pytest.raises(EinBudgetError) as info:
        check(_GROWING, limits=_NO_OUTPUT_LIMIT)
    assert info.value.line == 14
    assert "(68.7 MB) would join 480.7 MB of live tensors" in info.value.message
    assert "Limits.max_live_bytes" in info.value.message
    # Aliases and prints of a binding add nothing; dead values are subtracted.
    check(
        "A = ones(3000,3000)\n" + "B = A\n:print B\n" * 50 + "C = A + 1\nD = C + 1",
        limits=_NO_OUTPUT_LIMIT,
    )


def test_dead_intermediates_are_freed() -> None:
    # 60 intermediates of 80 KB each; none is read twice. Keeping them all would need
    # about 4.8 MB; with liveness only A, the operand and the new value are alive.
    src = "A = ones(100,100)\n" + "".join(f"B{k} = A + {k}\n" for k in range(60))
    src += ":print sum(B59)\n"
    limits = Limits(max_live_bytes=4 * KB_100x100 + 64)  # 64 B for scalar constants
    result = run(src, limits=limits)
    assert float(result.value) == 100 * 100 * 60
    assert result.peak_bytes <= 3 * KB_100x100 + 64
    assert sorted(result.env) == []  # nothing is live at the end; the print holds the value
    with pytest.raises(EinBudgetError) as info:
        run(src, limits=limits, keep=[f"B{k}" for k in range(60)])
    assert info.value.line == 5  # A, B0, B1 and B2 kept: B3 is the fifth matrix


def test_chained_intermediates_free_their_predecessor() -> None:
    src = "A = ones(100,100)\n" + "".join(f"A{k + 1} = A{k} + 1\n" for k in range(100))
    src = src.replace("A0", "A")
    result = run(src, limits=Limits(max_live_bytes=2 * KB_100x100 + 64))
    assert float(result.value[0, 0]) == 101.0
    assert list(result.env) == ["A100"]


def test_aliases_and_prints_count_once() -> None:
    src = "A = ones(100,100)\nB = A\n:print A\n:print B\nC = B\n:print C"
    result = run(src, limits=Limits(max_live_bytes=KB_100x100 + 64))
    assert result.peak_bytes <= KB_100x100 + 64


def test_printed_values_stay_counted() -> None:
    src = "A = ones(100,100)\n:print A + 1\n:print A + 2\n:print A + 3"
    with pytest.raises(EinBudgetError) as info:
        run(src, limits=Limits(max_live_bytes=3 * KB_100x100 + 64))
    assert info.value.line == 4


def _ticking_clock(step: float) -> Callable[[], float]:
    now = [0.0]

    def clock() -> float:
        now[0] += step
        return now[0]

    return clock


def test_deadline_with_a_fake_clock_is_deterministic() -> None:
    src = "A = ones(10,10)\n" + "".join(f"B{k}[i,k] = A[i,j] A[j,k]\n" for k in range(100))
    lines: set[int | None] = set()
    for _ in range(2):
        with pytest.raises(EinTimeoutError) as info:
            evaluate(parse(src), Limits(max_seconds=25.0), clock=_ticking_clock(1.0))
        lines.add(info.value.line)
        message = str(info.value)
        assert "past its deadline of 25 s (Limits.max_seconds)" in message
        assert "raise Limits.max_seconds" in message
    assert len(lines) == 1
    line = lines.pop()
    assert line is not None and 2 <= line <= 26


def test_real_deadline_stops_a_long_program() -> None:
    # 2,000 contractions of 300x300 matrices: at least 50 GFLOP, far beyond 0.05 s.
    src = "A = ones(300,300)\n" + "".join(f"B{k}[i,k] = A[i,j] A[j,k]\n" for k in range(2000))
    with pytest.raises(EinTimeoutError, match=r"deadline of 0\.05 s"):
        run(src, limits=Limits(max_seconds=0.05))
    with pytest.raises(EinTimeoutError, match=r"deadline of 0\.05 s"):
        evaluate(parse(src), Limits(max_seconds=0.05))


def test_budget_and_timeout_errors_are_resource_errors() -> None:
    assert issubclass(EinBudgetError, ResourceLimitError)
    assert issubclass(EinTimeoutError, ResourceLimitError)
    assert issubclass(EinBudgetError, EinError)


_UNKNOWN_A = "n = sum(ones(300))\nA = ones(n,n)\n"


@pytest.mark.parametrize(
    ("src", "what"),
    [
        ("B = ones(300,300)", "ones(300, 300)"),
        ("B = eye(300)", "eye(300)"),
        ("B = A * 2", "`*`"),
        ("B = -A", "unary `-`"),
        ("B = transpose(A)", "transpose(A)"),
        ("B = ge(A, 1)", "ge(...)"),
        ("B[i,k] = A[i,j] A[j,k]", "einsum"),
        ("B[j,i] = A[i,j]", "the einsum"),
        ("B = tc(A)", "tc(...) on a 300-node graph"),
        ("s = sum(reach(A, 0))", "reach(...) on a 300-node graph"),
    ],
)
def test_every_allocating_operation_checks_first(src: str, what: str) -> None:
    # One 300x300 matrix (703 KB, kept alive) fits; a second does not. A's size comes
    # from data, so the static checker cannot see it and the run-time checks act.
    src = _UNKNOWN_A + src
    with pytest.raises(EinBudgetError, match=r"Limits\.max_live_bytes") as info:
        run(src, limits=Limits(max_live_bytes=1 * MB), keep={"A"})
    assert info.value.line == 3
    assert what in info.value.message


def test_einsum_scaling_is_checked() -> None:
    src = _UNKNOWN_A + "B[i,j] = 2 A[i,j]"
    with pytest.raises(EinBudgetError, match="the einsum's scale"):
        run(src, limits=Limits(max_live_bytes=17 * MB // 10), keep={"A"})
    assert float(run(src, limits=Limits(max_live_bytes=3 * MB), keep={"A"}).value[0, 0]) == 2.0


def test_tc_of_a_dense_dag_is_charged_for_its_scratch() -> None:
    # tc of a path is a dense DAG with n^2/2 edges; tc of that needs ~105 B per edge.
    path = ",".join(f"[{k},{k + 1}]" for k in range(399))
    src = f"P = edges([{path}], 400)\nT = tc(P)\nU = tc(T)\n:print sum(U)"
    with pytest.raises(EinBudgetError, match=r"tc\(\.\.\.\) on a 400-node graph") as info:
        run(src, limits=Limits(max_live_bytes=8 * MB))
    assert info.value.line == 3
    assert float(run(src, limits=Limits(max_live_bytes=32 * MB)).value) == 399 * 400 / 2


_MEASURED = [
    "A = ones(200,200)\nB = A + 1\nC = (A + B) * (A - B) / (B + 1)\n:print sum(C)",
    "A = ones(200,200)\nC[i,k] = A[i,j] A[j,k] A[k,i]\n:print sum(C)",
    "u = ones(200)\nM = ones(200,200)\ns = u[i] M[i,j] u[j] M[j,k] u[k]",
    "A = ones(200,200)\nB[j,i] = -2 A[i,j] / 3\nd = diag(B)\nD = diag(d)\n:print trace(D)",
    "A = ones(200,200)\nr = select(A + 1, 3, 0)\nc = select(A, 2, 1)\nG = ge(r, 1)\n:print G",
    "P = edges([" + ",".join(f"[{k},{k + 1}]" for k in range(199)) + "], 200)\n"
    "T = tc(P)\nU = tc(T)\nv = reach(T, 0) + desc(U, 3)\n:print has_path(U, 0, 199) + sum(v)",
    "A = ones(200,200)\nT = transpose(A + 1)\nx = max(T, 0)\ny = mean(T)\n:print x * y",
]


@pytest.mark.parametrize("src", _MEASURED)
def test_budget_accounting_bounds_real_allocations(src: str) -> None:
    """numpy reports its buffers to tracemalloc: the real peak stays under the model's."""
    program = parse(src)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        result = evaluate(program, Limits(max_live_bytes=256 * MB))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Small Python objects (AST walk, the ledger) account for the slack.
    assert peak <= result.peak_bytes + 256 * 1024, (peak, result.peak_bytes)


def test_budget_ledger_counts_views_by_their_base() -> None:
    b = Budget(Limits(max_live_bytes=10**6), clock=lambda: 0.0)
    m = np.zeros((100, 100))
    b.hold(m[0])  # the row keeps the whole matrix alive
    assert b.held == m.nbytes
    b.hold(m)
    b.release(m[0])
    assert b.held == m.nbytes
    b.release(m)
    assert b.held == 0


def test_limits_validate_the_new_fields() -> None:
    for bad in (0, -1.0, math.nan, True, "10"):
        with pytest.raises(ConfigError, match="max_seconds"):
            Limits(max_seconds=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="max_live_bytes"):
        Limits(max_live_bytes=0)
    assert Limits(max_seconds=math.inf).max_seconds == math.inf
    assert Limits(max_seconds=1).max_seconds == 1


runner = CliRunner()


def test_cli_budget_and_deadline_options(tmp_path: Path) -> None:
    path = tmp_path / "prog.ein"
    path.write_text("A = ones(300,300)\nB = A + 1\n:print sum(B)\n", encoding="utf-8")
    ok = runner.invoke(app, ["ein", "run", str(path)])
    assert ok.exit_code == 0 and ok.stdout.strip() == "sum(B) = 180000"
    small = runner.invoke(app, ["ein", "run", "--max-live-bytes", "1M", str(path)])
    assert small.exit_code != 0
    assert "line 2, column 1: this statement's value (703.1 KB)" in small.stderr
    assert "raise Limits.max_live_bytes (closurebench ein run --max-live-bytes)" in small.stderr
    big = runner.invoke(app, ["ein", "run", "--max-live-bytes", "2M", str(path)])
    assert big.exit_code == 0
    long = tmp_path / "long.ein"
    long.write_text("".join(f"x{k} = {k} + 1\n" for k in range(300)), encoding="utf-8")
    late = runner.invoke(app, ["ein", "run", "--max-seconds", "0.000001", str(long)])
    assert late.exit_code != 0
    assert "past its deadline of 1e-06 s (Limits.max_seconds)" in late.stderr
    bad = runner.invoke(app, ["ein", "run", "--max-live-bytes", "lots", str(path)])
    assert bad.exit_code != 0
    assert "is not a size" in bad.output


def test_the_deadline_interrupts_a_long_tc(monkeypatch: pytest.MonkeyPatch) -> None:
    """``tc`` reads the deadline inside its loop, so one long call cannot outlive it."""
    from closurebench.graphs import closure

    n = 256  # 4 ticks of the closure loop at least
    pairs = ",".join(f"[{i},{i + 1}]" for i in range(n - 1))
    src = f"P = edges([{pairs}], {n})\nT = tc(P)\nU = tc(T)\n:print sum(U)\n"
    readings = 0
    limit = math.inf
    entered: list[int] = []
    returned: list[int] = []
    real_tc = closure.tc

    def clock() -> float:
        nonlocal readings
        readings += 1
        return 0.0 if readings <= limit else 1e9

    def spy_tc(*args: object, **kwargs: object) -> np.ndarray:
        entered.append(readings)
        out = real_tc(*args, **kwargs)  # type: ignore[arg-type]
        returned.append(readings)
        return out

    monkeypatch.setattr(closure, "tc", spy_tc)
    evaluate(parse(src), Limits(max_seconds=5.0), clock=clock)
    assert len(entered) == 2 and returned[1] - entered[1] >= 4  # the loop read the clock
    # Let the clock pass the deadline right after the second tc's first tick.
    readings, limit = 0, entered[1] + 1
    entered.clear()
    returned.clear()
    with pytest.raises(EinTimeoutError, match=r"line 3, .*before tc"):
        evaluate(parse(src), Limits(max_seconds=5.0), clock=clock)
    assert len(entered) == 2 and len(returned) == 1  # stopped inside the second tc
