"""Long number lists are read straight into an array, with the same meaning as the node path.

``parse`` reads a number list of ``LAZY_LITERAL_CHARS`` characters or more with one JSON
parse (:class:`~closurebench.ein.parser.LazyListLiteral`); its item nodes are built only
when asked for. Everything it does not read exactly as the node path would goes the node
way, so values, shapes and error messages never depend on the threshold.
"""

from __future__ import annotations

import random
from typing import cast

import numpy as np
import pytest

from closurebench import ein
from closurebench.ein import parser
from closurebench.ein.ast import Call, Statement
from closurebench.ein.parser import LazyListLiteral, _fast_parse, _numlist, _parser, parse


def _pairs(n: int, count: int, seed: int = 0) -> str:
    r = random.Random(seed)
    pairs = [(r.randrange(n), r.randrange(n)) for _ in range(count)]
    return "[" + ",".join(f"[{u},{v}]" for u, v in pairs if u != v) + "]"


def _outcome(src: str) -> tuple[str, object]:
    try:
        res = ein.run(src)
    except ein.EinError as exc:
        return type(exc).__name__, str(exc)
    return "ok", (
        ein.to_json_value(res.value),
        [(lab, ein.to_json_value(v)) for lab, v in res.printed],
    )


def _eager(monkeypatch: pytest.MonkeyPatch, src: str) -> tuple[str, object]:
    with monkeypatch.context() as m:
        m.setattr(parser, "LAZY_LITERAL_CHARS", 10**9)
        return _outcome(src)


def test_a_long_edge_list_is_an_array_with_the_same_nodes() -> None:
    lit = _pairs(300, 2000)
    prog = parse(f"A = edges({lit}, 300)\n:print sum(A)")
    call = prog.statements[0].value
    assert isinstance(call, Call)
    node = call.args[0]
    assert isinstance(node, LazyListLiteral)
    eager = _numlist(lit, node.span.line, node.span.column, node.span.start)
    assert (node.span, node.depth) == (eager.span, eager.depth)
    assert node.items == eager.items  # built on demand, identical nodes and spans
    assert node.array.shape == (len(eager.items), 2) and not node.array.flags.writeable


@pytest.mark.parametrize(
    "literal",
    [
        _pairs(50, 400),
        "[" + ",".join(str(x % 7) for x in range(600)) + "]",  # a vector
        "[" + ",".join(f"-{x}.25e-1" for x in range(300)) + "]",  # signs, decimals, exponents
        "[" + ",".join(["-0"] * 200) + "]",  # negative zero stays -0.0
        "[" + ",".join(["1."] * 200) + "]",  # not JSON: node path
        "[" + ",".join([".5"] * 200) + "]",  # not JSON: node path
        "[" + ",".join(["- 1"] * 200) + "]",  # a spaced sign: node path
        "[" + ",".join(["[1,2]"] * 150) + ",[1]]",  # ragged: the node path's error
        "[" + ",".join(["1"] * 150) + ",1e400]",  # overflow: the node path's error
        "[" + ",".join(["[]"] * 150) + "]",  # empty rows
    ],
)
def test_values_and_errors_do_not_depend_on_the_threshold(
    literal: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(literal) >= parser.LAZY_LITERAL_CHARS
    for src in (f"X = {literal}\n:print X", f"S = sum({literal})\n:print S * 2"):
        assert _outcome(src) == _eager(monkeypatch, src)


def test_negative_zero_survives_the_array_path() -> None:
    lit = "[" + ",".join(["-0"] * 200) + "]"
    node = parse(f"X = {lit}").statements[0].value
    assert isinstance(node, LazyListLiteral) and np.signbit(node.array).all()


def test_fast_path_and_lark_agree_on_long_literals() -> None:
    src = f"A = edges({_pairs(100, 800, seed=3)}, 100)\nT = tc(A)\n:print sum(T)"
    fast = _fast_parse(src)
    assert fast is not None
    # lark's parse is typed as returning a Tree; with the transformer it returns statements.
    slow = cast("tuple[Statement, ...] | None", _parser().parse(src))
    assert tuple(fast) == tuple(slow or ())


def test_a_ten_thousand_pair_program_runs_like_the_node_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    src = f"A = edges({_pairs(1000, 10_000)}, 1000)\nT = tc(A)\n:print sum(T)\n:print sum(A)"
    assert _outcome(src) == _eager(monkeypatch, src)


def test_the_array_path_stays_faster_than_the_node_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ratio in one process (no wall-clock bound): the array path must keep its lead.

    Measured ~9× on a 10,000-pair literal (benchmarks/bench_ein_literals.py); a regression
    that sends long literals back through per-entry nodes fails the 3× bound.
    """
    import time

    src = f"A = edges({_pairs(1000, 10_000)}, 1000)\n:print sum(A)"

    def best(repeats: int = 5) -> float:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            ein.run(src)
            times.append(time.perf_counter() - t)
        return min(times)

    fast = best()
    with monkeypatch.context() as m:
        m.setattr(parser, "LAZY_LITERAL_CHARS", 10**9)
        slow = best()
    assert slow / fast > 3, (slow, fast)


def _spread(literal: str, seed: int, comments: bool) -> str:
    """``literal`` with newlines (and ``//`` comments) after some of its commas."""
    r = random.Random(seed)
    out = []
    for ch in literal:
        out.append(ch)
        if ch == "," and r.random() < 0.3:
            out.append((" // a comment, [1, 2]" if comments and r.random() < 0.5 else "") + "\n")
            out.append(" " * r.randrange(3))
    return "".join(out)


def _tree(statements: tuple[Statement, ...] | None) -> str:
    return repr(tuple(statements or ())).replace("LazyListLiteral(", "ListLiteral(")


_LONG_ROW = "[" + ",".join(str(x % 2) for x in range(200)) + "]"  # a row of 399 characters


@pytest.mark.parametrize("comments", [False, True])
@pytest.mark.parametrize(
    "literal",
    [
        _pairs(60, 500, seed=4),
        "[" + ",".join(f"-{x}.5e-1" for x in range(300)) + "]",  # a vector, signs, exponents
        "[" + ",".join([_LONG_ROW] * 3) + "]",  # rows long enough for the array path alone
        "[" + ",".join(["[1,2]"] * 150) + ",[1]]",  # ragged: the node path's error
        "[" + ",".join(["1"] * 150) + ",1e400]",  # overflow: the node path's error
        "[" + ",".join(["1."] * 200) + "]",  # not JSON: the node path
        "[" + ",".join(["[[1]]"] * 100) + "]",  # three levels: the node path's error
    ],
)
def test_literals_over_several_lines_read_as_the_node_path_and_lark_do(
    literal: str, comments: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    for seed in range(3):
        spread = _spread(literal, seed, comments)
        src = f"// spread\nX = sum({spread}\n)\n:print X\nY = {spread}"
        if "\n" not in spread:
            continue
        fast = _fast_parse(src)
        with monkeypatch.context() as m:
            m.setattr(parser, "LAZY_LITERAL_CHARS", 10**9)
            eager = _fast_parse(src)
        assert (fast is None) == (eager is None)  # None: lark reads it (and its error)
        if fast is not None:
            slow = cast("tuple[Statement, ...] | None", _parser().parse(src))
            # Lazy nodes built on demand: the same tree, spans and values (a lazy node is
            # a ListLiteral, so the trees are compared with the class names made alike).
            assert _tree(fast) == _tree(slow) == _tree(eager)
        assert _outcome(src) == _eager(monkeypatch, src)


def test_a_multi_line_edge_list_takes_the_array_path() -> None:
    rows = _pairs(300, 2000)[1:-1].replace("],[", "],\n  [")
    src = f"A = edges([ // the graph\n  {rows}\n], 300)\nT = tc(A)\n:print sum(T)"
    call = parse(src).statements[0].value
    assert isinstance(call, Call)
    node = call.args[0]
    assert isinstance(node, LazyListLiteral) and node.array.shape[1] == 2
    assert (node.span.line, node.span.column) == (1, 11)
    # The statements after the literal keep their lines and columns.
    assert parse(src).statements[1].span.line == src.count("\n")
