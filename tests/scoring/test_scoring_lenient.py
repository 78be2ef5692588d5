"""Algorithm 1 (MatchAnswer), strict and lenient, on every result type and ambiguity class.

The ambiguity class is an argument (the record's ``ambiguity`` field), never looked up
from a category name.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pytest

from closurebench.errors import ConfigError
from closurebench.schema import Ambiguity, Match
from closurebench.scoring import LENIENT_DIRECTIONAL, MODES, match_answer, type_ok

C, S = Ambiguity.COUNT, Ambiguity.SET


@pytest.mark.parametrize(
    ("pred", "ref", "rtype", "ambiguity", "alt", "sources", "strict", "lenient"),
    [
        # boolean
        (True, True, "boolean", None, None, (), "correct", "correct"),
        (False, True, "boolean", None, None, (), "wrong", "wrong"),
        ("yes", True, "boolean", None, None, (), "format_error", "format_error"),
        (1, True, "boolean", None, None, (), "format_error", "format_error"),
        # integer, count ambiguity: Algorithm 1 accepts |p - r| = 1 either way, never further
        (3, 3, "integer", C, 4, (), "correct", "correct"),
        (4, 3, "integer", C, 4, (), "wrong", "correct"),
        (2, 3, "integer", C, 4, (), "wrong", "correct"),
        (2, 3, "integer", C, None, (), "wrong", "correct"),  # Alg. 1 literally
        (5, 3, "integer", C, None, (), "wrong", "wrong"),
        (5, 6, "integer", C, 5, (), "wrong", "correct"),
        (7, 6, "integer", C, 5, (), "wrong", "correct"),
        (3, 2, "integer", C, 4, (), "wrong", "correct"),
        (4, 2, "integer", C, 4, (), "wrong", "wrong"),  # two away
        (3, 2, "integer", C, 3, (), "wrong", "correct"),
        (0, -1, "integer", C, -1, (), "wrong", "correct"),
        (-2, -1, "integer", C, None, (), "wrong", "correct"),  # conditional's -1 branch
        (2, 1, "integer", C, 2, (), "wrong", "correct"),
        (4.0, 4, "integer", None, None, (), "correct", "correct"),
        (5, 4, "integer", None, None, (), "wrong", "wrong"),  # not ambiguous
        (4.5, 4, "integer", None, None, (), "format_error", "format_error"),
        ("4", 4, "integer", None, None, (), "format_error", "format_error"),
        (True, 1, "integer", None, None, (), "format_error", "format_error"),
        (None, 1, "integer", None, None, (), "format_error", "format_error"),
        # float (ε = 1e-2); Algorithm 1's float branch has no lenient clause
        (2.62, 2.62, "float", None, None, (), "correct", "correct"),
        (2.63, 2.62, "float", None, None, (), "correct", "correct"),
        (2.64, 2.62, "float", None, None, (), "wrong", "wrong"),
        (1, 1.0, "float", None, None, (), "correct", "correct"),
        (0.5, 0, "float", C, 0.5, (), "wrong", "wrong"),
        (1.5, 0, "float", C, 0.5, (), "wrong", "wrong"),
        (1.0, 0, "float", C, None, (), "wrong", "wrong"),
        ("2.62", 2.62, "float", None, None, (), "format_error", "format_error"),
        (float("nan"), 2.62, "float", None, None, (), "format_error", "format_error"),
        # set, set ambiguity: ± exactly one source node
        (["b", "a"], ["a", "b"], "set", S, None, {"X"}, "correct", "correct"),
        (["a", "b", "X"], ["a", "b"], "set", S, None, {"X"}, "wrong", "correct"),
        (["a"], ["a", "X"], "set", S, None, {"X"}, "wrong", "correct"),
        (["a", "b", "c"], ["a", "b"], "set", S, None, {"X"}, "wrong", "wrong"),
        (["a", "X", "Y"], ["a"], "set", S, None, {"X", "Y"}, "wrong", "wrong"),
        (["a", "Y"], ["a"], "set", S, None, {"X", "Y"}, "wrong", "correct"),
        (["a", "X"], ["a"], "set", None, None, {"X"}, "wrong", "wrong"),
        ([], [], "set", S, None, {"X"}, "correct", "correct"),
        (["X"], [], "set", S, None, {"X"}, "wrong", "correct"),
        ("a, b", ["a", "b"], "set", S, None, (), "format_error", "format_error"),
        ({"a": 1}, ["a"], "set", S, None, (), "format_error", "format_error"),
        ([["a"]], ["a"], "set", S, None, (), "format_error", "format_error"),
        # string
        (" Bob ", "Bob", "string", None, None, (), "correct", "correct"),
        ("bob", "Bob", "string", None, None, (), "wrong", "wrong"),
        (["Bob"], "Bob", "string", None, None, (), "format_error", "format_error"),
        # compound (recursive; extra keys ignored; line 27: a missing or mistyped member
        # is a failure of the recursion, "any failure => WrongAnswer")
        (
            {"reachable": True, "degree": 2},
            {"reachable": True, "degree": 2},
            "compound",
            None,
            None,
            (),
            "correct",
            "correct",
        ),
        (
            {"reachable": True, "degree": 3},
            {"reachable": True, "degree": 2},
            "compound",
            None,
            None,
            (),
            "wrong",
            "wrong",
        ),
        (
            {"reachable": True, "degree": 2, "note": "x"},
            {"reachable": True, "degree": 2},
            "compound",
            None,
            None,
            (),
            "correct",
            "correct",
        ),
        (
            {"reachable": True},
            {"reachable": True, "degree": 2},
            "compound",
            None,
            None,
            (),
            "wrong",
            "wrong",
        ),
        (
            {"reachable": "yes", "degree": 2},
            {"reachable": True, "degree": 2},
            "compound",
            None,
            None,
            (),
            "wrong",
            "wrong",
        ),
        (
            [True, 2],
            {"reachable": True, "degree": 2},
            "compound",
            None,
            None,
            (),
            "format_error",
            "format_error",
        ),
    ],
)
def test_algorithm_1(
    pred: object,
    ref: object,
    rtype: str,
    ambiguity: Ambiguity | None,
    alt: object,
    sources: Collection[str],
    strict: str,
    lenient: str,
) -> None:
    kw: dict[str, Any] = {"alt": alt, "sources": sources}
    got_strict = match_answer(pred, ref, rtype, ambiguity, "strict", **kw)
    got_lenient = match_answer(pred, ref, rtype, ambiguity, "lenient", **kw)
    assert isinstance(got_strict, Match) and isinstance(got_lenient, Match)
    assert (got_strict, got_lenient) == (strict, lenient)


def test_strict_ignores_ambiguity_and_lenient_needs_it() -> None:
    assert match_answer(4, 3, "integer", C, "strict") is Match.WRONG
    assert match_answer(4, 3, "integer", C, "lenient") is Match.CORRECT
    assert match_answer(["a", "s"], ["a"], "set", S, "strict", sources={"s"}) is Match.WRONG
    assert match_answer(["a", "s"], ["a"], "set", S, "lenient", sources={"s"}) is Match.CORRECT
    # The class must be the right one for the value: a count class does not forgive sets.
    assert match_answer(["a", "s"], ["a"], "set", C, "lenient", sources={"s"}) is Match.WRONG
    assert match_answer(4, 3, "integer", S, "lenient") is Match.WRONG
    for ambiguity in (None, C, S):
        assert match_answer(4, 3, "integer", ambiguity, "strict") is Match.WRONG
        # The record's string form works as well as the member.
        value = None if ambiguity is None else ambiguity.value
        # (match_answer is annotated Ambiguity | None; the str form is accepted on purpose)
        assert match_answer(4, 3, "integer", value, "lenient") == (  # type: ignore[arg-type]
            Match.CORRECT if ambiguity is C else Match.WRONG
        )


def test_bad_mode_and_unknown_type() -> None:
    with pytest.raises(ConfigError, match="mode"):
        match_answer(1, 1, "integer", None, "loose")
    assert match_answer(1, 1, "matrix", None) is Match.FORMAT_ERROR
    assert not type_ok("compound", {"a": 1}, None)


@pytest.mark.parametrize(
    ("pred", "ref", "rtype", "ambiguity", "alt", "sources", "expected"),
    [
        # integer: only the step towards alt; alt itself only when one away
        (4, 3, "integer", C, 4, (), "correct"),
        (2, 3, "integer", C, 4, (), "wrong"),
        (3, 2, "integer", C, 4, (), "correct"),  # intersect_then_size: alt = r + 2
        (4, 2, "integer", C, 4, (), "wrong"),
        (5, 6, "integer", C, 5, (), "correct"),
        (7, 6, "integer", C, 5, (), "wrong"),
        (0, -1, "integer", C, -1, (), "wrong"),  # alt = r: no tolerance
        (0, -1, "integer", C, None, (), "wrong"),  # no alt (conditional's -1): none
        (-2, -1, "integer", C, None, (), "wrong"),
        (4, 3, "integer", None, 4, (), "wrong"),  # not ambiguous
        # float: the mean with the source included
        (0.5, 0, "float", C, 0.5, (), "correct"),
        (1.5, 0, "float", C, 0.5, (), "wrong"),
        (1.0, 0, "float", C, None, (), "wrong"),
        # set: one element of alt △ r (else one source)
        (["a", "X"], ["a"], "set", S, ["a", "X"], {"X", "Y"}, "correct"),
        (["a", "Y"], ["a"], "set", S, ["a", "X"], {"X", "Y"}, "wrong"),
        (["a", "X", "Y"], ["a"], "set", S, ["a", "X", "Y"], {"X", "Y"}, "wrong"),
        (["a", "Y"], ["a"], "set", S, ["a", "X", "Y"], {"X", "Y"}, "correct"),
        (["a", "X"], ["a"], "set", S, None, {"X"}, "correct"),
        (["a"], ["a"], "set", S, ["a", "X"], {"X"}, "correct"),
        # compound: recursive with the member's alt
        ({"degree": 3}, {"degree": 2}, "compound", C, {"degree": 3}, (), "correct"),
        ({"degree": 1}, {"degree": 2}, "compound", C, {"degree": 3}, (), "wrong"),
    ],
)
def test_directional_variant(
    pred: object,
    ref: object,
    rtype: str,
    ambiguity: Ambiguity | None,
    alt: object,
    sources: Collection[str],
    expected: str,
) -> None:
    got = match_answer(pred, ref, rtype, ambiguity, LENIENT_DIRECTIONAL, alt=alt, sources=sources)
    assert got == expected


def test_modes() -> None:
    assert MODES == ("strict", "lenient", "lenient_directional")
