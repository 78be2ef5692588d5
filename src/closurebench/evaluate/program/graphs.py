"""Did a program read the graph right? The graph-reading test of the paper's §4.5.

The paper splits wrong program answers into *graph-reading* errors (the program built a
graph that differs from the question's), *logic* errors (the graph is right, the answer
wrong) and *execution* failures. This module decides the first: it compares the graphs
a program built with the instance's true graph(s).

* Ein: every ``edges(<list literal>, N)`` call of the program (its edge list in node
  indices, the order in which the question lists the entities).
* Python: the networkx graphs the sandbox captured (:class:`~closurebench.sandbox.CapturedGraph`),
  whose nodes may be the entity names (GRIT: names or aliases, resolved as the scorer
  does) or the indices ``0..n-1``.

A true graph is *read* when some program graph has exactly its edges (an undirected
graph, or an Ein edge list of one, compares unordered pairs; a directed one ordered
pairs) and, for a weighted GRIT graph, the same weights. ``graph_comparison`` has two
true graphs; both must be read. Isolated nodes are not compared (a program need not add
a node that has no edge).

Example:
    >>> from types import SimpleNamespace as R
    >>> g = R(directed=True, n=3, edges=[[0, 1], [1, 2]])
    >>> rec = R(suite="closure", graph=g, graph2=None, labels=["a", "b", "c"])
    >>> ein_graph_read(rec, "A = edges([[0,1],[1,2]], 3)\\n:print tc(A)")
    True
    >>> ein_graph_read(rec, "A = edges([[1,0],[1,2]], 3)\\n:print tc(A)")
    False
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from closurebench.ein import EinError, parse
from closurebench.ein import ast as ein_ast
from closurebench.sandbox import CapturedGraph
from closurebench.tasks.grit import resolve_name

__all__ = ["ein_edge_lists", "ein_graph_read", "python_graph_read", "true_graphs"]

#: A graph as compared: directed?, its weighted edge set ``{(u, v, w)}`` (w None: unweighted).
Edges = frozenset[tuple[int, int, float | None]]


def _canon(edges: Iterable[tuple[int, int, float | None]], directed: bool) -> Edges:
    out = set()
    for u, v, w in edges:
        if not directed and u > v:
            u, v = v, u
        out.add((u, v, w))
    return frozenset(out)


def true_graphs(record: Any) -> list[tuple[bool, Edges]]:
    """The instance's graph(s) as ``(directed, canonical edges)``."""
    if str(record.suite) == "grit":
        g = record.graph
        weighted = bool(g.weighted)
        edges = ((u, v, float(w) if weighted else None) for u, v, w in g.edges)
        return [(bool(g.directed), _canon(edges, bool(g.directed)))]
    graphs = [record.graph] + ([record.graph2] if record.graph2 is not None else [])
    return [
        (bool(g.directed), _canon(((u, v, None) for u, v in g.edges), bool(g.directed)))
        for g in graphs
    ]


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for name in ("value", "left", "right", "operand", "inner", "base"):
        child = getattr(node, name, None)
        if child is not None and not isinstance(child, str | float | int):
            yield from _walk(child)
    for arg in getattr(node, "args", ()):
        yield from _walk(arg)


def _pairs(lit: ein_ast.ListLiteral) -> list[tuple[int, int]] | None:
    out = []
    for item in lit.items:
        if not isinstance(item, ein_ast.ListLiteral) or len(item.items) != 2:
            return None
        a, b = item.items
        if not isinstance(a, ein_ast.Number) or not isinstance(b, ein_ast.Number):
            return None
        if a.value != int(a.value) or b.value != int(b.value):
            return None
        out.append((int(a.value), int(b.value)))
    return out


def ein_edge_lists(source: str) -> list[list[tuple[int, int]]] | None:
    """The edge lists of every ``edges([[u,v],...], ...)`` call; ``None`` if it does not parse."""
    try:
        program = parse(source)
    except EinError:
        return None
    out = []
    for statement in program.statements:
        for node in _walk(statement):
            if isinstance(node, ein_ast.Call) and node.func == "edges" and node.args:
                first = node.args[0]
                if isinstance(first, ein_ast.ListLiteral):
                    pairs = _pairs(first)
                    if pairs is not None:
                        out.append(pairs)
    return out


def _all_read(truth: Sequence[tuple[bool, Edges]], built: Sequence[Edges]) -> bool:
    return all(any(edges == b for b in built) for _, edges in truth)


def ein_graph_read(record: Any, source: str) -> bool:
    """Whether the Ein program's ``edges(...)`` literals hold every true graph."""
    lists = ein_edge_lists(source) or []
    truth = true_graphs(record)
    built = [
        _canon(((u, v, None) for u, v in pairs), directed)
        for pairs in lists
        for directed in {d for d, _ in truth}
    ]
    return bool(built) and _all_read(truth, built)


def _node_id(record: Any, node: Any) -> int | None:
    n = int(record.graph.n)
    if str(record.suite) == "grit":
        got = resolve_name(record, node)
        if got is not None:
            return got
    else:
        labels = list(record.labels)
        if isinstance(node, str) and node in labels:
            return labels.index(node)
    if isinstance(node, int) and not isinstance(node, bool) and 0 <= node < n:
        return node
    return None


def python_graph_read(record: Any, graphs: Sequence[CapturedGraph]) -> bool:
    """Whether the networkx graphs a Python program built hold every true graph."""
    truth = true_graphs(record)
    directed = all(d for d, _ in truth)  # an undirected truth compares unordered pairs
    weighted = str(record.suite) == "grit" and bool(record.graph.weighted)
    built = []
    for g in graphs:
        edges = []
        for e in g.edges:
            u, v = _node_id(record, e.source), _node_id(record, e.target)
            if u is None or v is None:
                break
            edges.append((u, v, e.weight if weighted else None))
        else:
            built.append(_canon(edges, g.directed and directed))
    return bool(built) and _all_read(truth, built)
