"""Structure recovery: how well the graph a model submitted to the tool matches the question's.

GRAIN (paper §4.3, Tables 6 and 19; ``docs/training.md``, "GRPO prompts and rewards") scores the
intermediate ``<graph>`` of an agent episode against the true graph of the instance:

* **names** are aligned through the view's name map (display names and aliases, numeric
  names read as their digits). For ``s_inv`` the alignment is exact: a name resolves only
  when the view writes it so (:class:`~closurebench.tasks.grit.answers.NameResolver` with
  ``exact=True``; ``"elm"`` is not the node ``"Elm"``). ``s_inv_casefold`` is the same
  Jaccard index with the looser alignment of :func:`closurebench.tasks.grit.resolve_name`
  (exact first, then case- and whitespace-insensitive when unambiguous), which the other
  metrics (node-F1, edge-F1, *exact*, the decomposition) use as well: they diagnose how
  well the graph was recovered, where a miscased name is a reading of the right node.
  Two names of one node (a name and its alias) are that one node. A name that resolves
  to nothing (a renamed or invented node) is a node of its own that matches nothing.
* **edges** become canonical tuples ``(source, target, weight)`` in node ids. When the
  true graph is undirected, pairs are unordered (an edge listed in both directions counts
  once). When it is directed, pairs are ordered; a model graph that declares
  ``directed: false`` for a directed truth stands for both directions of each of its
  edges (so a one-way true edge makes its reverse an extra edge). Weights are compared
  as floats with a tolerance of 1e-9; when the true graph is unweighted every weight is
  ignored; when it is weighted and the model's graph says ``weighted: false``, every
  weight is missing (a weight mismatch on each edge).
* **metrics**: node-F1 over node ids (the true node set is all ``n`` nodes, isolated ones
  included), edge-F1 over the canonical (weighted) tuples, ``s_inv`` = the Jaccard index
  ``|A∩B| / |A∪B|`` of those tuples under exact name alignment (1.0 when both are empty),
  ``s_inv_casefold`` = that index under the loose alignment, and *exact* = equal node
  sets and equal weighted edge sets.
* **decomposition** (Table 19), first that applies: ``parse_failure`` (no graph parsed),
  ``exact``, ``node_mismatch`` (the resolved node sets differ: an unknown name, a missing
  node — an isolated true node left out of the model's node list included, since the
  adjacency-list format lists every node as a key — or a node too many),
  ``extra_edges`` (only extra pairs), ``missing_edges`` (only missing pairs),
  ``weight_mismatch`` (same pairs, some weight differs), ``mixed`` (anything else).

The same scoring applies to a ClosureBench record: nodes are its ``labels`` (no
aliases), the graph is ``record.graph`` and unweighted. For ``graph_comparison`` records
(two graphs, ``graph`` and ``graph2``) only ``record.graph`` is compared: a model that
submitted the second graph scores against the first.

The model's graph is anything shaped like :class:`closurebench.tools.types.ToolGraph`
(:class:`SubmittedGraph`: ``directed``, ``weighted``, ``nodes``, ``edges``); this module
does not import the tool package.

Example:
    >>> from types import SimpleNamespace as NS
    >>> rec = NS(names=["Oak", "Elm", "Ash"], aliases={"Big Elm": 1},
    ...          graph=NS(directed=False, weighted=True, n=3, edges=[[0, 1, 4], [1, 2, 2]]))
    >>> g = NS(directed=False, weighted=True, nodes=("Oak", "Big Elm", "Ash"),
    ...        edges=(("Big Elm", "Oak", 4.0), ("ash", "Elm", 2.0)))
    >>> s = score_structure(rec, g)
    >>> s.cls, s.exact, s.s_inv_casefold, s.node_f1
    ('exact', True, 1.0, 1.0)
    >>> s.s_inv  # "ash" is not a name of the view: that edge matches nothing
    0.3333333333333333
    >>> bad = NS(directed=False, weighted=True, nodes=("Oak", "Elm", "Ash"),
    ...          edges=(("Oak", "Elm", 5.0), ("Elm", "Ash", 2.0)))
    >>> s = score_structure(rec, bad)
    >>> s.cls, s.s_inv, s.edge_f1
    ('weight_mismatch', 0.3333333333333333, 0.5)
    >>> score_structure(rec, None).cls
    'parse_failure'
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, Protocol

from closurebench.tasks.grit.answers import NameResolver

if TYPE_CHECKING:
    from closurebench.schema import ClosureInstance, GritInstance

__all__ = [
    "NO_CALL",
    "STRUCTURE_CLASSES",
    "WEIGHT_TOLERANCE",
    "StructureScore",
    "SubmittedGraph",
    "aggregate_structure",
    "score_structure",
]

#: The decomposition classes of GRAIN Table 19, in table order.
STRUCTURE_CLASSES: tuple[str, ...] = (
    "exact",
    "parse_failure",
    "node_mismatch",
    "extra_edges",
    "missing_edges",
    "weight_mismatch",
    "mixed",
)

#: The share :func:`aggregate_structure` reports for episodes without any tool call.
NO_CALL = "no_call"

#: Two weights are equal when they differ by at most this (absolute or relative).
WEIGHT_TOLERANCE = 1e-9

#: A node: its id when the name resolved, else the name as the model wrote it.
_Node = int | str
#: A canonical pair: ordered for a directed truth, sorted for an undirected one.
_Pair = tuple[_Node, _Node]


class SubmittedGraph(Protocol):
    """The graph a model submitted, as parsed (what :class:`~closurebench.tools.types.ToolGraph`
    provides).

    Attributes:
        directed: Whether the model declared its graph directed.
        weighted: Whether the model declared its graph weighted.
        nodes: Every node name, in first-mention order.
        edges: ``(source name, target name, weight or None)`` triples.
    """

    @property
    def directed(self) -> bool: ...

    @property
    def weighted(self) -> bool: ...

    @property
    def nodes(self) -> Sequence[str]: ...

    @property
    def edges(self) -> Sequence[tuple[str, str, float | None]]: ...


@dataclass(frozen=True)
class StructureScore:
    """The structure-recovery scores of one submitted graph.

    Attributes:
        node_f1: F1 of the resolved node set against the ``n`` true nodes.
        edge_f1: F1 of the canonical weighted edge tuples.
        exact: Node sets and weighted edge sets are equal.
        s_inv: Jaccard index of the canonical weighted edge tuples, names aligned
            exactly through the view's name map (GRAIN's ``s_inv``).
        cls: The decomposition class, one of :data:`STRUCTURE_CLASSES`.
        true_nodes: Nodes of the true graph (``n``).
        model_nodes: Distinct nodes of the model's graph after name resolution.
        matched_nodes: Model nodes that are true nodes.
        true_edges: Edge tuples of the true graph.
        model_edges: Distinct canonical edge tuples of the model's graph.
        matched_edges: Model edge tuples that are true edge tuples (weight included).
        unknown_names: Distinct model node names that resolve to no node.
        extra_edges: Model node pairs that are no true edge (any weight).
        missing_edges: True node pairs the model's graph lacks.
        weight_errors: Pairs present in both whose model weight differs from the true one.
        s_inv_casefold: ``s_inv`` with case- and whitespace-insensitive name alignment
            (what ``s_inv`` was before it aligned names exactly); ``None`` in a score read
            from a record written before the field existed.
    """

    node_f1: float
    edge_f1: float
    exact: bool
    s_inv: float
    cls: str
    true_nodes: int = 0
    model_nodes: int = 0
    matched_nodes: int = 0
    true_edges: int = 0
    model_edges: int = 0
    matched_edges: int = 0
    unknown_names: int = 0
    extra_edges: int = 0
    missing_edges: int = 0
    weight_errors: int = 0
    s_inv_casefold: float | None = None

    def __post_init__(self) -> None:
        if self.cls not in STRUCTURE_CLASSES:
            raise ValueError(f"unknown structure class {self.cls!r}")

    def to_json(self) -> dict[str, Any]:
        """The score as a JSON object (every field, by name).

        Example:
            >>> StructureScore(1.0, 1.0, True, 1.0, "exact", true_nodes=2).to_json()["true_nodes"]
            2
        """
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StructureScore:
        """Read back :meth:`to_json`'s object (unknown keys are ignored).

        Raises:
            ValueError: a field is missing or has the wrong type, or the class is unknown.

        Example:
            >>> s = StructureScore(0.5, 0.25, False, 0.2, "mixed", extra_edges=1)
            >>> StructureScore.from_json(s.to_json()) == s
            True
        """
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in data:
                if f.name in ("node_f1", "edge_f1", "exact", "s_inv", "cls"):
                    raise ValueError(f"structure score lacks {f.name!r}")
                continue
            value = data[f.name]
            if f.name == "exact":
                ok = isinstance(value, bool)
            elif f.name == "cls":
                ok = isinstance(value, str)
            elif f.name in ("node_f1", "edge_f1", "s_inv"):
                ok = isinstance(value, int | float) and not isinstance(value, bool)
                value = float(value) if ok else value
            elif f.name == "s_inv_casefold":
                ok = value is None or (
                    isinstance(value, int | float) and not isinstance(value, bool)
                )
                value = float(value) if ok and value is not None else value
            else:
                ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok:
                raise ValueError(f"structure score field {f.name!r} has a bad value {value!r}")
            values[f.name] = value
        return cls(**values)


@dataclass(frozen=True)
class _Names:
    """A label list as a name map without aliases (a ClosureBench record's ``labels``)."""

    names: Sequence[str]
    aliases: Mapping[str, int]


def _as_float(value: Any) -> float | None:
    """A finite weight as a float; anything else (None, a bool, nan, text, an integer
    past the float range) as None.

    Example:
        >>> _as_float(2), _as_float("x"), _as_float(10**400), _as_float(float("inf"))
        (2.0, None, None, None)
    """
    if isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return out if math.isfinite(out) else None


def _sort_key(node: _Node) -> tuple[int, int, str]:
    return (0, node, "") if isinstance(node, int) else (1, 0, node)


def _f1(matched: int, got: int, want: int) -> float:
    """``2·matched / (got + want)``: the F1 of precision ``matched/got`` and recall
    ``matched/want`` (1.0 when both sets are empty)."""
    return 1.0 if got + want == 0 else 2.0 * matched / (got + want)


@dataclass(frozen=True)
class _Truth:
    directed: bool
    weighted: bool
    n: int
    edges: dict[_Pair, float | None]  # canonical pair -> weight (None when unweighted)

    def pair(self, u: _Node, v: _Node) -> _Pair:
        if self.directed:
            return (u, v)
        return (u, v) if _sort_key(u) <= _sort_key(v) else (v, u)


def _truth(record: Any) -> tuple[_Truth, Any]:
    """The true graph of ``record`` and its name map (GRIT names/aliases, or labels)."""
    graph = record.graph
    labels = getattr(record, "labels", None)
    if labels is not None:
        names: Any = _Names(list(labels), {})
        weighted = False
    else:
        names = record
        weighted = bool(getattr(graph, "weighted", False))
    truth = _Truth(bool(graph.directed), weighted, int(graph.n), {})
    for edge in graph.edges:
        u, v = int(edge[0]), int(edge[1])
        w = float(edge[2]) if weighted and len(edge) > 2 else None
        truth.edges[truth.pair(u, v)] = w
    return truth, names


def _weight_equal(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=WEIGHT_TOLERANCE, abs_tol=WEIGHT_TOLERANCE)


def _resolve(
    graph: SubmittedGraph, truth: _Truth, resolve: NameResolver
) -> tuple[set[_Node], set[tuple[_Pair, float | None]], set[str]]:
    """The model graph's nodes, canonical edge tuples and unknown names under ``resolve``."""
    resolved: dict[str, _Node] = {}
    unknown: set[str] = set()

    def node(name: str) -> _Node:
        if name not in resolved:
            nid = resolve(name)
            if nid is None:
                unknown.add(str(name))
                resolved[name] = str(name)
            else:
                resolved[name] = nid
        return resolved[name]

    model_nodes = {node(x) for x in graph.nodes}
    use_weights = truth.weighted and bool(graph.weighted)
    both_ways = truth.directed and not graph.directed
    model_tuples: set[tuple[_Pair, float | None]] = set()
    for src, dst, raw in graph.edges:
        u, v = node(src), node(dst)
        model_nodes.update((u, v))
        weight = _as_float(raw) if use_weights else None
        for a, b in ((u, v), (v, u)) if both_ways and u != v else ((u, v),):
            pair = truth.pair(a, b)
            want = truth.edges.get(pair)
            if weight is not None and want is not None and _weight_equal(weight, want):
                model_tuples.add((pair, want))  # snap to the true weight: sets compare exactly
            else:
                model_tuples.add((pair, weight))
    return model_nodes, model_tuples, unknown


def _jaccard(a: set[Any], b: set[Any]) -> float:
    """``|a ∩ b| / |a ∪ b|`` (1.0 when both are empty)."""
    union = len(a | b)
    return 1.0 if union == 0 else len(a & b) / union


def score_structure(
    record: GritInstance | ClosureInstance, graph: SubmittedGraph | None
) -> StructureScore:
    """Score the graph a model submitted against the record's true graph.

    See the module docstring for the rules (name alignment, direction, weights, the
    decomposition). For a ClosureBench ``graph_comparison`` record only ``record.graph``
    (last year's graph) is compared, never ``graph2``.

    Args:
        record: A GRIT record (``graph`` with ``[u, v, w]`` edges, ``names``,
            ``aliases``) or a ClosureBench record (``graph`` with ``[u, v]`` edges,
            ``labels``); anything with those attributes.
        graph: The model's parsed graph (a :class:`~closurebench.tools.types.ToolGraph`),
            or ``None`` when the call did not parse.

    Returns:
        The :class:`StructureScore`; class ``parse_failure`` with every metric 0 when
        ``graph`` is ``None``.

    Example:
        >>> from types import SimpleNamespace as NS
        >>> rec = NS(labels=["Ann", "Bo", "Cy"],
        ...          graph=NS(directed=True, n=3, edges=[[0, 1], [1, 2]]))
        >>> g = NS(directed=True, weighted=False, nodes=("Ann", "Bo", "Cy"),
        ...        edges=(("Ann", "Bo", None),))
        >>> s = score_structure(rec, g)
        >>> s.cls, s.edge_f1, round(s.s_inv, 3), s.missing_edges
        ('missing_edges', 0.6666666666666666, 0.5, 1)
        >>> g2 = NS(directed=True, weighted=False, nodes=("Ann", "Bob", "Cy"),
        ...         edges=(("Ann", "Bob", None), ("Bob", "Cy", None)))
        >>> s = score_structure(rec, g2)
        >>> s.cls, s.unknown_names, s.matched_nodes, s.s_inv
        ('node_mismatch', 1, 2, 0.0)
    """
    truth, names = _truth(record)
    true_tuples = set(truth.edges.items())
    if graph is None:
        return StructureScore(
            0.0,
            0.0,
            False,
            0.0,
            "parse_failure",
            true_nodes=truth.n,
            true_edges=len(true_tuples),
            s_inv_casefold=0.0,
        )

    model_nodes, model_tuples, unknown = _resolve(graph, truth, NameResolver(names))
    _, exact_tuples, _ = _resolve(graph, truth, NameResolver(names, exact=True))

    true_nodes = set(range(truth.n))
    matched_nodes = len(model_nodes & true_nodes)
    matched_edges = len(model_tuples & true_tuples)
    union = len(model_tuples | true_tuples)
    model_pairs = {p for p, _ in model_tuples}
    extra = len(model_pairs - truth.edges.keys())
    missing = len(truth.edges.keys() - model_pairs)
    weight_errors = len({p for p, w in model_tuples if p in truth.edges and w != truth.edges[p]})
    exact = model_nodes == true_nodes and model_tuples == true_tuples
    if exact:
        cls = "exact"
    elif model_nodes != true_nodes:
        cls = "node_mismatch"
    elif extra and not missing and not weight_errors:
        cls = "extra_edges"
    elif missing and not extra and not weight_errors:
        cls = "missing_edges"
    elif weight_errors and not extra and not missing:
        cls = "weight_mismatch"
    else:
        cls = "mixed"
    return StructureScore(
        node_f1=_f1(matched_nodes, len(model_nodes), truth.n),
        edge_f1=_f1(matched_edges, len(model_tuples), len(true_tuples)),
        exact=exact,
        s_inv=_jaccard(exact_tuples, true_tuples),
        cls=cls,
        true_nodes=truth.n,
        model_nodes=len(model_nodes),
        matched_nodes=matched_nodes,
        true_edges=len(true_tuples),
        model_edges=len(model_tuples),
        matched_edges=matched_edges,
        unknown_names=len(unknown),
        extra_edges=extra,
        missing_edges=missing,
        weight_errors=weight_errors,
        s_inv_casefold=1.0 if union == 0 else matched_edges / union,
    )


def aggregate_structure(scores: Sequence[StructureScore], no_call: int = 0) -> dict[str, Any]:
    """Means and class shares over many scores (GRAIN Tables 6 and 19).

    Args:
        scores: The scores of the episodes that submitted a graph (a parse failure is a
            submitted graph too).
        no_call: Episodes that never called the tool. They count in ``n``, as 0 in every
            mean and in the exact rate, and under their own key :data:`NO_CALL`.

    Returns:
        ``{"n", "node_f1", "edge_f1", "s_inv", "s_inv_casefold", "exact_rate", "counts",
        "shares"}``: the means of node-F1, edge-F1, ``s_inv`` and ``s_inv_casefold`` (a
        score read from an older record, without ``s_inv_casefold``, adds its ``s_inv``:
        older records aligned names that way) and the exact rate as fractions in [0, 1]
        (nan when ``n`` is 0), the count per class, and the share per class in percent
        (keys: :data:`STRUCTURE_CLASSES` then :data:`NO_CALL`; they sum to 100).

    Example:
        >>> ok = StructureScore(1.0, 1.0, True, 1.0, "exact")
        >>> half = StructureScore(1.0, 0.5, False, 1 / 3, "missing_edges")
        >>> agg = aggregate_structure([ok, half, ok], no_call=1)
        >>> agg["n"], agg["edge_f1"], agg["exact_rate"]
        (4, 0.625, 0.5)
        >>> agg["shares"]["exact"], agg["shares"]["missing_edges"], agg["shares"]["no_call"]
        (50.0, 25.0, 25.0)
        >>> import math; math.isnan(aggregate_structure([])["s_inv"])
        True
    """
    n = len(scores) + no_call
    counts = dict.fromkeys((*STRUCTURE_CLASSES, NO_CALL), 0)
    for s in scores:
        counts[s.cls] += 1
    counts[NO_CALL] += no_call

    def mean(values: list[float]) -> float:
        return math.fsum(values) / n if n else math.nan

    return {
        "n": n,
        "node_f1": mean([s.node_f1 for s in scores]),
        "edge_f1": mean([s.edge_f1 for s in scores]),
        "s_inv": mean([s.s_inv for s in scores]),
        "s_inv_casefold": mean(
            [s.s_inv if s.s_inv_casefold is None else s.s_inv_casefold for s in scores]
        ),
        "exact_rate": mean([1.0 for s in scores if s.exact]),
        "counts": counts,
        "shares": {k: (100.0 * v / n if n else math.nan) for k, v in counts.items()},
    }
