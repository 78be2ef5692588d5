"""The GRIT structure: the graph and query that a question renders and the reader recovers.

A :class:`GritStructure` is the view-independent content of a GRIT question: the task, a
graph on node ids ``0..n-1`` and the query parameters. The eight views of one base graph
(2 forms x 4 naming schemes) all render the same structure; the reader must recover it
exactly from each view's text.

Canonical form (so two equal structures compare equal):

* ``edges`` is a sorted tuple of ``(u, v, w)`` int triples; undirected edges have ``u < v``
  (a given ``(v, u, w)`` is flipped) and unweighted edges have ``w == 1``;
* ``params`` is a sorted tuple of ``(key, value)`` pairs (a mapping may be passed).

Which combinations are allowed (from ``spec/grit.md``): only ``shortest_path`` may be
directed; ``tsp`` is weighted and complete; ``shortest_path`` may be weighted or not; the
other tasks are unweighted. Parameters per task: ``shortest_path`` needs ``source`` and
``target``; ``bfs`` needs ``source``; ``centrality`` needs ``centrality`` (one of
:data:`CENTRALITIES`); the others take none. The BFS neighbour-order rule is *not* a
parameter: it depends on the naming scheme of each view and is carried by the rendered
question (see :mod:`closurebench.surface.grit.render`).

Example:
    >>> s = GritStructure("shortest_path", 3, False, True, [(1, 0, 4), (1, 2, 7)],
    ...                   {"target": 2, "source": 0})
    >>> s.edges
    ((0, 1, 4), (1, 2, 7))
    >>> s.params
    (('source', 0), ('target', 2))
    >>> s.param("target")
    2
    >>> GritStructure("bfs", 3, False, False, [(0, 1), (1, 2)], {"source": 1}).edges
    ((0, 1, 1), (1, 2, 1))
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from closurebench.errors import ConfigError, GraphError

__all__ = ["CENTRALITIES", "PARAM_KEYS", "TASKS", "GritStructure"]

TASKS: tuple[str, ...] = (
    "shortest_path",
    "graph_coloring",
    "tsp",
    "vertex_cover",
    "bfs",
    "centrality",
)
"""The six GRIT tasks, in the order of the paper's Table 8 discussion."""

CENTRALITIES: tuple[str, ...] = ("degree", "closeness", "betweenness")
"""The centrality kinds a centrality question may ask about."""

PARAM_KEYS: dict[str, tuple[str, ...]] = {
    "shortest_path": ("source", "target"),
    "graph_coloring": (),
    "tsp": (),
    "vertex_cover": (),
    "bfs": ("source",),
    "centrality": ("centrality",),
}
"""The exact parameter keys each task requires."""

Edge = tuple[int, int, int]


def _as_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise GraphError(f"{what} is {value!r} ({type(value).__name__}); pass an int")
    return int(value)


def _canonical_edges(n: int, edges: Iterable[Any], directed: bool, weighted: bool) -> tuple:
    out: dict[tuple[int, int], int] = {}
    for i, edge in enumerate(edges):
        items = tuple(edge)
        if len(items) not in (2, 3):
            raise GraphError(f"edge #{i} {edge!r} must be (u, v) or (u, v, w)")
        u = _as_int(items[0], f"edge #{i} endpoint u")
        v = _as_int(items[1], f"edge #{i} endpoint v")
        w = _as_int(items[2], f"edge #{i} weight") if len(items) == 3 else 1
        for node in (u, v):
            if not 0 <= node < n:
                raise GraphError(
                    f"edge #{i} {items!r} names node {node}, outside 0..{n - 1}; "
                    "use node ids in 0..n-1"
                )
        if u == v:
            raise GraphError(f"edge #{i} {items!r} is a self-loop; drop it")
        if weighted and w < 1:
            raise GraphError(f"edge #{i} {items!r} has weight {w}; weights must be ints >= 1")
        if not weighted and w != 1:
            raise GraphError(
                f"edge #{i} {items!r} has weight {w} in an unweighted graph; "
                "drop the weight or pass weighted=True"
            )
        key = (u, v) if directed or u < v else (v, u)
        if key in out:
            raise GraphError(f"edge #{i} {items!r} duplicates an earlier edge {key}; drop one")
        out[key] = w
    return tuple((u, v, w) for (u, v), w in sorted(out.items()))


@dataclass(frozen=True)
class GritStructure:
    """A GRIT task instance without surface: graph on ``0..n-1`` plus query parameters.

    Args:
        task: One of :data:`TASKS`.
        n: Number of nodes (>= 1).
        directed: True only for directed ``shortest_path`` instances.
        weighted: True for weighted instances (always for ``tsp``).
        edges: ``(u, v)`` or ``(u, v, w)`` items; stored canonical (see module docstring).
        params: A mapping or ``(key, value)`` pairs with exactly the task's keys.

    Raises:
        ConfigError: on an unknown task, a disallowed directed/weighted combination, or
            missing/unknown/invalid parameters.
        GraphError: on a malformed edge (bad node id, self-loop, duplicate, bad weight)
            or a ``tsp`` graph that is not complete.

    Example:
        >>> GritStructure("centrality", 2, False, False, [(0, 1)], {"centrality": "degree"})
        ... # doctest: +ELLIPSIS
        GritStructure(task='centrality', n=2, ..., params=(('centrality', 'degree'),))
        >>> try:
        ...     GritStructure("bfs", 2, True, False, [(0, 1)], {"source": 0})
        ... except ConfigError as exc:
        ...     print(exc)
        task 'bfs' is undirected in GRIT; pass directed=False (only shortest_path may be directed)
    """

    task: str
    n: int
    directed: bool
    weighted: bool
    edges: tuple[Edge, ...]
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ConfigError(f"task {self.task!r} is not a GRIT task; use one of {TASKS}")
        n = _as_int(self.n, "n")
        if n < 1:
            raise ConfigError(f"n={n} is too small; a GRIT graph needs at least 1 node")
        directed, weighted = bool(self.directed), bool(self.weighted)
        if directed and self.task != "shortest_path":
            raise ConfigError(
                f"task {self.task!r} is undirected in GRIT; pass directed=False "
                "(only shortest_path may be directed)"
            )
        if self.task == "tsp" and not weighted:
            raise ConfigError("task 'tsp' needs weighted=True (a tour has a cost)")
        if weighted and self.task not in ("shortest_path", "tsp"):
            raise ConfigError(
                f"task {self.task!r} is unweighted in GRIT; pass weighted=False "
                "(only shortest_path and tsp carry weights)"
            )
        edges = _canonical_edges(n, self.edges, directed, weighted)
        if self.task == "tsp" and len(edges) != n * (n - 1) // 2:
            raise GraphError(
                f"a tsp graph must be complete: n={n} needs {n * (n - 1) // 2} edges, "
                f"got {len(edges)}; state every pairwise weight"
            )
        params = self._canonical_params(n)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "directed", directed)
        object.__setattr__(self, "weighted", weighted)
        object.__setattr__(self, "edges", edges)
        object.__setattr__(self, "params", params)

    def _canonical_params(self, n: int) -> tuple[tuple[str, Any], ...]:
        raw = self.params
        items = dict(raw.items() if isinstance(raw, Mapping) else raw)
        want = PARAM_KEYS[self.task]
        if set(items) != set(want):
            raise ConfigError(
                f"task {self.task!r} takes params {list(want)}, got {sorted(items)}; "
                "pass exactly those keys"
            )
        out: dict[str, Any] = {}
        for key, value in items.items():
            if key in ("source", "target"):
                node = _as_int(value, f"param {key!r}")
                if not 0 <= node < n:
                    raise ConfigError(f"param {key}={node} is outside 0..{n - 1}; pick a node id")
                out[key] = node
            elif key == "centrality":
                if value not in CENTRALITIES:
                    raise ConfigError(
                        f"centrality {value!r} is not supported; use one of {CENTRALITIES}"
                    )
                out[key] = str(value)
        if self.task == "shortest_path" and out["source"] == out["target"]:
            raise ConfigError(
                f"shortest_path source and target are both {out['source']}; pick two nodes"
            )
        return tuple(sorted(out.items()))

    def param(self, key: str) -> Any:
        """Return parameter ``key``.

        Raises:
            ConfigError: if the task has no such parameter.

        Example:
            >>> GritStructure("bfs", 2, False, False, [(0, 1)], {"source": 1}).param("source")
            1
        """
        for k, v in self.params:
            if k == key:
                return v
        raise ConfigError(f"task {self.task!r} has no parameter {key!r}; it has {self.params}")

    @property
    def m(self) -> int:
        """Number of edges.

        Example:
            >>> GritStructure("vertex_cover", 3, False, False, [(0, 1), (1, 2)]).m
            2
        """
        return len(self.edges)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (``graph`` and ``params`` parts of the instance record).

        Example:
            >>> GritStructure("vertex_cover", 2, False, False, [(0, 1)]).to_dict()["graph"]
            {'directed': False, 'weighted': False, 'n': 2, 'edges': [[0, 1, 1]]}
        """
        return {
            "task": self.task,
            "graph": {
                "directed": self.directed,
                "weighted": self.weighted,
                "n": self.n,
                "edges": [list(e) for e in self.edges],
            },
            "params": dict(self.params),
        }
