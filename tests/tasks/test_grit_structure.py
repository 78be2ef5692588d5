"""GritStructure canonicalises its graph and parameters; task classes own the per-task rules."""

from __future__ import annotations

import pytest

from closurebench.errors import ConfigError, GraphError
from closurebench.structures.grit import GritStructure
from closurebench.tasks.grit import GRIT_TASKS, get


def test_edges_and_params_are_canonical() -> None:
    sp = get("shortest_path")
    a = sp.structure(3, False, True, [(2, 1, 5), (1, 0, 2)], {"target": 2, "source": 0})
    b = GritStructure(
        "shortest_path", 3, False, True, [(0, 1, 2), (1, 2, 5)], [("source", 0), ("target", 2)]
    )
    assert a == b and hash(a) == hash(b)
    assert a.edges == ((0, 1, 2), (1, 2, 5))
    directed = sp.structure(2, True, False, [(1, 0), (0, 1)], {"source": 1, "target": 0})
    assert directed.edges == ((0, 1, 1), (1, 0, 1))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"edges": [(0, 0)]}, GraphError, "self-loop"),
        ({"edges": [(0, 1), (1, 0)]}, GraphError, "duplicates"),
        ({"edges": [(0, 5)]}, GraphError, "outside"),
        ({"edges": [(0, 1, 3)]}, GraphError, "unweighted graph"),
        ({"n": 0}, ConfigError, "too small"),
        ({"task": ""}, ConfigError, "not a task name"),
        ({"params": {"source": 7}}, ConfigError, "outside"),
        ({"params": {"kind": [1]}}, ConfigError, "str or an int"),
    ],
)
def test_malformed_structures_are_rejected(kwargs, error, match) -> None:
    base = {"task": "vertex_cover", "n": 3, "directed": False, "weighted": False, "edges": [(0, 1)]}
    with pytest.raises(error, match=match):
        GritStructure(**(base | kwargs))


@pytest.mark.parametrize(
    ("task", "args", "error", "match"),
    [
        ("vertex_cover", (3, True, False, [(0, 1)]), ConfigError, "undirected"),
        ("graph_coloring", (3, False, True, [(0, 1, 2)]), ConfigError, "unweighted"),
        ("vertex_cover", (3, False, False, [(0, 1)], {"source": 0}), ConfigError, "takes params"),
        ("tsp", (3, False, True, [(0, 1, 2), (1, 2, 2)]), GraphError, "complete"),
        ("tsp", (2, False, False, [(0, 1)]), ConfigError, "weighted=True"),
        (
            "shortest_path",
            (2, False, True, [(0, 1, 1)], {"source": 1, "target": 1}),
            ConfigError,
            "both 1",
        ),
        (
            "centrality",
            (2, False, False, [(0, 1)], {"centrality": "pagerank"}),
            ConfigError,
            "not supported",
        ),
    ],
)
def test_task_specific_rules_live_in_the_task(task, args, error, match) -> None:
    with pytest.raises(error, match=match):
        get(task).structure(*args)
    GritStructure(task, *args)  # the structure alone holds no per-task rules


def test_unknown_task_and_mismatched_structure() -> None:
    with pytest.raises(ConfigError, match="not a GRIT task"):
        get("pagerank")
    s = GritStructure("bfs", 2, False, False, [(0, 1)], {"source": 0})
    with pytest.raises(ConfigError, match="given to task 'vertex_cover'"):
        get("vertex_cover").validate(s)
    assert GRIT_TASKS["bfs"].validate(s) is s


def test_to_dict_matches_the_instance_record() -> None:
    s = GritStructure("bfs", 3, False, False, [(1, 2), (0, 1)], {"source": 2})
    assert s.to_dict() == {
        "task": "bfs",
        "graph": {"directed": False, "weighted": False, "n": 3, "edges": [[0, 1, 1], [1, 2, 1]]},
        "params": {"source": 2},
    }
    assert s.param("source") == 2 and s.m == 2
