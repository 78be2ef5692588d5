"""Einstein summation semantics: the left side fixes the output order."""

from __future__ import annotations

import numpy as np
import pytest

from closurebench.ein import EinSyntaxError, ShapeError, run

M = "A = [[1,2],[3,4]]\nB = [[5,6],[7,8]]\n"
a = np.array([[1.0, 2.0], [3.0, 4.0]])
b = np.array([[5.0, 6.0], [7.0, 8.0]])


def val(src: str) -> np.ndarray:
    return run(src).value


def test_transpose_by_left_index_order() -> None:
    assert val(M + "T[j,i] = A[i,j]").tolist() == a.T.tolist()
    assert val(M + "T[i,j] = A[i,j]").tolist() == a.tolist()


def test_elementwise_when_no_index_is_summed() -> None:
    assert val(M + "E[i,j] = A[i,j] A[j,i]").tolist() == (a * a.T).tolist()
    assert val(M + "E[i,j] = A[i,j] B[i,j]").tolist() == (a * b).tolist()


def test_matrix_product_and_output_order() -> None:
    assert val(M + "C[i,k] = A[i,j] B[j,k]").tolist() == (a @ b).tolist()
    assert val(M + "C[k,i] = A[i,j] B[j,k]").tolist() == (a @ b).T.tolist()
    assert val(M + "C[i,k] = A[i,j] * B[j,k]").tolist() == (a @ b).tolist()


def test_three_factor_chain() -> None:
    got = val(M + "C[i,l] = A[i,j] B[j,k] A[k,l]")
    assert got.tolist() == (a @ b @ a).tolist()


def test_scalar_contraction_without_left_indices() -> None:
    assert float(val(M + "s = A[i,j] B[i,j]")) == float((a * b).sum())
    assert float(val(M + "s = A[i,j]")) == 10.0
    assert float(val(M + ":print A[i,j] B[j,i]")) == float(np.trace(a @ b))


def test_vector_results_and_call_factors() -> None:
    assert val(M + "v[i] = A[i,j] ones(2)[j]").tolist() == [3, 7]
    assert val(M + "v[j] = A[i,j]").tolist() == [4, 6]  # column sums
    assert val(M + "d[i] = A[i,i]").tolist() == [1, 4]  # diagonal
    assert float(val(M + "t = A[i,i]")) == 5.0  # trace


def test_outer_product() -> None:
    got = val("u = [1,2]\nv = [3,4,5]\nO[i,j] = u[i] v[j]")
    assert got.tolist() == np.outer([1, 2], [3, 4, 5]).tolist()


def test_constants_signs_and_division() -> None:
    assert val(M + "C[i,j] = 2 A[i,j]").tolist() == (2 * a).tolist()
    assert val(M + "C[i,j] = -A[i,j] / 2").tolist() == (-a / 2).tolist()
    assert val(M + "n = 3\nC[i,j] = A[i,j] * n").tolist() == (3 * a).tolist()
    assert float(val(M + "s = A[i,j] B[i,j] / 2")) == float((a * b).sum() / 2)


def test_private_indices_are_summed_first() -> None:
    # s = sum(A) * sum(B) without iterating the 4-index space.
    big = "A = ones(1000, 1000)\ns = A[i,j] A[k,l]"
    assert float(val(big)) == 1e12


@pytest.mark.parametrize(
    ("src", "exc", "match"),
    [
        (M + "C[i,k] = A[i,j] B[k]", ShapeError, "1 index"),
        ("A = ones(2,3)\nC[i,k] = A[i,j] A[j,k]", ShapeError, r"\(2, 3\)"),
        (M + "C[i,k] = A[i,j]", ShapeError, "does not appear"),
        (M + "C[i,i] = A[i,j]", EinSyntaxError, "twice"),
        (M + "C[i,j] = A[i,j] + B[i,j]", EinSyntaxError, "cannot combine"),
        (M + "C[i,j] = A[i,j] / B[i,j]", EinSyntaxError, "divide"),
        (M + "C[i,j] = A B[i,j]", ShapeError, "no indices"),
        (M + "X = sum(A[i,j])", EinSyntaxError, "einsum product"),
        (M + "X = A[i,j] + 1", EinSyntaxError, "cannot combine"),
        (M + "T[i,j,k] = A[i,j] B[j,k]", ShapeError, "rank at most 2"),
    ],
)
def test_einsum_errors(src: str, exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        run(src)


def test_index_size_mismatch_reports_both_shapes() -> None:
    with pytest.raises(ShapeError) as info:
        run("A = ones(2,3)\nB = ones(4,2)\nC[i,k] = A[i,j] B[j,k]")
    msg = str(info.value)
    assert "(2, 3)" in msg and "(4, 2)" in msg
    assert info.value.line == 3
