"""The reference agent's tool plans for ClosureBench questions (``--model reader``).

The agent reads the question with the independent reader
(:func:`closurebench.surface.closure.reader.read_closure`), then answers it the way a
tool-using model would: every graph fact comes from a graph-tool call on the graph it
read (descendants, ancestors, one-step successors/predecessors, out-degrees, SCCs,
reachability, triangles), one call per turn, and the agent only combines the tool's
results (set differences, counts, means, a branch). It is a fourth route to every
ClosureBench answer, independent of the graph core, the Ein program and the NetworkX
program that made it, so the reference agent scoring 100 % checks the tool and the
generator against each other.

:func:`closure_step` is stateless: given the results of the calls made so far it gives
the next call, or the answer. The last call of every plan is on the question's (first)
graph, so the structure metrics judge the graph the agent read.

Example:
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> rec = generate_records(ClosureConfig(count=1, categories=("reach_then_count",)))[0]
    >>> step = closure_step(rec, [])
    >>> step.call["problem_type"], step.answer is None
    ('descendants', True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from closurebench.graphs import Graph

__all__ = ["Step", "closure_call", "closure_step"]


@dataclass(frozen=True)
class Step:
    """The next move: a tool ``call``, or the final ``answer`` (exactly one is set)."""

    call: dict[str, Any] | None = None
    answer: Any = None


def closure_call(
    problem_type: str, graph: Graph, names: Sequence[str], **params: Any
) -> dict[str, Any]:
    """A tool call on ``graph`` with nodes named ``names`` (every node a key, listed order)."""
    data: dict[str, dict[str, int]] = {name: {} for name in names}
    for u, v in graph.edges:
        data[names[u]][names[v]] = 1
    return {
        "problem_type": problem_type,
        "graph": {
            "type": "adjacency_list",
            "data": data,
            "directed": bool(graph.directed),
            "weighted": False,
        },
        "parameters": params,
    }


class _Plan:
    """One question's plan: read once, then ask the tool step by step."""

    def __init__(self, record: Any) -> None:
        from closurebench.surface.closure.reader import read_closure

        self.s = read_closure(str(record.question), str(record.category))
        self.names = [str(x) for x in record.labels]
        self.anchors = dict(self.s.anchors)

    def name(self, key: str) -> str:
        return self.names[self.anchors[key]]

    def on(self, problem_type: str, graph: Graph | None = None, **params: Any) -> Step:
        return Step(call=closure_call(problem_type, graph or self.s.graph, self.names, **params))

    def ordered(self, items: set[str]) -> list[str]:
        return [x for x in self.names if x in items]


def _degrees(result: Any) -> dict[str, int]:
    return {str(k): int(v) for k, v in result.value.items()}


def _mean(values: Sequence[int]) -> float:
    return round(sum(values) / len(values), 6) if values else 0.0


# Each plan: (plan, results so far) -> the next Step. ``r[i].value`` is call i's value.
PlanFn = Callable[[_Plan, Sequence[Any]], Step]


def _triangle_count(p: _Plan, r: Sequence[Any]) -> Step:
    return p.on("triangle_count") if not r else Step(answer=r[0].value)


def _reachability(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("reachability", start=p.name("X"), end=p.name("Y"))
    return Step(answer=bool(r[0].value))


def _negative_reach(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("descendants", node=p.name("X"))
    return Step(answer=p.ordered(set(p.names) - set(r[0].value) - {p.name("X")}))


def _degree_count(p: _Plan, r: Sequence[Any]) -> Step:
    return p.on("out_degree", node=p.name("X")) if not r else Step(answer=int(r[0].value))


def _max_degree(p: _Plan, r: Sequence[Any]) -> Step:
    return p.on("out_degree") if not r else Step(answer=r[0].details["argmax"][0])


def _scc_same(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("scc", node=p.name("X"))
    return Step(answer=p.name("Y") in r[0].value)


def _two_desc(p: _Plan, r: Sequence[Any]) -> Step | None:
    if len(r) < 2:
        return p.on("descendants", node=p.name("Y" if r else "X"))
    return None


def _set_intersect(p: _Plan, r: Sequence[Any]) -> Step:
    step = _two_desc(p, r)
    if step is not None:
        return step
    both = set(r[0].value) & set(r[1].value) - {p.name("X"), p.name("Y")}
    return Step(answer=p.ordered(both))


def _set_difference(p: _Plan, r: Sequence[Any]) -> Step:
    step = _two_desc(p, r)
    if step is not None:
        return step
    only = set(r[0].value) - set(r[1].value) - {p.name("X"), p.name("Y")}
    return Step(answer=p.ordered(only))


def _intersect_then_size(p: _Plan, r: Sequence[Any]) -> Step:
    step = _set_intersect(p, r)
    return step if step.call is not None else Step(answer=len(step.answer))


def _ancestor(p: _Plan, r: Sequence[Any]) -> Step:
    return p.on("ancestors", node=p.name("X")) if not r else Step(answer=list(r[0].value))


def _sibling(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("predecessors", node=p.name("X"))
    if not r[0].value:
        return Step(answer=[])
    if len(r) == 1:
        return p.on("successors", node=list(r[0].value))
    return Step(answer=p.ordered(set(r[1].value) - {p.name("X")}))


def _cousin(p: _Plan, r: Sequence[Any]) -> Step:
    # parents P, grandparents G, their children C, grandchildren GC, minus X's parents' children
    order = ("predecessors", "predecessors", "successors", "successors")
    if len(r) < 4:
        if r and not r[-1].value:
            return Step(answer=[])
        node = p.name("X") if not r else list(r[-1].value)
        return p.on(order[len(r)], node=node)
    if len(r) == 4:
        return p.on("successors", node=list(r[0].value))  # X and X's siblings
    return Step(answer=p.ordered(set(r[3].value) - set(r[4].value) - {p.name("X")}))


def _reach_then_count(p: _Plan, r: Sequence[Any]) -> Step:
    return p.on("descendants", node=p.name("X")) if not r else Step(answer=len(r[0].value))


def _reach_then_filter(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("descendants", node=p.name("X"))
    if len(r) == 1:
        return p.on("out_degree")
    deg = _degrees(r[1])
    return Step(answer=[v for v in r[0].value if deg[v] >= p.anchors["k"]])


def _kinship_chain(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("successors", node=p.name("X"))
    if not r[0].value:
        return Step(answer=[])
    if len(r) == 1:
        return p.on("successors", node=list(r[0].value))
    return Step(answer=list(r[1].value))


def _triangle_in_subgraph(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("descendants", node=p.name("X"))
    if len(r) == 1:
        return p.on("triangle_count", within=[p.name("X"), *r[0].value])
    return Step(answer=r[1].value)


def _path_and_compare(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("reachability", start=p.name("X"), end=p.name("Y"))
    if len(r) < 3:
        return p.on("descendants", node=p.name("X" if len(r) == 1 else "Y"))
    return Step(answer=bool(r[0].value) and len(r[1].value) > len(r[2].value))


def _scc_then_count(p: _Plan, r: Sequence[Any]) -> Step:
    return p.on("scc", node=p.name("X")) if not r else Step(answer=len(r[0].value))


def _degree_then_reach(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("out_degree")
    if len(r) == 1:
        return p.on("reachability", start=r[0].details["argmax"][0], end=p.name("X"))
    return Step(answer=bool(r[1].value))


def _multi_query(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("reachability", start=p.name("X"), end=p.name("Y"))
    if len(r) == 1:
        return p.on("out_degree", node=p.name("X"))
    return Step(answer={"reachable": bool(r[0].value), "degree": int(r[1].value)})


def _conditional(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("reachability", start=p.name("X"), end=p.name("Y"))
    if not r[0].value:
        return Step(answer=-1)
    if len(r) == 1:
        return p.on("descendants", node=p.name("X"))
    return Step(answer=len(r[1].value))


def _aggregate_over_set(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("descendants", node=p.name("X"))
    if len(r) == 1:
        return p.on("out_degree")
    deg = _degrees(r[1])
    return Step(answer=_mean([deg[v] for v in r[0].value]))


def _kinship_complex(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("ancestors", node=p.name("X"))
    if len(r) == 1:
        if not r[0].value:  # X is the oldest of its lineage
            return p.on("descendants", node=p.name("X"))
        return p.on("in_degree")
    if len(r) == 2 and r[0].value:
        indeg = _degrees(r[1])
        roots = [a for a in r[0].value if indeg[a] == 0]
        return p.on("descendants", node=roots[0])
    return Step(answer=1 + len(r[-1].value))


def _graph_comparison(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:  # the second graph first: the last call is on the question's first graph
        return p.on("descendants", p.s.graph2, node=p.name("X"))
    if len(r) == 1:
        return p.on("descendants", node=p.name("X"))
    return Step(answer=len(set(r[0].value) - set(r[1].value)))


def _chain_of_filters(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("descendants", node=p.name("X"))
    if len(r) == 1:
        return p.on("ancestors", node=p.name("Y"))
    if len(r) == 2:
        return p.on("out_degree")
    deg = _degrees(r[2])
    reach_y = set(r[1].value)
    keep = {
        v
        for v in r[0].value
        if deg[v] >= p.anchors["k"] and v in reach_y and v not in (p.name("X"), p.name("Y"))
    }
    return Step(answer=p.ordered(keep))


def _mixed_domain(p: _Plan, r: Sequence[Any]) -> Step:
    if not r:
        return p.on("scc", node=p.name("X"))
    if len(r) == 1:
        return p.on("out_degree")
    deg = _degrees(r[1])
    return Step(answer=_mean([deg[v] for v in r[0].value]))


#: The plan of every ClosureBench category.
PLANS: dict[str, PlanFn] = {
    "triangle_count": _triangle_count,
    "reachability": _reachability,
    "negative_reach": _negative_reach,
    "degree_count": _degree_count,
    "max_degree": _max_degree,
    "scc_same": _scc_same,
    "set_intersect": _set_intersect,
    "set_difference": _set_difference,
    "ancestor": _ancestor,
    "sibling": _sibling,
    "cousin": _cousin,
    "reach_then_count": _reach_then_count,
    "reach_then_filter": _reach_then_filter,
    "kinship_chain": _kinship_chain,
    "triangle_in_subgraph": _triangle_in_subgraph,
    "path_and_compare": _path_and_compare,
    "scc_then_count": _scc_then_count,
    "degree_then_reach": _degree_then_reach,
    "intersect_then_size": _intersect_then_size,
    "multi_query": _multi_query,
    "conditional": _conditional,
    "aggregate_over_set": _aggregate_over_set,
    "kinship_complex": _kinship_complex,
    "graph_comparison": _graph_comparison,
    "chain_of_filters": _chain_of_filters,
    "mixed_domain": _mixed_domain,
}


def closure_step(record: Any, results: Sequence[Any]) -> Step:
    """The reference agent's next step on a ClosureBench ``record``.

    Args:
        record: The instance (its question, category and labels are read).
        results: The :class:`~closurebench.tools.ToolResult` of each call made so far.

    Returns:
        The next tool call, or the answer.
    """
    return PLANS[str(record.category)](_Plan(record), results)
