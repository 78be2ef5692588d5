"""GRIT tasks: sampling, exact solving, independent verification and checkers."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import closurebench
from closurebench.errors import SamplingError
from closurebench.graphs.exact.tsp import tsp
from closurebench.seeding import rng
from closurebench.surface.grit import render
from closurebench.surface.grit.scenarios import for_task
from closurebench.tasks.grit import (
    GRIT_TASKS,
    CheckError,
    GraphNote,
    GraphTrait,
    VerificationError,
    sample_solved,
)
from closurebench.tasks.grit.bfs import BfsTask, nx_bfs_order
from closurebench.tasks.grit.tsp import TspTask, held_karp

TASKS = list(GRIT_TASKS)
NP_HARD = {"graph_coloring", "tsp", "vertex_cover"}


def test_registry_matches_the_spec() -> None:
    assert TASKS == ["shortest_path", "graph_coloring", "tsp", "vertex_cover", "bfs", "centrality"]
    assert all(t.name == k for k, t in GRIT_TASKS.items())


@pytest.mark.parametrize("task", TASKS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sample_solve_verify(task: str, seed: int) -> None:
    t = GRIT_TASKS[task]
    for n in (4, 9):
        a = sample_solved(t, seed, ("t", task), n=n)
        b = sample_solved(t, seed, ("t", task), n=n)
        assert a.structure == b.structure and a.solved == b.solved and a.seed == b.seed
        s, solved = a.structure, a.solved
        assert s.n == n and s.task == task
        if task == "bfs":
            assert isinstance(t, BfsTask)
            assert t.check(s, solved.solution, list(range(n))) == solved.answer
        else:
            assert t.check(s, solved.solution) == solved.answer
        if task in NP_HARD:
            assert solved.certificate is not None
            assert solved.certificate["gap"] == 0
            assert solved.certificate["bound"] == solved.answer
        else:
            assert solved.certificate is None
        if task == "shortest_path":
            assert s.param("source") != s.param("target") and s.weighted
            assert all(1 <= w <= 10 for _, _, w in s.edges)
        if task == "tsp":
            assert s.m == n * (n - 1) // 2


def test_shortest_path_has_directed_and_undirected_instances() -> None:
    kinds = {
        sample_solved(GRIT_TASKS["shortest_path"], i, ("d",), n=6).structure.directed
        for i in range(12)
    }
    assert kinds == {True, False}


@pytest.mark.parametrize("task", ["shortest_path", "graph_coloring", "tsp", "vertex_cover"])
def test_tampered_answer_is_a_loud_error(task: str) -> None:
    t = GRIT_TASKS[task]
    inst = sample_solved(t, 3, ("tamper",), n=7)
    bad = dataclasses.replace(inst.solved, answer=inst.solved.answer + 1)
    with pytest.raises(VerificationError, match="tamper-me"):
        t.verify(inst.structure, bad, where="tamper-me", time_limit=30)


def test_checkers_reject_invalid_solutions() -> None:
    for task, bad in [
        ("shortest_path", [0]),
        ("graph_coloring", [0, 0, 0, 0, 0, 0]),
        ("tsp", [0, 1, 1, 2, 3, 4]),
        ("vertex_cover", []),
        ("bfs", [0]),
        ("centrality", -1),
    ]:
        t = GRIT_TASKS[task]
        s = sample_solved(t, 5, ("bad",), n=6).structure
        with pytest.raises(CheckError):
            t.check(s, bad)


def test_bfs_per_view_order_follows_the_stated_rule() -> None:
    t = GRIT_TASKS["bfs"]
    inst = sample_solved(t, 4, ("view",), n=9, density=(0.3, 0.4))
    s = inst.structure
    sc = for_task("bfs", "in_distribution")[0]
    for naming in ("canonical", "random", "semantic", "mixed"):
        view = render(s, sc.id, "standard", naming, rng(4, naming))
        names, ids = t.for_view(s, inst.solved, view, where="x")
        assert view.neighbour_order is not None
        rank = {node: r for r, node in enumerate(view.neighbour_order)}
        assert ids == nx_bfs_order(s, [rank[i] for i in range(s.n)])
        assert names == [view.names[i] for i in ids]


def test_centrality_answer_is_unique_and_named_per_view() -> None:
    t = GRIT_TASKS["centrality"]
    for seed in range(4):
        inst = sample_solved(t, seed, ("c",), n=8)
        scores = inst.solved.extra["scores"]
        assert sorted(scores)[-1] > sorted(scores)[-2]
        sc = for_task("centrality", "in_distribution")[0]
        view = render(inst.structure, sc.id, "realistic", "semantic", rng(seed))
        name, node = t.for_view(inst.structure, inst.solved, view, where="x")
        assert node == inst.solved.answer and name == view.names[node]


def test_ill_posed_graphs_exhaust_attempts_with_sampling_error() -> None:
    # Two nodes: every centrality is tied, so every draw is resampled.
    with pytest.raises(SamplingError, match="centrality"):
        sample_solved(GRIT_TASKS["centrality"], 0, ("tie",), n=2, max_attempts=5)


def test_held_karp_agrees_with_the_milp_solver() -> None:
    t = TspTask()
    for seed in range(3):
        s = t.sample(rng(seed, "hk"), 9, 0.0)
        assert held_karp(t.matrix(s)) == tsp(t.matrix(s)).value


def test_task_behaviour_is_reached_only_through_the_registry() -> None:
    """No module branches on a GRIT task's name; the task classes own the differences."""
    src = Path(closurebench.__file__).parent
    branch = re.compile(r"""\btask\s*(==|!=)\s*["']|\btask\s+(not\s+)?in\s*\(""")
    offenders = [
        f"{path.relative_to(src)}:{k}"
        for path in sorted(src.rglob("*.py"))
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if branch.search(line)
    ]
    assert offenders == []


def test_task_facts_drive_the_wording_hooks() -> None:
    sp, tsp_task, bfs = GRIT_TASKS["shortest_path"], GRIT_TASKS["tsp"], GRIT_TASKS["bfs"]
    assert sp.directed is GraphTrait.EITHER and sp.states_direction
    weighted = sp.structure(3, True, True, [(0, 1, 2), (1, 2, 3)], {"source": 0, "target": 2})
    plain = sp.structure(3, False, False, [(0, 1), (1, 2)], {"source": 0, "target": 2})
    assert sp.graph_notes(weighted) == (GraphNote.DIRECTION, GraphNote.WEIGHT)
    assert sp.graph_notes(plain) == (GraphNote.DIRECTION,) and sp.plain_wording(plain)
    assert tsp_task.graph_notes(tsp_task.structure(2, False, True, [(0, 1, 4)])) == (
        GraphNote.COMPLETE,
    )
    assert [t.name for t in GRIT_TASKS.values() if t.states_neighbour_order] == ["bfs"]
    s = bfs.structure(3, False, False, [(0, 1), (0, 2)], {"source": 0})
    view = SimpleNamespace(names=["a", "b", "c"], aliases={}, neighbour_order=(0, 2, 1))
    solved = bfs.solve(s)
    assert bfs.for_view(s, solved, view, where="x") == (["a", "c", "b"], [0, 2, 1])


def test_graph_coloring_cross_checks_with_the_other_method(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Whichever method "auto" picks, the other one proves the answer too, and the stored
    # colouring is the same (canonical); SAT is forced by lowering the rule's threshold.
    from closurebench.graphs.exact import coloring
    from closurebench.tasks.grit.graph_coloring import GraphColoringTask

    t = GRIT_TASKS["graph_coloring"]
    assert isinstance(t, GraphColoringTask)
    calls: list[tuple[str, bool]] = []
    real = coloring.chromatic_number

    def spy(*args: object, **kwargs: object) -> object:
        calls.append((str(kwargs.get("method", "auto")), bool(kwargs.get("canonical", True))))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("closurebench.tasks.grit.graph_coloring.chromatic_number", spy)
    monkeypatch.setattr(type(t), "route", dataclasses.replace(t.route, solver=spy))
    small = sample_solved(t, 7, ("cross",), n=12, density=(0.5, 0.6))
    assert small.solved.certificate is not None
    assert small.solved.certificate["method"] == "dsatur-bnb"
    assert calls[-2:] == [("auto", True), ("sat", False)]
    monkeypatch.setattr(coloring, "AUTO_SAT_MIN_N", 10)
    forced = sample_solved(t, 7, ("cross",), n=12, density=(0.5, 0.6))
    assert forced.solved.certificate is not None
    assert forced.solved.certificate["method"] == "sat-cadical195"
    assert calls[-2:] == [("auto", True), ("dsatur", False)]
    assert forced.structure == small.structure
    assert forced.solved.solution == small.solved.solution
