"""Per-response outcomes on real generated ClosureBench and GRIT records."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import networkx as nx
import pytest

from closurebench.generate.closure import ClosureConfig
from closurebench.generate.closure import generate_records as closure_records
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import generate_records as grit_records
from closurebench.scoring import OUTCOMES, Score, resolve_name, score_closure, score_grit


@pytest.fixture(scope="module")
def closure() -> list[dict[str, Any]]:
    return closure_records(ClosureConfig(split="heldout", count=52))


@pytest.fixture(scope="module")
def grit() -> list[dict[str, Any]]:
    return grit_records(GritConfig(split="test", count=6, n_max=12))[0]


def _by(records: list[dict[str, Any]], key: str, value: str) -> list[dict[str, Any]]:
    found = [r for r in records if r[key] == value]
    assert found, value
    return found


def _check(score: Score) -> None:
    assert score.outcome in OUTCOMES
    assert score.strict <= score.lenient
    assert (score.outcome == "strict_correct") == score.strict
    assert (score.outcome == "lenient_only") == (score.lenient and not score.strict)


# ------------------------------------------------------------------------- closure


def test_closure_reference_scores_strict(closure: list[dict[str, Any]]) -> None:
    assert len({r["category"] for r in closure}) == 26
    for rec in closure:
        score = score_closure(rec, json.dumps({"answer": rec["answer"]}))
        assert score.outcome == "strict_correct", (rec["category"], score)
        embedded = f"Thinking...\n{json.dumps({'answer': rec['answer']})}\nDone."
        assert score_closure(rec, embedded).strict


def test_closure_alt_answer_is_lenient_only_within_one(closure: list[dict[str, Any]]) -> None:
    for rec in closure:
        alt = rec["alt_answer"]
        if alt is None or alt == rec["answer"]:
            continue
        score = score_closure(rec, json.dumps({"answer": alt}))
        _check(score)
        if rec["result_type"] == "set":
            one_away = len(set(alt) ^ set(rec["answer"])) == 1
        elif rec["result_type"] == "integer":
            one_away = abs(alt - rec["answer"]) == 1
        else:
            one_away = True  # float: aggregate_over_set compared with alt
        expected = "lenient_only" if one_away else "wrong"
        assert score.outcome == expected, (rec["category"], alt, rec["answer"], score)


def test_closure_plus_minus_one_and_source(closure: list[dict[str, Any]]) -> None:
    for rec in _by(closure, "category", "reach_then_count"):
        r, alt = rec["answer"], rec["alt_answer"]
        assert score_closure(rec, json.dumps({"answer": alt})).outcome == "lenient_only"
        assert score_closure(rec, json.dumps({"answer": 2 * r - alt})).outcome == "wrong"
        assert score_closure(rec, json.dumps({"answer": r + 2})).outcome == "wrong"
    for rec in _by(closure, "category", "set_intersect"):
        labels, anchors = rec["labels"], rec["anchors"]
        for key in ("X", "Y"):
            pred = [*rec["answer"], labels[anchors[key]]]
            assert score_closure(rec, json.dumps({"answer": pred})).outcome == "lenient_only"
        both = [*rec["answer"], labels[anchors["X"]], labels[anchors["Y"]]]
        assert score_closure(rec, json.dumps({"answer": both})).outcome == "wrong"
    for rec in _by(closure, "category", "ancestor"):
        other = next(lab for lab in rec["labels"] if lab not in rec["alt_answer"])
        pred = [*rec["answer"], other]
        assert score_closure(rec, json.dumps({"answer": pred})).outcome == "wrong"
    for rec in _by(closure, "category", "reach_then_filter"):  # not ambiguous
        extra = rec["labels"][rec["anchors"]["X"]]
        pred = [*rec["answer"], extra]
        assert score_closure(rec, json.dumps({"answer": pred})).outcome == "wrong"


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("", "no_answer"),
        ("I'm sorry, I can't determine that.", "no_answer"),
        ("Let's enumerate the paths step by step. First, A pays B, so", "no_answer"),
        ('{"answer": [1, 2', "format_error"),
        ('{"response": 3}', "format_error"),
        ("<answer>3</answer>", "format_error"),
        ('{"answer": "three"}', "format_error"),
        ('{"answer": {"x": 1}}', "format_error"),
    ],
)
def test_closure_failure_outcomes(closure: list[dict[str, Any]], text: str, outcome: str) -> None:
    for rec in closure:
        if rec["result_type"] == "string" and "three" in text:
            continue
        score = score_closure(rec, text)
        _check(score)
        assert score.outcome == outcome, (rec["category"], score)


def test_closure_wrong_value_type_is_format_error(closure: list[dict[str, Any]]) -> None:
    wrong_type = {
        "boolean": "true",
        "integer": "3",
        "float": [1.5],
        "set": {"a": 1},
        "string": ["x"],
        "compound": [True, 1],
    }
    for rec in closure:
        text = json.dumps({"answer": wrong_type[rec["result_type"]]})
        assert score_closure(rec, text).outcome == "format_error", rec["category"]


def test_closure_wrong_answers(closure: list[dict[str, Any]]) -> None:
    rec = _by(closure, "result_type", "boolean")[0]
    score = score_closure(rec, json.dumps({"answer": not rec["answer"]}))
    assert score.outcome == "wrong" and score.extracted is (not rec["answer"])
    rec = _by(closure, "category", "degree_count")[0]
    assert score_closure(rec, json.dumps({"answer": rec["answer"] + 1})).outcome == "wrong"


# ---------------------------------------------------------------------------- grit


def _ans(value: Any) -> str:
    return f"<think>...</think><answer>{json.dumps(value)}</answer>"


def _names(rec: dict[str, Any], ids: list[int]) -> list[str]:
    return [rec["names"][i] for i in ids]


def test_grit_reference_scores_strict(grit: list[dict[str, Any]]) -> None:
    assert {r["task"] for r in grit} == {
        "shortest_path",
        "graph_coloring",
        "tsp",
        "vertex_cover",
        "bfs",
        "centrality",
    }
    for rec in grit:
        for text in (_ans(rec["answer"]), f"\\boxed{{{json.dumps(rec['answer'])}}}"):
            score = score_grit(rec, text)
            assert score.outcome == "strict_correct", (rec["task"], rec["view"], score)
        if isinstance(rec["answer"], list):  # bfs also as plain comma-separated names
            text = "<answer>" + ", ".join(rec["answer"]) + "</answer>"
            assert score_grit(rec, text).strict
        if isinstance(rec["answer"], str):  # centrality as a bare name
            assert score_grit(rec, f"<answer>{rec['answer']}</answer>").strict


def test_grit_stored_solution_scores_strict(grit: list[dict[str, Any]]) -> None:
    for rec in grit:
        sol = rec["solution"]
        if rec["task"] == "graph_coloring":
            value: Any = {rec["names"][i]: c for i, c in enumerate(sol)}
        elif isinstance(sol, list):
            value = _names(rec, sol)
        else:
            value = rec["names"][sol]
        assert score_grit(rec, _ans(value)).outcome == "strict_correct", (rec["task"], rec["view"])


def _graph(rec: dict[str, Any]) -> nx.Graph:
    g = nx.DiGraph() if rec["graph"]["directed"] else nx.Graph()
    g.add_nodes_from(range(rec["graph"]["n"]))
    g.add_weighted_edges_from(rec["graph"]["edges"])
    return g


def test_grit_alternative_optimal_solutions(grit: list[dict[str, Any]]) -> None:
    for rec in _by(grit, "task", "shortest_path"):
        s, t = rec["params"]["source"], rec["params"]["target"]
        for path in itertools.islice(nx.all_shortest_paths(_graph(rec), s, t, "weight"), 5):
            assert score_grit(rec, _ans(_names(rec, path))).strict
            arrow = "<answer>" + " -> ".join(_names(rec, path)) + "</answer>"
            assert score_grit(rec, arrow).strict
    for rec in _by(grit, "task", "tsp"):
        tour = rec["solution"]
        for alt in (tour[::-1], tour[3:] + tour[:3], [*tour, tour[0]]):
            assert score_grit(rec, _ans(_names(rec, alt))).strict
    for rec in _by(grit, "task", "vertex_cover"):
        n, edges = rec["graph"]["n"], rec["graph"]["edges"]
        covers = [
            c
            for c in itertools.combinations(range(n), rec["answer"])
            if all(u in c or v in c for u, v, _ in edges)
        ]
        assert covers
        for cover in covers[:5]:
            assert score_grit(rec, _ans(_names(rec, list(cover)))).strict
    for rec in _by(grit, "task", "graph_coloring"):
        colours = ["red", "green", "blue", "yellow", "cyan", "pink"]
        perm = {rec["names"][i]: colours[-1 - c] for i, c in enumerate(rec["solution"])}
        assert score_grit(rec, _ans(perm)).strict
        classes = [
            [rec["names"][i] for i, c in enumerate(rec["solution"]) if c == k]
            for k in range(rec["answer"])
        ]
        assert score_grit(rec, _ans(classes)).strict
        assert score_grit(rec, _ans(rec["solution"])).strict


def test_grit_invalid_and_suboptimal_solutions(grit: list[dict[str, Any]]) -> None:
    for rec in _by(grit, "task", "shortest_path"):
        g = _graph(rec)
        s, t = rec["params"]["source"], rec["params"]["target"]
        assert score_grit(rec, _ans(rec["answer"] + 1)).outcome == "wrong"
        if not g.has_edge(s, t):
            score = score_grit(rec, _ans(_names(rec, [s, t])))
            assert score.outcome == "wrong" and "not exist" in score.reason
    for rec in _by(grit, "task", "tsp"):
        assert score_grit(rec, _ans(_names(rec, rec["solution"][:-1]))).outcome == "wrong"
        swapped = list(rec["solution"])
        swapped[1], swapped[4] = swapped[4], swapped[1]
        score = score_grit(rec, _ans(_names(rec, swapped)))
        assert score.strict is (score.reason == "")
    for rec in _by(grit, "task", "vertex_cover"):
        everyone = score_grit(rec, _ans(rec["names"]))
        assert everyone.outcome == "wrong" and "exceeds" in everyone.reason
        assert score_grit(rec, _ans(_names(rec, rec["solution"][:-1]))).outcome == "wrong"
    for rec in _by(grit, "task", "graph_coloring"):
        mono = {name: 0 for name in rec["names"]}
        assert "conflict" in score_grit(rec, _ans(mono)).reason
        rainbow = {name: i for i, name in enumerate(rec["names"])}
        assert score_grit(rec, _ans(rainbow)).outcome == "wrong"
    for rec in grit:
        assert score_grit(rec, _ans(["nobody-here"] * 3)).outcome in {"wrong", "format_error"}


def test_grit_aliases_and_names(grit: list[dict[str, Any]]) -> None:
    mixed = [r for r in grit if r["aliases"]]
    assert mixed
    for rec in mixed:
        alias, node = next(iter(rec["aliases"].items()))
        assert resolve_name(rec, alias) == node
        assert resolve_name(rec, f"  {alias.upper()} ") in {node, None}
        if rec["task"] == "centrality":
            continue
        sol = rec["solution"]
        if rec["task"] == "graph_coloring":
            value: Any = {(alias if i == node else rec["names"][i]): c for i, c in enumerate(sol)}
        elif rec["task"] == "bfs" or node in sol:
            value = [alias if i == node else rec["names"][i] for i in sol]
        else:
            continue
        assert score_grit(rec, _ans(value)).strict, (rec["task"], alias)
    for rec in _by(grit, "task", "centrality"):
        name = rec["names"][rec["solution"]]
        folded = score_grit(rec, f"<answer>  {name.lower()}  </answer>")
        assert folded.strict == (resolve_name(rec, name.lower()) == rec["solution"])
        assert score_grit(rec, _ans([name])).strict
        other = rec["names"][(rec["solution"] + 1) % rec["n"]]
        assert score_grit(rec, _ans(other)).outcome == "wrong"


def test_grit_bfs_lenient(grit: list[dict[str, Any]]) -> None:
    found = 0
    for rec in _by(grit, "task", "bfs"):
        g = _graph(rec)
        s = rec["params"]["source"]
        for key in (lambda v: -v, lambda v: (v * 7) % 11):
            order = list(nx.bfs_tree(g, s, sort_neighbors=lambda vs, k=key: sorted(vs, key=k)))
            if order == rec["solution"]:
                continue
            found += 1
            text = _ans(_names(rec, order))
            assert score_grit(rec, text).outcome == "wrong"
            assert score_grit(rec, text, lenient_bfs=True).outcome == "lenient_only"
        bad = list(reversed(rec["solution"]))
        assert score_grit(rec, _ans(_names(rec, bad)), lenient_bfs=True).outcome == "wrong"
    assert found


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("", "no_answer"),
        ("I won't do that.", "no_answer"),
        ("<think>start at the depot, then the nearest", "no_answer"),
        ("<answer></answer>", "format_error"),
        ('<answer>{"answer": [1, </answer>', "format_error"),
        ('{"cost": 3}', "format_error"),
        ("<answer>true</answer>", "format_error"),
        ('<answer>{"answer": null}</answer>', "format_error"),
    ],
)
def test_grit_failure_outcomes(grit: list[dict[str, Any]], text: str, outcome: str) -> None:
    for rec in grit:
        score = score_grit(rec, text)
        _check(score)
        assert score.outcome == outcome, (rec["task"], score)


def test_grit_wrong_value_types(grit: list[dict[str, Any]]) -> None:
    for rec in grit:
        if rec["task"] in {"shortest_path", "tsp", "vertex_cover", "graph_coloring"}:
            assert score_grit(rec, _ans("seven")).outcome == "format_error"
            assert score_grit(rec, _ans(str(rec["answer"]))).outcome == "format_error"
        if rec["task"] in {"bfs", "centrality"}:
            assert score_grit(rec, _ans({"a": 1})).outcome == "format_error"


def test_grit_never_raises_on_junk(grit: list[dict[str, Any]]) -> None:
    junk = [
        _ans([[1, 2], {"x": 3}]),
        _ans({"": None}),
        _ans([1.5, -3, 10**30]),
        _ans([None]),
        "<answer>A -> -> B</answer>",
        _ans([[]]),
        "<answer>1e400</answer>",
    ]
    for rec in grit:
        for text in junk:
            _check(score_grit(copy.deepcopy(rec), text))
