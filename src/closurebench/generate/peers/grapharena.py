"""GraphArena (Tang et al., 2024): read its ``{Task}_{easy|hard}.pkl`` files into peer items.

GraphArena's ``NPTask.save_dataset`` pickles one list per task and difficulty into
``{Task}_{difficulty}.pkl`` (``tasks/base.py``); each problem is a dict with ``id``,
``problem_text`` (the question), ``graph`` (a ``networkx.Graph`` whose nodes carry a
``name``), ``exact_answer`` and ``path`` (the exact solver's solution), and, for
``Distance``, ``source`` and ``target`` (``tasks/TSP.py``, ``tasks/MVC.py``,
``tasks/Distance.py``). ``{Task}_examples.pkl`` holds the few-shot example texts (not
problems) and is not read. GraphArena publishes no JSON with graphs or answers (its
``GraphArena_all.json`` holds questions and model responses only), so only the pickles
are read.

**A pickle is not trusted.** :func:`load_pickle` unpickles with :class:`SafeUnpickler`,
whose ``find_class`` hands out only the objects in :data:`ALLOWED_GLOBALS` (what pickles
of networkx graphs, their cached views and induced-subgraph views refer to, under every
pickle protocol) and refuses every other global before anything is called: a file that
names ``os.system`` (or any class outside the list) is refused with one error naming the
file and the global, and nothing in it runs.

The graph is read from ``graph`` (node ``i`` is the ``i``-th node of the networkx graph,
named by its ``name`` attribute, the order the question lists them in), and checked
against the question text: every name and every edge (with its weight for TSP) must
appear in ``problem_text``, which becomes the record's question unchanged.

Task mapping (told from the file name, confirmed by the question's opening):

==========  ==================  ===================================================
GraphArena  GRIT task           imported
==========  ==================  ===================================================
TSP         ``tsp``             yes: complete, weighted, undirected; a closed tour
MVC         ``vertex_cover``    yes: unweighted, undirected; answer = cover size
Distance    ``shortest_path``   yes: unweighted (hops), undirected; answer = hops
Connected   none                skipped (counted): no GRIT task poses it
Diameter    none                skipped (counted)
GED, MCS    none                skipped (counted): two graphs, no GRIT task
MCP, MIS    none                skipped (counted)
Neighbor    none                skipped (counted)
==========  ==================  ===================================================

Items whose semantics differ from the GRIT task's are skipped with the reason, never
imported wrongly: a directed graph (GraphArena's questions say undirected), a self-loop,
an incomplete TSP graph or a weight that is not an integer >= 1, a Distance target the
source cannot reach. A file of a task no GRIT task poses whose pickle holds a refused
global (GED's molecules may carry RDKit bond types) is skipped whole, still unrun.

Example:
    >>> import networkx as nx
    >>> g = nx.Graph()
    >>> g.add_nodes_from([(7, {"name": "Ann"}), (3, {"name": "Bo"}), (5, {"name": "Cy"})])
    >>> g.add_edges_from([(7, 3), (3, 5)])
    >>> q = ("Your task is to solve the Minimum Vertex Cover problem in the given social "
    ...      "network.\\n- Users in the network: Ann, Bo, Cy.\\n"
    ...      "- Fiendship connections: Ann and Bo, Bo and Cy.")
    >>> item = read_item("MVC", "easy", {"id": 0, "problem_text": q, "graph": g,
    ...                  "exact_answer": 1, "path": {3}}, "MVC_easy.pkl", "MVC_easy.pkl: item 0", 0)
    >>> item.structure.edges, item.names, item.reference.certificate
    (((0, 1, 1), (1, 2, 1)), ('Ann', 'Bo', 'Cy'), [1])
"""

from __future__ import annotations

import copyreg
import hashlib
import io
import pickle
import re
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
from networkx.classes import coreviews, filters, function, reportviews

from closurebench.errors import ConfigError, DatasetFileError, GraphError
from closurebench.generate.peers.base import (
    PeerItem,
    ReadResult,
    Reference,
    Skipped,
    id_part,
    input_files,
)
from closurebench.structures.grit import GritStructure
from closurebench.tasks.grit import GRIT_TASKS

__all__ = [
    "ALLOWED_GLOBALS",
    "MAPPING",
    "TASKS",
    "ArenaTask",
    "RefusedGlobal",
    "SafeUnpickler",
    "load_pickle",
    "read_grapharena",
    "read_item",
]

_FIELDS = ("problem_text", "graph", "exact_answer", "path")

#: The only globals a GraphArena pickle may name: ``(module, name)`` -> the object.
#: Found by pickling networkx graphs (plain, with their cached ``nodes``/``edges``/``adj``/
#: degree views, induced-subgraph views as GraphArena's MVC stores them, directed) under
#: protocols 0-5 and reading the globals (``tests/peers/test_peer_grapharena.py`` checks
#: that list). ``copyreg._reconstructor`` and ``builtins.object`` serve protocols 0 and 1,
#: ``builtins.set``/``frozenset`` protocols below 4; dicts, lists and tuples need none.
ALLOWED_GLOBALS: dict[tuple[str, str], Any] = {
    ("networkx.classes.graph", "Graph"): nx.Graph,
    ("networkx.classes.digraph", "DiGraph"): nx.DiGraph,
    ("networkx.classes.reportviews", "NodeView"): reportviews.NodeView,
    ("networkx.classes.reportviews", "EdgeView"): reportviews.EdgeView,
    ("networkx.classes.reportviews", "OutEdgeView"): reportviews.OutEdgeView,
    ("networkx.classes.reportviews", "InEdgeView"): reportviews.InEdgeView,
    ("networkx.classes.reportviews", "DegreeView"): reportviews.DegreeView,
    ("networkx.classes.reportviews", "DiDegreeView"): reportviews.DiDegreeView,
    ("networkx.classes.reportviews", "InDegreeView"): reportviews.InDegreeView,
    ("networkx.classes.reportviews", "OutDegreeView"): reportviews.OutDegreeView,
    ("networkx.classes.coreviews", "AdjacencyView"): coreviews.AdjacencyView,
    ("networkx.classes.coreviews", "FilterAtlas"): coreviews.FilterAtlas,
    ("networkx.classes.coreviews", "FilterAdjacency"): coreviews.FilterAdjacency,
    ("networkx.classes.filters", "show_nodes"): filters.show_nodes,
    ("networkx.classes.filters", "no_filter"): filters.no_filter,
    ("networkx.classes.function", "frozen"): function.frozen,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "object"): object,
    ("copyreg", "_reconstructor"): copyreg._reconstructor,  # type: ignore[attr-defined]
}

#: Python 2 module names that protocols 0-2 write for the builtins above.
_PY2_MODULES = {"__builtin__": "builtins", "copy_reg": "copyreg"}


class RefusedGlobal(pickle.UnpicklingError):
    """A pickle names a global outside :data:`ALLOWED_GLOBALS` (nothing was called).

    Attributes:
        name: The refused global, ``module.name``.
    """

    def __init__(self, name: str) -> None:
        super().__init__(f"refused global {name}")
        self.name = name


class SafeUnpickler(pickle.Unpickler):
    """An unpickler that resolves only :data:`ALLOWED_GLOBALS` (and never imports).

    Example:
        >>> import pickle, networkx as nx
        >>> SafeUnpickler(io.BytesIO(pickle.dumps(nx.path_graph(3)))).load().number_of_edges()
        2
        >>> import collections
        >>> SafeUnpickler(io.BytesIO(pickle.dumps(collections.Counter))).load()
        Traceback (most recent call last):
        ...
        closurebench.generate.peers.grapharena.RefusedGlobal: refused global collections.Counter
    """

    def find_class(self, module: str, name: str) -> Any:
        """The allowed object ``module.name``; anything else raises :class:`RefusedGlobal`."""
        key = (_PY2_MODULES.get(module, module), name)
        if key not in ALLOWED_GLOBALS:
            raise RefusedGlobal(f"{key[0]}.{key[1]}")
        return ALLOWED_GLOBALS[key]


def _unpickle(data: bytes) -> Any:
    """``data`` unpickled by :class:`SafeUnpickler` (RefusedGlobal passes through)."""
    return SafeUnpickler(io.BytesIO(data)).load()


def _refused(file: Path, exc: RefusedGlobal) -> DatasetFileError:
    return DatasetFileError(
        f"{file}: refused to unpickle global {exc.name}: a GraphArena file holds only "
        "networkx graphs and plain Python data, so this file is not one and nothing in it "
        "was run; pass GraphArena's dataset/{Task}_{easy|hard}.pkl files"
    )


def _unreadable(file: Path, exc: Exception) -> DatasetFileError:
    return DatasetFileError(
        f"{file}: not a readable pickle ({type(exc).__name__}: {str(exc)[:120]}); pass "
        "GraphArena's dataset/{Task}_{easy|hard}.pkl files as published"
    )


def load_pickle(file: Path) -> Any:
    """The value pickled in ``file``, unpickled safely (:class:`SafeUnpickler`).

    Raises:
        DatasetFileError: the file names a global outside :data:`ALLOWED_GLOBALS` (naming
            the file and the global; nothing was run), or is not a readable pickle.
    """
    data = file.read_bytes()
    try:
        return _unpickle(data)
    except RefusedGlobal as exc:
        raise _refused(file, exc) from None
    except Exception as exc:  # a parse boundary: any failure of untrusted bytes
        raise _unreadable(file, exc) from None


_FILE = re.compile(r"(?P<task>[A-Za-z]+)(?:_(?P<level>[A-Za-z0-9]+))?\.pkl")


def _file_task(file: Path) -> tuple[str, str | None]:
    """``(task, difficulty)`` told by a GraphArena file's name (``TSP_easy.pkl``).

    Example:
        >>> _file_task(Path("dataset/MVC_hard.pkl")), _file_task(Path("GED.pkl"))
        (('MVC', 'hard'), ('GED', None))
    """
    m = _FILE.fullmatch(file.name)
    if m is None or m.group("task") not in MAPPING:
        raise DatasetFileError(
            f"{file}: {file.name!r} is not a GraphArena dataset file name; GraphArena saves "
            f"{{Task}}_{{easy|hard}}.pkl with Task one of {', '.join(MAPPING)}: pass those "
            "files (or the folder holding only them)"
        )
    return m.group("task"), m.group("level")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _plain(x: Any) -> Any:
    """``x`` as JSON-ready data for the report (sets sorted; other objects as ``repr``)."""
    if x is None or isinstance(x, bool | int | str):
        return x
    if isinstance(x, float):
        return x if x == x and abs(x) != float("inf") else repr(x)
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, set | frozenset):
        return sorted((_plain(v) for v in x), key=repr)
    return repr(x)[:200]


class _Semantics(Exception):
    """An item whose graph or question differs from the GRIT task's (skipped with why)."""


def _names(g: nx.Graph, question: str) -> tuple[list[Any], list[str]]:
    """The graph's nodes in order and their names (distinct, each in the question)."""
    nodes = list(g.nodes)
    names = []
    for v in nodes:
        name = g.nodes[v].get("name")
        if not isinstance(name, str) or not name.strip():
            raise GraphError(f"node {v!r} has no 'name' text")
        names.append(name)
    folded = [" ".join(x.split()).casefold() for x in names]
    seen: set[str] = set()
    for x, f in zip(names, folded, strict=True):
        if f in seen:
            raise GraphError(f"two nodes are named {x!r}; the question cannot tell them apart")
        seen.add(f)
    absent = next((x for x in names if x not in question), None)
    if absent is not None:
        raise GraphError(f"node {absent!r} does not appear in 'problem_text'")
    return nodes, names


def _edges(
    spec: ArenaTask, g: nx.Graph, index: Mapping[Any, int], names: list[str], question: str
) -> list[tuple[int, int, int]]:
    """The edges in node ids (weights for TSP, else 1), each checked against the question."""
    lines = set(question.splitlines())
    out = []
    for u, v, data in g.edges(data=True):
        a, b = names[index[u]], names[index[v]]
        w = spec.weight(a, b, data)
        if not spec.states_edge(a, b, w, question, lines):
            raise GraphError(f"the edge {a} - {b} of 'graph' is not stated in 'problem_text'")
        out.append((index[u], index[v], w))
    stated = spec.count_edges(question.splitlines())
    if stated is not None and stated != len(out):
        raise GraphError(
            f"'problem_text' states {stated} edges but 'graph' has {len(out)}; the question "
            "and the graph disagree"
        )
    return out


def _reachable(n: int, edges: list[tuple[int, int, int]], s: int, t: int) -> bool:
    adj: list[list[int]] = [[] for _ in range(n)]
    for u, v, _ in edges:
        adj[u].append(v)
        adj[v].append(u)
    seen, queue = {s}, deque([s])
    while queue:
        u = queue.popleft()
        for v in adj[u]:
            if v not in seen:
                seen.add(v)
                queue.append(v)
    return t in seen


Edges = list[tuple[int, int, int]]


def _unit_weight(a: str, b: str, data: Mapping[str, Any]) -> int:
    """Every edge of an unweighted task weighs 1 (a ``weight`` attribute is not read)."""
    return 1


def _tsp_weight(a: str, b: str, data: Mapping[str, Any]) -> int:
    """A TSP edge's distance.

    Raises:
        _Semantics: it is not an integer >= 1.
    """
    w: Any = data.get("weight")
    if not _is_int(w) or w < 1:
        raise _Semantics(f"edge {a} - {b} has weight {w!r}; GRIT's TSP distances are integers >= 1")
    return w


def _tsp_states(a: str, b: str, w: int, question: str, lines: set[str]) -> bool:
    return f"{a} to {b}: {w}" in lines or f"{b} to {a}: {w}" in lines


def _mvc_states(a: str, b: str, w: int, question: str, lines: set[str]) -> bool:
    return f"{a} and {b}" in question or f"{b} and {a}" in question


def _distance_states(a: str, b: str, w: int, question: str, lines: set[str]) -> bool:
    return f"{a} is connected to {b} via" in question or f"{b} is connected to {a} via" in question


_TSP_LINE = re.compile(r".+ to .+: -?\d+")
_MVC_LINE = re.compile(r"- \w+ connections: (.*)\.")


def _tsp_count(lines: list[str]) -> int | None:
    """How many distance lines the question states."""
    return sum(1 for x in lines if _TSP_LINE.fullmatch(x))


def _mvc_count(lines: list[str]) -> int | None:
    """How many pairs the one connections line states (None: no single such line)."""
    found = [m.group(1) for x in lines if (m := _MVC_LINE.fullmatch(x))]
    return len(found[0].split(", ")) if len(found) == 1 and found[0] else None


def _distance_count(lines: list[str]) -> int | None:
    """How many relationship lines the question states."""
    return sum(1 for x in lines if x.startswith(" - ") and " is connected to " in x)


def _no_params(
    value: Mapping[str, Any],
    index: Mapping[Any, int],
    names: list[str],
    question: str,
    edges: Edges,
) -> dict[str, int]:
    return {}


def _source_target(
    value: Mapping[str, Any],
    index: Mapping[Any, int],
    names: list[str],
    question: str,
    edges: Edges,
) -> dict[str, int]:
    """``source`` and ``target`` in node ids, checked against the question.

    Raises:
        GraphError: one is missing or not a node, or the question asks for another pair.
        _Semantics: the target cannot be reached from the source.
    """
    params: dict[str, int] = {}
    for key in ("source", "target"):
        if key not in value:
            raise GraphError(f"field {key!r} is missing")
        try:
            params[key] = index[value[key]]
        except (KeyError, TypeError):
            raise GraphError(f"{key!r} {value[key]!r} is not a node of the graph") from None
    src, dst = names[params["source"]], names[params["target"]]
    if f"between {src} and {dst}" not in question:
        raise GraphError(f"'problem_text' does not ask for the path from {src} to {dst}")
    if not _reachable(len(names), edges, params["source"], params["target"]):
        raise _Semantics(f"{dst} cannot be reached from {src}; GRIT's targets are reachable")
    return params


@dataclass(frozen=True)
class ArenaTask:
    """How the problems of one imported GraphArena task are read.

    Attributes:
        name: GraphArena's task (its class name without ``_Task``; the file name's).
        ours: The GRIT task it poses.
        opening: What the opening of its ``problem_text`` says (confirms the task).
        scenario: The scenario its questions tell.
        weighted: Whether its graphs are read weighted.
        weight: ``weight(a, b, data)``: an edge's weight (raises ``_Semantics``).
        states_edge: ``states_edge(a, b, w, question, lines)``: whether the question states
            the edge.
        count_edges: ``count_edges(lines)``: how many edges the question's edge list
            states (None: it cannot be counted).
        params: ``params(value, index, names, question, edges)``: the query parameters in
            node ids (raises ``GraphError`` or ``_Semantics``).
        path_is_set: Whether ``path`` is a set (a cover: any order, stored sorted) rather
            than a sequence.
    """

    name: str
    ours: str
    opening: str
    scenario: str
    weighted: bool
    weight: Callable[[str, str, Mapping[str, Any]], int]
    states_edge: Callable[[str, str, int, str, set[str]], bool]
    count_edges: Callable[[list[str]], int | None]
    params: Callable[
        [Mapping[str, Any], Mapping[Any, int], list[str], str, Edges], dict[str, int]
    ] = _no_params
    path_is_set: bool = False


#: GraphArena task -> how its problems are read (the tasks a GRIT task poses).
TASKS: Mapping[str, ArenaTask] = {
    t.name: t
    for t in (
        ArenaTask(
            "TSP",
            "tsp",
            "Travelling Salesman Problem",
            "flight-routes",
            True,
            _tsp_weight,
            _tsp_states,
            _tsp_count,
        ),
        ArenaTask(
            "MVC",
            "vertex_cover",
            "Minimum Vertex Cover problem",
            "social-network",
            False,
            _unit_weight,
            _mvc_states,
            _mvc_count,
            path_is_set=True,
        ),
        ArenaTask(
            "Distance",
            "shortest_path",
            "shortest path between two specified entities",
            "knowledge-graph",
            False,
            _unit_weight,
            _distance_states,
            _distance_count,
            params=_source_target,
        ),
    )
}

#: GraphArena's tasks that no GRIT task poses (their problems are skipped, counted).
_UNPOSED = ("Connected", "Diameter", "GED", "MCP", "MCS", "MIS", "Neighbor")

#: GraphArena task -> our GRIT task (None: skipped).
MAPPING: dict[str, str | None] = {
    **{t.name: t.ours for t in TASKS.values()},
    **dict.fromkeys(_UNPOSED),
}


#: The views a networkx graph caches in its ``__dict__`` (a pickle carries them along).
_CACHED_VIEWS = (
    "nodes",
    "edges",
    "adj",
    "degree",
    "succ",
    "pred",
    "in_edges",
    "out_edges",
    "in_degree",
    "out_degree",
)


def _fresh(g: nx.Graph) -> nx.Graph:
    """``g`` with the cached views its pickle carried dropped (rebuilt from its data).

    A pickle from another networkx version (or a crafted one) may carry views that do not
    match the graph's own ``_node``/``_adj``; only those are read. A pickle from before
    networkx 3.3 has no ``__networkx_cache__``; an empty one is given.
    """
    state = vars(g)
    for name in _CACHED_VIEWS:
        state.pop(name, None)
    if not isinstance(state.get("__networkx_cache__"), dict):
        state["__networkx_cache__"] = {}
    return g


def _structure(
    spec: ArenaTask, value: Mapping[str, Any], question: str
) -> tuple[GritStructure, list[Any], list[str]]:
    """The GRIT structure of an item, its nodes in order and their names.

    Raises:
        _Semantics: the item poses another problem than the GRIT task.
        GraphError: the graph or the question cannot be read, or they disagree.
    """
    g = value["graph"]
    if isinstance(g, nx.DiGraph):
        raise _Semantics("the graph is directed; GraphArena's questions and GRIT's task are not")
    if type(g) is not nx.Graph:
        raise GraphError(f"'graph' is a {type(g).__name__}, not a networkx Graph")
    g = _fresh(g)
    if spec.opening not in question:
        raise GraphError(f"'problem_text' is not GraphArena's {spec.name} question")
    if nx.number_of_selfloops(g):
        raise _Semantics("the graph has a self-loop; GRIT's graphs have none")
    nodes, names = _names(g, question)
    if not nodes:
        raise GraphError("the graph has no nodes")
    index = {v: i for i, v in enumerate(nodes)}
    edges = _edges(spec, g, index, names, question)
    params = spec.params(value, index, names, question, edges)
    ours = GRIT_TASKS[spec.ours]
    try:
        s = ours.structure(len(nodes), False, spec.weighted, edges, params)
    except GraphError as exc:
        if ours.complete and "complete" in str(exc):
            raise _Semantics(str(exc)) from None
        raise
    except ConfigError as exc:
        raise GraphError(str(exc)) from None
    return s, nodes, names


def _reference(spec: ArenaTask, value: Mapping[str, Any], index: Mapping[Any, int]) -> Reference:
    """The peer's ``exact_answer`` and ``path`` (in node ids), or why they cannot be read."""
    answer, path = value.get("exact_answer"), value.get("path")
    raw = {"exact_answer": _plain(answer), "path": _plain(path)}
    if not _is_int(answer):
        return Reference(raw=raw, problem=f"'exact_answer' is {answer!r:.40}, not an integer")
    if path is None:
        return Reference(value=answer, raw=raw)
    kinds = (set, frozenset, list, tuple) if spec.path_is_set else (list, tuple)
    if not isinstance(path, kinds):
        return Reference(raw=raw, problem=f"'path' is a {type(path).__name__}, not a node list")
    ids = []
    for v in path:
        try:
            ids.append(index[v])
        except (KeyError, TypeError):
            return Reference(raw=raw, problem=f"'path' names {v!r:.40}, not a node of the graph")
    return Reference(value=answer, certificate=sorted(ids) if spec.path_is_set else ids, raw=raw)


def read_item(
    task: str, level: str | None, value: Any, name: str, where: str, position: int
) -> PeerItem | Skipped:
    """One GraphArena problem as a peer item, or why it is skipped.

    Args:
        task: The GraphArena task (a key of :data:`MAPPING`).
        level: ``easy``/``hard`` (None when the file name has none).
        value: The problem (a dict of the pickled list).
        name: The file's name (relative to the input).
        where: The file and item, for messages.
        position: The item's position in its file (used when it has no integer ``id``).
    """
    spec = TASKS.get(task)
    if spec is None:
        return Skipped(where, task, "no GRIT task", f"no GRIT task poses GraphArena's {task}")
    if not isinstance(value, Mapping):
        return Skipped(where, task, "unreadable", f"a problem is a dict, not {value!r:.40}")
    missing = [k for k in _FIELDS if k not in value]
    if missing:
        return Skipped(where, task, "unreadable", f"field {missing[0]!r} is missing")
    question = value["problem_text"]
    if not isinstance(question, str) or not question.strip():
        return Skipped(where, task, "unreadable", "'problem_text' is not the question text")
    try:
        s, nodes, names = _structure(spec, value, question)
    except _Semantics as exc:
        return Skipped(where, task, "unreadable", f"semantics differ: {exc}")
    except GraphError as exc:
        return Skipped(where, task, "unreadable", str(exc))
    except (TypeError, ValueError, KeyError, AttributeError, nx.NetworkXException) as exc:
        return Skipped(where, task, "unreadable", f"the graph object is malformed: {exc!s:.80}")
    key = value.get("id")
    key = key if _is_int(key) else position
    stem = name[: -len(".pkl")]
    return PeerItem(
        where=where,
        origin=f"{name}#{key}",
        key=f"{id_part(stem)}-{key}",
        peer_task=task,
        structure=s,
        names=tuple(names),
        question=question,
        form="realistic",
        naming="semantic",
        scenario=f"grapharena/{spec.scenario}" + (f"/{level}" if level else ""),
        reference=_reference(spec, value, {v: i for i, v in enumerate(nodes)}),
    )


def read_grapharena(path: Path) -> ReadResult:
    """Read a copy of GraphArena (a ``{Task}_{easy|hard}.pkl`` file, or a folder of them).

    Raises:
        DatasetFileError: a file that is not a GraphArena dataset pickle, or one of an
            imported task that names a global outside :data:`ALLOWED_GLOBALS` (naming the
            file and the global; nothing in it was run).
    """
    if path.is_file() and path.name.endswith(".json"):
        raise DatasetFileError(
            f"{path}: GraphArena's JSON (GraphArena_all.json) holds questions and model "
            "responses, no graphs or reference answers; pass its dataset/{Task}_{easy|hard}.pkl "
            "files"
        )
    out = ReadResult()
    for file, name in input_files(path, (".pkl",), "GraphArena"):
        task, level = _file_task(file)
        if level == "examples":
            continue  # few-shot example texts, not problems
        data = file.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        try:
            problems = _unpickle(data)
        except RefusedGlobal as exc:
            if task in TASKS:
                raise _refused(file, exc) from None
            out.skipped.append(
                Skipped(
                    name,
                    task,
                    "no GRIT task",
                    f"no GRIT task poses GraphArena's {task}; the file was not read (it "
                    f"names {exc.name}, which the safe unpickler refuses)",
                )
            )
            out.files.append((name, digest, 0))
            continue
        except Exception as exc:  # a parse boundary: any failure of untrusted bytes
            raise _unreadable(file, exc) from None
        if not isinstance(problems, list):
            raise DatasetFileError(
                f"{file}: a GraphArena file holds a list of problems, not a "
                f"{type(problems).__name__}; pass GraphArena's {{Task}}_{{easy|hard}}.pkl files"
            )
        if problems and not any(
            isinstance(p, Mapping) and "problem_text" in p and "graph" in p for p in problems
        ):
            raise DatasetFileError(
                f"{file}: item 0 has no 'problem_text' and 'graph' (not a GraphArena problem "
                "list); pass GraphArena's {Task}_{easy|hard}.pkl files"
            )
        for i, value in enumerate(problems):
            got = read_item(task, level, value, name, f"{name}: item {i}", i)
            (out.skipped if isinstance(got, Skipped) else out.items).append(got)  # type: ignore[arg-type]
        out.files.append((name, digest, len(problems)))
    return out
