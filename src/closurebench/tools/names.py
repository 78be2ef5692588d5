"""The problem types the tool solves, their synonyms, and the parameter-name synonyms.

Names are matched after :func:`normalize`: case-insensitive, surrounding space dropped,
runs of spaces, hyphens and dots turned into one underscore (``"Shortest Path"``,
``"shortest-path"`` and ``"SHORTEST_PATH"`` are all ``shortest_path``).

Problem types (canonical names, :data:`PROBLEM_TYPES`): the six GRIT tasks
(``shortest_path``, ``graph_coloring``, ``tsp``, ``vertex_cover``, ``bfs``,
``centrality``), the ClosureBench primitives (``reachability``, ``reachable_set``,
``out_degree``, ``in_degree``, ``scc``, ``triangle_count``, ``ancestors``,
``descendants``) and the extras GRAIN's system prompt names
(``minimum_spanning_tree``, ``topological_sort``, ``connectivity``, ``cycle_detection``).
:data:`PROBLEM_SYNONYMS` maps other common spellings to them; a few synonyms also fix a
parameter (``degree_centrality`` is ``centrality`` with ``measure="degree"``).

Parameters (:data:`PARAM_SYNONYMS`): ``start`` (source, from, origin, ...), ``end``
(target, to, destination, ...), ``node``, ``measure`` (centrality, metric, ...),
``order`` (BFS / topological tie rule) and ``algorithm`` (informative only).

Example:
    >>> normalize("  Shortest-Path ")
    'shortest_path'
    >>> resolve_problem_type("Dijkstra"), resolve_problem_type("degree centrality")
    (('shortest_path', {}), ('centrality', {'measure': 'degree'}))
    >>> resolve_problem_type("max flow") is None
    True
    >>> PARAM_BY_NAME["destination"]
    'end'
"""

from __future__ import annotations

import re

__all__ = [
    "PARAM_BY_NAME",
    "PARAM_SYNONYMS",
    "PROBLEM_SYNONYMS",
    "PROBLEM_TYPES",
    "normalize",
    "resolve_problem_type",
]

#: Canonical problem types, in the order the docs list them.
PROBLEM_TYPES: tuple[str, ...] = (
    "shortest_path",
    "graph_coloring",
    "tsp",
    "vertex_cover",
    "bfs",
    "centrality",
    "reachability",
    "reachable_set",
    "out_degree",
    "in_degree",
    "scc",
    "triangle_count",
    "ancestors",
    "descendants",
    "successors",
    "predecessors",
    "minimum_spanning_tree",
    "topological_sort",
    "connectivity",
    "cycle_detection",
)

#: Other spellings (normalised) -> (canonical type, parameters the spelling implies).
PROBLEM_SYNONYMS: dict[str, tuple[str, dict[str, str]]] = {
    # successors / predecessors (one step; kinship: children / parents)
    "children": ("successors", {}),
    "out_neighbors": ("successors", {}),
    "out_neighbours": ("successors", {}),
    "parents": ("predecessors", {}),
    "in_neighbors": ("predecessors", {}),
    "in_neighbours": ("predecessors", {}),
    # shortest_path
    "shortest_path_length": ("shortest_path", {}),
    "shortest_paths": ("shortest_path", {}),
    "shortestpath": ("shortest_path", {}),
    "shortest_route": ("shortest_path", {}),
    "shortest_distance": ("shortest_path", {}),
    "dijkstra": ("shortest_path", {}),
    # graph_coloring
    "graph_colouring": ("graph_coloring", {}),
    "coloring": ("graph_coloring", {}),
    "colouring": ("graph_coloring", {}),
    "vertex_coloring": ("graph_coloring", {}),
    "vertex_colouring": ("graph_coloring", {}),
    "chromatic_number": ("graph_coloring", {}),
    # tsp
    "traveling_salesman": ("tsp", {}),
    "travelling_salesman": ("tsp", {}),
    "traveling_salesman_problem": ("tsp", {}),
    "travelling_salesman_problem": ("tsp", {}),
    "traveling_salesperson": ("tsp", {}),
    "travelling_salesperson": ("tsp", {}),
    # vertex_cover
    "minimum_vertex_cover": ("vertex_cover", {}),
    "min_vertex_cover": ("vertex_cover", {}),
    # bfs
    "breadth_first_search": ("bfs", {}),
    "bfs_order": ("bfs", {}),
    "bfs_traversal": ("bfs", {}),
    "breadth_first_traversal": ("bfs", {}),
    # centrality
    "node_centrality": ("centrality", {}),
    "degree_centrality": ("centrality", {"measure": "degree"}),
    "closeness_centrality": ("centrality", {"measure": "closeness"}),
    "betweenness_centrality": ("centrality", {"measure": "betweenness"}),
    # reachability
    "reachable": ("reachability", {}),
    "has_path": ("reachability", {}),
    "path_exists": ("reachability", {}),
    "is_reachable": ("reachability", {}),
    # reachable_set
    "reachable_nodes": ("reachable_set", {}),
    "reach": ("reachable_set", {}),
    # degrees
    "degree": ("out_degree", {}),
    "node_degree": ("out_degree", {}),
    "outdegree": ("out_degree", {}),
    "indegree": ("in_degree", {}),
    # scc
    "strongly_connected_components": ("scc", {}),
    "strong_components": ("scc", {}),
    # triangle_count
    "triangles": ("triangle_count", {}),
    "count_triangles": ("triangle_count", {}),
    "triangle_counting": ("triangle_count", {}),
    # ancestors / descendants
    "ancestor": ("ancestors", {}),
    "descendant": ("descendants", {}),
    "descendents": ("descendants", {}),
    # minimum_spanning_tree
    "mst": ("minimum_spanning_tree", {}),
    "spanning_tree": ("minimum_spanning_tree", {}),
    "min_spanning_tree": ("minimum_spanning_tree", {}),
    "minimum_spanning_forest": ("minimum_spanning_tree", {}),
    "kruskal": ("minimum_spanning_tree", {}),
    "prim": ("minimum_spanning_tree", {}),
    # topological_sort
    "topological_order": ("topological_sort", {}),
    "topological_sorting": ("topological_sort", {}),
    "toposort": ("topological_sort", {}),
    "topo_sort": ("topological_sort", {}),
    # connectivity
    "connected_components": ("connectivity", {}),
    "is_connected": ("connectivity", {}),
    "connected": ("connectivity", {}),
    "components": ("connectivity", {}),
    # cycle_detection
    "has_cycle": ("cycle_detection", {}),
    "detect_cycle": ("cycle_detection", {}),
    "find_cycle": ("cycle_detection", {}),
    "cycle": ("cycle_detection", {}),
    "cycles": ("cycle_detection", {}),
}

#: Canonical parameter -> the (normalised) names accepted for it, canonical first.
PARAM_SYNONYMS: dict[str, tuple[str, ...]] = {
    "start": ("start", "source", "from", "origin", "start_node", "source_node", "root"),
    "end": ("end", "target", "to", "destination", "end_node", "target_node", "goal"),
    "node": ("node", "vertex", "query_node", "nodes"),
    "within": ("within", "among", "subset", "restrict_to"),
    "measure": ("measure", "centrality", "metric", "centrality_type", "kind"),
    "order": ("order", "neighbor_order", "neighbour_order", "tie_break", "ordering"),
    "algorithm": ("algorithm", "method"),
}

#: Accepted parameter name (normalised) -> canonical parameter.
PARAM_BY_NAME: dict[str, str] = {
    alias: canon for canon, aliases in PARAM_SYNONYMS.items() for alias in aliases
}

_SEPARATORS = re.compile(r"[\s\-.]+")


def normalize(name: str) -> str:
    """Lower-case ``name`` and turn runs of spaces, hyphens and dots into ``_``.

    Example:
        >>> normalize("Minimum Spanning-Tree")
        'minimum_spanning_tree'
    """
    return _SEPARATORS.sub("_", name.strip().lower()).strip("_")


def resolve_problem_type(name: str) -> tuple[str, dict[str, str]] | None:
    """The canonical problem type ``name`` stands for, and the parameters it implies.

    Returns:
        ``(canonical, implied parameters)``, or ``None`` when ``name`` is unknown.

    Example:
        >>> resolve_problem_type("TSP"), resolve_problem_type("Graph Colouring")
        (('tsp', {}), ('graph_coloring', {}))
    """
    key = normalize(name)
    if key in PROBLEM_TYPES:
        return key, {}
    found = PROBLEM_SYNONYMS.get(key)
    if found is None:
        return None
    canon, implied = found
    return canon, dict(implied)
