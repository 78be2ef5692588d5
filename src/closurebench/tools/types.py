"""The graph a model submitted to the tool, as parsed: the input of the structure metrics.

Example:
    >>> g = ToolGraph(directed=False, weighted=True, nodes=("a", "b"), edges=(("a", "b", 2.0),))
    >>> g.edge_count, sorted(g.node_set())
    (1, ['a', 'b'])
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ToolEdge", "ToolGraph"]

#: One edge as the model wrote it: (source name, target name, weight or None).
ToolEdge = tuple[str, str, float | None]


@dataclass(frozen=True)
class ToolGraph:
    """A graph parsed from the ``graph`` field of a tool call (Table 12's adjacency list).

    Node names are kept exactly as the model wrote them (strings; a JSON number key is
    its text). An undirected edge listed in both directions appears once, in the
    orientation first listed; an unweighted graph's edges carry ``None``.

    Attributes:
        directed: The call's ``graph.directed``.
        weighted: The call's ``graph.weighted``.
        nodes: Every node named (as a key or as a neighbour), in first-mention order.
        edges: The edges, in the order listed.
    """

    directed: bool
    weighted: bool
    nodes: tuple[str, ...]
    edges: tuple[ToolEdge, ...]

    @property
    def edge_count(self) -> int:
        """Number of edges."""
        return len(self.edges)

    def node_set(self) -> set[str]:
        """The node names as a set."""
        return set(self.nodes)
