"""The tool's data: the graph a model submitted, as parsed, and the validated call.

:class:`ToolGraph` is the input of the structure metrics; :class:`ToolCall` is what
:func:`~closurebench.tools.calls.parse_call` makes of a whole call, and what the solvers
(:mod:`~closurebench.tools.problems`) read.

Example:
    >>> g = ToolGraph(directed=False, weighted=True, nodes=("a", "b"), edges=(("a", "b", 2.0),))
    >>> g.edge_count, sorted(g.node_set())
    (1, ['a', 'b'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ToolCall", "ToolEdge", "ToolGraph"]

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


@dataclass(frozen=True)
class ToolCall:
    """A validated call.

    Attributes:
        problem_type: The canonical problem type (see
            :data:`~closurebench.tools.problems.PROBLEM_TYPES`).
        requested_type: ``problem_type`` as written.
        graph: The parsed graph.
        listing: Every node in listed order: the keys of ``graph.data`` as written, then
            nodes named only as neighbours, in first-mention order.
        params: Canonical parameter name -> ``(name as written, value)``; parameters
            implied by the problem type's spelling are written as ``"problem_type"``.
        algorithm: The ``algorithm`` parameter as written, or ``None``.
        ignored: Parameter names (as written) that no known parameter matches.
    """

    problem_type: str
    requested_type: str
    graph: ToolGraph
    listing: tuple[str, ...]
    params: dict[str, tuple[str, Any]] = field(default_factory=dict)
    algorithm: str | None = None
    ignored: tuple[str, ...] = ()
