"""Answer extraction and typed comparison (strict)."""

from __future__ import annotations

import pytest

from closurebench.scoring import compare, extract_answer


@pytest.mark.parametrize(
    ("text", "status", "value"),
    [
        ('{"answer": 3}', "ok", 3),
        ("  [1, 2]  ", "format_error", None),  # a bare value: no "answer" field
        ('Let me think. {"answer": ["a", "b"]}', "ok", ["a", "b"]),
        # App. I: "a single {"answer": ...} object embedded"; two different: format error
        ('{"answer": 1} then {"answer": 2}', "format_error", None),
        ('{"result": 3}', "format_error", None),
        ('{"answer": [1, 2}', "format_error", None),
        ("The answer is {broken", "format_error", None),
        ("", "no_answer", None),
        ("I cannot answer that.", "no_answer", None),
        (None, "no_answer", None),
        ("[" * 5000, "no_answer", None),
    ],
)
def test_extract(text: str | None, status: str, value: object) -> None:
    got = extract_answer(text)
    assert got.status == status
    if status == "ok":
        assert got.value == value


@pytest.mark.parametrize(
    ("rtype", "pred", "ref", "ok"),
    [
        ("boolean", True, True, True),
        ("boolean", 1, True, False),
        ("boolean", "true", True, False),
        ("integer", 4, 4, True),
        ("integer", 4.0, 4, True),
        ("integer", 5, 4, False),
        ("integer", "4", 4, False),
        ("integer", True, 1, False),
        ("float", 2.62, 2.62, True),
        ("float", 2.63, 2.62, True),
        ("float", 2.64, 2.62, False),
        ("set", ["b", "a"], ["a", "b"], True),
        ("set", ["a"], ["a", "b"], False),
        ("set", ["a", "b", "c"], ["a", "b"], False),
        ("set", "a,b", ["a", "b"], False),
        ("set", [], [], True),
        ("string", "Alice", "Alice", True),
        ("string", " Alice ", "Alice", True),
        ("string", "Bob", "Alice", False),
        ("string", ["Alice"], "Alice", False),
        ("compound", {"reachable": True, "degree": 2}, {"reachable": True, "degree": 2}, True),
        ("compound", {"reachable": True, "degree": 1}, {"reachable": True, "degree": 2}, False),
        ("compound", {"reachable": True}, {"reachable": True, "degree": 2}, False),
        # One comparator with Algorithm 1: extra keys are ignored, labels are trimmed.
        (
            "compound",
            {"reachable": True, "degree": 2, "x": 0},
            {"reachable": True, "degree": 2},
            True,
        ),
        ("string", "Alice", " Alice ", True),
        ("compound", [True, 2], {"reachable": True, "degree": 2}, False),
    ],
)
def test_compare(rtype: str, pred: object, ref: object, ok: bool) -> None:
    assert compare(rtype, pred, ref) is ok
