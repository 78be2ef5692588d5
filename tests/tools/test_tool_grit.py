"""The tool answers GRIT questions exactly: its value equals every record's reference answer.

The call is built the way a model should build it from the question: the record's graph
with display names, the view's parameters, and for BFS the neighbour rule the question
states (read back from the question by the independent reader, as is the listed order).
"""

from __future__ import annotations

from typing import Any

import pytest

from closurebench.generate.grit import GritConfig, generate_records
from closurebench.schema import GritInstance
from closurebench.surface.grit.reader import read_view
from closurebench.tools import run_tool

#: The tool's parameter for each GRIT record parameter.
PARAMS = {"source": "start", "target": "end", "centrality": "measure"}


@pytest.fixture(scope="module")
def records() -> list[GritInstance]:
    recs, _ = generate_records(GritConfig(split="test", seed=0, count=12, n_max=12))
    directed, _ = generate_records(
        GritConfig(
            split="train",
            seed=1,
            count=2,
            tasks=("shortest_path",),
            n_min=6,
            n_max=9,
            directed_share=1.0,
        )
    )
    assert all(r.graph.directed for r in directed)
    return [*recs, *directed]


def grit_call(record: GritInstance, *, listed: bool) -> dict[str, Any]:
    """The tool call for ``record``: nodes keyed in the question's listed order if ``listed``."""
    g, names = record.graph, record.names
    view = read_view(record.question, record.task, record.scenario, names)
    keys = view.listing if listed else range(g.n)
    data: dict[str, dict[str, Any]] = {names[i]: {} for i in keys}
    for u, v, w in g.edges:
        data[names[u]][names[v]] = w if g.weighted else 1
    params: dict[str, Any] = {}
    for k, value in record.params.items():
        if k in ("source", "target"):
            assert isinstance(value, int)  # a node id
            params[PARAMS[k]] = names[value]
        else:
            params[PARAMS[k]] = value
    if view.tie_break is not None:
        params["order"] = view.tie_break
    return {
        "problem_type": record.task,
        "graph": {
            "type": "adjacency_list",
            "data": data,
            "directed": g.directed,
            "weighted": g.weighted,
        },
        "parameters": params,
    }


def test_every_grit_task_is_covered(records: list[GritInstance]) -> None:
    tasks = {r.task for r in records}
    assert tasks == {"shortest_path", "graph_coloring", "tsp", "vertex_cover", "bfs", "centrality"}
    rules = {read_view(r.question, r.task, r.scenario, r.names).tie_break for r in records}
    assert {"numeric", "alphabetical", "listed"} <= rules


@pytest.mark.parametrize("listed", [True, False])
def test_tool_value_equals_the_reference_answer(records: list[GritInstance], listed: bool) -> None:
    checked = 0
    for record in records:
        view = read_view(record.question, record.task, record.scenario, record.names)
        if not listed and view.tie_break == "listed":
            continue  # the listed rule needs the nodes keyed in the listed order
        result = run_tool(grit_call(record, listed=listed))
        assert result.ok, f"{record.id}: {result.text}"
        assert result.value == record.answer, f"{record.id} ({record.view}): {result.text}"
        checked += 1
    assert checked >= 60


def test_solutions_agree_with_the_records(records: list[GritInstance]) -> None:
    for record in records:
        result = run_tool(grit_call(record, listed=True))
        names = record.names
        if record.task == "shortest_path":
            path = [names.index(x) for x in result.details["path"]]
            assert path[0] == record.params["source"] and path[-1] == record.params["target"]
        elif record.task == "bfs":
            assert [names.index(x) for x in result.value] == record.solution
        elif record.task == "centrality":
            assert result.details["unique"] is True
            assert names.index(result.value) == record.solution
        elif record.task in ("tsp", "graph_coloring", "vertex_cover"):
            assert result.details["certificate"]["gap"] == 0
            assert result.details["certificate"]["bound"] == record.answer
