"""Algorithm 1 (MatchAnswer), strict and lenient, on every result type and ambiguity class."""

from __future__ import annotations

import pytest

from closurebench.scoring import COUNT_AMBIG, SET_AMBIG, match_answer, type_ok


def test_classes_match_the_spec() -> None:
    assert len(COUNT_AMBIG) == 6 and len(SET_AMBIG) == 6
    assert not COUNT_AMBIG & SET_AMBIG


@pytest.mark.parametrize(
    ("pred", "ref", "rtype", "cat", "alt", "sources", "strict", "lenient"),
    [
        # boolean
        (True, True, "boolean", "reachability", None, (), "correct", "correct"),
        (False, True, "boolean", "reachability", None, (), "wrong", "wrong"),
        ("yes", True, "boolean", "reachability", None, (), "format_error", "format_error"),
        (1, True, "boolean", "reachability", None, (), "format_error", "format_error"),
        # integer, count_ambig: ±1 towards alt (source inclusion), never further
        (3, 3, "integer", "reach_then_count", 4, (), "correct", "correct"),
        (4, 3, "integer", "reach_then_count", 4, (), "wrong", "correct"),
        (2, 3, "integer", "reach_then_count", 4, (), "wrong", "wrong"),
        (2, 3, "integer", "reach_then_count", None, (), "wrong", "correct"),  # Alg. 1 literally
        (5, 3, "integer", "reach_then_count", None, (), "wrong", "wrong"),
        (5, 6, "integer", "kinship_complex", 5, (), "wrong", "correct"),
        (7, 6, "integer", "kinship_complex", 5, (), "wrong", "wrong"),
        (3, 2, "integer", "intersect_then_size", 4, (), "wrong", "correct"),
        (4, 2, "integer", "intersect_then_size", 4, (), "wrong", "wrong"),  # two away
        (3, 2, "integer", "conditional", 3, (), "wrong", "correct"),
        (0, -1, "integer", "conditional", -1, (), "wrong", "wrong"),  # alt = r: no ambiguity
        (2, 1, "integer", "graph_comparison", 2, (), "wrong", "correct"),
        (4.0, 4, "integer", "degree_count", None, (), "correct", "correct"),
        (5, 4, "integer", "degree_count", None, (), "wrong", "wrong"),  # not ambiguous
        (4.5, 4, "integer", "degree_count", None, (), "format_error", "format_error"),
        ("4", 4, "integer", "degree_count", None, (), "format_error", "format_error"),
        (True, 1, "integer", "degree_count", None, (), "format_error", "format_error"),
        (None, 1, "integer", "degree_count", None, (), "format_error", "format_error"),
        # float (ε = 1e-2); aggregate_over_set lenient against alt
        (2.62, 2.62, "float", "mixed_domain", None, (), "correct", "correct"),
        (2.63, 2.62, "float", "mixed_domain", None, (), "correct", "correct"),
        (2.64, 2.62, "float", "mixed_domain", None, (), "wrong", "wrong"),
        (1, 1.0, "float", "mixed_domain", None, (), "correct", "correct"),
        (0.5, 0, "float", "aggregate_over_set", 0.5, (), "wrong", "correct"),
        (1.5, 0, "float", "aggregate_over_set", 0.5, (), "wrong", "wrong"),
        (1.0, 0, "float", "aggregate_over_set", None, (), "wrong", "wrong"),
        ("2.62", 2.62, "float", "mixed_domain", None, (), "format_error", "format_error"),
        (float("nan"), 2.62, "float", "mixed_domain", None, (), "format_error", "format_error"),
        # set, set_ambig: ± exactly one source node
        (["b", "a"], ["a", "b"], "set", "sibling", None, {"X"}, "correct", "correct"),
        (["a", "b", "X"], ["a", "b"], "set", "sibling", None, {"X"}, "wrong", "correct"),
        (["a"], ["a", "X"], "set", "ancestor", None, {"X"}, "wrong", "correct"),
        (["a", "b", "c"], ["a", "b"], "set", "sibling", None, {"X"}, "wrong", "wrong"),
        (["a", "X", "Y"], ["a"], "set", "set_intersect", None, {"X", "Y"}, "wrong", "wrong"),
        (["a", "Y"], ["a"], "set", "set_intersect", None, {"X", "Y"}, "wrong", "correct"),
        (["a", "X"], ["a"], "set", "reach_then_filter", None, {"X"}, "wrong", "wrong"),
        ([], [], "set", "negative_reach", None, {"X"}, "correct", "correct"),
        (["X"], [], "set", "negative_reach", None, {"X"}, "wrong", "correct"),
        ("a, b", ["a", "b"], "set", "sibling", None, (), "format_error", "format_error"),
        ({"a": 1}, ["a"], "set", "sibling", None, (), "format_error", "format_error"),
        ([["a"]], ["a"], "set", "sibling", None, (), "format_error", "format_error"),
        # string
        (" Bob ", "Bob", "string", "max_degree", None, (), "correct", "correct"),
        ("bob", "Bob", "string", "max_degree", None, (), "wrong", "wrong"),
        (["Bob"], "Bob", "string", "max_degree", None, (), "format_error", "format_error"),
        # compound (recursive; extra keys ignored; missing key = schema violation)
        (
            {"reachable": True, "degree": 2},
            {"reachable": True, "degree": 2},
            "compound",
            "multi_query",
            None,
            (),
            "correct",
            "correct",
        ),
        (
            {"reachable": True, "degree": 3},
            {"reachable": True, "degree": 2},
            "compound",
            "multi_query",
            None,
            (),
            "wrong",
            "wrong",
        ),
        (
            {"reachable": True, "degree": 2, "note": "x"},
            {"reachable": True, "degree": 2},
            "compound",
            "multi_query",
            None,
            (),
            "correct",
            "correct",
        ),
        (
            {"reachable": True},
            {"reachable": True, "degree": 2},
            "compound",
            "multi_query",
            None,
            (),
            "format_error",
            "format_error",
        ),
        (
            {"reachable": "yes", "degree": 2},
            {"reachable": True, "degree": 2},
            "compound",
            "multi_query",
            None,
            (),
            "format_error",
            "format_error",
        ),
        (
            [True, 2],
            {"reachable": True, "degree": 2},
            "compound",
            "multi_query",
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
    cat: str,
    alt: object,
    sources: object,
    strict: str,
    lenient: str,
) -> None:
    kw = {"alt": alt, "sources": sources}
    assert match_answer(pred, ref, rtype, cat, "strict", **kw) == strict
    assert match_answer(pred, ref, rtype, cat, "lenient", **kw) == lenient


def test_strict_ignores_ambiguity_and_lenient_implies_strict() -> None:
    for cat in COUNT_AMBIG - {"aggregate_over_set"}:
        assert match_answer(4, 3, "integer", cat, "strict") == "wrong"
        assert match_answer(4, 3, "integer", cat, "lenient") == "correct"
    for cat in SET_AMBIG:
        assert match_answer(["a", "s"], ["a"], "set", cat, "strict", sources={"s"}) == "wrong"
        assert match_answer(["a", "s"], ["a"], "set", cat, "lenient", sources={"s"}) == "correct"


def test_bad_mode_and_unknown_type() -> None:
    with pytest.raises(ValueError, match="mode"):
        match_answer(1, 1, "integer", "degree_count", "loose")
    assert match_answer(1, 1, "matrix", "x") == "format_error"
    assert not type_ok("compound", {"a": 1}, None)
