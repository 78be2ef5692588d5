"""One bad program per error class: the class, the line, the column and the caret."""

from __future__ import annotations

import pickle
from dataclasses import replace

import numpy as np
import pytest

from closurebench.ein import (
    ArgumentError,
    ArityError,
    DivisionByZeroError,
    EinError,
    EinInternalError,
    EinRuntimeError,
    EinSyntaxError,
    IndexOutOfRangeError,
    Limits,
    NonIntegerIndexError,
    ResourceLimitError,
    ShapeError,
    UnknownNameError,
    check,
    run,
)
from closurebench.ein.builtins import BUILTINS
from closurebench.errors import ClosureBenchError

EDGE = "A = edges([[0,1]])\n"

CASES = [
    # (source, class, line, column)
    ("A = 1\nB = 2 $ 3", EinSyntaxError, 2, 7),
    ("A = 1\nB = 2 3", EinSyntaxError, 2, 7),  # leftover token
    ("A = 1\nB = C + 1", UnknownNameError, 2, 5),
    ("A = 1\nB = foo(A)", UnknownNameError, 2, 5),
    (EDGE + "T = tc()", ArityError, 2, 5),
    (EDGE + "T = tc(A, A)", ArityError, 2, 5),
    ("v = ones(3)\nT = tc(v)", ArgumentError, 2, 8),
    ("X = [1,2] + [1,2,3]", ShapeError, 1, 11),
    ("A = ones(2,3)\nB = ones(2,3)\nC[i,k] = A[i,j] B[j,k]", ShapeError, 3, 19),
    (EDGE + "r = reach(A, 5)", IndexOutOfRangeError, 2, 14),
    (EDGE + "r = reach(A, 1.5)", NonIntegerIndexError, 2, 14),
    ("x = 1\ny = x / 0", DivisionByZeroError, 2, 7),
    (EDGE + "d = sum(A, 1)\nw = 1 / d", DivisionByZeroError, 3, 7),  # known only at run time
    ("x = 1e300 * 1e300", EinRuntimeError, 1, 11),
]


@pytest.mark.parametrize(("src", "cls", "line", "column"), CASES)
def test_error_class_and_location(src: str, cls: type[EinError], line: int, column: int) -> None:
    with pytest.raises(cls) as info:
        run(src)
    err = info.value
    assert isinstance(err, EinError) and isinstance(err, ClosureBenchError)
    assert (err.line, err.column) == (line, column), str(err)
    text = str(err).splitlines()
    assert text[0].startswith(f"line {line}, column {column}: ")
    source_line = src.split("\n")[line - 1]
    assert text[1] == f"  {line} | {source_line}"
    assert text[2] == "  " + " " * len(str(line)) + " | " + " " * (column - 1) + "^"


def test_resource_limit_error_location() -> None:
    with pytest.raises(ResourceLimitError) as info:
        run("x = 1\nM = ones(10, 10)", limits=Limits(max_elements=50))
    assert (info.value.line, info.value.column) == (2, 5)
    assert "100 elements" in str(info.value) and "^" in str(info.value)


def test_caret_rendering_exact() -> None:
    with pytest.raises(UnknownNameError) as info:
        run("A = edges([[0,1]])\n:print sum(B)")
    assert str(info.value) == (
        "line 2, column 12: unknown name `B` — assign it before use (defined so far: A)\n"
        "  2 | :print sum(B)\n"
        "    |            ^"
    )


def test_internal_errors_are_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> np.ndarray:
        raise ValueError("simulated bug")

    monkeypatch.setitem(BUILTINS, "tc", replace(BUILTINS["tc"], func=boom))
    with pytest.raises(EinInternalError, match="simulated bug") as info:
        run(EDGE + "T = tc(A)")
    assert info.value.line == 2


def test_check_reports_static_errors_without_running() -> None:
    check(EDGE + "T = tc(A)")
    with pytest.raises(ShapeError):
        check("X = [1,2] + [1,2,3]")
    # Data-dependent problems are only found by run().
    check(EDGE + "d = sum(A, 1)\nw = 1 / d")


def test_empty_program_is_an_error() -> None:
    for src in ("", "// only a comment\n\n"):
        with pytest.raises(EinSyntaxError, match="no statements"):
            run(src)


def test_builtin_used_as_value_and_suggestions() -> None:
    with pytest.raises(UnknownNameError, match=r"builtin, not a value; call it, e.g. tc\(A\)"):
        run("X = tc")
    with pytest.raises(UnknownNameError, match="did you mean reach"):
        run(EDGE + "X = reech(A, 0)")


def test_errors_pickle_with_location() -> None:
    with pytest.raises(EinError) as info:
        run("x = y")
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is UnknownNameError and str(back) == str(info.value)


def test_non_string_source() -> None:
    with pytest.raises(EinSyntaxError):
        run(b"A = 1")  # type: ignore[arg-type]


def test_long_source_lines_are_clipped_around_the_caret() -> None:
    from closurebench import ein

    source = "A = edges([" + ",".join(f"[{i},{i + 1}]" for i in range(500)) + "]) + $"
    with pytest.raises(ein.EinSyntaxError) as info:
        ein.run(source)
    text = str(info.value)
    _, shown, caret = text.splitlines()
    assert len(shown) < 140 and shown.lstrip(" 1|").startswith("...")
    # The caret still points at the offending character.
    assert shown[caret.index("^")] == "$"
