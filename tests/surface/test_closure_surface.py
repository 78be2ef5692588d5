"""ClosureBench question surface: render/read round trips over every knob."""

from __future__ import annotations

import functools
import itertools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from closurebench.errors import ConfigError, Resample
from closurebench.graphs import Graph
from closurebench.seeding import rng
from closurebench.structures.closure import ClosureStructure
from closurebench.surface.closure import (
    ENCODINGS,
    FRAMES,
    LABEL_POOLS,
    STYLES,
    ReadError,
    RenderedClosure,
    RoundTripError,
    certify,
    general_frames,
    kinship_frames,
    labels_for,
    read_closure,
    render_closure,
)
from closurebench.surface.closure.labels import pool_labels
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.l1 import L1_TASKS
from closurebench.tasks.closure.l2 import L2_TASKS
from closurebench.tasks.closure.l3 import L3_TASKS

CATEGORIES = sorted(CLOSURE_TASKS)


def _graph(g: np.random.Generator, n: int, directed: bool) -> Graph:
    rho = float(g.uniform(0.1, 0.5))
    pairs = [
        (u, v)
        for u in range(n)
        for v in range(n)
        if u != v and (directed or u < v) and g.random() < rho
    ]
    return Graph(n, pairs, directed=directed)


def _structure(category: str, seed: int) -> ClosureStructure:
    g = rng(seed, "closure-surface-test", category)
    n = int(g.integers(4, 21))
    task = CLOSURE_TASKS[category]
    graph = _graph(g, n, task.directed)
    x, y = (int(v) for v in g.choice(n, size=2, replace=False))
    values = {"X": x, "Y": y, "k": int(g.integers(1, 4))}
    anchors = tuple((a, values[a]) for a in task.anchor_names)
    graph2 = _graph(g, n, True) if task.two_graphs else None
    return ClosureStructure(category, graph, anchors, graph2)


def _render(s: ClosureStructure, seed: int, **force: Any) -> RenderedClosure:
    return render_closure(s, g=rng(seed, "closure-surface-render"), **force)


def _frames(category: str) -> tuple[str, ...]:
    return kinship_frames() if CLOSURE_TASKS[category].kinship else general_frames()


def test_every_category_and_16_frames() -> None:
    assert len(CATEGORIES) == len(L1_TASKS) + len(L2_TASKS) + len(L3_TASKS)
    assert len(FRAMES) == 16
    assert len({f.nouns for f in FRAMES.values()}) == 16
    assert "kinship" in kinship_frames() and "kinship" not in general_frames()


@pytest.mark.parametrize("category", CATEGORIES)
def test_round_trip_every_frame_style_encoding(category: str) -> None:
    for i, (frame, style, enc) in enumerate(
        itertools.product(_frames(category), STYLES, ENCODINGS)
    ):
        s = _structure(category, i % 7)
        r = _render(s, i, encoding=enc, style=style, domain=frame)
        assert (r.domain, r.style, r.encoding) == (frame, style, enc)
        certify(s, r)
        assert len(set(r.labels)) == s.n == len(r.labels)
        query = r.question.split("\n\n")[-1]
        for phrase in CLOSURE_TASKS[category].conventions:
            assert phrase in query, (category, phrase, query)
        if enc == "json":
            lines = [x for x in r.question.splitlines() if x.startswith("{")]
            assert lines and all(json.loads(x)["nodes"] == list(r.labels) for x in lines)


@pytest.mark.parametrize("category", CATEGORIES)
def test_drawn_surface_round_trips_and_is_deterministic(category: str) -> None:
    for seed in range(12):
        s = _structure(category, 100 + seed)
        r = _render(s, seed)
        assert r == _render(s, seed)
        assert r.domain in _frames(category)
        for pool in LABEL_POOLS:
            certify(s, _render(s, seed, label_pool=pool))
        certify(s, r)


def test_query_sentence_same_across_encodings_and_styles() -> None:
    s = _structure("conditional", 3)
    queries = {
        _render(s, 5, encoding=e, style=st).question.split("\n\n")[-1]
        for e in ENCODINGS
        for st in STYLES
    }
    assert len(queries) == 1


def test_forcing_one_knob_keeps_the_others() -> None:
    s = _structure("reachability", 1)
    a, b = _render(s, 9), _render(s, 9, encoding="matrix")
    assert (a.labels, a.domain, a.style) == (b.labels, b.domain, b.style)


def test_large_pools_are_distinct_and_prefix_free() -> None:
    for pool in LABEL_POOLS:
        labels = pool_labels(pool, 400)
        assert len(set(labels)) == 400
        words = {x for x in labels if " " not in x}
        assert not any(x.split(" ")[0] in words for x in labels if " " in x), pool
        assert not any(re.search(r"[,.|\"]| and ", x) for x in labels)
        assert len(set(labels_for(pool, 40, rng(0, pool)))) == 40


def test_large_n_round_trips() -> None:
    s = ClosureStructure("reach_then_count", _graph(rng(4, "big"), 60, True), (("X", 5),))
    for enc in ENCODINGS:
        certify(s, _render(s, 2, encoding=enc, label_pool="names"))


def test_isolated_nodes_and_empty_graphs() -> None:
    s = ClosureStructure("graph_comparison", Graph(5, ()), (("X", 1),), Graph(5, ((1, 4),)))
    for enc, style in itertools.product(ENCODINGS, STYLES):
        r = _render(s, 0, encoding=enc, style=style)
        certify(s, r)
        assert all(x in r.question.split("\n\n")[0] for x in r.labels)


def test_certify_names_the_difference() -> None:
    s = _structure("reachability", 0)
    r = _render(s, 0)
    other = ClosureStructure(s.category, s.graph, (("X", s.anchor("Y")), ("Y", s.anchor("X"))))
    with pytest.raises(RoundTripError, match="anchors"):
        certify(other, r)
    bad = type(r)(r.question.replace(" reach ", " get to ", 1), *list(vars(r).values())[1:])
    with pytest.raises(RoundTripError, match="cannot read"):
        certify(s, bad)
    with pytest.raises(ReadError):
        read_closure("nonsense", "reachability")


def test_no_global_randomness() -> None:
    root = Path(__file__).resolve().parents[2] / "src/closurebench/surface/closure"
    for path in root.glob("*.py"):
        text = path.read_text()
        assert not re.search(r"(?<![\w.])random\.|np\.random\.(?!Generator)", text), path


def test_render_takes_its_facts_from_the_task() -> None:
    s = _structure("sibling", 0)
    # A structure must carry the task's anchors and graph count.
    wrong = ClosureStructure("sibling", s.graph, (("X", 0), ("Y", 1)))
    with pytest.raises(ConfigError, match=r"names the anchors \['X'\]"):
        render_closure(wrong, g=rng(1))
    two = ClosureStructure("sibling", s.graph, s.anchors, s.graph)
    with pytest.raises(ConfigError, match="one graph"):
        render_closure(two, g=rng(1))
    with pytest.raises(ConfigError, match="unknown closure category 'nope'"):
        render_closure(ClosureStructure("nope", s.graph, ()), g=rng(1))
    with pytest.raises(ReadError, match="unknown closure category 'nope'"):
        read_closure(_render(s, 1).question, "nope")


# --------------------------------------------------------------------------- text quality
# Known-bad patterns (issue 11, point 7). Each is checked on every category × allowed
# frame × style × encoding × label pool, with and without the answer-type hint.
_MODALS = "can|could|will|would|should|may|might|must"
_DO_MODAL = re.compile(rf"\b(does|do|did) \w+ ({_MODALS})\b", re.IGNORECASE)
# The same with a longer subject ("does each of them can"), within one sentence.
_DO_LONG_MODAL = re.compile(rf"\b(does|do|did)(?: [\w']+){{1,6}}? ({_MODALS})\b", re.IGNORECASE)
_DOUBLED = re.compile(r"\b(\w+) \1\b", re.IGNORECASE)
_A_VOWEL = re.compile(r"\ba ([aeiouAEIOU]\w*)")
_AN_CONSONANT = re.compile(r"\ban ([b-df-hj-np-tv-zB-DF-HJ-NP-TV-Z]\w*)")
# Spelling-based a/an exceptions: words whose sound differs from their first letter.
_A_OK = {"one", "once", "unique", "unit", "user", "users", "union", "usual", "european"}
_AN_OK = {"hour", "honest", "honour", "heir"}
_SPACE_PUNCT = re.compile(r" [.,;:?!]")
_HINT_SCHEMA = re.compile(r'\{"answer".*\}')


def _prose(question: str, labels: tuple[str, ...]) -> str:
    """The question's prose: JSON data lines and the answer hint's schema dropped, every
    label replaced by one neutral word (so ``does srv-03 can`` reads ``does Lbl can``)."""
    paras = [p for p in question.split("\n\n")]
    kept = []
    for para in paras:
        lines = [x for x in para.split("\n") if not x.startswith("{")]
        kept.append("\n".join(lines))
    text = "\n\n".join(kept)
    text = _HINT_SCHEMA.sub("SCHEMA", text)
    return _label_pattern(labels).sub("Lbl", text)


@functools.cache
def _label_pattern(labels: tuple[str, ...]) -> re.Pattern[str]:
    """Any one of ``labels`` as a whole token, the longest first (one pass, not one per label)."""
    names = "|".join(re.escape(x) for x in sorted(labels, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{names})(?![\w-])")


def _text_faults(question: str, labels: tuple[str, ...]) -> list[str]:
    """Every known-bad pattern found in ``question`` (empty when the text is clean)."""
    text = _prose(question, labels)
    faults = [f"modal after do: {m.group(0)!r}" for m in _DO_MODAL.finditer(text)]
    faults += [f"modal after do: {m.group(0)!r}" for m in _DO_LONG_MODAL.finditer(text)]
    faults += [f"doubled word: {m.group(0)!r}" for m in _DOUBLED.finditer(text)]
    faults += [
        f"'a' before a vowel sound: {m.group(0)!r}"
        for m in _A_VOWEL.finditer(text)
        if m.group(1).lower() not in _A_OK
    ]
    faults += [
        f"'an' before a consonant sound: {m.group(0)!r}"
        for m in _AN_CONSONANT.finditer(text)
        if m.group(1).lower() not in _AN_OK
    ]
    faults += ["unfilled slot" for c in "{}" if c in text]
    faults += ["double space" for line in text.split("\n") if "  " in line.strip("| ")]
    faults += [f"space before punctuation: {m.group(0)!r}" for m in _SPACE_PUNCT.finditer(text)]
    return faults


def test_text_fault_checks_catch_the_known_bad_patterns() -> None:
    labels = ("Trent", "srv-03")
    for bad in (
        "How many hosts does Trent can connect to directly?",
        "How many hosts does srv-03 can connect to directly?",
        "On average, how many hosts does each of them can connect to directly?",
        "Which accounts does the the bank pay?",
        "Is it a ancestor?",
        "It is an parent.",
        "Which {nouns} pay Trent?",
        "Which hosts  pay Trent?",
        "Which hosts pay Trent ?",
    ):
        assert _text_faults(bad, labels), bad
    assert not _text_faults("Trent is a user of an hour-long session, a one-off.", labels)


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_rendering_is_clean_text(category: str) -> None:
    task = CLOSURE_TASKS[category]
    n = max(task.min_n, 7)
    faults: dict[str, str] = {}
    structures = [_sampled(category, n, seed) for seed in range(5)]  # drawn once each
    for i, (frame, style, enc, pool) in enumerate(
        itertools.product(_frames(category), STYLES, ENCODINGS, LABEL_POOLS)
    ):
        s = structures[i % 5]
        for hints in (False, True):
            r = render_closure(
                s, g=rng(i, "text-quality"), encoding=enc, style=style, domain=frame,
                label_pool=pool, answer_hints=hints,
            )  # fmt: skip
            for fault in _text_faults(r.question, r.labels):
                faults.setdefault(fault, f"{frame}/{style}/{enc}/{pool}: {r.question!r}")
    assert not faults, "\n".join(f"{k} — e.g. {v}" for k, v in faults.items())


def _sampled(category: str, n: int, seed: int) -> ClosureStructure:
    """A structure drawn by the category's own sampler (kinship graphs are families)."""
    task = CLOSURE_TASKS[category]
    for attempt in range(200):
        try:
            return task.sample(rng(seed, "text-quality", category, attempt), n, 0.35)
        except Resample:
            continue
    raise AssertionError(f"{category}: no structure in 200 draws")


@pytest.mark.parametrize("category", CATEGORIES)
def test_reader_reads_questions_with_and_without_the_answer_hint(category: str) -> None:
    s = _structure(category, 5)
    plain = _render(s, 3)
    hinted = _render(s, 3, answer_hints=True)
    assert hinted.question.startswith(plain.question) and hinted.question != plain.question
    assert read_closure(plain.question, category) == read_closure(hinted.question, category)
    certify(s, plain)
    certify(s, hinted)


def test_modal_verbs_are_questioned_by_inversion() -> None:
    s = ClosureStructure("degree_count", Graph(4, ((0, 1), (0, 2))), (("X", 0),))
    r = _render(s, 1, domain="cybersecurity", label_pool="names")
    x = r.labels[0]
    assert f"How many hosts can {x} connect to directly?" in r.question
    certify(s, r)
