"""Extraction: JSON (ClosureBench) and the GRIT forms, with the paper's edge cases."""

from __future__ import annotations

import pytest

from closurebench.scoring import extract_answer, parse_block


@pytest.mark.parametrize(
    ("text", "status", "value"),
    [
        # paper Appendix I/J: plain, embedded, malformed, missing field, refusal, truncation
        ('{"answer": {"reachable": true, "degree": 2}}', "ok", {"reachable": True, "degree": 2}),
        ('Reasoning...\nFinal: {"answer": 7}\n', "ok", 7),
        ('```json\n{"answer": ["A", "B"]}\n```', "ok", ["A", "B"]),
        ('{"answer": []}', "ok", []),
        ('{"answer": 0}', "ok", 0),
        ('{"answer": null}', "ok", None),
        ('{"answer": [A, B]}', "format_error", None),
        ("{'answer': 3}", "format_error", None),
        ('{"result": 3}', "format_error", None),
        ('So the answer is {"answer": 3', "format_error", None),
        ("I'm sorry, but I can't help with that.", "no_answer", None),
        ("Let me trace the graph. From A we reach {B, C}. Then from B we", "no_answer", None),
        ("Step 1: A pays B. Step 2: B pays C. So far the reachable nodes are", "no_answer", None),
        ("   \n\t ", "no_answer", None),
        ("<answer>3</answer>", "format_error", None),
        (r"\boxed{3}", "format_error", None),
    ],
)
def test_json_mode(text: str, status: str, value: object) -> None:
    got = extract_answer(text)
    assert got.status == status
    if status == "ok":
        assert got.value == value


@pytest.mark.parametrize(
    ("text", "status", "value"),
    [
        ("<think>a</think><answer>17</answer>", "ok", 17),
        ("<answer>1</answer> wait <answer>2</answer>", "ok", 2),
        ("<ANSWER> 2.5 </ANSWER>", "ok", 2.5),
        ("<answer>Vega -> Acrux -> Dorado</answer>", "ok", ["Vega", "Acrux", "Dorado"]),
        ("<answer>Vega → Acrux</answer>", "ok", ["Vega", "Acrux"]),
        ("<answer>Vega, Acrux, Dorado</answer>", "ok", ["Vega", "Acrux", "Dorado"]),
        ("<answer>[Vega, Acrux]</answer>", "ok", ["Vega", "Acrux"]),
        ('<answer>["Vega", "Acrux"]</answer>', "ok", ["Vega", "Acrux"]),
        ("<answer>Poplar Lane</answer>", "ok", "Poplar Lane"),
        ("<answer>0x1A30</answer>", "ok", "0x1A30"),
        ('<answer>{"answer": 12}</answer>', "ok", 12),
        ('<answer>{"A": 0, "B": 1}</answer>', "ok", {"A": 0, "B": 1}),
        (r"<answer>The cost is \boxed{12}</answer>", "ok", 12),
        (r"so \boxed{3} no, \boxed{4}.", "ok", 4),
        (r"\boxed{\text{Poplar Lane}}", "ok", "Poplar Lane"),
        (r"\boxed{\{A, B\}", "format_error", None),
        ("<answer>12", "ok", 12),
        ("<answer></answer>", "format_error", None),
        ('<answer>{"answer": [1, 2}</answer>', "format_error", None),
        ('<answer>{"path": [1, 2</answer>', "format_error", None),
        ('{"answer": 9}', "ok", 9),
        ("<think>the tour so far is A, B, C and then", "no_answer", None),
        ("I cannot solve this.", "no_answer", None),
        ("", "no_answer", None),
    ],
)
def test_grit_mode(text: str, status: str, value: object) -> None:
    got = extract_answer(text, grit=True)
    assert got.status == status
    if status == "ok":
        assert got.value == value


@pytest.mark.parametrize(
    "text",
    ["{" * 3000, "<answer>" + "[" * 3000 + "</answer>", "\\boxed{" * 500, "}" * 50, "\x00<answer>"],
)
def test_never_raises(text: str) -> None:
    for grit in (False, True):
        assert extract_answer(text, grit=grit).status in {"ok", "format_error", "no_answer"}
    assert parse_block(text).status in {"ok", "format_error"}


_BIG = "7" * 5001  # past Python's 4,300-digit int-from-string limit


@pytest.mark.parametrize(
    ("text", "grit"),
    [
        (_BIG, False),
        (_BIG, True),
        ('{"answer": ' + _BIG + "}", False),
        ('So: {"answer": ' + _BIG + "}", False),
        ('So: {"answer": [1, ' + _BIG + "]}", True),
        (f"<answer>{_BIG}</answer>", True),
        (f"<answer>[{_BIG}, 2]</answer>", True),
        ("\\boxed{" + _BIG + "}", True),
        ('{"answer": NaN}', False),
        ('So: {"answer": Infinity}', False),
        ('{"answer": 1e999}', False),
        ("<answer>-1e999</answer>", True),
        ("<answer>NaN</answer>", True),
    ],
)
def test_numbers_no_file_can_hold_are_format_errors(text: str, grit: bool) -> None:
    got = extract_answer(text, grit=grit)
    assert (got.status, got.value) == ("format_error", None)


def test_long_but_holdable_numbers_and_constant_like_names_still_parse() -> None:
    digits = "9" * 4300
    assert extract_answer(f"<answer>{digits}</answer>", grit=True).value == int(digits)
    assert extract_answer('{"answer": ' + digits + "}").value == int(digits)
    got = extract_answer("<answer>NaN Court, Infinity Lane</answer>", grit=True)
    assert got.value == ["NaN Court", "Infinity Lane"]
    assert extract_answer("<answer>Infinity Lane</answer>", grit=True).value == "Infinity Lane"
