"""GritStructure canonicalises its graph and parameters and rejects malformed input."""

from __future__ import annotations

import pytest

from closurebench.errors import ConfigError, GraphError
from closurebench.surface.grit.query import PARAM_KEYS, TASKS, GritStructure


def test_edges_and_params_are_canonical() -> None:
    a = GritStructure(
        "shortest_path", 3, False, True, [(2, 1, 5), (1, 0, 2)], {"target": 2, "source": 0}
    )
    b = GritStructure(
        "shortest_path", 3, False, True, [(0, 1, 2), (1, 2, 5)], [("source", 0), ("target", 2)]
    )
    assert a == b and hash(a) == hash(b)
    assert a.edges == ((0, 1, 2), (1, 2, 5))
    directed = GritStructure(
        "shortest_path", 2, True, False, [(1, 0), (0, 1)], {"source": 1, "target": 0}
    )
    assert directed.edges == ((0, 1, 1), (1, 0, 1))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"task": "pagerank"}, ConfigError, "not a GRIT task"),
        ({"task": "vertex_cover", "directed": True}, ConfigError, "undirected"),
        (
            {"task": "graph_coloring", "weighted": True, "edges": [(0, 1, 2)]},
            ConfigError,
            "unweighted",
        ),
        ({"edges": [(0, 0)]}, GraphError, "self-loop"),
        ({"edges": [(0, 1), (1, 0)]}, GraphError, "duplicates"),
        ({"edges": [(0, 5)]}, GraphError, "outside"),
        ({"edges": [(0, 1, 3)]}, GraphError, "unweighted graph"),
        ({"params": {"source": 0}}, ConfigError, "takes params"),
    ],
)
def test_malformed_structures_are_rejected(kwargs, error, match) -> None:
    base = {"task": "vertex_cover", "n": 3, "directed": False, "weighted": False, "edges": [(0, 1)]}
    with pytest.raises(error, match=match):
        GritStructure(**(base | kwargs))


def test_task_specific_rules() -> None:
    with pytest.raises(GraphError, match="complete"):
        GritStructure("tsp", 3, False, True, [(0, 1, 2), (1, 2, 2)])
    with pytest.raises(ConfigError, match="weighted=True"):
        GritStructure("tsp", 2, False, False, [(0, 1)])
    with pytest.raises(ConfigError, match="both 1"):
        GritStructure("shortest_path", 2, False, True, [(0, 1, 1)], {"source": 1, "target": 1})
    with pytest.raises(ConfigError, match="not supported"):
        GritStructure("centrality", 2, False, False, [(0, 1)], {"centrality": "pagerank"})
    assert set(PARAM_KEYS) == set(TASKS)


def test_to_dict_matches_the_instance_record() -> None:
    s = GritStructure("bfs", 3, False, False, [(1, 2), (0, 1)], {"source": 2})
    assert s.to_dict() == {
        "task": "bfs",
        "graph": {"directed": False, "weighted": False, "n": 3, "edges": [[0, 1, 1], [1, 2, 1]]},
        "params": {"source": 2},
    }
    assert s.param("source") == 2 and s.m == 2
