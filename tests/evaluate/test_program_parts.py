"""The pieces of the program modes: extraction, conversion, the graph-reading test, stats."""

from __future__ import annotations

from types import SimpleNamespace as R
from typing import Any

import pytest
from typed_records import results

from closurebench.evaluate.program import (
    ein_answer,
    ein_edge_lists,
    ein_graph_read,
    extract_program,
    last_printed_line,
    parse_printed,
    python_answer,
    python_graph_read,
)
from closurebench.report.aggregate import program_stats
from closurebench.sandbox import CapturedEdge, CapturedGraph

# -- extraction ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```python\nprint(1)\n```", "print(1)\n"),
        ("first\n```python\nprint(1)\n```\nthen\n```python\nprint(2)\n```\n", "print(2)\n"),
        ("```\nprint(3)\n```", "print(3)\n"),  # unlabelled
        ("```py\nprint(4)\n```", "print(4)\n"),
        ("```python\nprint(5)\n```\n```text\n5\n```", "print(5)\n"),  # other language skipped
        ("```python\nprint(6)\n", "print(6)\n"),  # cut off by the token limit
        ("print(7)", "print(7)"),  # bare code
        ("````python\nx = '```'\nprint(x)\n````", "x = '```'\nprint(x)\n"),  # longer fence
        ("", ""),
        ("```json\n{}\n```", ""),  # only a block of another language: no program
    ],
)
def test_extract_python(text: str, expected: str) -> None:
    assert extract_program(text, ("python", "py")) == expected


def test_extract_ein_and_untrusted_text() -> None:
    assert extract_program("```ein\nA = edges([[0,1]])\n```", ("ein",)) == "A = edges([[0,1]])\n"
    assert extract_program(None, ("ein",)) == ""
    assert len(extract_program("x" * 300_000, ("ein",))) == 100_000


@pytest.mark.parametrize(
    ("stdout", "value"),
    [
        ('debug\n["a", "b"]\n\n', ["a", "b"]),
        ("{'b', 'a'}", ["a", "b"]),  # a Python set literal, sorted
        ("(1, 2)", [1, 2]),
        ("True", True),
        ("true", True),
        ("3.0", 3.0),
        ("srv-05", "srv-05"),
        ("nan", "nan"),  # not finite: kept as text
        ('{"degree": 2, "reachable": true}', {"degree": 2, "reachable": True}),
    ],
)
def test_parse_printed(stdout: str, value: Any) -> None:
    assert parse_printed(last_printed_line(stdout)) == (True, value)


def test_nothing_printed() -> None:
    assert last_printed_line("\n  \n") is None
    assert parse_printed(None) == (False, None)


# -- conversion ---------------------------------------------------------------------------

LABELS = ["Eve", "Bob", "Peggy"]


@pytest.mark.parametrize(
    ("rtype", "value", "answer", "ok"),
    [
        ("set", [1, 0, 1], ["Eve", "Peggy"], True),
        ("set", [1.0, 0.0, 0.0], ["Eve"], True),
        ("set", [1, 0], [1, 0], False),  # wrong length
        ("set", [2, 0, 1], [2, 0, 1], False),  # not 0/1
        ("set", [[1, 0, 0]], [[1, 0, 0]], False),  # a matrix
        ("string", 2, "Peggy", True),
        ("string", [0, 1, 0], "Bob", True),  # one-hot
        ("string", 7, 7, False),  # out of range
        ("boolean", 1.0, True, True),
        ("boolean", 0, False, True),
        ("integer", 4.0, 4, True),
        ("integer", [1, 2, 3], [1, 2, 3], False),
        ("float", 2.5, 2.5, True),
    ],
)
def test_ein_answer(rtype: str, value: Any, answer: Any, ok: bool) -> None:
    rec = R(result_type=rtype, labels=LABELS, category="x")
    got, reason = ein_answer(rec, value, ())
    assert got == answer
    assert (reason == "") is ok


def test_ein_compound_by_label_then_order() -> None:
    rec = R(result_type="compound", labels=LABELS, category="multi_query")
    assert ein_answer(rec, 2, (("Reachable", 1), ("Degree", 2))) == (
        {"reachable": True, "degree": 2},
        "",
    )
    # unnamed values fill the keys in the category's order (reachable, then degree)
    got, reason = ein_answer(rec, 2, (("x", 1), ("y", 2)))
    assert reason == "" and got == {"reachable": True, "degree": 2}
    got, reason = ein_answer(rec, 1, (("Degree", 2),))
    assert "print one value per part" in reason


def test_python_answer_types() -> None:
    assert python_answer(R(result_type="boolean"), 0) is False
    assert python_answer(R(result_type="integer"), 3.0) == 3
    assert python_answer(R(result_type="set"), "Eve") == ["Eve"]
    assert python_answer(R(result_type="string"), ["Eve"]) == "Eve"
    rec = R(result_type="compound", category="multi_query")
    assert python_answer(rec, {"degree": 2.0, "reachable": 1}) == {"degree": 2, "reachable": True}


# -- graph reading ------------------------------------------------------------------------

CLOSURE = R(
    suite="closure",
    graph=R(directed=True, n=3, edges=[[0, 1], [1, 2]]),
    graph2=None,
    labels=LABELS,
)


def _g(
    edges: list[tuple[Any, Any]], directed: bool = True, w: float | None = None
) -> CapturedGraph:
    return CapturedGraph(directed, False, (), tuple(CapturedEdge(u, v, w, ()) for u, v in edges))


def test_ein_graph_read() -> None:
    assert ein_edge_lists("A = edges([[0,1],[1,2]], 3)\nB = edges([[2,0]])") == [
        [(0, 1), (1, 2)],
        [(2, 0)],
    ]
    assert ein_edge_lists("A = edges([[0,1]") is None  # does not parse
    assert ein_graph_read(CLOSURE, "A = edges([[1,2],[0,1]], 3)\n:print tc(A)")  # any order
    assert not ein_graph_read(CLOSURE, "A = edges([[0,1]], 3)\n:print tc(A)")  # missing edge
    assert not ein_graph_read(CLOSURE, "A = ones(3, 3)\n:print A")  # no edge list at all


def test_python_graph_read_names_indices_direction() -> None:
    assert python_graph_read(CLOSURE, [_g([("Eve", "Bob"), ("Bob", "Peggy")])])
    assert python_graph_read(CLOSURE, [_g([(0, 1), (1, 2)])])
    assert not python_graph_read(CLOSURE, [_g([("Bob", "Eve"), ("Bob", "Peggy")])])  # reversed
    assert not python_graph_read(CLOSURE, [_g([("Eve", "Bob"), ("Bob", "Mallory")])])  # unknown
    assert not python_graph_read(CLOSURE, [])
    # one right graph among others is enough
    assert python_graph_read(CLOSURE, [_g([(0, 2)]), _g([(0, 1), (1, 2)])])


def test_python_graph_read_undirected_both_directions() -> None:
    rec = R(
        suite="closure",
        graph=R(directed=False, n=3, edges=[[0, 1], [1, 2]]),
        graph2=None,
        labels=LABELS,
    )
    both = [("Eve", "Bob"), ("Bob", "Eve"), ("Peggy", "Bob")]
    assert python_graph_read(rec, [_g(both, directed=True)])
    assert python_graph_read(rec, [_g([("Bob", "Eve"), ("Bob", "Peggy")], directed=False)])


# -- report statistics --------------------------------------------------------------------


def test_program_stats_counts_classes_and_failures() -> None:
    recs = [
        {"outcome": "strict_correct", "extra": {"exec_outcome": "ok", "exec_seconds": 0.1}},
        {"outcome": "wrong", "extra": {"exec_outcome": "ok", "error_class": "logic"}},
        {"outcome": "wrong", "extra": {"exec_outcome": "ok", "error_class": "graph_reading"}},
        {
            "outcome": "no_answer",
            "extra": {"exec_outcome": "syntax_error", "error_class": "execution"},
        },
        {
            "outcome": "no_answer",
            "extra": {"exec_outcome": "no_program", "error_class": "execution"},
        },
        {"outcome": "strict_correct", "extra": {}},  # not a program-mode result
    ]
    st = program_stats(results(recs))
    assert (st.responses, st.executed, st.wrong) == (5, 3, 4)
    assert st.classes == {"graph_reading": 1, "logic": 1, "execution": 2}
    assert st.failures == {"no_program": 1, "syntax_error": 1}
    assert st.exec_rate == 60.0
