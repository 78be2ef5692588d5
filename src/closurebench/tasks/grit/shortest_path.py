"""GRIT shortest path: minimum total weight from ``source`` to ``target``.

Graphs are connected Erdős–Rényi graphs with integer weights 1-10; a share
(``directed_share``, default :data:`DIRECTED_SHARE`) are directed and strongly connected,
so every target is reachable.
The answer is Dijkstra's integer cost (:func:`closurebench.graphs.exact.paths.shortest_path`);
it is verified against ``networkx.dijkstra_path_length`` and the stored path is checked
edge by edge. A model may answer with the cost or with any optimal path.

Example:
    >>> from closurebench.seeding import rng
    >>> t = ShortestPathTask()
    >>> s = t.sample(rng(0, "doc"), 6, 0.4)
    >>> r = t.solve(s)
    >>> t.check(s, r.solution) == r.answer
    True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from closurebench.errors import ConfigError
from closurebench.graphs.exact.check import check_path
from closurebench.graphs.exact.paths import shortest_path
from closurebench.structures.grit import GritStructure
from closurebench.tasks.grit import base as b
from closurebench.tasks.grit.answers import Judgement, Rejected, read_node_list

if TYPE_CHECKING:
    from closurebench.schema import GritInstance

__all__ = ["DIRECTED_SHARE", "ShortestPathTask"]

#: Default probability that a shortest-path instance is directed (strongly connected);
#: the ``test`` and ``ood`` presets pass 0 (App. G: the test graphs are undirected).
DIRECTED_SHARE = b.DEFAULT_DIRECTED_SHARE


class ShortestPathTask(b.OptimumTask):
    """Weighted shortest path between two distinct nodes."""

    name = "shortest_path"
    directed = b.GraphTrait.EITHER
    weighted = b.GraphTrait.EITHER
    param_keys = ("source", "target")

    def _validate_params(self, s: GritStructure) -> None:
        if s.param("source") == s.param("target"):
            raise ConfigError(
                f"shortest_path source and target are both {s.param('source')}; pick two nodes"
            )

    def networkx_answer(self, names: Sequence[str], params: Mapping[str, Any]) -> str | None:
        """NetworkX's weighted path cost between the two nodes, by their names.

        Example:
            >>> ShortestPathTask().networkx_answer(["a", "b"], {"source": 1, "target": 0})
            'nx.shortest_path_length(G, "b", "a", weight="weight")'
        """
        s, t = names[int(params["source"])], names[int(params["target"])]
        return f'nx.shortest_path_length(G, {json.dumps(s)}, {json.dumps(t)}, weight="weight")'

    def sample_params(self, g: np.random.Generator, n: int) -> dict[str, Any]:
        """Two distinct nodes, ``source`` and ``target``."""
        s, t = (int(x) for x in g.choice(n, size=2, replace=False))
        return {"source": s, "target": t}

    def sample(
        self,
        g: np.random.Generator,
        n: int,
        p: float,
        *,
        directed_share: float = b.DEFAULT_DIRECTED_SHARE,
    ) -> GritStructure:
        """Connected (or strongly connected) graph, weights 1-10, distinct source/target."""
        from closurebench.graphs import weighted  # loads scipy: only sampling needs it

        directed = bool(g.random() < directed_share)
        graph = weighted(g, b.connected_graph(g, n, p, directed=directed), 1, 10)
        params = self.sample_params(g, n)
        edges = [(u, v, w) for (u, v), w in zip(graph.edges, graph.weights or (), strict=True)]
        return self.structure(n, directed, True, edges, params)

    def solve(self, s: GritStructure, *, time_limit: float = b.DEFAULT_TIME_LIMIT) -> b.Solved:
        """Dijkstra cost and one optimal path."""
        r = shortest_path(
            s.n, b.edge_list(s), s.param("source"), s.param("target"), directed=s.directed
        )
        return b.Solved(answer=int(r.cost), solution=list(r.path))

    def check(self, s: GritStructure, solution: Any) -> int:
        """A simple path from source to target along existing edges; returns its cost."""
        verdict = check_path(
            s.n, b.edge_list(s), s.param("source"), s.param("target"), solution, directed=s.directed
        )
        return b.checked(verdict)

    def verify(self, s: GritStructure, solved: b.Solved, *, where: str, time_limit: float) -> None:
        """networkx Dijkstra gives the same cost; the path is valid and optimal."""
        import networkx as nx  # heavy: only cross-checks need it

        theirs = nx.dijkstra_path_length(b.to_nx(s), s.param("source"), s.param("target"))
        self._agree(where, "shortest-path costs", solved.answer, int(theirs))
        self._check_value(s, solved, where)

    def judge_solution(self, record: GritInstance, value: Any) -> Judgement:
        """A path of names from source to target, valid and of optimal cost."""
        ids = read_node_list(record, value, self.expected)
        if isinstance(ids, Rejected):
            return ids.judgement(value)
        g, params = record.graph, record.params
        verdict = check_path(
            g.n,
            g.edges,
            cast(int, params["source"]),
            cast(int, params["target"]),
            ids,
            directed=g.directed,
            optimum=cast(int, record.answer),
        )
        return Judgement.of_verdict(verdict, value)
