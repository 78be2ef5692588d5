"""The problem registry: every problem type, declared once, with a solver giving a proven answer.

:data:`PROBLEMS` is the one table of problem types: each :class:`ProblemSpec` row gives
the canonical name, the solver, the parameters it reads, a one-line summary and the
other spellings (synonyms) it is called by. Everything else that lists problem types is
derived from it: :data:`PROBLEM_TYPES` (its order is the docs' order),
:data:`PROBLEM_SYNONYMS` and :func:`resolve_problem_type` (which the parser and the JSON
Schema use), the tables of ``docs/tools.md``, and
:data:`closurebench.tools.functions.FUNCTIONS`, whose module refuses to load unless it
defines exactly one typed function per row. Adding a problem type is a solver and a row
here, and its typed function in :mod:`~closurebench.tools.functions`.

Every solver reads a validated :class:`~closurebench.tools.types.ToolCall` and returns an
:class:`Answer` (the main value, JSON-able details, and the result lines); anything
that makes the problem unanswerable is a :class:`~closurebench.tools.errors.ToolError`.

* The six GRIT tasks call the project's exact solvers
  (:mod:`closurebench.graphs.exact`): Dijkstra, the DSATUR branch and bound for the
  chromatic number, HiGHS with subtour cuts for the TSP, a maximum-clique branch and
  bound for the vertex cover, the BFS order under a stated neighbour rule, and exact
  rational centrality scores (networkx's normalisations). An NP-hard solver that cannot
  prove its optimum within ``ToolLimits.time_limit`` gives a ``timeout`` error: the tool
  never returns a heuristic answer.
* The ClosureBench primitives follow ``docs/categories.md``: ``descendants`` and
  ``ancestors`` never include the node itself; ``reachable_set`` includes the start only
  when a path of length >= 1 leads back to it (it lies on a directed cycle; in an
  undirected graph walking an edge back does not count, so never).
* Node order is the listed order: the keys of ``graph.data`` as written, then nodes named
  only as neighbours. Sets and components are given in it, and ties are broken by it
  (Dijkstra keeps the earliest optimal predecessor; a tied maximum names the earliest
  node), unless a problem states another rule: ``bfs`` and ``topological_sort`` take an
  ``order`` parameter (``listed``, ``numeric`` or ``alphabetical``).

Example:
    >>> from closurebench.tools.calls import parse_call
    >>> call = parse_call({"problem_type": "topological_sort", "graph": {
    ...     "data": {"b": ["c"], "a": ["c"], "c": []}, "directed": True, "weighted": False}})
    >>> answer = solve(call)
    >>> answer.value
    ['a', 'b', 'c']
    >>> print(answer.text())
    Topological sort (Kahn's algorithm) result:
    • Order: a, b, c
    • Tie Rule: among the nodes whose predecessors are all placed, the first in
    alphabetical order of their names (case-insensitive) comes next
    >>> PROBLEM_TYPES[:3], PROBLEMS["tsp"].params, PROBLEM_SYNONYMS["mst"]
    (('shortest_path', 'graph_coloring', 'tsp'), ('start',), ('minimum_spanning_tree', {}))
"""

from __future__ import annotations

import heapq
import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from closurebench.tools.errors import ToolError, describe, quote
from closurebench.tools.limits import ToolLimits
from closurebench.tools.names import PARAM_SYNONYMS, normalize
from closurebench.tools.nodes import match_node
from closurebench.tools.text import arrow, fmt_num, fmt_score, names, render, yes_no
from closurebench.tools.types import ToolCall

if TYPE_CHECKING:
    from closurebench.graphs.exact._common import Certificate

__all__ = [
    "ORDER_RULES",
    "PROBLEMS",
    "PROBLEM_SYNONYMS",
    "PROBLEM_TYPES",
    "Answer",
    "Context",
    "ProblemSpec",
    "resolve_problem_type",
    "solve",
]

Number = int | float
T = TypeVar("T")

#: Neighbour-order / tie rules (``order`` parameter) and how each is stated in results.
ORDER_RULES: dict[str, str] = {
    "listed": "the order the nodes are listed in graph.data (its keys first, then nodes "
    "named only as neighbours)",
    "numeric": "increasing numeric order of their names (names that are numbers by value; "
    "others by their embedded numbers, so v2 comes before v10)",
    "alphabetical": "alphabetical order of their names (case-insensitive)",
}

_ORDER_SYNONYMS: dict[str, str] = {
    **{k: k for k in ORDER_RULES},
    "list": "listed",
    "given": "listed",
    "input": "listed",
    "insertion": "listed",
    "as_listed": "listed",
    "data": "listed",
    "numerical": "numeric",
    "number": "numeric",
    "numbers": "numeric",
    "increasing": "numeric",
    "ascending": "numeric",
    "alphabetic": "alphabetical",
    "lexicographic": "alphabetical",
    "lexicographical": "alphabetical",
    "name": "alphabetical",
    "names": "alphabetical",
}

_MEASURES: dict[str, str] = {
    "degree": "degree",
    "closeness": "closeness",
    "betweenness": "betweenness",
    "between": "betweenness",
    "betweeness": "betweenness",
}


@dataclass
class Answer:
    """A solved problem.

    Attributes:
        title: The result's first line, before ``result:``.
        value: The main answer (JSON-able).
        details: Everything else (JSON-able).
        lines: The bullet lines of the result text.
        algorithm: What was run (display name).
        algorithm_names: Squashed names (letters and digits only) of requested
            algorithms that count as what was run (no note is added for them).
        notes: Extra ``Note:`` lines.
    """

    title: str
    value: Any
    details: dict[str, Any]
    lines: list[str]
    algorithm: str = ""
    algorithm_names: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The ``<result>`` body."""
        return render(self.title, self.lines, self.notes)


class Context:
    """A call as the solvers see it: node ids ``0..n-1`` in listed order, adjacency lists.

    Args:
        call: The validated call.
        limits: The limits (the NP-hard solvers' time limit).
    """

    def __init__(self, call: ToolCall, limits: ToolLimits) -> None:
        self.call = call
        self.limits = limits
        g = call.graph
        #: Node names by id: the listed order (keys of graph.data, then the other nodes).
        self.names: tuple[str, ...] = call.listing
        self.n = len(call.listing)
        self.index = {x: i for i, x in enumerate(call.listing)}
        self.directed = g.directed
        self.weighted = g.weighted
        #: ``(u, v, w)`` in listed order; ``w`` is 1 in an unweighted graph.
        self.edges: list[tuple[int, int, Number]] = [
            (self.index[a], self.index[b], 1 if w is None else w) for a, b, w in g.edges
        ]
        out: list[list[int]] = [[] for _ in range(self.n)]
        inn: list[list[int]] = [[] for _ in range(self.n)]
        for u, v, _ in self.edges:
            out[u].append(v)
            inn[v].append(u)
            if not self.directed:
                out[v].append(u)
                inn[u].append(v)
        #: Out-neighbours (all neighbours when undirected), by node id.
        self.out_adj = [sorted(x) for x in out]
        #: In-neighbours (all neighbours when undirected), by node id.
        self.in_adj = [sorted(x) for x in inn]
        self.used: set[str] = set()

    def name_list(self, ids: Sequence[int]) -> list[str]:
        """The names of ``ids``."""
        return [self.names[i] for i in ids]

    def pairs(self) -> list[tuple[int, int]]:
        """Distinct unordered pairs ``(u, v)``, ``u < v``, of adjacent nodes (sorted)."""
        return sorted({(min(u, v), max(u, v)) for u, v, _ in self.edges})

    def param(self, canon: str) -> tuple[str, Any] | None:
        """``(name as written, value)`` of a canonical parameter, marking it as used."""
        self.used.add(canon)
        return self.call.params.get(canon)

    def _missing(self, canon: str, what: str, example: str = "<node name>") -> ToolError:
        unknown = self.call.ignored
        got = "no such parameter"
        if unknown:
            got += f" (unrecognised names given: {', '.join(quote(k) for k in unknown[:5])})"
        return ToolError(
            "bad_parameter",
            f"parameters.{canon} is missing",
            path=f"parameters.{canon}",
            expected=f"{what} (accepted names: {', '.join(PARAM_SYNONYMS[canon])})",
            got=got,
            fix=f'add "{canon}": "{example}" to parameters',
        )

    def node(self, canon: str, *, fallback: str | None = None, required: bool = True) -> int | None:
        """The node id a parameter names (``fallback``: another parameter also accepted).

        Raises:
            ToolError: ``bad_parameter`` when required and missing, unknown or ambiguous.
        """
        found = self.param(canon)
        alt = self.param(fallback) if fallback else None
        chosen = found or alt
        if chosen is None:
            if required:
                raise self._missing(canon, "the name of a node")
            return None
        key, value = chosen
        name = match_node(value, self.names, f"parameters.{key}")
        if found and alt:
            other = match_node(alt[1], self.names, f"parameters.{alt[0]}")
            if other != name:
                raise ToolError(
                    "bad_parameter",
                    f"parameters.{found[0]} and parameters.{alt[0]} name different nodes",
                    path=f"parameters.{alt[0]}",
                    expected="one node",
                    got=f"{quote(name)} and {quote(other)}",
                    fix=f"keep only parameters.{found[0]}",
                )
        return self.index[name]

    def choice(self, canon: str, options: dict[str, str], default: str | None) -> str:
        """A parameter whose value is one of a few words (synonyms in ``options``).

        Raises:
            ToolError: ``bad_parameter`` when missing without a default, or not a known word.
        """
        choices = ", ".join(dict.fromkeys(options.values()))
        found = self.param(canon)
        if found is None:
            if default is None:
                raise self._missing(canon, f"one of {choices}", next(iter(options.values())))
            return default
        key, value = found
        word = normalize(value) if isinstance(value, str) else None
        if word is not None:
            word = word.removesuffix("_centrality").removesuffix("_order")
        if word is None or word not in options:
            raise ToolError(
                "bad_parameter",
                f"parameters.{key} is not a known {canon}",
                path=f"parameters.{key}",
                expected=f"one of {choices}",
                got=describe(value),
                fix=f"use one of {choices}",
            )
        return options[word]

    def order_rank(self, rule: str) -> list[int]:
        """``rank[i]``: the position of node ``i`` under an :data:`ORDER_RULES` rule."""
        if rule == "listed":
            return list(range(self.n))
        keys: list[Any]
        if rule == "alphabetical":
            keys = [(x.casefold(), x) for x in self.names]
        else:
            keys = [_numeric_key(x) for x in self.names]
        order = sorted(range(self.n), key=keys.__getitem__)
        rank = [0] * self.n
        for r, i in enumerate(order):
            rank[i] = r
        return rank

    def reach_bits(self, start: int, adj: list[list[int]]) -> list[bool]:
        """Nodes reachable from ``start`` along ``adj`` (``start`` included)."""
        seen = [False] * self.n
        seen[start] = True
        queue = deque([start])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if not seen[v]:
                    seen[v] = True
                    queue.append(v)
        return seen


_NUMBER = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*")


def _numeric_key(name: str) -> tuple[Any, ...]:
    """Sort key of the ``numeric`` rule: numbers by value, then other names naturally."""
    if len(name) <= 40 and _NUMBER.fullmatch(name):
        return (0, float(name), (), name)
    parts = re.split(r"(\d+)", name.casefold())
    natural = tuple(int(p) if k % 2 else p for k, p in enumerate(parts))
    return (1, 0.0, natural, name)


def _exact(problem: str, limits: ToolLimits, run: Callable[[], T]) -> T:
    """Run an NP-hard solver; a timeout becomes a ``timeout`` error."""
    from closurebench.graphs.exact.errors import SolverTimeout

    try:
        return run()
    except SolverTimeout:
        raise ToolError(
            "timeout",
            f"{problem}: the exact solver could not prove the optimum within "
            f"{limits.time_limit:g} s",
            expected="a proven optimum (the tool never returns a heuristic answer)",
            got="no proof in time",
            fix="send a smaller or sparser graph (only the nodes and edges the question names)",
        ) from None


def _proof(cert: Certificate) -> str:
    return f"Optimality: proven (method {cert.method}, lower bound {fmt_num(cert.bound)})"


def _direction_note(ctx: Context, what: str) -> list[str]:
    if ctx.directed:
        return [f"edge directions are ignored: {what}"]
    return []


def _unsupported(message: str, expected: str, got: str, fix: str, path: str = "") -> ToolError:
    return ToolError("unsupported", message, path=path, expected=expected, got=got, fix=fix)


def _need_undirected(ctx: Context, problem: str, why: str) -> None:
    if ctx.directed:
        raise _unsupported(
            f"{problem} is defined here for undirected graphs only",
            "graph.directed false",
            "true",
            f'set "directed": false ({why})',
            "graph.directed",
        )


# --- the six GRIT tasks -------------------------------------------------------------


def _shortest_path(ctx: Context) -> Answer:
    from closurebench.graphs.exact.errors import UnreachableError
    from closurebench.graphs.exact.paths import shortest_path

    s = _req(ctx.node("start"))
    t = _req(ctx.node("end"))
    algo = "Dijkstra" if ctx.weighted else "BFS"
    title = f"Shortest path algorithm ({algo})"
    accepted = ("dijkstra",) if ctx.weighted else ("bfs", "breadthfirstsearch", "dijkstra")
    try:
        r = shortest_path(ctx.n, ctx.edges, s, t, directed=ctx.directed)
    except UnreachableError:
        kind = "directed" if ctx.directed else "undirected"
        return Answer(
            title,
            None,
            {"reachable": False, "path": None, "length": None, "algorithm": algo.lower()},
            [f"No Path: {ctx.names[t]} cannot be reached from {ctx.names[s]} ({kind} graph)"],
            algo,
            accepted,
        )
    path = ctx.name_list(r.path)
    length = f"Total Length: {fmt_num(r.cost)}"
    if not ctx.weighted:
        length += " (edges: the graph is unweighted)"
    details = {
        "reachable": True,
        "path": path,
        "length": r.cost,
        "hops": len(path) - 1,
        "algorithm": algo.lower(),
    }
    return Answer(title, r.cost, details, [f"Path: {arrow(path)}", length], algo, accepted)


def _graph_coloring(ctx: Context) -> Answer:
    from closurebench.graphs.exact.coloring import chromatic_number

    pairs = ctx.pairs()
    r = _exact(
        "graph_coloring",
        ctx.limits,
        lambda: chromatic_number(ctx.n, pairs, time_limit=ctx.limits.time_limit),
    )
    k = r.chromatic_number
    classes: list[list[str]] = [[] for _ in range(k)]
    for i, c in enumerate(r.colouring):
        classes[c].append(ctx.names[i])
    shown = "; ".join(f"{c + 1}: {names(members)}" for c, members in enumerate(classes))
    details = {
        "chromatic_number": k,
        "coloring": {ctx.names[i]: c + 1 for i, c in enumerate(r.colouring)},
        "color_classes": classes,
        "certificate": r.certificate.as_dict(),
    }
    lines = [f"Chromatic Number: {k}", f"Color Classes: {shown}", _proof(r.certificate)]
    # The colouring is canonical (the same whichever method "auto" ran); the proof is
    # the method's, named by the certificate.
    by_sat = r.certificate.method.startswith("sat")
    return Answer(
        "Graph coloring (exact)",
        k,
        details,
        lines,
        "exact SAT proof (CaDiCaL)" if by_sat else "exact DSATUR branch and bound",
        ("dsatur", "sat", "exact", "branchandbound", "backtracking", "bruteforce", "ilp"),
        _direction_note(ctx, "adjacent nodes must differ either way"),
    )


def _tsp(ctx: Context) -> Answer:
    from closurebench.graphs.exact.tsp import tsp

    _need_undirected(ctx, "tsp", "the tour's cost is the same in both directions")
    start = ctx.node("start", required=False)
    weight: dict[tuple[int, int], Number] = {}
    for u, v, w in ctx.edges:
        weight[(min(u, v), max(u, v))] = w
    missing = [(i, j) for i in range(ctx.n) for j in range(i + 1, ctx.n) if (i, j) not in weight]
    if missing:
        a, b = ctx.names[missing[0][0]], ctx.names[missing[0][1]]
        more = f" ({len(missing)} pairs are missing in all)" if len(missing) > 1 else ""
        raise _unsupported(
            f"tsp needs an edge between every pair of nodes, but there is none between "
            f"{quote(a)} and {quote(b)}{more}",
            "a complete graph",
            f"{len(weight)} of {ctx.n * (ctx.n - 1) // 2} pairs connected",
            f"add graph.data[{quote(a)}][{quote(b)}] with its weight (the tool does not "
            "assume missing distances)",
            "graph.data",
        )
    if ctx.n == 1:
        tour: list[int] = [0]
        cost: Number = 0
        proof = "Optimality: trivial (one node)"
        cert: dict[str, Any] = {"method": "trivial", "bound": 0, "gap": 0}
    else:
        matrix = [
            [0 if i == j else weight[(min(i, j), max(i, j))] for j in range(ctx.n)]
            for i in range(ctx.n)
        ]
        r = _exact("tsp", ctx.limits, lambda: tsp(matrix, time_limit=ctx.limits.time_limit))
        tour, cost = list(r.tour), r.cost
        proof, cert = _proof(r.certificate), r.certificate.as_dict()
    if start is not None:
        k = tour.index(start)
        tour = tour[k:] + tour[:k]
    tour_names = ctx.name_list(tour)
    closed = [*tour_names, tour_names[0]] if ctx.n > 1 else tour_names
    details = {"tour": tour_names, "cost": cost, "certificate": cert}
    lines = [f"Tour: {arrow(closed)}", f"Total Cost: {fmt_num(cost)}", proof]
    if not ctx.weighted:
        lines[1] += " (edges: the graph is unweighted)"
    return Answer(
        "Traveling salesman (exact)",
        cost,
        details,
        lines,
        "exact (HiGHS with subtour cuts, or enumeration)",
        ("exact", "ilp", "milp", "heldkarp", "bruteforce", "dynamicprogramming", "branchandbound"),
    )


def _vertex_cover(ctx: Context) -> Answer:
    from closurebench.graphs.exact.cover import vertex_cover

    pairs = ctx.pairs()
    r = _exact(
        "vertex_cover",
        ctx.limits,
        lambda: vertex_cover(ctx.n, pairs, time_limit=ctx.limits.time_limit),
    )
    cover = ctx.name_list(r.cover)
    lines = [
        f"Minimum Vertex Cover Size: {r.size}",
        f"Cover: {names(cover)}",
        _proof(r.certificate),
    ]
    return Answer(
        "Minimum vertex cover (exact)",
        r.size,
        {"size": r.size, "cover": cover, "certificate": r.certificate.as_dict()},
        lines,
        "exact maximum-clique branch and bound",
        ("exact", "ilp", "milp", "branchandbound", "bruteforce", "maxclique"),
        _direction_note(ctx, "an edge is covered by either end"),
    )


def _bfs(ctx: Context) -> Answer:
    from closurebench.graphs.exact.paths import bfs_order

    s = _req(ctx.node("start"))
    rule = ctx.choice("order", _ORDER_SYNONYMS, "listed")
    rank = ctx.order_rank(rule)
    arcs = [(u, v) for u, v, _ in ctx.edges]
    order = list(bfs_order(ctx.n, arcs, s, neighbour_key=rank, directed=ctx.directed).order)
    visited = set(order)
    unreached = [ctx.names[i] for i in range(ctx.n) if i not in visited]
    order_names = ctx.name_list(order)
    lines = [
        f"Visit Order: {names(order_names)}",
        f"Neighbor Rule: when a node is processed, its not-yet-visited neighbors join the end "
        f"of the queue in {ORDER_RULES[rule]}",
    ]
    if unreached:
        lines.append(f"Not Reached: {names(unreached)}")
    details = {"order": order_names, "neighbor_order": rule, "unreached": unreached}
    return Answer(
        f"Breadth-first search (from {ctx.names[s]})",
        order_names,
        details,
        lines,
        "BFS",
        ("bfs", "breadthfirstsearch", "breadthfirst"),
    )


def _centrality(ctx: Context) -> Answer:
    from closurebench.graphs.exact.centrality import centrality

    measure = ctx.choice("measure", _MEASURES, None)
    _need_undirected(ctx, "centrality", "the project's centrality definitions are undirected")
    use_weights = ctx.weighted and measure != "degree"
    if use_weights:
        for u, v, w in ctx.edges:
            if w <= 0:
                a, b = ctx.names[u], ctx.names[v]
                raise _unsupported(
                    f"weighted {measure} centrality needs positive weights, but the edge "
                    f"{quote(a)} - {quote(b)} has weight {fmt_num(w)}",
                    "weights > 0",
                    fmt_num(w),
                    'give every edge a positive weight, or set "weighted": false to count hops',
                    "graph.data",
                )
    r = centrality(ctx.n, ctx.edges, measure, weighted=use_weights)
    best = r.exact[r.argmax]
    tied = [ctx.names[i] for i, x in enumerate(r.exact) if x == best]
    scores = {ctx.names[i]: r.scores[i] for i in range(ctx.n)}
    shown = ", ".join(f"{x}: {fmt_score(v)}" for x, v in scores.items())
    top = ctx.names[r.argmax]
    if len(tied) == 1:
        highest = f"Highest: {top} ({fmt_score(r.scores[r.argmax])})"
    else:
        highest = f"Highest: tie between {names(tied)} ({fmt_score(r.scores[r.argmax])} each)"
    distances = "edge weights" if use_weights else "hops"
    definition = {
        "degree": "neighbors / (n - 1)",
        "closeness": f"(r - 1)^2 / ((n - 1) * sum of {distances} to the r - 1 other "
        "reachable nodes), as networkx",
        "betweenness": f"share of shortest paths ({distances}) through the node, over "
        "(n - 1)(n - 2)/2 pairs, as networkx",
    }[measure]
    details = {
        "measure": measure,
        "scores": scores,
        "exact": {ctx.names[i]: str(x) for i, x in enumerate(r.exact)},
        "top": top,
        "tied": tied,
        "unique": len(tied) == 1,
        "distances": distances,
    }
    return Answer(
        f"{measure.capitalize()} centrality",
        top,
        details,
        [f"Scores: {shown}", highest, f"Definition: {definition}"],
        "exact",
        ("exact", "networkx", "brandes", "bfs", "dijkstra"),
    )


# --- ClosureBench primitives ----------------------------------------------------------


def _bfs_path(ctx: Context, s: int, t: int) -> list[int] | None:
    """A fewest-edges path from ``s`` to ``t`` (smallest ids first), or ``None``."""
    pred = [-1] * ctx.n
    seen = [False] * ctx.n
    seen[s] = True
    queue = deque([s])
    while queue:
        u = queue.popleft()
        if u == t:
            break
        for v in ctx.out_adj[u]:
            if not seen[v]:
                seen[v] = True
                pred[v] = u
                queue.append(v)
    if not seen[t]:
        return None
    path = [t]
    while path[-1] != s:
        path.append(pred[path[-1]])
    return path[::-1]


def _reachability(ctx: Context) -> Answer:
    s = _req(ctx.node("start"))
    t = _req(ctx.node("end"))
    path = _bfs_path(ctx, s, t)
    a, b = ctx.names[s], ctx.names[t]
    lines = [f"Reachable: {yes_no(path is not None)}"]
    if path is not None:
        lines.append(f"Path: {arrow(ctx.name_list(path))}")
    else:
        lines.append(f"No path leads from {a} to {b}")
    notes = ["a node reaches itself (the empty path)"] if s == t else []
    return Answer(
        f"Reachability ({a} to {b})",
        path is not None,
        {"reachable": path is not None, "path": None if path is None else ctx.name_list(path)},
        lines,
        "BFS",
        ("bfs", "dfs", "breadthfirstsearch", "depthfirstsearch"),
        notes,
    )


def _reachable_set(ctx: Context) -> Answer:
    s = _req(ctx.node("start"))
    seen = ctx.reach_bits(s, ctx.out_adj)
    on_cycle = ctx.directed and any(seen[u] for u in ctx.in_adj[s])
    ids = [i for i in range(ctx.n) if seen[i] and (i != s or on_cycle)]
    found = ctx.name_list(ids)
    a = ctx.names[s]
    if on_cycle:
        rule = f"{a} is counted: it lies on a directed cycle, so a path leads back to it"
    elif ctx.directed:
        rule = f"{a} itself is not counted (no path leads back to it)"
    else:
        rule = f"{a} itself is not counted (in an undirected graph, walking back does not count)"
    return Answer(
        f"Reachable set (from {a})",
        found,
        {
            "nodes": found,
            "count": len(found),
            "start_included": on_cycle,
            "start_on_cycle": on_cycle,
        },
        [f"Reachable Nodes ({len(found)}): {names(found)}", f"Convention: {rule}"],
        "BFS",
        ("bfs", "dfs", "breadthfirstsearch", "depthfirstsearch", "transitiveclosure"),
    )


def _degree(ctx: Context, inward: bool) -> Answer:
    node = ctx.node("node", fallback="start", required=False)
    adj = ctx.in_adj if inward else ctx.out_adj
    label = "Degree" if not ctx.directed else ("In-Degree" if inward else "Out-Degree")
    degrees = {ctx.names[i]: len(adj[i]) for i in range(ctx.n)}
    notes = [] if ctx.directed else ["the graph is undirected: in- and out-degree are the degree"]
    if node is not None:
        d = len(adj[node])
        return Answer(
            f"{label} (of {ctx.names[node]})",
            d,
            {"node": ctx.names[node], "degree": d},
            [f"{label} of {ctx.names[node]}: {d}"],
            "count",
            ("count",),
            notes,
        )
    best = max(degrees.values())
    tops = [x for x, d in degrees.items() if d == best]
    shown = ", ".join(f"{x}: {d}" for x, d in degrees.items())
    top_line = (
        f"Highest: {tops[0]} ({best})"
        if len(tops) == 1
        else (f"Highest: tie between {names(tops)} ({best} each)")
    )
    return Answer(
        f"{label}s",
        degrees,
        {"degrees": degrees, "max": best, "argmax": tops},
        [f"{label}s: {shown}", top_line],
        "count",
        ("count",),
        notes,
    )


def _components(ctx: Context, adj: list[list[int]], strong: bool) -> list[list[int]]:
    """Components (node ids sorted), ordered by their first node.

    ``strong``: mutual reachability along ``adj``; otherwise reachability (``adj`` must
    then be symmetric).
    """
    reach = [ctx.reach_bits(i, adj) for i in range(ctx.n)] if strong else []
    comp = [-1] * ctx.n
    out: list[list[int]] = []
    for i in range(ctx.n):
        if comp[i] >= 0:
            continue
        if strong:
            members = [j for j in range(ctx.n) if reach[i][j] and reach[j][i]]
        else:
            seen = ctx.reach_bits(i, adj)
            members = [j for j in range(ctx.n) if seen[j]]
        for j in members:
            comp[j] = len(out)
        out.append(members)
    return out


def _show_components(ctx: Context, comps: list[list[int]]) -> str:
    return "; ".join("{" + names(ctx.name_list(c)) + "}" for c in comps)


def _scc(ctx: Context) -> Answer:
    node = ctx.node("node", fallback="start", required=False)
    comps = _components(ctx, ctx.out_adj, strong=True)
    as_names = [ctx.name_list(c) for c in comps]
    kind = "Strongly connected components" if ctx.directed else "Connected components"
    lines = [f"Components ({len(comps)}): {_show_components(ctx, comps)}"]
    notes = [] if ctx.directed else ["the graph is undirected: its SCCs are its components"]
    details: dict[str, Any] = {"components": as_names, "count": len(comps)}
    value: Any = as_names
    title = kind
    if node is not None:
        mine = next(c for c in as_names if ctx.names[node] in c)
        lines.append(
            f"Component of {ctx.names[node]} ({len(mine)} node{'s' * (len(mine) != 1)}): "
            f"{names(mine)}"
        )
        details["component_of"] = {"node": ctx.names[node], "component": mine}
        value = mine
        title = f"{kind} (of {ctx.names[node]})"
    return Answer(
        title, value, details, lines, "mutual reachability", ("tarjan", "kosaraju"), notes
    )


def _within(ctx: Context) -> set[int] | None:
    """The node ids of the optional ``within`` list (triangles among those nodes only)."""
    found = ctx.param("within")
    if found is None:
        return None
    key, values = found
    if not isinstance(values, list) or not values:
        raise ToolError(
            "bad_parameter",
            f"parameters.{key} must be a non-empty list of node names",
            path=f"parameters.{key}",
            expected="a list of node names",
            got=describe(values),
            fix=f'write "{key}": ["A", "B", "C"], or leave it out to count in the whole graph',
        )
    return {
        ctx.index[match_node(v, ctx.names, f"parameters.{key}[{i}]")] for i, v in enumerate(values)
    }


def _triangle_count(ctx: Context) -> Answer:
    within = _within(ctx)
    pairs = [(u, v) for u, v in ctx.pairs() if within is None or (u in within and v in within)]
    adj = [0] * ctx.n
    for u, v in pairs:
        adj[u] |= 1 << v
        adj[v] |= 1 << u
    triangles: list[tuple[int, int, int]] = []
    count = 0
    per_node = [0] * ctx.n
    for u, v in pairs:
        common = adj[u] & adj[v] & ~((1 << (v + 1)) - 1)
        while common:
            low = common & -common
            w = low.bit_length() - 1
            common ^= low
            count += 1
            for x in (u, v, w):
                per_node[x] += 1
            if len(triangles) < 100:
                triangles.append((u, v, w))
    listed = ["{" + names(ctx.name_list(t)) + "}" for t in triangles[:20]]
    lines = [f"Triangles: {count}"]
    if within is not None:
        lines.append(f"Counted among: {names(ctx.name_list(sorted(within)))}")
    if listed:
        more = f" … ({count - 20} more)" if count > 20 else ""
        lines.append(f"Listed: {'; '.join(listed)}{more}")
    details = {
        "count": count,
        "triangles": [ctx.name_list(t) for t in triangles],
        "all_listed": count <= 100,
        "per_node": {ctx.names[i]: per_node[i] for i in range(ctx.n)},
    }
    return Answer(
        "Triangle count",
        count,
        details,
        lines,
        "exact enumeration",
        ("exact", "enumeration", "bruteforce", "nodeiterator", "edgeiterator"),
        _direction_note(ctx, "a triangle is three pairwise adjacent nodes"),
    )


def _kin(ctx: Context, up: bool) -> Answer:
    node = _req(ctx.node("node", fallback="start"))
    seen = ctx.reach_bits(node, ctx.in_adj if up else ctx.out_adj)
    found = [ctx.names[i] for i in range(ctx.n) if seen[i] and i != node]
    what = "Ancestors" if up else "Descendants"
    a = ctx.names[node]
    lines = [
        f"{what} of {a} ({len(found)}): {names(found)}",
        f"Convention: {a} itself is never counted, even when it lies on a cycle",
    ]
    notes = [] if ctx.directed else [f"the graph is undirected: {what.lower()} are {a}'s component"]
    return Answer(
        f"{what} (of {a})",
        found,
        {"node": a, "nodes": found, "count": len(found)},
        lines,
        "BFS",
        ("bfs", "dfs", "breadthfirstsearch", "depthfirstsearch", "transitiveclosure"),
        notes,
    )


def _adjacent(ctx: Context, up: bool) -> Answer:
    """One-step neighbours of a node, or the union over a list of nodes (``"node": [...]``)."""
    given = ctx.call.params.get("node") or ctx.call.params.get("start")
    if given is not None and isinstance(given[1], list):
        ctx.param("node"), ctx.param("start")  # mark both as used
        key, values = given
        if not values:
            raise ToolError(
                "bad_parameter",
                f"parameters.{key} is an empty list",
                path=f"parameters.{key}",
                expected="a node name or a non-empty list of node names",
                got="[]",
                fix=f'write "{key}": "<node name>" or a list of names',
            )
        nodes = sorted(
            {
                ctx.index[match_node(v, ctx.names, f"parameters.{key}[{i}]")]
                for i, v in enumerate(values)
            }
        )
    else:
        nodes = [_req(ctx.node("node", fallback="start"))]
    adj = ctx.in_adj if up else ctx.out_adj
    found = ctx.name_list(sorted({j for i in nodes for j in adj[i]}))
    what = "Predecessors" if up else "Successors"
    a = names(ctx.name_list(nodes))
    edge = f"an edge into {a}" if up else f"an edge from {a}"
    notes = [] if ctx.directed else [f"the graph is undirected: both are {a}'s neighbors"]
    return Answer(
        f"{what} (of {a})",
        found,
        {"nodes_asked": ctx.name_list(nodes), "nodes": found, "count": len(found)},
        [f"{what} of {a} ({len(found)}): {names(found)}", f"Nodes with {edge}, one step"],
        "adjacency",
        ("adjacency", "neighbors", "neighbours", "lookup"),
        notes,
    )


# --- extras of GRAIN's prompt -----------------------------------------------------------


def _mst(ctx: Context) -> Answer:
    _need_undirected(ctx, "minimum_spanning_tree", "a spanning tree is undirected")
    parent = list(range(ctx.n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    chosen: list[tuple[int, int, Number]] = []
    for u, v, w in sorted(ctx.edges, key=lambda e: e[2]):  # stable: ties in listed order
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
            chosen.append((u, v, w))
    total = sum(w for _, _, w in chosen)
    trees = ctx.n - len(chosen)
    if ctx.weighted:
        shown = ", ".join(f"{ctx.names[u]} - {ctx.names[v]} ({fmt_num(w)})" for u, v, w in chosen)
    else:
        shown = ", ".join(f"{ctx.names[u]} - {ctx.names[v]}" for u, v, _ in chosen)
    lines = [f"Total Weight: {fmt_num(total)}", f"Edges ({len(chosen)}): {shown or '(none)'}"]
    if not ctx.weighted:
        lines[0] += " (edges: the graph is unweighted)"
    if trees > 1:
        lines.append(
            f"Forest: the graph is disconnected, so this is a minimum spanning forest of "
            f"{trees} trees"
        )
    details = {
        "total_weight": total,
        "edges": [[ctx.names[u], ctx.names[v], w if ctx.weighted else None] for u, v, w in chosen],
        "trees": trees,
        "spanning_forest": trees > 1,
    }
    return Answer(
        "Minimum spanning tree (Kruskal)",
        total,
        details,
        lines,
        "Kruskal",
        ("kruskal", "prim", "boruvka"),
    )


def _cycle_in(ctx: Context, alive: list[bool], step: Callable[[int, int], int]) -> list[int]:
    """Walk from the first alive node with ``step(node, previous)`` until a node repeats."""
    v = next(i for i in range(ctx.n) if alive[i])
    walk: list[int] = []
    where: dict[int, int] = {}
    prev = -1
    while v not in where:
        where[v] = len(walk)
        walk.append(v)
        v, prev = step(v, prev), v
    cycle = walk[where[v] :]
    k = cycle.index(min(cycle))
    return cycle[k:] + cycle[:k]


def _kahn(ctx: Context, rank: list[int]) -> tuple[list[int], list[int] | None]:
    """Kahn's order (smallest ``rank`` first among ready nodes), and a cycle if any."""
    indeg = [len(ctx.in_adj[i]) for i in range(ctx.n)]
    ready = [(rank[i], i) for i in range(ctx.n) if indeg[i] == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, u = heapq.heappop(ready)
        order.append(u)
        for v in ctx.out_adj[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(ready, (rank[v], v))
    if len(order) == ctx.n:
        return order, None
    alive = [True] * ctx.n
    for u in order:
        alive[u] = False
    # Every remaining node has a remaining predecessor: walking backwards must repeat.
    back = _cycle_in(ctx, alive, lambda v, _prev: next(u for u in ctx.in_adj[v] if alive[u]))
    cycle = back[::-1]
    k = cycle.index(min(cycle))
    return order, cycle[k:] + cycle[:k]


def _topological_sort(ctx: Context) -> Answer:
    if not ctx.directed:
        raise _unsupported(
            "topological_sort needs a directed graph",
            "graph.directed true",
            "false",
            'set "directed": true (an undirected edge has no direction to respect)',
            "graph.directed",
        )
    rule = ctx.choice("order", _ORDER_SYNONYMS, "alphabetical")
    order, cycle = _kahn(ctx, ctx.order_rank(rule))
    tie = (
        "among the nodes whose predecessors are all placed, the first in "
        f"{ORDER_RULES[rule]} comes next"
    )
    algo = ("kahn", "dfs", "depthfirstsearch", "topologicalsort")
    title = "Topological sort (Kahn's algorithm)"
    if cycle is not None:
        shown = ctx.name_list([*cycle, cycle[0]])
        return Answer(
            title,
            None,
            {"is_dag": False, "order": None, "cycle": ctx.name_list(cycle), "tie_rule": rule},
            ["No Topological Order: the graph has a cycle", f"Cycle: {arrow(shown)}"],
            "Kahn",
            algo,
        )
    found = ctx.name_list(order)
    return Answer(
        title,
        found,
        {"is_dag": True, "order": found, "cycle": None, "tie_rule": rule},
        [f"Order: {names(found)}", f"Tie Rule: {tie}"],
        "Kahn",
        algo,
    )


def _connectivity(ctx: Context) -> Answer:
    both = [sorted(set(ctx.out_adj[i]) | set(ctx.in_adj[i])) for i in range(ctx.n)]
    weak = _components(ctx, both, strong=False)
    if not ctx.directed:
        return Answer(
            "Connectivity",
            len(weak) == 1,
            {"connected": len(weak) == 1, "components": [ctx.name_list(c) for c in weak]},
            [
                f"Connected: {yes_no(len(weak) == 1)}",
                f"Components ({len(weak)}): {_show_components(ctx, weak)}",
            ],
            "BFS",
            ("bfs", "dfs", "unionfind", "breadthfirstsearch", "depthfirstsearch"),
        )
    strong = _components(ctx, ctx.out_adj, strong=True)
    details = {
        "strongly_connected": len(strong) == 1,
        "weakly_connected": len(weak) == 1,
        "strong_components": [ctx.name_list(c) for c in strong],
        "weak_components": [ctx.name_list(c) for c in weak],
    }
    lines = [
        f"Strongly Connected: {yes_no(len(strong) == 1)}",
        f"Weakly Connected: {yes_no(len(weak) == 1)}",
        f"Strongly Connected Components ({len(strong)}): {_show_components(ctx, strong)}",
        f"Weakly Connected Components ({len(weak)}): {_show_components(ctx, weak)}",
    ]
    return Answer(
        "Connectivity (directed: value = strongly connected)",
        len(strong) == 1,
        details,
        lines,
        "BFS",
        ("bfs", "dfs", "tarjan", "kosaraju", "breadthfirstsearch", "depthfirstsearch"),
    )


def _cycle_detection(ctx: Context) -> Answer:
    cycle: list[int] | None
    if ctx.directed:
        _, cycle = _kahn(ctx, list(range(ctx.n)))
        kind = "directed cycle"
    else:
        # Peel nodes of degree <= 1; what remains (the 2-core) is non-empty iff a cycle exists.
        alive = [True] * ctx.n
        deg = [len(ctx.out_adj[i]) for i in range(ctx.n)]
        stack = [i for i in range(ctx.n) if deg[i] <= 1]
        while stack:
            u = stack.pop()
            if not alive[u]:
                continue
            alive[u] = False
            for v in ctx.out_adj[u]:
                if alive[v]:
                    deg[v] -= 1
                    if deg[v] <= 1:
                        stack.append(v)
        cycle = None
        if any(alive):
            cycle = _cycle_in(
                ctx,
                alive,
                lambda v, prev: next(u for u in ctx.out_adj[v] if alive[u] and u != prev),
            )
        kind = "cycle (of three or more nodes)"
    lines = [f"Has Cycle: {yes_no(cycle is not None)}"]
    if cycle is not None:
        lines.append(f"Cycle: {arrow(ctx.name_list([*cycle, cycle[0]]))}")
    else:
        lines.append(f"The graph has no {kind}")
    return Answer(
        "Cycle detection",
        cycle is not None,
        {"has_cycle": cycle is not None, "cycle": None if cycle is None else ctx.name_list(cycle)},
        lines,
        "DFS",
        ("dfs", "depthfirstsearch", "kahn", "unionfind", "bfs"),
    )


def _req(value: int | None) -> int:
    """A required node (``Context.node`` raised already when it was missing)."""
    assert value is not None
    return value


@dataclass(frozen=True)
class ProblemSpec:
    """One problem type, as :data:`PROBLEMS` declares it.

    Attributes:
        name: Canonical name.
        solve: The solver.
        params: Canonical parameters it reads (besides ``algorithm``).
        summary: One line for docs and schemas.
        synonyms: Other spellings (normalised) -> the parameters each implies (``{}`` for
            most; ``degree_centrality`` is ``centrality`` with ``measure="degree"``).
    """

    name: str
    solve: Callable[[Context], Answer]
    params: tuple[str, ...]
    summary: str
    synonyms: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


def _spec(
    name: str,
    fn: Callable[[Context], Answer],
    params: str,
    summary: str,
    *,
    synonyms: tuple[str, ...] = (),
    implied: Mapping[str, Mapping[str, str]] | None = None,
) -> ProblemSpec:
    """A :class:`ProblemSpec`: ``params`` space-separated, ``implied`` extra synonyms."""
    spellings: dict[str, Mapping[str, str]] = {}
    for alias, implies in [*((s, {}) for s in synonyms), *(implied or {}).items()]:
        if alias in spellings:
            raise ValueError(f"problem registry: {name} lists the synonym {alias!r} twice")
        spellings[alias] = implies
    return ProblemSpec(name, fn, tuple(params.split()), summary, spellings)


def _registry(*specs: ProblemSpec) -> dict[str, ProblemSpec]:
    """The specs by name, refusing any spelling that is not normalised or is taken twice.

    Raises:
        ValueError: at import, so a registry whose derived tables would silently drop
            a name never loads.
    """
    owner: dict[str, str] = {}
    for spec in specs:
        for alias in (spec.name, *spec.synonyms):
            if normalize(alias) != alias:
                raise ValueError(f"problem registry: {alias!r} ({spec.name}) is not normalised")
            if alias in owner:
                raise ValueError(
                    f"problem registry: {alias!r} names both {owner[alias]} and {spec.name}"
                )
            owner[alias] = spec.name
        read = {*spec.params, *(p for implies in spec.synonyms.values() for p in implies)}
        unknown = sorted(read - set(PARAM_SYNONYMS))
        if unknown:
            raise ValueError(f"problem registry: {spec.name} names unknown parameters {unknown}")
    return {spec.name: spec for spec in specs}


#: The registry: every problem type the tool solves, declared once, in the order the docs
#: list them. :data:`PROBLEM_TYPES`, :data:`PROBLEM_SYNONYMS`, the parser, the JSON
#: Schema, the docs and :data:`closurebench.tools.functions.FUNCTIONS` all derive from it.
PROBLEMS: dict[str, ProblemSpec] = _registry(
    _spec(
        "shortest_path",
        _shortest_path,
        "start end",
        "minimum-weight path (Dijkstra)",
        synonyms=(
            "shortest_path_length",
            "shortest_paths",
            "shortestpath",
            "shortest_route",
            "shortest_distance",
            "dijkstra",
        ),
    ),
    _spec(
        "graph_coloring",
        _graph_coloring,
        "",
        "chromatic number, one optimal coloring",
        synonyms=(
            "graph_colouring",
            "coloring",
            "colouring",
            "vertex_coloring",
            "vertex_colouring",
            "chromatic_number",
        ),
    ),
    _spec(
        "tsp",
        _tsp,
        "start",
        "optimal tour of a complete undirected graph",
        synonyms=(
            "traveling_salesman",
            "travelling_salesman",
            "traveling_salesman_problem",
            "travelling_salesman_problem",
            "traveling_salesperson",
            "travelling_salesperson",
        ),
    ),
    _spec(
        "vertex_cover",
        _vertex_cover,
        "",
        "minimum vertex cover",
        synonyms=("minimum_vertex_cover", "min_vertex_cover"),
    ),
    _spec(
        "bfs",
        _bfs,
        "start order",
        "breadth-first visit order under a neighbor rule",
        synonyms=("breadth_first_search", "bfs_order", "bfs_traversal", "breadth_first_traversal"),
    ),
    _spec(
        "centrality",
        _centrality,
        "measure",
        "degree/closeness/betweenness, top node",
        synonyms=("node_centrality",),
        implied={
            "degree_centrality": {"measure": "degree"},
            "closeness_centrality": {"measure": "closeness"},
            "betweenness_centrality": {"measure": "betweenness"},
        },
    ),
    _spec(
        "reachability",
        _reachability,
        "start end",
        "is there a path from start to end",
        synonyms=("reachable", "has_path", "path_exists", "is_reachable"),
    ),
    _spec(
        "reachable_set",
        _reachable_set,
        "start",
        "nodes reachable from start",
        synonyms=("reachable_nodes", "reach"),
    ),
    _spec(
        "out_degree",
        lambda c: _degree(c, False),
        "node start",
        "out-degree",
        synonyms=("degree", "node_degree", "outdegree"),
    ),
    _spec(
        "in_degree",
        lambda c: _degree(c, True),
        "node start",
        "in-degree",
        synonyms=("indegree",),
    ),
    _spec(
        "scc",
        _scc,
        "node start",
        "strongly connected components",
        synonyms=("strongly_connected_components", "strong_components"),
    ),
    _spec(
        "triangle_count",
        _triangle_count,
        "within",
        "number of triangles (undirected)",
        synonyms=("triangles", "count_triangles", "triangle_counting"),
    ),
    _spec(
        "ancestors",
        lambda c: _kin(c, True),
        "node start",
        "nodes that reach the node",
        synonyms=("ancestor",),
    ),
    _spec(
        "descendants",
        lambda c: _kin(c, False),
        "node start",
        "nodes the node reaches",
        synonyms=("descendant", "descendents"),
    ),
    _spec(
        "successors",
        lambda c: _adjacent(c, False),
        "node start",
        "one-step out-neighbors",
        synonyms=("children", "out_neighbors", "out_neighbours"),
    ),
    _spec(
        "predecessors",
        lambda c: _adjacent(c, True),
        "node start",
        "one-step in-neighbors",
        synonyms=("parents", "in_neighbors", "in_neighbours"),
    ),
    _spec(
        "minimum_spanning_tree",
        _mst,
        "",
        "minimum spanning tree or forest (Kruskal)",
        synonyms=(
            "mst",
            "spanning_tree",
            "min_spanning_tree",
            "minimum_spanning_forest",
            "kruskal",
            "prim",
        ),
    ),
    _spec(
        "topological_sort",
        _topological_sort,
        "order",
        "topological order of a DAG",
        synonyms=("topological_order", "topological_sorting", "toposort", "topo_sort"),
    ),
    _spec(
        "connectivity",
        _connectivity,
        "",
        "connected? components (weak and strong)",
        synonyms=("connected_components", "is_connected", "connected", "components"),
    ),
    _spec(
        "cycle_detection",
        _cycle_detection,
        "",
        "has a cycle? one cycle",
        synonyms=("has_cycle", "detect_cycle", "find_cycle", "cycle", "cycles"),
    ),
)

#: Canonical problem types, in registry order (the order the docs list them).
PROBLEM_TYPES: tuple[str, ...] = tuple(PROBLEMS)

#: Other spellings (normalised) -> (canonical type, parameters the spelling implies).
PROBLEM_SYNONYMS: dict[str, tuple[str, dict[str, str]]] = {
    alias: (spec.name, dict(implies))
    for spec in PROBLEMS.values()
    for alias, implies in spec.synonyms.items()
}


def resolve_problem_type(name: str) -> tuple[str, dict[str, str]] | None:
    """The canonical problem type ``name`` stands for, and the parameters it implies.

    ``name`` is matched after :func:`~closurebench.tools.names.normalize`.

    Returns:
        ``(canonical, implied parameters)``, or ``None`` when ``name`` is unknown.

    Example:
        >>> resolve_problem_type("TSP"), resolve_problem_type("Graph Colouring")
        (('tsp', {}), ('graph_coloring', {}))
        >>> resolve_problem_type("Dijkstra"), resolve_problem_type("degree centrality")
        (('shortest_path', {}), ('centrality', {'measure': 'degree'}))
        >>> resolve_problem_type("max flow") is None
        True
    """
    key = normalize(name)
    if key in PROBLEM_TYPES:
        return key, {}
    found = PROBLEM_SYNONYMS.get(key)
    if found is None:
        return None
    canon, implied = found
    return canon, dict(implied)


def _algorithm_keys(name: str) -> set[str]:
    """Squashed spellings of a requested algorithm ("Dijkstra's algorithm" -> "dijkstra")."""
    key = re.sub(r"[^a-z0-9]", "", name.lower().replace("'s", ""))
    base = key.removesuffix("algorithm")
    return {key, base, base.removesuffix("s"), key.removesuffix("s")} - {""}


def solve(call: ToolCall, limits: ToolLimits | None = None) -> Answer:
    """Solve a validated call.

    Raises:
        ToolError: ``bad_parameter``, ``unsupported`` or ``timeout``.

    Example:
        >>> from closurebench.tools.calls import parse_call
        >>> a = solve(parse_call({"problem_type": "vertex_cover", "graph": {"data": {
        ...     "a": ["b", "c"], "b": ["c"], "c": ["d"]}, "directed": False, "weighted": False}}))
        >>> a.value, a.details["cover"]
        (2, ['b', 'c'])
    """
    limits = limits or ToolLimits()
    spec = PROBLEMS[call.problem_type]
    ctx = Context(call, limits)
    answer = spec.solve(ctx)
    ignored = list(call.ignored) + [
        key
        for canon, (key, _) in call.params.items()
        if canon not in ctx.used and key != "problem_type"
    ]
    if ignored:
        answer.notes.append(
            f"ignored parameter(s) {', '.join(quote(k) for k in ignored)}: not used by {spec.name}"
        )
    if call.algorithm and answer.algorithm:
        keys = _algorithm_keys(call.algorithm)
        if keys and not keys & set(answer.algorithm_names):
            answer.notes.append(
                f'"algorithm": {quote(call.algorithm)} is informative only; this result was '
                f"computed with {answer.algorithm}"
            )
    return answer
