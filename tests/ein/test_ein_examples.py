"""The paper's example programs run unchanged and give the documented answers."""

from __future__ import annotations

import pytest

from closurebench.ein import IndexOutOfRangeError, UnknownNameError, run
from closurebench.ein.examples import (
    MULTI_QUERY,
    MULTI_QUERY_PAPER,
    PAPER_PROGRAMS,
    REACH_THEN_COUNT,
    REACH_THEN_COUNT_PAPER,
    TRIANGLE_COUNT,
)


def test_triangle_count_is_one() -> None:
    assert float(run(TRIANGLE_COUNT).value) == 1.0


def test_reach_then_count_strict_tc_gives_two_reach_gives_three() -> None:
    assert float(run(REACH_THEN_COUNT).value) == 2.0
    prefix = REACH_THEN_COUNT.split("TC = tc(A)")[0]
    assert float(run(prefix + "Result = sum(select(tc(A), 2, 0))").value) == 2.0
    assert float(run(prefix + "Result = sum(reach(A, 2))").value) == 3.0


def test_reach_then_count_as_printed_in_the_paper_is_a_clear_error() -> None:
    with pytest.raises(UnknownNameError, match=r"select\(T, 2, 0\)") as info:
        run(REACH_THEN_COUNT_PAPER)
    assert (info.value.line, info.value.column) == (8, 24)


def test_multi_query() -> None:
    printed = run(MULTI_QUERY).printed
    assert [(label, float(v)) for label, v in printed] == [("Reachable", 1.0), ("Degree", 1.0)]


def test_multi_query_as_printed_in_the_paper_is_a_clear_error() -> None:
    with pytest.raises(IndexOutOfRangeError) as info:
        run(MULTI_QUERY_PAPER)
    assert info.value.line == 4
    assert "axis 2 is out of range" in str(info.value)


@pytest.mark.parametrize("name", sorted(PAPER_PROGRAMS))
def test_paper_programs_table(name: str) -> None:
    source, expected = PAPER_PROGRAMS[name]
    result = run(source)
    got = [float(v) for _, v in result.printed] or [float(result.value)]
    assert tuple(got) == expected


def test_appendix_e_declarations() -> None:
    src = """
A = edges([[0,1],[1,0]],2)
v = vec([1,0,1],3)
s = 42.0
B = A
C[i,k] = A[i,j] B[j,k]
w[i] = A[i,j] ones(2)[j]
t = A[i,j] B[i,j]
"""
    result = run(src, keep={"C", "w", "s"})
    assert result.env["C"].tolist() == [[1, 0], [0, 1]]
    assert result.env["w"].tolist() == [1, 1]
    assert float(result.env["t"]) == 2.0
    assert float(result.env["s"]) == 42.0
    assert result.label == "t"
