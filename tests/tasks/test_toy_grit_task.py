"""A new GRIT task is one class plus its scenarios: generated, answered by the reader agent and
by the oracle program.

The toy task below (how many triangles has the graph?) is one module-level class, the whole
of what a new task writes: its facts, solving, verification, judging, the graph tool's
problem that answers it (:attr:`GritTask.tool_problem`) and the NetworkX line of its
reference program (:meth:`GritTask.networkx_answer`); it keeps the default draw
(:meth:`GritTask.sample`). :func:`toy_scenarios` stands in for its scenario module
(``surface/grit/scenarios/<task>.py``): the scenarios are built once the task is
registered, as a scenario checks its task against the registry. Registered temporarily in
``GRIT_TASKS`` and the scenario table (monkeypatch) and with no other edit, it

* generates (``GritConfig(tasks=(toy,))``), each answer checked here against NetworkX on
  the record's own graph, in all eight views of each graph;
* is answered by the reference agent (``--model reader``) in both agent modes, strictly
  correct, through one graph-tool call on the exact graph it read;
* is answered by ``--model oracle-program`` in ``program-python`` (a NetworkX program
  that computes the answer), strictly correct.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import networkx as nx
import pytest

from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.options import RunOptions
from closurebench.evaluate.providers import GenerationSettings
from closurebench.evaluate.records import iter_result_records
from closurebench.evaluate.reference import reference_provider
from closurebench.evaluate.runner import run_eval
from closurebench.generate.grit import GritConfig, generate_records
from closurebench.schema import GritInstance, Outcome, ResultRecord
from closurebench.structures.grit import GritStructure
from closurebench.surface.grit.scenarios import SCENARIOS, Scenario, for_task
from closurebench.tasks.grit import GRIT_TASKS, GritTask, Judgement, Solved
from closurebench.tasks.grit.answers import is_number
from closurebench.tasks.grit.base import DEFAULT_TIME_LIMIT, to_nx


def _triangles(g: nx.Graph) -> int:
    return sum(nx.triangles(g).values()) // 3


class TriangleCount(GritTask):
    """The number of triangles (three pairwise-joined nodes) of a connected undirected graph."""

    name: ClassVar[str] = "toy_triangle_count"
    tool_problem: ClassVar[str | None] = "triangle_count"

    def solve(self, s: GritStructure, *, time_limit: float = DEFAULT_TIME_LIMIT) -> Solved:
        adj = [set[int]() for _ in range(s.n)]
        for u, v, _ in s.edges:
            adj[u].add(v)
            adj[v].add(u)
        count = sum(len(adj[u] & adj[v]) for u in range(s.n) for v in adj[u] if u < v) // 3
        return Solved(answer=count, solution=None)

    def check(self, s: GritStructure, solution: Any) -> Any:
        return solution

    def verify(self, s: GritStructure, solved: Solved, *, where: str, time_limit: float) -> None:
        self._agree(where, "triangle counts", solved.answer, _triangles(to_nx(s)))

    def networkx_answer(self, names: Sequence[str], params: Mapping[str, Any]) -> str | None:
        return "sum(nx.triangles(G).values()) // 3"

    def judge(self, record: GritInstance, value: Any, *, lenient: bool = False) -> Judgement:
        if not is_number(value):
            return Judgement.format_error(value, "expected the number of triangles")
        ok = value == record.answer
        return Judgement.correct_if(ok, value, f"{value} differs from {record.answer}")


def toy_scenarios(task: str) -> tuple[Scenario, ...]:
    """The toy task's scenario module, as data (what ``scenarios/<task>.py`` would hold)."""
    return (
        Scenario(
            id="toy_friend_triads",
            task=task,
            split="in_distribution",
            title="Friendship triads",
            setting="a book club",
            node="member",
            nodes="members",
            edge="friendship",
            edges="friendships",
            meaning="a friendship between two members",
            pool="stars",
            links=(
                "{a} is friends with {b}.",
                "{a} and {b} are friends.",
            ),
            ask_standard=(
                "A triad is three members who are all friends with each other. How many "
                "triads are there?"
            ),
            ask=("How many groups of three members are all friends with each other?",),
            opening=("I'm planning small reading groups for our book club.",),
            closing=("Friendship here always goes both ways.",),
            distractors=(
                "We meet on the first Thursday of the month.",
                "The library lets us use its back room.",
                "Someone always brings far too many biscuits.",
            ),
        ),
    )


COUNT = 3


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> GritTask:
    task = TriangleCount()
    monkeypatch.setitem(GRIT_TASKS, task.name, task)
    for scenario in toy_scenarios(task.name):
        monkeypatch.setitem(SCENARIOS, scenario.id, scenario)
    return task


@pytest.fixture
def records(toy: GritTask) -> list[GritInstance]:
    config = GritConfig(split="test", seed=3, count=COUNT, n_min=8, n_max=12, tasks=(toy.name,))
    records, _ = generate_records(config)
    return records


def _run(
    records: Sequence[GritInstance], model: str, mode_name: str, out: Path
) -> list[ResultRecord]:
    """``closurebench eval --model MODEL --mode MODE`` on ``records``, in process."""
    mode = get_mode(mode_name)
    provider = reference_provider(model, records, mode)
    stats = asyncio.run(
        run_eval(
            records,
            provider,
            mode,
            GenerationSettings(model=model),
            out,
            RunOptions(progress=False, concurrency=1),
            notice=None,
        )
    )
    assert stats.evaluated == len(records)
    return list(iter_result_records(out / "results.jsonl"))


def test_the_toy_task_generates(toy: GritTask, records: list[GritInstance]) -> None:
    assert [s.id for s in for_task(toy.name)] == ["toy_friend_triads"]
    assert {r.task for r in records} == {toy.name}
    assert len({r.graph_id for r in records}) == COUNT
    assert len(records) == 8 * COUNT  # every form and naming of each graph
    assert {r.scenario for r in records} == {"toy_friend_triads"}
    for rec in records:
        graph = nx.Graph()
        graph.add_nodes_from(range(rec.graph.n))
        graph.add_edges_from((u, v) for u, v, _ in rec.graph.edges)
        assert rec.answer == _triangles(graph)


@pytest.mark.parametrize("mode", ["agent", "agent-tools"])
def test_the_reader_agent_answers_the_toy_task(
    mode: str, records: list[GritInstance], tmp_path: Path
) -> None:
    results = _run(records, "reader", mode, tmp_path / "run")
    bad = [(r.id, r.reason, r.response[-200:]) for r in results if not r.strict]
    assert not bad, bad[:2]
    assert all(r.outcome is Outcome.STRICT_CORRECT for r in results)
    for r in results:
        assert r.extra["tool_calls"] == 1
        structure = r.extra["structure"]
        assert isinstance(structure, dict) and structure["cls"] == "exact"


def test_the_oracle_program_answers_the_toy_task(
    records: list[GritInstance], tmp_path: Path
) -> None:
    results = _run(records, "oracle-program", "program-python", tmp_path / "run")
    bad = [(r.id, r.reason, r.response[-200:]) for r in results if not r.strict]
    assert not bad, bad[:2]
    assert all(r.outcome is Outcome.STRICT_CORRECT for r in results)


def test_the_docs_and_the_tool_describe_the_toy_task(toy: GritTask) -> None:
    """The generated reference page lists it (its scenarios counted) and gives its section;
    the graph tool's problem it names is the one the tools page documents."""
    from docs import render_docs

    pages = render_docs()
    row = next(line for line in pages["categories.md"].splitlines() if f"| `{toy.name}` |" in line)
    assert row.endswith("| 1 + 0 |")  # one in-distribution scenario, no OOD one
    assert "The number of triangles (three pairwise-joined nodes)" in pages["categories.md"]
    assert f"`{toy.tool_problem}`" in pages["tools.md"]
