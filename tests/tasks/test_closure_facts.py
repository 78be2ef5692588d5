"""Category facts live on the task class only, agree with the spec, and hang together.

The spec's lists are restated once, here (``spec/closurebench.md``: ambiguity classes,
kinship and undirected categories); everything else in the project reads the task.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from closurebench.schema import Ambiguity, ResultType
from closurebench.surface.closure.frames import FRAMES, general_frames, kinship_frames
from closurebench.surface.closure.questions import answer_form, vocabulary
from closurebench.tasks.closure import CLOSURE_TASKS, ClosureTask

# spec/closurebench.md, "Ambiguity classes for lenient scoring".
SPEC_COUNT_AMBIG = {
    "reach_then_count",
    "intersect_then_size",
    "aggregate_over_set",
    "conditional",
    "kinship_complex",
    "graph_comparison",
}
SPEC_SET_AMBIG = {
    "set_intersect",
    "set_difference",
    "ancestor",
    "sibling",
    "cousin",
    "negative_reach",
}
SPEC_KINSHIP = {"ancestor", "sibling", "cousin", "kinship_chain", "kinship_complex"}
SPEC_UNDIRECTED = {"triangle_count", "triangle_in_subgraph"}

SRC = Path(__file__).resolve().parents[2] / "src/closurebench"
ANCHOR_FIELDS = {"X", "Y", "k", "k_nouns"}


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}


def test_ambiguity_and_flags_follow_the_spec() -> None:
    for name, t in CLOSURE_TASKS.items():
        want = (
            Ambiguity.COUNT
            if name in SPEC_COUNT_AMBIG
            else Ambiguity.SET
            if name in SPEC_SET_AMBIG
            else None
        )
        assert t.ambiguity is want, name
        assert t.kinship == (name in SPEC_KINSHIP), name
        assert t.directed == (name not in SPEC_UNDIRECTED), name
        assert t.two_graphs == (name == "graph_comparison"), name


@pytest.mark.parametrize("name", list(CLOSURE_TASKS))
def test_each_task_states_its_facts_consistently(name: str) -> None:
    t = CLOSURE_TASKS[name]
    assert isinstance(t.result_type, ResultType)
    assert t.ambiguity is None or isinstance(t.ambiguity, Ambiguity)
    # The ambiguity class and the alternative-answer rule come together.
    overrides = type(t).alternative is not ClosureTask.alternative
    assert overrides == (t.ambiguity is not None), name
    assert (t.compound_keys is not None) == (t.result_type is ResultType.COMPOUND)
    # The template names exactly the task's anchors, and otherwise frame vocabulary only.
    fields = _fields(t.template)
    assert fields & {"X", "Y", "k"} == set(t.anchor_names), name
    assert ("k_nouns" in fields) == ("k" in t.anchor_names), name
    frames = kinship_frames() if t.kinship else general_frames()
    for key in frames:
        vocab = vocabulary(FRAMES[key], t.kinship)
        assert fields - ANCHOR_FIELDS <= set(vocab), (name, key, fields - set(vocab))
        filled = t.template.format(**vocab, X="<X>", Y="<Y>", k="2", k_nouns="<kn>")
        assert t.conventions and all(p in filled for p in t.conventions), (name, key)
    assert answer_form(t).startswith("Answer with a JSON object")


def test_no_category_table_outside_the_tasks() -> None:
    """No category name appears in surface/closure, scoring or dataset code (docstrings aside)."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, CLOSURE_TASKS)) + r")\b")
    paths = [
        *sorted((SRC / "surface/closure").glob("*.py")),
        *sorted((SRC / "scoring").glob("*.py")),
        SRC / "dataset.py",
    ]
    for path in paths:
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
            ):
                assert not pattern.search(node.value), (path.name, node.value)
