"""One plain, typed function per problem type, for function calling.

Each function takes the adjacency list (``{node: {neighbour: weight}}``, or
``{node: [neighbour, ...]}``) and the problem's parameters as keyword arguments, runs
:func:`~closurebench.tools.run.run_tool`, and returns a JSON-able dict::

    {"ok": bool, "kind": "ok" | <error kind>, "value": ..., "details": {...}, "text": str}

They never raise on bad input either: an error comes back as ``ok: false`` with the
message in ``text``. Their signatures and Google-style docstrings are written so a
function-calling JSON schema can be generated from them (so they are written by hand,
and type checkers check their call sites); :data:`FUNCTIONS` lists them by problem type,
in the order of the registry (:data:`~closurebench.tools.problems.PROBLEMS`), and this
module does not load unless it defines exactly one function per registered problem type.

Example:
    >>> roads = {"A": {"B": 4, "C": 1}, "C": {"B": 2}}
    >>> shortest_path(roads, "A", "B")["value"]
    3
    >>> descendants({"a": ["b"], "b": ["c"], "c": []}, "a")["value"]
    ['b', 'c']
    >>> list(FUNCTIONS)[:3], FUNCTIONS["tsp"] is tsp
    (['shortest_path', 'graph_coloring', 'tsp'], True)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Literal

from closurebench.tools.problems import PROBLEM_TYPES, PROBLEMS
from closurebench.tools.run import run_tool

# Written out (not derived) because type checkers read a literal ``__all__`` only: it is
# what ``from closurebench.tools.functions import *`` gives closurebench.tools. FUNCTIONS
# (below) refuses to load unless it names exactly the registry's problem types.
__all__ = [
    "FUNCTIONS",
    "ancestors",
    "bfs",
    "centrality",
    "connectivity",
    "cycle_detection",
    "descendants",
    "graph_coloring",
    "in_degree",
    "minimum_spanning_tree",
    "out_degree",
    "predecessors",
    "reachability",
    "reachable_set",
    "scc",
    "shortest_path",
    "successors",
    "topological_sort",
    "triangle_count",
    "tsp",
    "vertex_cover",
]

Order = Literal["listed", "numeric", "alphabetical"]


def _call(
    problem_type: str, graph: dict[str, Any], directed: bool, weighted: bool, **params: Any
) -> dict[str, Any]:
    call = {
        "problem_type": problem_type,
        "graph": {
            "type": "adjacency_list",
            "data": graph,
            "directed": directed,
            "weighted": weighted,
        },
        "parameters": {k: v for k, v in params.items() if v is not None},
    }
    r = run_tool(call)
    return {"ok": r.ok, "kind": r.kind, "value": r.value, "details": r.details, "text": r.text}


def shortest_path(
    graph: dict[str, Any], start: str, end: str, directed: bool = False, weighted: bool = True
) -> dict[str, Any]:
    """Minimum-weight path between two nodes (Dijkstra; hop count when unweighted).

    Args:
        graph: Adjacency list ``{node: {neighbour: weight}}``.
        start: The node the path starts at.
        end: The node the path ends at.
        directed: Whether each listed edge goes one way only.
        weighted: Whether the weights count (else every edge counts 1).

    Returns:
        ``value``: the total length (``None`` when ``end`` is unreachable);
        ``details["path"]``: the node names along one shortest path.

    Example:
        >>> shortest_path({"A": {"B": 4, "C": 1}, "C": {"B": 2}}, "A", "B")["details"]["path"]
        ['A', 'C', 'B']
    """
    return _call("shortest_path", graph, directed, weighted, start=start, end=end)


def graph_coloring(
    graph: dict[str, Any], directed: bool = False, weighted: bool = False
) -> dict[str, Any]:
    """Chromatic number and one optimal coloring (exact, proven).

    Args:
        graph: Adjacency list ``{node: [neighbour, ...]}`` or ``{node: {neighbour: w}}``.
        directed: Whether edges are directed (directions are ignored for coloring).
        weighted: Whether the weights count (they never do for coloring).

    Returns:
        ``value``: the chromatic number; ``details["coloring"]``: node -> color 1..k.

    Example:
        >>> graph_coloring({"a": ["b", "c"], "b": ["c"], "c": ["d"]})["value"]
        3
    """
    return _call("graph_coloring", graph, directed, weighted)


def tsp(
    graph: dict[str, Any], start: str | None = None, directed: bool = False, weighted: bool = True
) -> dict[str, Any]:
    """Optimal traveling-salesman tour of a complete undirected graph (exact, proven).

    Args:
        graph: Adjacency list with an edge between every pair of nodes.
        start: Optional node the tour is written from.
        directed: Must be false (the tour's cost is symmetric).
        weighted: Whether the weights count (else every edge counts 1).

    Returns:
        ``value``: the optimal tour cost; ``details["tour"]``: the nodes in visiting order.

    Example:
        >>> tsp({"a": {"b": 1, "c": 5, "d": 1}, "b": {"c": 1, "d": 5}, "c": {"d": 1}})["value"]
        4
    """
    return _call("tsp", graph, directed, weighted, start=start)


def vertex_cover(
    graph: dict[str, Any], directed: bool = False, weighted: bool = False
) -> dict[str, Any]:
    """Minimum vertex cover (exact, proven).

    Args:
        graph: Adjacency list.
        directed: Whether edges are directed (an edge is covered by either end anyway).
        weighted: Whether the weights count (they never do for a cover).

    Returns:
        ``value``: the minimum cover size; ``details["cover"]``: one minimum cover.

    Example:
        >>> vertex_cover({"a": ["b", "c", "d"]})["details"]["cover"]
        ['a']
    """
    return _call("vertex_cover", graph, directed, weighted)


def bfs(
    graph: dict[str, Any],
    start: str,
    order: Order = "listed",
    directed: bool = False,
    weighted: bool = False,
) -> dict[str, Any]:
    """Breadth-first visit order from ``start``, neighbours queued in the ``order`` rule.

    Args:
        graph: Adjacency list.
        start: The node the search starts at.
        order: ``"listed"`` (the order of the keys of ``graph``), ``"numeric"`` or
            ``"alphabetical"``: the order in which a node's unvisited neighbours join
            the queue.
        directed: Whether edges are followed one way only.
        weighted: Ignored by BFS.

    Returns:
        ``value``: the visit order (node names).

    Example:
        >>> bfs({"b": ["a", "c"], "a": [], "c": []}, "b", order="alphabetical")["value"]
        ['b', 'a', 'c']
    """
    return _call("bfs", graph, directed, weighted, start=start, order=order)


def centrality(
    graph: dict[str, Any],
    measure: Literal["degree", "closeness", "betweenness"],
    directed: bool = False,
    weighted: bool = False,
) -> dict[str, Any]:
    """Every node's degree, closeness or betweenness centrality, and the top node.

    Args:
        graph: Adjacency list of an undirected graph.
        measure: ``"degree"``, ``"closeness"`` or ``"betweenness"``.
        directed: Must be false.
        weighted: Use weights as distances for closeness and betweenness (else hops).

    Returns:
        ``value``: the top node; ``details["scores"]``: every node's score;
        ``details["tied"]``: all nodes sharing the top score.

    Example:
        >>> centrality({"hub": ["a", "b", "c"], "a": ["b"]}, "betweenness")["value"]
        'hub'
    """
    return _call("centrality", graph, directed, weighted, measure=measure)


def reachability(
    graph: dict[str, Any], start: str, end: str, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Whether a path leads from ``start`` to ``end``.

    Args:
        graph: Adjacency list.
        start: Source node.
        end: Target node.
        directed: Whether edges are followed one way only.
        weighted: Ignored.

    Returns:
        ``value``: true or false; ``details["path"]``: a path with fewest edges, if any.

    Example:
        >>> reachability({"a": ["b"], "b": ["c"], "c": []}, "c", "a")["value"]
        False
    """
    return _call("reachability", graph, directed, weighted, start=start, end=end)


def reachable_set(
    graph: dict[str, Any], start: str, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Nodes reachable from ``start`` (``start`` only if it lies on a directed cycle).

    Args:
        graph: Adjacency list.
        start: Source node.
        directed: Whether edges are followed one way only.
        weighted: Ignored.

    Returns:
        ``value``: the reachable nodes, in node order.

    Example:
        >>> reachable_set({"a": ["b"], "b": ["a", "c"], "c": []}, "a")["value"]
        ['a', 'b', 'c']
    """
    return _call("reachable_set", graph, directed, weighted, start=start)


def out_degree(
    graph: dict[str, Any], node: str | None = None, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Out-degree of ``node``, or of every node.

    Args:
        graph: Adjacency list.
        node: The node asked about; ``None`` for all nodes.
        directed: Whether edges are one way (else this is the degree).
        weighted: Ignored (degrees count edges).

    Returns:
        ``value``: the degree, or ``{node: degree}`` for all nodes.

    Example:
        >>> out_degree({"a": ["b", "c"], "b": ["c"]}, "a")["value"]
        2
    """
    return _call("out_degree", graph, directed, weighted, node=node)


def in_degree(
    graph: dict[str, Any], node: str | None = None, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """In-degree of ``node``, or of every node.

    Args:
        graph: Adjacency list.
        node: The node asked about; ``None`` for all nodes.
        directed: Whether edges are one way (else this is the degree).
        weighted: Ignored (degrees count edges).

    Returns:
        ``value``: the degree, or ``{node: degree}`` for all nodes.

    Example:
        >>> in_degree({"a": ["b", "c"], "b": ["c"]})["value"]
        {'a': 0, 'b': 1, 'c': 2}
    """
    return _call("in_degree", graph, directed, weighted, node=node)


def scc(
    graph: dict[str, Any], node: str | None = None, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Strongly connected components, or the component of ``node``.

    Args:
        graph: Adjacency list.
        node: Optional node whose component is the value.
        directed: Whether edges are one way (else these are the connected components).
        weighted: Ignored.

    Returns:
        ``value``: the list of components, or ``node``'s component.

    Example:
        >>> scc({"a": ["b"], "b": ["a", "c"], "c": []})["value"]
        [['a', 'b'], ['c']]
    """
    return _call("scc", graph, directed, weighted, node=node)


def triangle_count(
    graph: dict[str, Any],
    within: list[str] | None = None,
    directed: bool = False,
    weighted: bool = False,
) -> dict[str, Any]:
    """Number of triangles (three pairwise adjacent nodes) of an undirected graph.

    Args:
        graph: Adjacency list.
        within: Count only triangles among these nodes (the induced subgraph); None for all.
        directed: Whether edges are directed (directions are ignored).
        weighted: Ignored.

    Returns:
        ``value``: the triangle count.

    Example:
        >>> k4 = {"a": ["b", "c", "d"], "b": ["c", "d"], "c": ["d"]}
        >>> triangle_count(k4)["value"], triangle_count(k4, ["a", "b", "c"])["value"]
        (4, 1)
    """
    return _call("triangle_count", graph, directed, weighted, within=within)


def ancestors(
    graph: dict[str, Any], node: str, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Nodes that can reach ``node`` (``node`` itself never counted).

    Args:
        graph: Adjacency list (edges parent -> child).
        node: The node asked about.
        directed: Whether edges are one way.
        weighted: Ignored.

    Returns:
        ``value``: the ancestors, in node order.

    Example:
        >>> ancestors({"a": ["b"], "b": ["c"], "c": []}, "c")["value"]
        ['a', 'b']
    """
    return _call("ancestors", graph, directed, weighted, node=node)


def descendants(
    graph: dict[str, Any], node: str, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Nodes ``node`` can reach (``node`` itself never counted).

    Args:
        graph: Adjacency list.
        node: The node asked about.
        directed: Whether edges are one way.
        weighted: Ignored.

    Returns:
        ``value``: the descendants, in node order.

    Example:
        >>> descendants({"a": ["b"], "b": ["a"]}, "a")["value"]
        ['b']
    """
    return _call("descendants", graph, directed, weighted, node=node)


def successors(
    graph: dict[str, Any], node: str, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Nodes one edge away from ``node`` (its out-neighbors; kinship: its children).

    Args:
        graph: Adjacency list.
        node: The node asked about.
        directed: Whether edges are one way (else these are all neighbors).
        weighted: Ignored.

    Returns:
        ``value``: the successors, in node order.

    Example:
        >>> successors({"a": ["b", "c"], "b": ["c"]}, "a")["value"]
        ['b', 'c']
    """
    return _call("successors", graph, directed, weighted, node=node)


def predecessors(
    graph: dict[str, Any], node: str, directed: bool = True, weighted: bool = False
) -> dict[str, Any]:
    """Nodes with an edge into ``node`` (its in-neighbors; kinship: its parents).

    Args:
        graph: Adjacency list.
        node: The node asked about.
        directed: Whether edges are one way (else these are all neighbors).
        weighted: Ignored.

    Returns:
        ``value``: the predecessors, in node order.

    Example:
        >>> predecessors({"a": ["b", "c"], "b": ["c"]}, "c")["value"]
        ['a', 'b']
    """
    return _call("predecessors", graph, directed, weighted, node=node)


def minimum_spanning_tree(
    graph: dict[str, Any], directed: bool = False, weighted: bool = True
) -> dict[str, Any]:
    """Minimum spanning tree (a forest when the graph is disconnected), by Kruskal.

    Args:
        graph: Adjacency list of an undirected graph.
        directed: Must be false.
        weighted: Whether the weights count (else every edge counts 1).

    Returns:
        ``value``: the total weight; ``details["edges"]``: the chosen edges.

    Example:
        >>> minimum_spanning_tree({"a": {"b": 1, "c": 3}, "b": {"c": 1}})["value"]
        2
    """
    return _call("minimum_spanning_tree", graph, directed, weighted)


def topological_sort(
    graph: dict[str, Any],
    order: Order = "alphabetical",
    directed: bool = True,
    weighted: bool = False,
) -> dict[str, Any]:
    """A topological order of a DAG; ties go to the first node under ``order``.

    Args:
        graph: Adjacency list of a directed graph.
        order: Tie rule: ``"alphabetical"``, ``"numeric"`` or ``"listed"``.
        directed: Must be true.
        weighted: Ignored.

    Returns:
        ``value``: the order, or ``None`` when the graph has a cycle
        (``details["cycle"]`` shows one).

    Example:
        >>> topological_sort({"b": ["a"], "c": []})["value"]
        ['b', 'a', 'c']
    """
    return _call("topological_sort", graph, directed, weighted, order=order)


def connectivity(
    graph: dict[str, Any], directed: bool = False, weighted: bool = False
) -> dict[str, Any]:
    """Whether the graph is connected (directed: strongly), with its components.

    Args:
        graph: Adjacency list.
        directed: Whether edges are one way (then weak and strong components are given).
        weighted: Ignored.

    Returns:
        ``value``: connected (directed: strongly connected); ``details``: components.

    Example:
        >>> connectivity({"a": ["b"], "c": []})["details"]["components"]
        [['a', 'b'], ['c']]
    """
    return _call("connectivity", graph, directed, weighted)


def cycle_detection(
    graph: dict[str, Any], directed: bool = False, weighted: bool = False
) -> dict[str, Any]:
    """Whether the graph has a cycle, and one cycle.

    Args:
        graph: Adjacency list.
        directed: Whether edges are one way (then a cycle follows the directions).
        weighted: Ignored.

    Returns:
        ``value``: true or false; ``details["cycle"]``: one cycle's nodes.

    Example:
        >>> cycle_detection({"a": ["b", "c"], "b": ["c"]})["details"]["cycle"]
        ['a', 'b', 'c']
    """
    return _call("cycle_detection", graph, directed, weighted)


def _by_problem_type() -> dict[str, Callable[..., dict[str, Any]]]:
    """The typed functions by problem type, in registry order, checked against the registry.

    Raises:
        RuntimeError: at import, unless the module's public functions, its ``__all__``
            and :data:`~closurebench.tools.problems.PROBLEMS` name the same problem
            types, and every function's own parameters are ones its problem reads.
    """
    defined = {
        name: obj
        for name, obj in globals().items()
        if inspect.isfunction(obj) and obj.__module__ == __name__ and not name.startswith("_")
    }
    registered = set(PROBLEM_TYPES)
    for what, names in (("functions", set(defined)), ("__all__", set(__all__) - {"FUNCTIONS"})):
        if names != registered:
            raise RuntimeError(
                f"{__name__}: its {what} and the problem registry (problems.PROBLEMS) differ: "
                f"missing {sorted(registered - names)}, not registered {sorted(names - registered)}"
            )
    for name, fn in defined.items():
        unread = set(inspect.signature(fn).parameters) - {"graph", "directed", "weighted"}
        unread -= set(PROBLEMS[name].params)
        if unread:
            raise RuntimeError(
                f"{__name__}.{name} takes {sorted(unread)}, which problem {name} never reads"
            )
    return {name: defined[name] for name in PROBLEM_TYPES}


#: Canonical problem type -> its function, in the registry's order.
FUNCTIONS: dict[str, Callable[..., dict[str, Any]]] = _by_problem_type()
