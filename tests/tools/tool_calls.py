"""Shared calls for the GRAIN tool tests: the paper's own call and a call builder.

A plain module (not a conftest), imported as ``from tool_calls import ...``.
"""

from __future__ import annotations

from typing import Any

#: Paper Table 14's tool call, verbatim (one line, as the model wrote it).
TABLE_14 = (
    '{ "problem_type": "shortest_path", "graph": { "type": "adjacency_list", "data": { '
    '"Knights Market": { "Xundral View": 7, "Skyline Gardens": 1, "Dragons Gate": 3, '
    '"Trelvon Bay": 6 }, "Xundral View": { "Trelvon Bay": 1 }, "Draycon Arcade": { '
    '"Copper Clock Square": 2, "Vorlen Heights": 8 }, "Copper Clock Square": { '
    '"Trelvon Bay": 7, "Vorlen Heights": 5, "Zaphrel Summit": 8 }, "Granite Plaza": { '
    '"Trelvon Bay": 8 }, "Dragons Gate": { "Trelvon Bay": 7 }, "Trelvon Bay": {}, '
    '"Zaphrel Summit": {} }, "directed": false, "weighted": true }, "parameters": { '
    '"start": "Xundral View", "end": "Zaphrel Summit", "algorithm": "dijkstra" } }'
)


def make_call(
    problem_type: str,
    data: dict[str, Any],
    *,
    directed: bool = False,
    weighted: bool = False,
    **params: Any,
) -> dict[str, Any]:
    """A call object in the Table 12 shape."""
    return {
        "problem_type": problem_type,
        "graph": {
            "type": "adjacency_list",
            "data": data,
            "directed": directed,
            "weighted": weighted,
        },
        "parameters": params,
    }


#: Undirected weighted graph: A-B 4, A-C 1, C-B 2, B-D 5, C-D 8, D-E 3.
ROADS: dict[str, Any] = {
    "A": {"B": 4, "C": 1},
    "C": {"B": 2, "D": 8},
    "B": {"D": 5},
    "D": {"E": 3},
}

#: The wheel W5: hub "h" joined to the 5-cycle r1-r2-r3-r4-r5 (chromatic number 4).
WHEEL: dict[str, Any] = {
    "h": ["r1", "r2", "r3", "r4", "r5"],
    "r1": ["r2"],
    "r2": ["r3"],
    "r3": ["r4"],
    "r4": ["r5"],
    "r5": ["r1"],
}

#: Directed: a->b->c->a (a cycle), c->d->e, f->d, and the isolated node g.
DIGRAPH: dict[str, Any] = {
    "a": ["b"],
    "b": ["c"],
    "c": ["a", "d"],
    "d": ["e"],
    "e": [],
    "f": ["d"],
    "g": [],
}

#: A star with a tail: hub h - x, y, z, and z - w.
STAR: dict[str, Any] = {"h": ["x", "y", "z"], "z": ["w"]}

#: A square with expensive diagonals (optimal tour a-b-c-d, cost 4).
SQUARE: dict[str, Any] = {
    "a": {"b": 1, "c": 5, "d": 1},
    "b": {"c": 1, "d": 5},
    "c": {"d": 1},
}

#: One call per problem type, on the graphs above (the answers are checked in the tests).
HAND_CALLS: dict[str, dict[str, Any]] = {
    "shortest_path": make_call("shortest_path", ROADS, weighted=True, start="A", end="E"),
    "graph_coloring": make_call("graph_coloring", WHEEL),
    "tsp": make_call("tsp", SQUARE, weighted=True),
    "vertex_cover": make_call("vertex_cover", WHEEL),
    "bfs": make_call("bfs", {"c": ["a", "b"], "b": ["d"], "a": ["d", "e"]}, start="c"),
    "centrality": make_call("centrality", STAR, measure="betweenness"),
    "reachability": make_call("reachability", DIGRAPH, directed=True, start="a", end="e"),
    "reachable_set": make_call("reachable_set", DIGRAPH, directed=True, start="a"),
    "out_degree": make_call("out_degree", DIGRAPH, directed=True),
    "in_degree": make_call("in_degree", DIGRAPH, directed=True, node="d"),
    "scc": make_call("scc", DIGRAPH, directed=True),
    "triangle_count": make_call(
        "triangle_count", {"a": ["b", "c", "d"], "b": ["c", "d"], "c": ["d"]}
    ),
    "ancestors": make_call("ancestors", DIGRAPH, directed=True, node="d"),
    "descendants": make_call("descendants", DIGRAPH, directed=True, node="a"),
    "successors": make_call("successors", DIGRAPH, directed=True, node="c"),
    "predecessors": make_call("predecessors", DIGRAPH, directed=True, node="d"),
    "minimum_spanning_tree": make_call("minimum_spanning_tree", ROADS, weighted=True),
    "topological_sort": make_call(
        "topological_sort", {"b": ["a"], "c": [], "a": []}, directed=True
    ),
    "connectivity": make_call("connectivity", DIGRAPH, directed=True),
    "cycle_detection": make_call("cycle_detection", DIGRAPH, directed=True),
}
