"""GRIT per-response outcomes on real generated (typed) records, and registry dispatch."""

from __future__ import annotations

import itertools
import json
from typing import Any

import networkx as nx
import numpy as np
import pytest

import closurebench.tasks.grit as grit_tasks
from closurebench.errors import ConfigError
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import generate_records as grit_records
from closurebench.schema import GritInstance
from closurebench.scoring import OUTCOMES, Score, resolve_name, score_grit
from closurebench.structures.grit import GritStructure
from closurebench.tasks.grit import GritTask, Judgement, Solved
from closurebench.tasks.grit.base import DEFAULT_DIRECTED_SHARE

TASKS = {"shortest_path", "graph_coloring", "tsp", "vertex_cover", "bfs", "centrality"}


@pytest.fixture(scope="module")
def grit() -> list[GritInstance]:
    return [
        r if isinstance(r, GritInstance) else GritInstance.model_validate(r)
        for r in grit_records(GritConfig(split="test", count=6, n_max=12))[0]
    ]


def _by(records: list[GritInstance], task: str) -> list[GritInstance]:
    found = [r for r in records if r.task == task]
    assert found, task
    return found


def _check(score: Score) -> None:
    assert score.outcome in OUTCOMES
    assert score.strict <= score.lenient
    assert (score.outcome == "strict_correct") == score.strict
    assert (score.outcome == "lenient_only") == (score.lenient and not score.strict)


def _ans(value: Any) -> str:
    return f"<think>...</think><answer>{json.dumps(value)}</answer>"


def _names(rec: GritInstance, ids: list[int]) -> list[str]:
    return [rec.names[i] for i in ids]


def _graph(rec: GritInstance) -> nx.Graph:
    g = nx.DiGraph() if rec.graph.directed else nx.Graph()
    g.add_nodes_from(range(rec.graph.n))
    g.add_weighted_edges_from(rec.graph.edges)
    return g


def test_grit_reference_scores_strict(grit: list[GritInstance]) -> None:
    assert {r.task for r in grit} == TASKS
    for rec in grit:
        for text in (_ans(rec.answer), f"\\boxed{{{json.dumps(rec.answer)}}}"):
            score = score_grit(rec, text)
            assert score.outcome == "strict_correct", (rec.task, rec.view, score)
        if isinstance(rec.answer, list):  # bfs also as plain comma-separated names
            text = "<answer>" + ", ".join(str(x) for x in rec.answer) + "</answer>"
            assert score_grit(rec, text).strict
        if isinstance(rec.answer, str):  # centrality as a bare name
            assert score_grit(rec, f"<answer>{rec.answer}</answer>").strict


def test_grit_stored_solution_scores_strict(grit: list[GritInstance]) -> None:
    for rec in grit:
        sol: Any = rec.solution
        if rec.task == "graph_coloring":
            value: Any = {rec.names[i]: c for i, c in enumerate(sol)}
        elif isinstance(sol, list):
            value = _names(rec, sol)
        else:
            value = rec.names[sol]
        assert score_grit(rec, _ans(value)).outcome == "strict_correct", (rec.task, rec.view)


def test_grit_alternative_optimal_solutions(grit: list[GritInstance]) -> None:
    for rec in _by(grit, "shortest_path"):
        s, t = rec.params["source"], rec.params["target"]
        for path in itertools.islice(nx.all_shortest_paths(_graph(rec), s, t, "weight"), 5):
            assert score_grit(rec, _ans(_names(rec, path))).strict
            arrow = "<answer>" + " -> ".join(_names(rec, path)) + "</answer>"
            assert score_grit(rec, arrow).strict
    for rec in _by(grit, "tsp"):
        tour: Any = rec.solution
        for alt in (tour[::-1], tour[3:] + tour[:3], [*tour, tour[0]]):
            assert score_grit(rec, _ans(_names(rec, alt))).strict
    for rec in _by(grit, "vertex_cover"):
        n, edges = rec.graph.n, rec.graph.edges
        assert isinstance(rec.answer, int)
        covers = [
            c
            for c in itertools.combinations(range(n), rec.answer)
            if all(u in c or v in c for u, v, _ in edges)
        ]
        assert covers
        for cover in covers[:5]:
            assert score_grit(rec, _ans(_names(rec, list(cover)))).strict
    for rec in _by(grit, "graph_coloring"):
        sol: Any = rec.solution
        assert isinstance(rec.answer, int)
        colours = ["red", "green", "blue", "yellow", "cyan", "pink"]
        perm = {rec.names[i]: colours[-1 - c] for i, c in enumerate(sol)}
        assert score_grit(rec, _ans(perm)).strict
        classes = [[rec.names[i] for i, c in enumerate(sol) if c == k] for k in range(rec.answer)]
        assert score_grit(rec, _ans(classes)).strict
        assert score_grit(rec, _ans(sol)).strict


def test_grit_invalid_and_suboptimal_solutions(grit: list[GritInstance]) -> None:
    for rec in _by(grit, "shortest_path"):
        g = _graph(rec)
        s, t = rec.params["source"], rec.params["target"]
        assert isinstance(s, int) and isinstance(t, int) and isinstance(rec.answer, int)
        assert score_grit(rec, _ans(rec.answer + 1)).outcome == "wrong"
        if not g.has_edge(s, t):
            score = score_grit(rec, _ans(_names(rec, [s, t])))
            assert score.outcome == "wrong" and "not exist" in score.reason
    for rec in _by(grit, "tsp"):
        sol: Any = rec.solution
        assert score_grit(rec, _ans(_names(rec, sol[:-1]))).outcome == "wrong"
        swapped = list(sol)
        swapped[1], swapped[4] = swapped[4], swapped[1]
        score = score_grit(rec, _ans(_names(rec, swapped)))
        assert score.strict is (score.reason == "")
    for rec in _by(grit, "vertex_cover"):
        everyone = score_grit(rec, _ans(rec.names))
        assert everyone.outcome == "wrong" and "exceeds" in everyone.reason
        sol = rec.solution
        assert score_grit(rec, _ans(_names(rec, sol[:-1]))).outcome == "wrong"
    for rec in _by(grit, "graph_coloring"):
        mono = {name: 0 for name in rec.names}
        assert "conflict" in score_grit(rec, _ans(mono)).reason
        rainbow = {name: i for i, name in enumerate(rec.names)}
        assert score_grit(rec, _ans(rainbow)).outcome == "wrong"
    for rec in grit:
        assert score_grit(rec, _ans(["nobody-here"] * 3)).outcome in {"wrong", "format_error"}


def test_grit_aliases_and_names(grit: list[GritInstance]) -> None:
    mixed = [r for r in grit if r.aliases]
    assert mixed
    for rec in mixed:
        alias, node = next(iter(rec.aliases.items()))
        assert resolve_name(rec, alias) == node
        assert resolve_name(rec, f"  {alias.upper()} ") in {node, None}
        if rec.task == "centrality":
            continue
        sol: Any = rec.solution
        if rec.task == "graph_coloring":
            value: Any = {(alias if i == node else rec.names[i]): c for i, c in enumerate(sol)}
        elif rec.task == "bfs" or node in sol:
            value = [alias if i == node else rec.names[i] for i in sol]
        else:
            continue
        assert score_grit(rec, _ans(value)).strict, (rec.task, alias)
    for rec in _by(grit, "centrality"):
        winner: Any = rec.solution
        name = rec.names[winner]
        folded = score_grit(rec, f"<answer>  {name.lower()}  </answer>")
        assert folded.strict == (resolve_name(rec, name.lower()) == winner)
        assert score_grit(rec, _ans([name])).strict
        other = rec.names[(winner + 1) % rec.n]
        assert score_grit(rec, _ans(other)).outcome == "wrong"


def test_grit_bfs_lenient(grit: list[GritInstance]) -> None:
    found = 0
    for rec in _by(grit, "bfs"):
        g = _graph(rec)
        s = rec.params["source"]
        for key in (lambda v: -v, lambda v: (v * 7) % 11):
            order = list(nx.bfs_tree(g, s, sort_neighbors=lambda vs, k=key: sorted(vs, key=k)))
            if order == rec.solution:
                continue
            found += 1
            text = _ans(_names(rec, order))
            assert score_grit(rec, text).outcome == "wrong"
            assert score_grit(rec, text, lenient_bfs=True).outcome == "lenient_only"
        solution: Any = rec.solution
        bad = list(reversed(solution))
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
def test_grit_failure_outcomes(grit: list[GritInstance], text: str, outcome: str) -> None:
    for rec in grit:
        score = score_grit(rec, text)
        _check(score)
        assert score.outcome == outcome, (rec.task, score)


def test_grit_wrong_value_types(grit: list[GritInstance]) -> None:
    for rec in grit:
        if rec.task in {"shortest_path", "tsp", "vertex_cover", "graph_coloring"}:
            assert score_grit(rec, _ans("seven")).outcome == "format_error"
            assert score_grit(rec, _ans(str(rec.answer))).outcome == "format_error"
        if rec.task in {"bfs", "centrality"}:
            assert score_grit(rec, _ans({"a": 1})).outcome == "format_error"


def test_grit_never_raises_on_junk(grit: list[GritInstance]) -> None:
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
            _check(score_grit(rec, text))


# ----------------------------------------------------------------- registry dispatch


class _ParityTask(GritTask):
    """A toy task (is the node count even?) written in a few lines against the protocol."""

    name = "parity"

    def sample(
        self,
        g: np.random.Generator,
        n: int,
        p: float,
        *,
        directed_share: float = DEFAULT_DIRECTED_SHARE,
    ) -> GritStructure:
        return self.structure(n, False, False, [(i, i + 1) for i in range(n - 1)])

    def solve(self, s: GritStructure, *, time_limit: float = 1.0) -> Solved:
        return Solved(answer=s.n % 2 == 0, solution=None)

    def check(self, s: GritStructure, solution: Any) -> Any:
        return solution

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        self._agree(where, "parities", solved.answer, s.n % 2 == 0)

    def judge(self, record: GritInstance, value: Any, *, lenient: bool = False) -> Judgement:
        if not isinstance(value, str):
            return Judgement.format_error(value, "expected 'even' or 'odd'")
        want = "even" if record.n % 2 == 0 else "odd"
        return Judgement.correct_if(value == want, value, f"the count is {want}")


def test_a_new_task_is_one_class_plus_one_registry_line(monkeypatch, grit) -> None:
    toy = _ParityTask()
    monkeypatch.setattr(grit_tasks, "GRIT_TASKS", {**grit_tasks.GRIT_TASKS, "parity": toy})
    s = toy.sample(np.random.default_rng(0), 4, 0.0)
    assert s.to_dict()["graph"]["edges"] == [[0, 1, 1], [1, 2, 1], [2, 3, 1]]
    rec = grit[0].model_copy(update={"task": "parity", "n": 4})
    assert score_grit(rec, _ans("even")).outcome == "strict_correct"
    assert score_grit(rec, _ans("odd")).reason == "the count is even"
    assert score_grit(rec, _ans(3)).outcome == "format_error"


def test_unknown_task_is_a_config_error(grit: list[GritInstance]) -> None:
    rec = grit[0].model_copy(update={"task": "pagerank"})
    with pytest.raises(ConfigError, match="not a GRIT task"):
        score_grit(rec, _ans(1))
