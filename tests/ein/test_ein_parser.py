"""Surface syntax: statements, comments, precedence, literals, labels, strictness."""

from __future__ import annotations

import numpy as np
import pytest

from closurebench.ein import EinSyntaxError, ShapeError, ast, parse, run


def num(src: str) -> float:
    return float(run(src).value)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("1 + 2 * 3", 7.0),
        ("(1 + 2) * 3", 9.0),
        ("8 / 4 / 2", 1.0),
        ("2 - 3 - 4", -5.0),
        ("-2 * 3", -6.0),
        ("- -2", 2.0),
        ("2 * -3", -6.0),
        ("1.5e2 + .5", 150.5),
        ("10 - 2 * 3 + 4 / 2", 6.0),
    ],
)
def test_arithmetic_precedence(expr: str, expected: float) -> None:
    assert num(f"x = {expr}") == expected


def test_elementwise_broadcasting() -> None:
    got = run("M = [[1,2],[3,4]]\n:print M * [10, 100] + 1").value
    assert got.tolist() == [[11, 201], [31, 401]]


def test_comments_blank_lines_crlf_and_tabs() -> None:
    src = "// header\r\n\r\nA = 2 // trailing\r\n\t// indented comment\r\nB = A * 3\r\n"
    assert num(src) == 6.0


def test_literals_may_span_lines() -> None:
    src = "A = edges([[0,1],\n  [1,2]],\n  3)\n:print sum(A)"
    assert num(src) == 2.0


def test_statement_kinds_and_spans() -> None:
    prog = parse("A = 1\nB[i] = v[i]\n:print A + 1")
    kinds = [type(s) for s in prog.statements]
    assert kinds == [ast.Assign, ast.EinsumAssign, ast.Print]
    printed = prog.statements[2]
    assert isinstance(printed, ast.Print) and printed.label == "A + 1"
    assert (printed.span.line, printed.span.column) == (3, 1)
    plus = printed.value
    assert isinstance(plus, ast.BinOp) and (plus.span.line, plus.span.column) == (3, 10)


def test_result_is_last_print_else_last_assignment() -> None:
    r = run("A = 1\n:print A\nB = 2")
    assert float(r.value) == 1.0 and r.label == "A" and len(r.printed) == 1
    r = run("A = 1\nB = 2")
    assert float(r.value) == 2.0 and r.label == "B" and r.printed == []


def test_print_labels() -> None:
    r = run("A = [1, 2]\n:print A\n:print sum(A,  0)\n:print (A + 1) * 2")
    assert [label for label, _ in r.printed] == ["A", "sum(A, 0)", "(A + 1) * 2"]
    assert np.array_equal(r.printed[2][1], np.array([4.0, 6.0]))


def test_variables_and_builtins_live_in_separate_namespaces() -> None:
    assert num("sum = 3\nx = sum + sum([1, 2])") == 6.0


@pytest.mark.parametrize(
    "src",
    [
        "A = 1 $ 2",
        "A = 1 2",
        "A = (1",
        "A = 1)",
        "A == 1",
        "= 1",
        ":print",
        ":printA",
        "A = [1,,2]",
        "A = [1, 2",
        "A = 1;",
        "A = sum(1,)",
        "A[0] = 1",
        "X = B[0, 1]",
        "A = 1e999",
        "A = 'x'",
        "A = ones(3)\nB = A B",
        "A = 1 = 2",
        "print A",
        "A = 1\n  ]",
        "A = é",
    ],
)
def test_syntax_errors(src: str) -> None:
    with pytest.raises(EinSyntaxError) as info:
        run(src)
    assert info.value.line is not None and info.value.column is not None
    assert "^" in str(info.value)


def test_fixed_index_hint() -> None:
    with pytest.raises(EinSyntaxError, match="use select"):
        run("A = ones(2,2)\nx = A[0, 1]")


def test_unclosed_bracket_hint() -> None:
    with pytest.raises(EinSyntaxError, match=r"opened at line 1, column 11"):
        run("A = edges([[0,1]\nB = 2")


@pytest.mark.parametrize(
    ("src", "match"),
    [
        ("A = [[1,2],[3]]", "ragged"),
        ("A = [1, [2]]", "mixes"),
        ("A = [[[1]]]", "two levels"),
    ],
)
def test_list_literal_shape_errors(src: str, match: str) -> None:
    with pytest.raises(ShapeError, match=match):
        run(src)
