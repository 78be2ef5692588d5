"""Every builtin on small hand-checked cases, through the language."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from closurebench.ein import (
    ArgumentError,
    IndexOutOfRangeError,
    NonIntegerIndexError,
    ShapeError,
    run,
)
from closurebench.ein.builtins import BUILTINS

PATH3 = "A = edges([[0,1],[1,2]])\n"  # 0 -> 1 -> 2
CYCLE = "A = edges([[0,1],[1,2],[2,0],[2,3]])\n"  # 0 -> 1 -> 2 -> 0, 2 -> 3


def val(src: str) -> np.ndarray:
    return run(src).value


def lst(src: str) -> object:
    return val(src).tolist()


# edges ------------------------------------------------------------------------------
def test_edges_from_edge_list_infers_n() -> None:
    assert lst(PATH3 + ":print A") == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]


def test_edges_with_explicit_n_and_duplicates() -> None:
    assert lst("A = edges([[0,1],[0,1]], 3)") == [[0, 1, 0], [0, 0, 0], [0, 0, 0]]


def test_edges_dense_matrix_literal() -> None:
    m = [[0, 1, 1], [1, 0, 1], [0, 0, 0]]
    assert lst(f"A = edges({m}, 3)") == m
    assert lst(f"A = edges({m})") == m  # N inferred from a square matrix


def test_edges_rows_of_two_are_always_an_edge_list() -> None:
    # [[1,1],[0,0]] is the self-loops 1->1 and 0->0, not a dense 2x2 matrix.
    assert lst("A = edges([[1,1],[0,0]], 2)") == [[1, 0], [0, 1]]


def test_edges_empty_list_needs_n() -> None:
    assert lst("A = edges([], 2)") == [[0, 0], [0, 0]]
    with pytest.raises(ArgumentError, match="pass N"):
        run("A = edges([])")


@pytest.mark.parametrize(
    ("src", "exc", "match"),
    [
        ("A = edges([[0,3]], 3)", IndexOutOfRangeError, "out of range"),
        ("A = edges([[0,1.5]])", NonIntegerIndexError, "non-integer"),
        ("A = edges([[0,1,0],[0,0,1]])", ShapeError, "not square"),
        ("A = edges([[0,1,0],[0,0,1],[0,0,0]], 4)", ShapeError, r"N = 4"),
        ("A = edges([[0,2,0],[0,0,1],[0,0,0]], 3)", ArgumentError, "0 and 1"),
        ("A = edges([1,2])", ArgumentError, "rank-1"),
        ("A = edges([[0,-1]])", IndexOutOfRangeError, "out of range"),
    ],
)
def test_edges_errors(src: str, exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        run(src)


def test_vec() -> None:
    assert lst("v = vec([1,0,1], 3)") == [1, 0, 1]
    assert lst("v = vec([2, -1])") == [2, -1]
    with pytest.raises(ShapeError, match="N = 4"):
        run("v = vec([1,0,1], 4)")


# closure ----------------------------------------------------------------------------
def test_tc_is_strict() -> None:
    got = lst(CYCLE + ":print tc(A)")
    assert got == [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [0, 0, 0, 0]]
    assert lst(PATH3 + ":print tc(A)") == [[0, 1, 1], [0, 0, 1], [0, 0, 0]]


def test_reach_includes_source_desc_excludes_it() -> None:
    assert lst(PATH3 + ":print reach(A, 1)") == [0, 1, 1]
    assert lst(PATH3 + ":print desc(A, 1)") == [0, 0, 1]
    assert lst(CYCLE + ":print desc(A, 0)") == [0, 1, 1, 1]  # excludes 0 though on a cycle
    assert lst(CYCLE + ":print reach(A, 3)") == [0, 0, 0, 1]


def test_has_path() -> None:
    assert float(val(PATH3 + ":print has_path(A, 0, 2)")) == 1.0
    assert float(val(PATH3 + ":print has_path(A, 2, 0)")) == 0.0
    assert float(val(PATH3 + ":print has_path(A, 2, 2)")) == 1.0


def test_integer_arguments_may_be_rank0_values() -> None:
    src = PATH3 + "s = argmax(sum(A, 1))\n:print has_path(A, argmax(sum(A,1)), 2)"
    assert float(val(src)) == 1.0
    assert lst(PATH3 + "i = 1\n:print reach(A, i)") == [0, 1, 1]
    assert lst(PATH3 + "i = 3 - 2\n:print reach(A, i)") == [0, 1, 1]


def test_integer_arguments_reject_non_integers_and_ranges() -> None:
    with pytest.raises(NonIntegerIndexError, match="must be an integer"):
        run(PATH3 + ":print reach(A, 0.5)")
    with pytest.raises(NonIntegerIndexError):
        run(PATH3 + "i = mean(vec([0, 1]))\n:print reach(A, i)")  # only known at run time
    with pytest.raises(IndexOutOfRangeError, match="out of range"):
        run(PATH3 + ":print reach(A, 3)")
    with pytest.raises(IndexOutOfRangeError, match="negative"):
        run(PATH3 + ":print reach(A, -1)")
    with pytest.raises(ArgumentError, match="scalar integer"):
        run(PATH3 + ":print reach(A, [1])")


def test_graph_builtins_need_square_matrices() -> None:
    with pytest.raises(ShapeError, match="square"):
        run("M = ones(2, 3)\n:print tc(M)")
    with pytest.raises(ArgumentError, match="matrix"):
        run("v = ones(3)\n:print tc(v)")


# linear algebra ---------------------------------------------------------------------
def test_trace_diag_transpose() -> None:
    m = "M = [[1,2],[3,4]]\n"
    assert float(val(m + ":print trace(M)")) == 5.0
    assert lst(m + ":print diag(M)") == [1, 4]
    assert lst(":print diag([1, 2])") == [[1, 0], [0, 2]]
    assert lst(m + ":print transpose(M)") == [[1, 3], [2, 4]]
    assert lst(":print transpose([1, 2])") == [1, 2]
    with pytest.raises(ShapeError, match="square"):
        run(":print trace(ones(2, 3))")


# reductions ---------------------------------------------------------------------------
def test_sum_axis_semantics() -> None:
    m = "M = [[1,2,3],[4,5,6]]\n"
    assert float(val(m + ":print sum(M)")) == 21.0
    assert lst(m + ":print sum(M, 0)") == [5, 7, 9]  # column sums
    assert lst(m + ":print sum(M, 1)") == [6, 15]  # row sums
    assert float(val(":print sum([1, 2], 0)")) == 3.0
    assert lst(PATH3 + "Deg = sum(A, 1)\n:print Deg") == [1, 1, 0]  # out-degrees


def test_max_min_mean() -> None:
    m = "M = [[1,5],[3,2]]\n"
    assert float(val(m + ":print max(M)")) == 5.0
    assert lst(m + ":print max(M, 0)") == [3, 5]
    assert lst(m + ":print min(M, 1)") == [1, 2]
    assert float(val(m + ":print min(M)")) == 1.0
    assert lst(m + ":print mean(M, 0)") == [2, 3.5]
    assert float(val(m + ":print mean(M)")) == 2.75
    with pytest.raises(ArgumentError, match="empty"):
        run(":print max(zeros(0))")
    with pytest.raises(IndexOutOfRangeError, match="axis 2"):
        run(m + ":print sum(M, 2)")


def test_argmax_argmin_first_index() -> None:
    assert float(val(":print argmax([1, 3, 3])")) == 1.0
    assert float(val(":print argmin([2, 0, 0])")) == 1.0
    with pytest.raises(ArgumentError, match="vector"):
        run(":print argmax([[1, 2]])")


# select -------------------------------------------------------------------------------
def test_select_vector_and_matrix() -> None:
    m = "M = [[1,2,3],[4,5,6]]\n"
    assert float(val(":print select([7, 8, 9], 1, 0)")) == 8.0
    assert lst(m + ":print select(M, 1, 0)") == [4, 5, 6]  # row 1
    assert lst(m + ":print select(M, 2, 1)") == [3, 6]  # column 2
    assert float(val(m + ":print select(select(M, 1, 0), 2, 0)")) == 6.0
    with pytest.raises(IndexOutOfRangeError, match="axis 2"):
        run(m + ":print select(M, 0, 2)")
    with pytest.raises(IndexOutOfRangeError, match="index 2 is out of range along axis 0"):
        run(m + ":print select(M, 2, 0)")


# comparisons --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("op", "expected"),
    [
        ("ge", [0, 1, 1]),
        ("gt", [0, 0, 1]),
        ("eq", [0, 1, 0]),
        ("le", [1, 1, 0]),
        ("lt", [1, 0, 0]),
        ("ne", [1, 0, 1]),
    ],
)
def test_comparisons_with_scalar(op: str, expected: list[int]) -> None:
    assert lst(f":print {op}([1, 2, 3], 2)") == expected


def test_comparison_broadcasting() -> None:
    got = lst(":print ge([[1,2],[3,4]], [2, 3])")
    assert got == [[0, 0], [1, 1]]  # the vector is compared with each row
    with pytest.raises(ShapeError, match=r"\(3,\).*\(2,\)|\(2,\).*\(3,\)"):
        run(":print eq([1, 2, 3], [1, 2])")


# constructors -------------------------------------------------------------------------
def test_constructors() -> None:
    assert lst(":print ones(3)") == [1, 1, 1]
    assert lst(":print zeros(2, 3)") == [[0, 0, 0], [0, 0, 0]]
    assert lst(":print ones(1, 2)") == [[1, 1]]
    assert lst(":print eye(2)") == [[1, 0], [0, 1]]
    assert lst(":print zeros(0)") == []
    with pytest.raises(NonIntegerIndexError):
        run(":print ones(2.5)")
    with pytest.raises(ArgumentError, match=">= 0"):
        run(":print ones(-1)")


def test_every_builtin_is_exercised_here() -> None:
    source = Path(__file__).read_text(encoding="utf-8")
    missing = [n for n in BUILTINS if f"{n}(" not in source and f'"{n}"' not in source]
    assert not missing
