"""Every builtin taking a size, count, node id, position or axis refuses odd values cleanly.

Huge (``1e308``), past-the-cap, negative, fractional, non-finite: each gives a located
:class:`EinError` subclass naming the value (compactly: ``1e+308``, not 309 digits),
where it was passed and the fix — never an internal error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from closurebench.ein import (
    ArgumentError,
    EinError,
    EinInternalError,
    IndexOutOfRangeError,
    NonIntegerIndexError,
    ResourceLimitError,
    check,
    run,
)
from closurebench.ein.builtins import BUILTINS
from closurebench.ein.calls import check_int_value
from closurebench.ein.values import int_text

# (program, error class, column of the caret, text the message must hold)
CASES = [
    ("X = ones(1e308)", ResourceLimitError, 10, "ones: size N = 1e+308"),
    ("X = zeros(1e30)", ResourceLimitError, 11, "zeros: size N = 1e+30"),
    ("X = ones(2, 1e308)", ResourceLimitError, 13, "ones: size M = 1e+308"),
    ("X = ones(0, 1e308)", ResourceLimitError, 13, "ones: size M = 1e+308"),
    ("X = ones(1e16, 0)", ResourceLimitError, 10, "ones: size N = 1e+16"),
    ("X = zeros(1e308, 1e308)", ResourceLimitError, 11, "zeros: size N = 1e+308"),
    ("X = eye(1e12)", ResourceLimitError, 9, "eye: size N = 1000000000000"),
    ("X = eye(10000001)", ResourceLimitError, 9, "eye: size N = 10000001"),
    ("X = vec([1], 1e308)", ResourceLimitError, 14, "vec: size N = 1e+308"),
    ("X = edges([], 1e308)", ResourceLimitError, 15, "edges: size N = 1e+308"),
    ("X = edges([[0, 1e308]])", ResourceLimitError, 5, "(1e+308, 1e+308) = 1e+616 elements"),
    ("X = edges([[0, 1e7]])", ResourceLimitError, 5, "(10000001, 10000001)"),
    ("X[i] = ones(1e308)[i]", ResourceLimitError, 13, "ones: size N = 1e+308"),
    ("X = ones(9007199254740993)", ResourceLimitError, 10, "size N = 9.01e+15"),
    ("X = ones(-1e300)", ArgumentError, 10, "must be >= 0, got -1e+300"),
    ("X = ones(-1)", ArgumentError, 10, "must be >= 0, got -1"),
    ("X = eye(2.5)", NonIntegerIndexError, 9, "must be an integer, got 2.5"),
    ("A = eye(2)\nX = reach(A, 1e308)", IndexOutOfRangeError, 14, "node 1e+308 is out of range"),
    ("A = eye(2)\nX = desc(A, -1e300)", IndexOutOfRangeError, 13, "= -1e+300 is negative"),
    ("A = eye(2)\nX = has_path(A, 0, 1e300)", IndexOutOfRangeError, 20, "node 1e+300"),
    ("A = eye(2)\nX = select(A, 1e308, 0)", IndexOutOfRangeError, 15, "index 1e+308"),
    ("A = eye(2)\nX = select(A, 0, 1e308)", IndexOutOfRangeError, 18, "axis 1e+308"),
    ("A = eye(2)\nX = sum(A, 1e308)", IndexOutOfRangeError, 12, "axis 1e+308 is out of range"),
    ("A = eye(2)\nX = mean(A, 0.5)", NonIntegerIndexError, 13, "got 0.5"),
]


@pytest.mark.parametrize(("src", "cls", "column", "text"), CASES, ids=[c[0] for c in CASES])
def test_static_sizes_give_located_errors(
    src: str, cls: type[EinError], column: int, text: str
) -> None:
    for fn in (run, check):
        with pytest.raises(cls) as info:
            fn(src)
        err = info.value
        assert not isinstance(err, EinInternalError)
        assert (err.line, err.column) == (src.count("\n") + 1, column), str(err)
        assert text in err.message, err.message
        assert len(err.message) < 400  # no 309-digit numbers
        assert str(err).splitlines()[-1].endswith("^")


# Sizes computed from data: only the evaluator sees them (check() passes).
DYNAMIC = [
    ("ones(N)", ResourceLimitError, "ones: size N = 2e+300"),
    ("zeros(1, N)", ResourceLimitError, "zeros: size M = 2e+300"),
    ("eye(N)", ResourceLimitError, "eye: size N = 2e+300"),
    ("edges([], N)", ResourceLimitError, "edges: size N = 2e+300"),
    ("vec([1, 2], N)", ResourceLimitError, "vec: size N = 2e+300"),
    ("edges([[0, 1]], N)", ResourceLimitError, "edges: size N = 2e+300"),
    ("ones(-N)", ArgumentError, "got -2e+300"),
    ("ones(N / 3e300)", NonIntegerIndexError, "got 0.666"),
    ("select(ones(2), N, 0)", IndexOutOfRangeError, "index 2e+300"),
    ("reach(eye(2), N)", IndexOutOfRangeError, "node 2e+300"),
    ("sum(eye(2), N)", IndexOutOfRangeError, "axis 2e+300"),
]


@pytest.mark.parametrize(("call", "cls", "text"), DYNAMIC, ids=[c[0] for c in DYNAMIC])
def test_runtime_sizes_give_located_errors(call: str, cls: type[EinError], text: str) -> None:
    src = f"N = sum(ones(2)) * 1e300\nX = {call}"
    check(src)
    with pytest.raises(cls) as info:
        run(src)
    assert info.value.line == 2 and info.value.column is not None
    assert text in info.value.message, info.value.message


def test_element_cap_reaches_every_axis_even_of_an_empty_tensor() -> None:
    # (10**7, 0) has no elements but 10**7 rows; the cap bounds each axis too.
    src = "N = sum(ones(100)) + 1\nX = ones(N, 0)"
    from closurebench.ein import Limits

    with pytest.raises(ResourceLimitError, match="size N = 101 is larger than the element cap 100"):
        run(src, limits=Limits(max_elements=100))


@pytest.mark.parametrize("x", [math.inf, -math.inf, math.nan, 0.5, -1.0, 1e308])
def test_int_values_never_escape_as_python_errors(x: float) -> None:
    # Ein arithmetic never produces inf or nan (ensure_finite), but the check is total.
    # A huge node id, position or axis is left to the builtin's range check.
    for b in BUILTINS.values():
        for p in b.params:
            if p.kind == "tensor" or (x == 1e308 and p.kind != "size"):
                continue
            with pytest.raises(EinError):
                check_int_value(b, p, x)


def test_int_text() -> None:
    assert int_text(0) == "0" and int_text(-5) == "-5"
    assert int_text(10**15 - 1) == "999999999999999"
    assert int_text(int(1.7976931348623157e308)) == "1.8e+308"
    assert int_text(10**308) == "1e+308" and int_text(123456789012345678) == "1.23e+17"
    assert int_text(-int(np.float64(2.0) ** 100)) == "-1.27e+30"


def test_edges_with_a_data_dependent_n_is_not_guessed_statically() -> None:
    # The checker used to infer N from the literal even when N was passed from data.
    src = "N = sum(ones(5))\nA = edges([[0, 1]], N)\n:print sum(A, 1)"
    check(src)
    assert run(src).value.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert run("N = sum(ones(3))\n:print edges([], N)").value.shape == (3, 3)
    with pytest.raises(IndexOutOfRangeError) as info:
        check("N = sum(ones(3))\nA = edges([[0, -1]], N)")
    assert info.value.line == 2
