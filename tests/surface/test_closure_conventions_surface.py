"""``conventions="implicit"``: the ambiguous categories asked as the paper asks them.

Issue 21, item 6. The 12 ambiguous categories (ambiguity ``count`` or ``set``) have an
``implicit_template``: their query without the source-inclusion statement. Every implicit
question drops that statement and nothing else, is read back by the independent reader
(in its own wording only), and certifies; categories with one reading are unchanged.
"""

from __future__ import annotations

import itertools
import string
from typing import Any

import pytest

from closurebench.errors import ConfigError, Resample
from closurebench.graphs import Graph
from closurebench.seeding import rng
from closurebench.structures.closure import ClosureStructure
from closurebench.surface.closure import (
    ENCODINGS,
    STYLES,
    ReadError,
    RenderedClosure,
    RoundTripError,
    certify,
    general_frames,
    kinship_frames,
    read_closure,
    read_wording,
    render_closure,
)
from closurebench.surface.closure.questions import answer_form
from closurebench.tasks.closure import CLOSURE_TASKS

#: The paper's ambiguity classes (Appendix I): the categories with an implicit wording.
AMBIGUOUS = (
    "reach_then_count", "intersect_then_size", "aggregate_over_set", "conditional",
    "kinship_complex", "graph_comparison",  # count_ambig
    "set_intersect", "set_difference", "ancestor", "sibling", "cousin", "negative_reach",
)  # fmt: skip
UNAMBIGUOUS = tuple(sorted(set(CLOSURE_TASKS) - set(AMBIGUOUS)))

#: Words that state whether the source is counted; none may survive in an implicit query.
SOURCE_PHRASES = (
    "not counting", "Do not include", "Do not count", "Include the", "in the count",
    "itself", "themselves", "himself", "herself",
)  # fmt: skip


def _structure(category: str, seed: int) -> ClosureStructure:
    """A structure of ``category`` sampled by its own task (so it is well posed)."""
    task = CLOSURE_TASKS[category]
    for attempt in range(200):
        try:
            return task.sample(rng(seed, "conventions-test", category, attempt), 8, 0.3)
        except Resample:
            continue
    raise AssertionError(f"{category}: no well-posed draw")


def _frames(category: str) -> tuple[str, ...]:
    return kinship_frames() if CLOSURE_TASKS[category].kinship else general_frames()


def test_the_twelve_ambiguous_categories_have_an_implicit_template() -> None:
    assert len(AMBIGUOUS) == 12
    for name, task in CLOSURE_TASKS.items():
        assert (task.implicit_template is not None) == (task.ambiguity is not None), name
        assert (task.ambiguity is not None) == (name in AMBIGUOUS), name


@pytest.mark.parametrize("category", AMBIGUOUS)
def test_implicit_template_is_the_explicit_one_without_its_source_clause(category: str) -> None:
    task = CLOSURE_TASKS[category]
    explicit, implicit = task.template, task.implicit_template
    assert implicit is not None
    # one contiguous clause removed, nothing else changed
    head = 0
    while head < len(implicit) and explicit[head] == implicit[head]:
        head += 1
    tail = implicit[head:]
    assert explicit.endswith(tail), (explicit, implicit)
    dropped = explicit[head : len(explicit) - len(tail)]
    assert any(p in dropped for p in SOURCE_PHRASES), dropped
    assert not any(p in implicit for p in SOURCE_PHRASES), implicit
    assert "{self}" not in implicit
    # the anchors are still all named
    fields = {f for _, f, _, _ in string.Formatter().parse(implicit) if f}
    assert set(task.anchor_names) <= fields
    assert task.question_template("implicit") == implicit
    assert task.question_template("explicit") == explicit


def test_kept_sentences_of_the_paper_wording() -> None:
    """Only the source clause goes: rounding and the -1 rule stay."""
    tasks = CLOSURE_TASKS
    assert tasks["reach_then_count"].implicit_template == "How many {nouns} can {X} reach {path}?"
    assert tasks["set_intersect"].implicit_template == (
        "Which {nouns} can both {X} and {Y} reach {path}?"
    )
    assert str(tasks["aggregate_over_set"].implicit_template).endswith("Round to 2 decimal places.")
    assert str(tasks["conditional"].implicit_template).endswith("answer -1.")


@pytest.mark.parametrize("category", AMBIGUOUS)
def test_implicit_questions_round_trip_in_every_frame_style_and_encoding(category: str) -> None:
    task = CLOSURE_TASKS[category]
    for i, (frame, style, enc) in enumerate(
        itertools.product(_frames(category), STYLES, ENCODINGS)
    ):
        s = _structure(category, i % 5)
        g_args: dict[str, Any] = {"encoding": enc, "style": style, "domain": frame}
        imp = render_closure(s, g=rng(i, "conv"), conventions="implicit", **g_args)
        exp = render_closure(s, g=rng(i, "conv"), **g_args)
        assert imp.conventions == "implicit" and exp.conventions == "explicit"
        # the same surface draws; only the query sentence differs
        assert (imp.labels, imp.domain, imp.style, imp.encoding) == (
            exp.labels, exp.domain, exp.style, exp.encoding,
        )  # fmt: skip
        *body_i, query_i = imp.question.split("\n\n")
        *body_e, query_e = exp.question.split("\n\n")
        assert body_i == body_e and query_i != query_e
        assert not any(p in query_i for p in SOURCE_PHRASES), query_i
        assert any(p in query_e for p in task.conventions), query_e
        certify(s, imp)  # read back, in the implicit wording
        assert read_closure(imp.question, category) == s
        assert read_wording(imp.question, category) == "implicit"
        assert read_wording(exp.question, category) == "explicit"
        with pytest.raises(ReadError, match="explicit wording"):
            read_closure(imp.question, category, conventions="explicit")
        with pytest.raises(ReadError, match="implicit wording"):
            read_closure(exp.question, category, conventions="implicit")


@pytest.mark.parametrize("category", AMBIGUOUS)
def test_implicit_with_answer_hints_round_trips(category: str) -> None:
    s = _structure(category, 3)
    r = render_closure(s, g=rng(3, "hint"), conventions="implicit", answer_hints=True)
    assert r.question.endswith(" " + answer_form(CLOSURE_TASKS[category]))
    certify(s, r)
    assert read_wording(r.question, category) == "implicit"


@pytest.mark.parametrize("category", UNAMBIGUOUS)
def test_categories_with_one_reading_are_worded_the_same_either_way(category: str) -> None:
    s = _structure(category, 1)
    exp = render_closure(s, g=rng(1, "one"))
    imp = render_closure(s, g=rng(1, "one"), conventions="implicit")
    assert imp.question == exp.question
    certify(s, imp)
    assert read_wording(exp.question, category) == "explicit"


def test_certify_holds_a_question_to_the_wording_it_claims() -> None:
    """A question rendered implicit but labelled explicit does not certify."""
    s = ClosureStructure("reach_then_count", Graph(4, ((0, 1), (1, 2))), (("X", 0),))
    r = render_closure(s, g=rng(0, "claim"), conventions="implicit")
    mislabelled = RenderedClosure(
        question=r.question, labels=r.labels, label_pool=r.label_pool, domain=r.domain,
        style=r.style, encoding=r.encoding, conventions="explicit",
    )  # fmt: skip
    with pytest.raises(RoundTripError, match="explicit wording"):
        certify(s, mislabelled)


def test_an_unknown_wording_is_a_clear_error() -> None:
    s = ClosureStructure("negative_reach", Graph(4, ((0, 1),)), (("X", 0),))
    with pytest.raises(ConfigError, match=r"conventions 'paper' is unknown; choose one of "
                       r"explicit, implicit"):  # fmt: skip
        render_closure(s, g=rng(0), conventions="paper")
    with pytest.raises(ConfigError, match="'loose'"):
        read_closure("x", "negative_reach", conventions="loose")
    with pytest.raises(ConfigError, match="'paper'"):
        CLOSURE_TASKS["negative_reach"].question_template("paper")
