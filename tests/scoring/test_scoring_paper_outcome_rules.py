"""The outcome rules the paper's tables use (issue 21, item 5), one test per rule.

* Appendix I: "a single ``{"answer": ...}`` object embedded in a longer string";
  several different ones are a format error.
* Algorithm 1, line 1: "if p is None or p violates the JSON value type for τ then return
  FormatError" (an integer for a name; a compound that is not an object).
* Algorithm 1, line 27: "recurse with (p_k, r_k, τ_k, c, m); any failure ⇒ WrongAnswer"
  (a missing or mistyped compound member is wrong, not a format error).
* Algorithm 1, lines 16/23: ``Set(p)`` for sets, ``Trim(p)`` for strings only.
* GRAIN ``s_inv``: names aligned exactly through the view's name map (aliases included);
  the case-insensitive alignment is ``s_inv_casefold``.
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from closurebench.schema import ClosureInstance
from closurebench.scoring import extract_answer, match_answer, score_closure
from closurebench.scoring.extract import SEVERAL
from closurebench.scoring.structure import StructureScore, aggregate_structure, score_structure

# -- Appendix I: a single embedded answer object ----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'First {"answer": 1}, then on reflection {"answer": 2}.',
        'Draft:\n```json\n{"answer": [1]}\n```\nFinal:\n```json\n{"answer": [2]}\n```',
        'So {"answer": true}.\n```json\n{"answer": false}\n```',
        # a reply that echoes the question's two options is several objects too
        'The format is {"answer": true} or {"answer": false}. Mine: {"answer": true}',
        '{"answer": 1} {"answer": 1.0}',  # 1 and 1.0 are different JSON texts
    ],
)
def test_several_different_embedded_answer_objects_are_a_format_error(text: str) -> None:
    got = extract_answer(text)
    assert (got.status.value, got.reason) == ("format_error", SEVERAL)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('I said {"answer": 3} and I repeat: {"answer": 3}', 3),  # one answer, twice
        ('{"note": "x"} then {"answer": 2}', 2),  # an object without "answer" is no answer
        ('so: {"answer": {"answer": 1}} done', {"answer": 1}),  # nested: part of one object
        ('{"answer": 1, "why": {"answer": 2}}', 1),  # the whole reply is one object
        ('```json\n{"answer": [1, 2]}\n```', [1, 2]),  # a fenced whole reply
        ('Reasoning.\n```json\n{"answer": 4}\n```', 4),  # one fenced object in prose
    ],
)
def test_one_answer_object_is_read(text: str, value: object) -> None:
    got = extract_answer(text)
    assert (got.status.value, got.value) == ("ok", value)


def test_grit_fallback_keeps_its_last_one_wins_rule() -> None:
    # GRIT reads the last <answer> block; its JSON fallback reads the last object too
    assert extract_answer('{"answer": 1} then {"answer": 2}', grit=True).value == 2


def test_many_answer_objects_stay_linear_and_decided() -> None:
    same = 'x {"answer": 7} ' * 20_000
    assert extract_answer(same).value == 7
    different = "".join(f'x {{"answer": {i}}} ' for i in range(20_000))
    assert extract_answer(different).reason == SEVERAL


# -- Algorithm 1, line 1: the JSON value type ---------------------------------------------


def test_an_integer_for_a_name_violates_the_string_type() -> None:
    # line 1: "p violates the JSON value type for τ" -> FormatError (a name is a string)
    assert match_answer(7, "7", "string", None, "strict").value == "format_error"
    assert match_answer(["a", 7], ["a", "7"], "set", None, "strict").value == "format_error"
    assert match_answer("7", "7", "string", None, "strict").value == "correct"


def test_a_compound_that_is_not_an_object_is_a_format_error() -> None:
    ref = {"reachable": True, "degree": 2}
    assert match_answer([True, 2], ref, "compound", None, "strict").value == "format_error"


# -- Algorithm 1, line 27: any failure of a member => WrongAnswer -------------------------


@pytest.mark.parametrize(
    "predicted",
    [
        {"reachable": True},  # missing member: p_k is None, a failure of the recursion
        {"reachable": True, "degree": "2"},  # mistyped member: its own format error
        {"reachable": True, "degree": None},
    ],
)
def test_a_missing_or_mistyped_compound_member_is_wrong(predicted: object) -> None:
    ref = {"reachable": True, "degree": 2}
    for mode in ("strict", "lenient"):
        assert match_answer(predicted, ref, "compound", None, mode).value == "wrong"


def test_a_missing_member_is_wrong_end_to_end() -> None:
    # model_construct without validation: only the fields scoring reads, result_type a str
    rec = ClosureInstance.model_construct(  # type: ignore[call-arg]
        result_type="compound", answer={"reachable": True, "degree": 2}, alt_answer=None,  # type: ignore[arg-type]
        ambiguity=None, anchors={"X": 0}, labels=["a", "b"],
    )  # fmt: skip
    assert score_closure(rec, '{"answer": {"reachable": true}}').outcome.value == "wrong"
    assert score_closure(rec, '{"answer": [true, 2]}').outcome.value == "format_error"


# -- Algorithm 1, lines 16 and 23: Set(p) as given, Trim(p) for strings --------------------


def test_whitespace_inside_set_elements_is_not_trimmed() -> None:
    # line 16: S_p <- Set(p); Trim is the string branch's (line 23), not the set's
    assert match_answer([" a", "b"], ["a", "b"], "set", None, "strict").value == "wrong"
    assert match_answer(["b", "a", "a"], ["a", "b"], "set", None, "strict").value == "correct"
    # line 23: Trim(p) = Trim(r)
    assert match_answer(" a ", "a", "string", None, "strict").value == "correct"


# -- GRAIN s_inv: exact alignment through the name map ------------------------------------


def _rec() -> NS:
    return NS(
        names=["Oak", "Elm", "Ash"],
        aliases={"Big Elm": 1},
        graph=NS(directed=False, weighted=True, n=3, edges=[[0, 1, 4], [1, 2, 2]]),
    )


def test_s_inv_aligns_names_and_aliases_exactly() -> None:
    exact = NS(directed=False, weighted=True, nodes=("Oak", "Big Elm", "Ash"),
               edges=(("Big Elm", "Oak", 4.0), ("Ash", "Elm", 2.0)))  # fmt: skip
    s = score_structure(_rec(), exact)  # type: ignore[arg-type]
    assert (s.s_inv, s.s_inv_casefold, s.cls) == (1.0, 1.0, "exact")
    loose = NS(directed=False, weighted=True, nodes=("oak", "Elm", "Ash"),
               edges=(("oak", "Elm", 4.0), ("Ash", " Elm", 2.0)))  # fmt: skip
    s = score_structure(_rec(), loose)  # type: ignore[arg-type]
    assert s.s_inv == 0.0  # "oak" and " Elm" are no names of the view: no edge matches
    assert s.s_inv_casefold == 1.0 and s.cls == "exact"  # the old value, by its name


def test_s_inv_casefold_reads_back_and_old_records_aggregate() -> None:
    s = StructureScore(1.0, 0.5, False, 0.25, "mixed", s_inv_casefold=0.5)
    assert StructureScore.from_json(s.to_json()) == s
    old = {"node_f1": 1.0, "edge_f1": 1.0, "exact": True, "s_inv": 1.0, "cls": "exact"}
    read = StructureScore.from_json(old)
    assert read.s_inv_casefold is None
    # an older record aligned names loosely: its s_inv is the casefold value
    assert aggregate_structure([s, read])["s_inv_casefold"] == pytest.approx(0.75)
