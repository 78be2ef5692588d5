"""The ClosureBench structure: what a question says, in node ids.

A :class:`ClosureStructure` is the graph (and, for ``graph_comparison``, a second graph on
the same nodes) with the anchors a question names: nodes ``X``, ``Y`` and integer
parameters such as the threshold ``k``. Tasks sample and solve it
(:mod:`closurebench.tasks.closure`); the surface renders it and reads it back
(:mod:`closurebench.surface.closure`); both import it from here, below them.

Example:
    >>> from closurebench.graphs import Graph
    >>> s = ClosureStructure("reach_then_count", Graph(3, ((0, 1), (1, 2))), (("X", 0),))
    >>> s.anchor("X"), s.n, s.to_dict()["anchors"]
    (0, 3, {'X': 0})
    >>> ClosureStructure.from_dict(s.to_dict()) == s
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from closurebench.graphs import Graph

__all__ = ["ClosureStructure"]


@dataclass(frozen=True)
class ClosureStructure:
    """What a question says, in node ids: the graph(s), the anchors and parameters.

    Attributes:
        category: The category name.
        graph: The graph (directed unless the category is undirected).
        anchors: Sorted ``(name, value)`` pairs: nodes ``X``, ``Y`` and integer
            parameters such as the threshold ``k``.
        graph2: The second graph on the same nodes (``graph_comparison`` only).
    """

    category: str
    graph: Graph
    anchors: tuple[tuple[str, int], ...]
    graph2: Graph | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "anchors", tuple(sorted(self.anchors)))

    @property
    def n(self) -> int:
        """Number of nodes."""
        return self.graph.n

    def anchor(self, name: str) -> int:
        """The value of anchor ``name``.

        Raises:
            KeyError: naming the anchors present when ``name`` is not one of them.

        Example:
            >>> s = ClosureStructure("x", Graph(2, ()), (("Y", 1), ("X", 0)))
            >>> s.anchors, s.anchor("Y")
            ((('X', 0), ('Y', 1)), 1)
        """
        for key, value in self.anchors:
            if key == name:
                return value
        raise KeyError(f"anchor {name!r} not in {dict(self.anchors)}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``graph``/``graph2`` as ``{"directed","n","edges"}``)."""
        return {
            "category": self.category,
            "graph": self.graph.to_dict(),
            "graph2": self.graph2.to_dict() if self.graph2 is not None else None,
            "anchors": dict(self.anchors),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClosureStructure:
        """Inverse of :meth:`to_dict` (an instance record's fields read the same way)."""
        g2 = data.get("graph2")
        return cls(
            category=data["category"],
            graph=Graph.from_dict(data["graph"]),
            anchors=tuple((str(k), int(v)) for k, v in data["anchors"].items()),
            graph2=Graph.from_dict(g2) if g2 is not None else None,
        )
