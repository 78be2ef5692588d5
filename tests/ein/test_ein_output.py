"""The output limit: printed bytes count against ``Limits.max_output_bytes`` before they exist."""

from __future__ import annotations

import json
import random
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.ein import EinOutputLimitError, Limits, ResourceLimitError, check, run
from closurebench.ein.output import MAX_ENTRY_CHARS, OutputMeter, line_bounds, line_bytes
from closurebench.ein.values import format_chunks, format_value, to_json_value
from closurebench.errors import ConfigError

runner = CliRunner()

# The audit's program: six prints of an 80 MB value (about 200 MB of text each).
SIX_PRINTS = "A = ones(3162, 3162) / 3\n" + ":print A\n" * 6
# The same with a size the static checker cannot know (it comes from data).
SIX_PRINTS_DYNAMIC = "n = sum(ones(3162))\nA = ones(n, n) / 3\n" + ":print A\n" * 6


def _line(label: str, value: np.ndarray) -> int:
    return len(f"{label} = {format_value(value)}\n".encode())


def test_the_default_limit_is_16_mib_and_validated() -> None:
    assert Limits().max_output_bytes == 16 * 2**20
    with pytest.raises(ConfigError, match="max_output_bytes"):
        Limits(max_output_bytes=0)


def test_six_prints_of_80_mb_fail_statically_with_a_located_error() -> None:
    for fn in (run, check):
        with pytest.raises(EinOutputLimitError) as info:
            fn(SIX_PRINTS)
        err = info.value
        assert isinstance(err, ResourceLimitError)
        assert (err.line, err.column) == (2, 1)
        text = str(err)
        assert text.splitlines()[1:] == ["  2 | :print A", "    | ^"]
        assert "at least 28.6 MB (shape (3162, 3162))" in err.message
        assert "the output limit is 16.0 MB (Limits.max_output_bytes)" in err.message
        assert "--max-output-bytes" in err.message and "sum(...)" in err.message


def test_data_dependent_size_fails_at_run_time_without_making_the_text() -> None:
    check(SIX_PRINTS_DYNAMIC)  # the shape is unknown statically
    tracemalloc.start()
    try:
        with pytest.raises(EinOutputLimitError) as info:
            run(SIX_PRINTS_DYNAMIC)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (info.value.line, info.value.column) == (3, 1)
    # Two 80 MB arrays (ones and the quotient) at most, never the 200 MB of text.
    assert peak < 2 * 80 * 2**20 + 16 * 2**20


def test_prints_add_up_and_the_crossing_print_is_named() -> None:
    line = len("ones(10) = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")  # 42 bytes
    src = ":print ones(10)\n" * 30
    limits = Limits(max_output_bytes=1000)
    for fn in (run, check):
        with pytest.raises(EinOutputLimitError) as info:
            fn(src, limits=limits)
        assert info.value.line == 1000 // line + 1
        assert f"after {1000 // line * line} B already printed" in info.value.message
    # At run time only (the size comes from data), with the same verdict.
    dyn = "n = sum(ones(10))\n" + ":print ones(n)\n" * 30
    with pytest.raises(EinOutputLimitError) as info:
        run(dyn, limits=Limits(max_output_bytes=1000))
    assert info.value.line == 1000 // len("ones(n) = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n") + 2


def test_exactly_at_the_limit_passes_and_one_byte_less_fails() -> None:
    src = "A = edges([[0,1],[1,2]])\n:print tc(A)\n:print 1 / 3\n"
    result = run(src, limits=Limits(max_output_bytes=10**6))
    exact = sum(_line(label, v) for label, v in result.printed[:1])
    # tc(A) is integral: counted exactly; 1/3 counts its 24-character bound.
    assert exact == len("tc(A) = [[0, 1, 1], [0, 0, 1], [0, 0, 0]]\n")
    assert result.output_bytes == exact + len("1 / 3 = \n") + MAX_ENTRY_CHARS
    run(src, limits=Limits(max_output_bytes=result.output_bytes))
    with pytest.raises(EinOutputLimitError):
        run(src, limits=Limits(max_output_bytes=result.output_bytes - 1))


def test_a_program_that_prints_nothing_counts_its_result() -> None:
    src = "n = sum(ones(100))\nA = ones(n, n)"
    with pytest.raises(EinOutputLimitError) as info:
        run(src, limits=Limits(max_output_bytes=1000))
    assert info.value.line == 2
    assert "the result `A` (the program prints nothing" in info.value.message
    with pytest.raises(EinOutputLimitError):
        check("A = ones(100, 100)", limits=Limits(max_output_bytes=1000))
    # Only the last assignment is output: intermediates are not.
    run("A = ones(100, 100)\nx = sum(A)", limits=Limits(max_output_bytes=1000))


def test_empty_rows_count_their_brackets() -> None:
    # ones(N, 0) has no elements but prints N "[]"s: the limit sees them.
    with pytest.raises(EinOutputLimitError, match=r"shape \(100000, 0\)"):
        run("n = sum(ones(100000))\n:print zeros(n, 0)", limits=Limits(max_output_bytes=10**5))


@pytest.mark.parametrize("seed", range(20))
def test_counted_size_bounds_the_text(seed: int) -> None:
    rng = np.random.default_rng(seed)
    shape = [(), (int(rng.integers(0, 30)),), (int(rng.integers(0, 8)), int(rng.integers(0, 8)))]
    for s in shape:
        kind = seed % 4
        if kind == 0:
            value = rng.integers(-(10**6), 10**6, size=s).astype(np.float64)
        elif kind == 1:
            value = rng.standard_normal(s) * 10.0 ** float(rng.integers(-300, 300))
        elif kind == 2:
            value = rng.choice([0.0, -0.0, 1.0, 2.0**53, -(2.0**53) + 1, 1e16, 0.5], size=s)
        else:
            value = np.asarray(rng.integers(0, 2, size=s), dtype=np.float64)
        label = random.Random(seed).choice(["A", "sum(A, 1)", "é"])
        text = _line(label, value)
        low, high = line_bounds(label, value.shape)
        assert low <= text <= line_bytes(label, value) <= high
        integral = np.all(value == np.floor(value)) and np.all(np.abs(value) < 2.0**53)
        if integral:
            assert line_bytes(label, value) == text


def test_meter_refuses_without_counting() -> None:
    meter = OutputMeter(Limits(max_output_bytes=50))
    meter.charge("v", np.zeros(3))
    before = meter.printed
    with pytest.raises(EinOutputLimitError):
        meter.charge("w", np.zeros(30))
    assert meter.printed == before


def test_streamed_text_equals_json() -> None:
    for value in (np.asarray(2.0), np.eye(3) / 3, np.zeros((3, 0)), np.arange(40000.0) - 7):
        assert "".join(format_chunks(value)) == json.dumps(to_json_value(value))


def _prog(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prog.ein"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_cli_refuses_before_printing_and_names_the_option(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ein", "run", _prog(tmp_path, SIX_PRINTS)])
    assert result.exit_code == 1 and result.stdout == ""
    assert "line 2, column 1" in result.stderr and "--max-output-bytes" in result.stderr


def test_cli_output_stays_within_the_limit(tmp_path: Path) -> None:
    src = "n = sum(ones(300))\nA = ones(n, n) / 3\n:print sum(A, 0)\n:print A\n"
    path = _prog(tmp_path, src)
    small = runner.invoke(app, ["ein", "run", "--max-output-bytes", "64K", path])
    assert small.exit_code == 1 and small.stdout == ""
    assert "line 4, column 1" in small.stderr
    big = runner.invoke(app, ["ein", "run", "--max-output-bytes", "4M", path])
    assert big.exit_code == 0
    counted = run(src, limits=Limits(max_output_bytes=4 * 2**20)).output_bytes
    assert len(big.stdout.encode()) <= counted
    lines = big.stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("A = [[0.3333333333333333, ")
    js = runner.invoke(app, ["ein", "run", "--json", "--max-output-bytes", "4M", path])
    assert js.exit_code == 0 and len(json.loads(js.stdout)) == 300


def test_cli_rejects_a_bad_output_size(tmp_path: Path) -> None:
    path = _prog(tmp_path, "x = 1")
    result = runner.invoke(app, ["ein", "run", "--max-output-bytes", "lots", path])
    assert result.exit_code != 0
    assert "--max-output-bytes 'lots' is not a size" in result.output
