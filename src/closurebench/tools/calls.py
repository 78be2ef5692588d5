"""Parse and validate a GRAIN tool call (paper Table 12) into a :class:`ToolCall`.

The call is the JSON object a model writes inside ``<graph>…</graph>``::

    {"problem_type": "shortest_path",
     "graph": {"type": "adjacency_list",
               "data": {"A": {"B": 7, "C": 2}, "B": {}, "C": {"B": 1}},
               "directed": false, "weighted": true},
     "parameters": {"start": "A", "end": "B", "algorithm": "dijkstra"}}

What is accepted:

* the text may carry surrounding whitespace, the ``<graph>`` tags themselves, or a
  Markdown code fence (```` ```json … ``` ````); a ``dict`` is accepted as well;
* ``graph.data`` maps each node to ``{neighbour: weight}``, or to a list of neighbours
  (``["B", "C"]``; for a weighted graph a list of ``["B", 7]`` pairs); nodes that appear
  only as neighbours are nodes too; node names are kept exactly as written (a JSON key is
  always a string; an integer neighbour in a list, or an integer key of a ``dict`` call,
  is taken as its decimal text);
* weights are numbers or numeric strings (``7``, ``"7"``, ``"7.5"``), finite and
  ``>= 0``; ``"7 km"`` is refused (the message says to drop the unit); with
  ``"weighted": false`` every weight is ignored (the edges carry ``None``);
* an undirected edge may be listed once or from both ends (same weight; different
  weights are an error naming both places); self-loops are errors;
* ``graph.type`` may be left out; when given it must be ``"adjacency_list"``;
* ``parameters`` may be left out; parameter names accept synonyms
  (:data:`~closurebench.tools.names.PARAM_SYNONYMS`); ``algorithm`` is recorded, never
  required; parameters a problem does not use are ignored and named in a note.

Anything else raises :class:`~closurebench.tools.errors.ToolError` naming the field by its
path (``graph.data["A"]["B"]``), what was expected, what was found and the fix.

Example:
    >>> call = parse_call('''```json
    ... {"problem_type": "Shortest Path",
    ...  "graph": {"type": "adjacency_list", "data": {"A": {"B": "7"}, "B": {"C": 2}},
    ...            "directed": false, "weighted": true},
    ...  "parameters": {"source": "A", "to": "C", "algorithm": "dijkstra"}}
    ... ```''')
    >>> call.problem_type, call.algorithm, call.graph.nodes, call.graph.edges
    ('shortest_path', 'dijkstra', ('A', 'B', 'C'), (('A', 'B', 7), ('B', 'C', 2)))
    >>> call.params["start"], call.params["end"]
    (('source', 'A'), ('to', 'C'))
    >>> parse_call('{"problem_type": "bfs", "graph": {"data": {"A": ["B"]}, "directed": "yes"}}')
    Traceback (most recent call last):
    ...
    closurebench.tools.errors.ToolError: graph.directed must be true or false
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from closurebench.tools.errors import ToolError, describe, quote
from closurebench.tools.limits import ToolLimits
from closurebench.tools.names import PARAM_BY_NAME, PARAM_SYNONYMS, normalize
from closurebench.tools.nodes import match_node
from closurebench.tools.problems import PROBLEM_SYNONYMS, PROBLEM_TYPES, resolve_problem_type
from closurebench.tools.types import ToolCall, ToolEdge, ToolGraph

# ToolCall (defined in types) and match_node (in nodes) stay importable from here.
__all__ = [
    "ToolCall",
    "load_call",
    "match_node",
    "parse_call",
    "parse_graph",
    "parse_parameters",
    "parse_problem_type",
    "read_call",
    "tool_json_schema",
]

Number = int | float


class _Obj(dict[str, Any]):
    """A JSON object that remembers keys it saw more than once (JSON keeps only the last)."""

    dups: list[str]


def _pairs_hook(pairs: list[tuple[str, Any]]) -> _Obj:
    obj = _Obj()
    obj.dups = []
    for key, value in pairs:
        if key in obj and key not in obj.dups:
            obj.dups.append(key)
        obj[key] = value
    return obj


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _key_path(base: str, key: str) -> str:
    return f"{base}[{quote(key)}]"


def _check_dups(obj: Mapping[Any, Any], path: str) -> None:
    dups = getattr(obj, "dups", None)
    if dups:
        where = path or "the call"
        raise ToolError(
            "schema",
            f"{where} gives the key {quote(dups[0])} more than once",
            path=_key_path(path, dups[0]) if path else dups[0],
            expected="each key once per object",
            got=f"{quote(dups[0])} repeated",
            fix="merge the repeated entries into one (JSON keeps only the last copy)",
        )


_FENCE_TAG = re.compile(r"[A-Za-z0-9_+-]*")


def _strip_wrappers(text: str) -> str:
    r"""Drop surrounding whitespace, ``<graph>`` tags and a Markdown fence (linear time).

    Example:
        >>> _strip_wrappers(' <graph>```json\n{"a": 1}\n```</graph> ')
        '{"a": 1}'
    """
    text = text.strip()
    if text.startswith("<graph>") and text.endswith("</graph>") and len(text) >= 15:
        text = text[7:-8].strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        inner = text[3:-3]
        tag = _FENCE_TAG.match(inner)
        text = inner[tag.end() if tag else 0 :].strip()
    return text


def _json_fix(msg: str, text: str) -> str:
    if "property name enclosed in double quotes" in msg:
        return (
            "write keys in double quotes (\"start\", not start or 'start') and drop any "
            "trailing comma before }"
        )
    if msg.startswith("Extra data"):
        return "send exactly one JSON object per <graph> call, with nothing after it"
    if re.search(r"\b(True|False|None)\b", text):
        return "write true, false and null in lower case (JSON, not Python)"
    if "'" in text and '"' not in text:
        return "JSON strings need double quotes, not single quotes"
    return (
        "send one JSON object: double-quoted keys and strings, commas between items, "
        "no trailing commas, no comments"
    )


def load_call(call: object, limits: ToolLimits | None = None) -> Mapping[str, Any]:
    """The call's top-level JSON object, from text (str or UTF-8 bytes) or a mapping.

    Raises:
        ToolError: ``invalid_json`` (unparseable, empty, NaN/Infinity, not UTF-8),
            ``too_large`` (text over ``limits.max_chars``), ``schema`` (not an object).

    Example:
        >>> load_call(' <graph>{"problem_type": "bfs"}</graph> ')
        {'problem_type': 'bfs'}
        >>> load_call("{'problem_type': 'bfs'}")
        Traceback (most recent call last):
        ...
        closurebench.tools.errors.ToolError: invalid JSON at line 1, column 2
    """
    limits = limits or ToolLimits()
    if isinstance(call, Mapping):
        _check_dups(call, "")
        return call
    if isinstance(call, bytes | bytearray):
        if len(call) > 4 * limits.max_chars:
            raise _too_many_chars(len(call), limits)
        try:
            call = bytes(call).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(
                "invalid_json",
                f"the call is not UTF-8 text (byte {exc.start} cannot be decoded)",
                fix="send the JSON object as UTF-8 text",
            ) from None
    if not isinstance(call, str):
        raise ToolError(
            "schema",
            "the call must be a JSON object (text) or a mapping",
            expected="a JSON object",
            got=describe(call),
            fix='send {"problem_type": ..., "graph": {...}, "parameters": {...}}',
        )
    if len(call) > limits.max_chars:
        raise _too_many_chars(len(call), limits)
    text = _strip_wrappers(call)
    if not text:
        raise ToolError(
            "invalid_json",
            "the call is empty",
            expected="a JSON object inside <graph>…</graph>",
            got="nothing",
            fix='write {"problem_type": ..., "graph": {...}, "parameters": {...}}',
        )
    try:
        obj = json.loads(text, object_pairs_hook=_pairs_hook, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        lo, hi = max(exc.pos - 25, 0), exc.pos + 25
        near = text[lo:hi].replace("\n", " ")
        raise ToolError(
            "invalid_json",
            f"invalid JSON at line {exc.lineno}, column {exc.colno}",
            expected="valid JSON",
            got=f"{exc.msg[:1].lower()}{exc.msg[1:]} (near `{near}`)",
            fix=_json_fix(exc.msg, text),
        ) from None
    except RecursionError:
        raise ToolError(
            "invalid_json",
            "the JSON is nested too deeply to read",
            expected="a call nested a few levels deep",
            got="brackets nested hundreds of levels deep",
            fix="send the flat call object of the schema",
        ) from None
    except ValueError as exc:  # NaN/Infinity, integers beyond Python's digit limit
        raise ToolError(
            "invalid_json",
            f"the JSON cannot be read: {exc}",
            expected="finite numbers written in decimal",
            got="NaN, Infinity or a number too long to read",
            fix="write every weight as an ordinary finite number",
        ) from None
    if not isinstance(obj, Mapping):
        raise ToolError(
            "schema",
            "the call must be a JSON object",
            expected='an object {"problem_type": ..., "graph": ..., "parameters": ...}',
            got=describe(obj),
            fix="wrap the call in one {...} object with those keys",
        )
    _check_dups(obj, "")
    return obj


def _too_many_chars(count: int, limits: ToolLimits) -> ToolError:
    return ToolError(
        "too_large",
        "the call is too long",
        expected=f"at most {limits.max_chars:,} characters",
        got=f"{count:,}",
        fix=f"send a graph of at most {limits.max_nodes} nodes and {limits.max_edges:,} edges",
    )


def _node_name(raw: object, path: str, what: str, limits: ToolLimits) -> str:
    """A node name from a JSON key or list item: a string, or an integer's decimal text."""
    if isinstance(raw, int) and not isinstance(raw, bool) and raw.bit_length() < 600:
        name = str(raw)
    elif isinstance(raw, str):
        name = raw
    else:
        raise ToolError(
            "schema",
            f"{path} holds a {what} that is not a node name",
            path=path,
            expected="a node name (a string)",
            got=describe(raw),
            fix='write node names as strings, e.g. "A" or "0"',
        )
    if not name.strip():
        raise ToolError(
            "schema",
            f"{path} holds an empty node name",
            path=path,
            expected="a non-empty node name",
            got=describe(name),
            fix="give every node a visible name",
        )
    if len(name) > limits.max_name_chars:
        raise ToolError(
            "too_large",
            f"{path} holds a node name that is too long",
            path=path,
            expected=f"at most {limits.max_name_chars} characters",
            got=f"{len(name):,} characters",
            fix="use short node names (the names the question uses)",
        )
    return name


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_THOUSANDS = re.compile(r"(?<=\d)[,_ ](?=\d{3}(?!\d))")


def _weight(raw: object, path: str, limits: ToolLimits) -> Number:
    """An edge weight: a finite number ``>= 0`` given as a number or a numeric string."""
    fix_plain = 'give the weight as a number, or set "weighted": false if the graph has none'
    value: Number
    if isinstance(raw, bool) or raw is None or not isinstance(raw, int | float | str):
        missing = raw is None
        raise ToolError(
            "schema",
            f"{path} is {'missing its weight' if missing else 'not a number'}",
            path=path,
            expected='a number (e.g. 7 or 7.5) or a numeric string such as "7"',
            got=describe(raw),
            fix=fix_plain,
        )
    if isinstance(raw, str):
        text = raw.strip()
        if len(text) <= 40 and _NUMBER.fullmatch(text):
            value = int(text) if _INTEGER.fullmatch(text) else float(text)
        else:
            joined = _THOUSANDS.sub("", text) if len(text) <= 40 else text
            found = _NUMBER.search(text) if len(text) <= 200 else None
            if joined != text and _NUMBER.fullmatch(joined):
                fix = f"write {joined}, without digit separators"
            elif found:
                fix = f"write the bare number {found.group(0)}, without units or other text"
            else:
                fix = fix_plain
            raise ToolError(
                "schema",
                f"{path} is a string that is not a number",
                path=path,
                expected='a number (e.g. 7 or 7.5) or a numeric string such as "7"',
                got=describe(raw),
                fix=fix,
            )
    else:
        value = raw
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError(
            "schema",
            f"{path} is not a finite number",
            path=path,
            expected="a finite number",
            got=describe(value),
            fix=fix_plain,
        )
    if abs(value) > limits.max_weight:
        raise ToolError(
            "too_large",
            f"{path} is too large a weight",
            path=path,
            expected=f"an absolute value of at most {limits.max_weight:g}",
            got=describe(value),
            fix="rescale the weights",
        )
    if value < 0:
        raise ToolError(
            "schema",
            f"{path} is a negative weight",
            path=path,
            expected="a weight >= 0",
            got=describe(value),
            fix="the tool's problems take non-negative weights; use the distance or cost as given",
        )
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _require_bool(graph: Mapping[str, Any], key: str) -> bool:
    path = f"graph.{key}"
    if key not in graph:
        raise ToolError(
            "schema",
            f"{path} is missing",
            path=path,
            expected="true or false",
            got="no such key",
            fix=f'add "{key}": true or "{key}": false to the graph object',
        )
    value = graph[key]
    if not isinstance(value, bool):
        hint = f'write "{key}": true or "{key}": false'
        if isinstance(value, str):
            hint += ", without quotes"
        raise ToolError(
            "schema",
            f"{path} must be true or false",
            path=path,
            expected="true or false",
            got=describe(value),
            fix=hint,
        )
    return value


@dataclass
class _GraphBuilder:
    directed: bool
    weighted: bool
    limits: ToolLimits
    nodes: dict[str, int] = field(default_factory=dict)
    keys: list[str] = field(default_factory=list)
    edges: list[ToolEdge] = field(default_factory=list)
    # (u, v) ids (sorted for undirected) -> (index into edges, weight, path, listing node)
    seen: dict[tuple[int, int], tuple[int, Number | None, str, str]] = field(default_factory=dict)

    def node(self, name: str, path: str) -> int:
        found = self.nodes.get(name)
        if found is not None:
            return found
        if len(self.nodes) >= self.limits.max_nodes:
            raise ToolError(
                "too_large",
                f"{path} brings the graph over the node limit",
                path=path,
                expected=f"at most {self.limits.max_nodes} distinct nodes",
                got=f"node number {len(self.nodes) + 1}",
                fix="send a smaller graph (only the nodes the question names)",
            )
        self.nodes[name] = len(self.nodes)
        return self.nodes[name]

    def edge(self, src: str, dst: str, weight: Number | None, path: str) -> None:
        u, v = self.node(src, path), self.node(dst, path)
        key = (u, v) if self.directed or u < v else (v, u)
        old = self.seen.get(key)
        if old is not None:
            _, old_w, old_path, old_src = old
            if old_src == src:
                raise ToolError(
                    "schema",
                    f"{path} lists the neighbour {quote(dst)} a second time",
                    path=path,
                    expected="each neighbour once",
                    got=f"{quote(dst)} also at {old_path}",
                    fix="remove the repeated neighbour",
                )
            if old_w != weight:
                raise ToolError(
                    "schema",
                    f"the undirected edge {quote(src)} - {quote(dst)} has two weights: "
                    f"{old_path} is {describe(old_w)} but {path} is {describe(weight)}",
                    path=path,
                    expected="one weight per undirected edge",
                    got=f"{describe(old_w)} and {describe(weight)}",
                    fix="give the edge once, or give both directions the same weight "
                    '(or set "directed": true if the two directions really differ)',
                )
            return  # the same undirected edge, listed again from its other end
        if len(self.edges) >= self.limits.max_edges:
            raise ToolError(
                "too_large",
                f"{path} brings the graph over the edge limit",
                path=path,
                expected=f"at most {self.limits.max_edges:,} edges",
                got=f"edge number {len(self.edges) + 1:,}",
                fix="send a smaller graph",
            )
        self.seen[key] = (len(self.edges), weight, path, src)
        self.edges.append((src, dst, weight))


_TYPE_NAMES = {"adjacency_list", "adjacency", "adj_list", "adjacencylist"}


def parse_graph(obj: Mapping[str, Any], limits: ToolLimits | None = None) -> ToolCall:
    """Validate the call's ``graph`` field.

    Returns:
        A :class:`ToolCall` with the graph and listing filled in (``problem_type`` empty).

    Raises:
        ToolError: ``schema`` or ``too_large``, naming the field.

    Example:
        >>> c = parse_graph({"graph": {"data": {"b": ["a"], "c": []}, "directed": True,
        ...                            "weighted": False}})
        >>> c.graph.nodes, c.listing, c.graph.edges
        (('b', 'a', 'c'), ('b', 'c', 'a'), (('b', 'a', None),))
    """
    limits = limits or ToolLimits()
    if "graph" not in obj:
        raise ToolError(
            "schema",
            "the call has no graph",
            path="graph",
            expected='an object {"type": "adjacency_list", "data": {...}, "directed": …, '
            '"weighted": …}',
            got="no such key",
            fix='add the "graph" object',
        )
    graph = obj["graph"]
    if not isinstance(graph, Mapping):
        raise ToolError(
            "schema",
            "graph must be an object",
            path="graph",
            expected='an object {"type": "adjacency_list", "data": {...}, ...}',
            got=describe(graph),
            fix="write the graph as a JSON object, not a string or a list",
        )
    _check_dups(graph, "graph")
    if "type" in graph:
        kind = graph["type"]
        if not isinstance(kind, str) or normalize(kind) not in _TYPE_NAMES:
            raise ToolError(
                "schema",
                "graph.type must be adjacency_list",
                path="graph.type",
                expected='"adjacency_list"',
                got=describe(kind),
                fix='write "type": "adjacency_list" and give data as {node: {neighbour: weight}}',
            )
    directed = _require_bool(graph, "directed")
    weighted = _require_bool(graph, "weighted")
    if "data" not in graph:
        raise ToolError(
            "schema",
            "graph.data is missing",
            path="graph.data",
            expected="an object {node: {neighbour: weight}}",
            got="no such key",
            fix='add "data": {"A": {"B": 7}, "B": {}} (every node as a key)',
        )
    data = graph["data"]
    if not isinstance(data, Mapping):
        raise ToolError(
            "schema",
            "graph.data must be an object",
            path="graph.data",
            expected="an object {node: {neighbour: weight}} (or {node: [neighbour, ...]})",
            got=describe(data),
            fix='write data as {"A": {"B": 7}, "B": {}}, one key per node',
        )
    _check_dups(data, "graph.data")
    if not data:
        raise ToolError(
            "schema",
            "graph.data has no nodes",
            path="graph.data",
            expected="at least one node",
            got="an empty object",
            fix='list every node as a key: {"A": {"B": 7}, "B": {}}',
        )
    if len(data) > limits.max_nodes:
        raise ToolError(
            "too_large",
            "graph.data has too many nodes",
            path="graph.data",
            expected=f"at most {limits.max_nodes} nodes",
            got=f"{len(data):,} keys",
            fix="send a smaller graph",
        )
    b = _GraphBuilder(directed, weighted, limits)
    for raw_key, nbrs in data.items():
        key_path = "graph.data"
        src = _node_name(raw_key, key_path, "key", limits)
        if src in b.nodes and src in b.keys:
            raise ToolError(
                "schema",
                f"graph.data gives the node {quote(src)} twice",
                path=_key_path(key_path, src),
                expected="each node once as a key",
                got=f"{quote(src)} twice (an integer key and its text?)",
                fix="merge the two entries",
            )
        path = _key_path(key_path, src)
        b.node(src, path)
        b.keys.append(src)
        _read_neighbours(b, src, nbrs, path)
    keyed = set(b.keys)
    listing = tuple(b.keys) + tuple(x for x in b.nodes if x not in keyed)
    tool_graph = ToolGraph(
        directed=directed, weighted=weighted, nodes=tuple(b.nodes), edges=tuple(b.edges)
    )
    return ToolCall(problem_type="", requested_type="", graph=tool_graph, listing=listing)


def _read_neighbours(b: _GraphBuilder, src: str, nbrs: object, path: str) -> None:
    limits = b.limits
    w: Number | None
    if isinstance(nbrs, Mapping):
        _check_dups(nbrs, path)
        if len(nbrs) > limits.max_nodes:
            raise ToolError(
                "too_large",
                f"{path} has too many neighbours",
                path=path,
                expected=f"at most {limits.max_nodes} neighbours",
                got=f"{len(nbrs):,}",
                fix="send a smaller graph",
            )
        for raw_dst, raw_w in nbrs.items():
            dst = _node_name(raw_dst, path, "key", limits)
            here = _key_path(path, dst)
            _no_loop(src, dst, here)
            w = _weight(raw_w, here, limits) if b.weighted else None
            b.edge(src, dst, w, here)
        return
    if isinstance(nbrs, list | tuple):
        if len(nbrs) > limits.max_nodes:
            raise ToolError(
                "too_large",
                f"{path} has too many neighbours",
                path=path,
                expected=f"at most {limits.max_nodes} neighbours",
                got=f"{len(nbrs):,}",
                fix="send a smaller graph",
            )
        for i, item in enumerate(nbrs):
            here = f"{path}[{i}]"
            pair = isinstance(item, list | tuple)
            if pair and len(item) != 2:
                raise ToolError(
                    "schema",
                    f"{here} is a list but not a [neighbour, weight] pair",
                    path=here,
                    expected='a neighbour name ("B") or a pair ["B", 7]',
                    got=describe(item),
                    fix='write {"B": 7, "C": 2} for weighted neighbours',
                )
            dst = _node_name(item[0] if pair else item, here, "neighbour", limits)
            _no_loop(src, dst, here)
            w = None
            if b.weighted:
                if not pair:
                    raise ToolError(
                        "schema",
                        f"{here} gives the neighbour {quote(dst)} without a weight, but "
                        "graph.weighted is true",
                        path=here,
                        expected=f"a weight for every edge: {{{quote(dst)}: 7}} or "
                        f"[{quote(dst)}, 7]",
                        got=describe(item),
                        fix=f"write {path} as {{{quote(dst)}: weight, ...}}, "
                        'or set "weighted": false',
                    )
                w = _weight(item[1], f"{here}[1]", limits)
            b.edge(src, dst, w, here)
        return
    raise ToolError(
        "schema",
        f"{path} must be an object of neighbours",
        path=path,
        expected="an object {neighbour: weight} (or a list of neighbours; {} for none)",
        got=describe(nbrs),
        fix=f"write {path} as {{}} if the node has no (further) neighbours",
    )


def _no_loop(src: str, dst: str, path: str) -> None:
    if src == dst:
        raise ToolError(
            "schema",
            f"{path} is a self-loop (an edge from {quote(src)} to itself)",
            path=path,
            expected="an edge between two different nodes",
            got=f"{quote(src)} -> {quote(dst)}",
            fix="remove it; the tool's graphs have no self-loops",
        )


def parse_problem_type(obj: Mapping[str, Any]) -> tuple[str, str, dict[str, str]]:
    """``(canonical type, type as written, parameters the spelling implies)``.

    Raises:
        ToolError: ``schema`` (missing, not a string) or ``unknown_problem_type``.

    Example:
        >>> parse_problem_type({"problem_type": "Closeness Centrality"})
        ('centrality', 'Closeness Centrality', {'measure': 'closeness'})
    """
    if "problem_type" not in obj:
        raise ToolError(
            "schema",
            "the call has no problem_type",
            path="problem_type",
            expected="a problem type such as " + ", ".join(PROBLEM_TYPES[:6]),
            got="no such key",
            fix='add "problem_type": "shortest_path" (or another known type)',
        )
    raw = obj["problem_type"]
    if not isinstance(raw, str):
        raise ToolError(
            "schema",
            "problem_type must be a string",
            path="problem_type",
            expected="a string such as " + quote("shortest_path"),
            got=describe(raw),
            fix='write e.g. "problem_type": "shortest_path"',
        )
    found = resolve_problem_type(raw)
    if found is None:
        key = normalize(raw)[:80]
        close = difflib.get_close_matches(key, [*PROBLEM_TYPES, *PROBLEM_SYNONYMS], n=3)
        canon = list(
            dict.fromkeys(c if c in PROBLEM_TYPES else PROBLEM_SYNONYMS[c][0] for c in close)
        )
        hint = f" (closest: {', '.join(canon)})" if canon else ""
        raise ToolError(
            "unknown_problem_type",
            f"problem_type {quote(raw)} is not a problem the tool solves",
            path="problem_type",
            expected="one of " + ", ".join(PROBLEM_TYPES),
            got=describe(raw),
            fix=f"use one of the listed names{hint}",
        )
    canon_type, implied = found
    return canon_type, raw, implied


def parse_parameters(
    obj: Mapping[str, Any], implied: Mapping[str, str] | None = None
) -> tuple[dict[str, tuple[str, Any]], str | None, tuple[str, ...]]:
    """``(canonical parameter -> (name as written, value), algorithm, ignored names)``.

    Raises:
        ToolError: ``schema`` (not an object, non-string algorithm) or ``bad_parameter``
            (two synonyms of one parameter disagree).

    Example:
        >>> parse_parameters({"parameters": {"Source": "A", "target": "B", "k": 2}})
        ({'start': ('Source', 'A'), 'end': ('target', 'B')}, None, ('k',))
    """
    raw = obj.get("parameters", {})
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ToolError(
            "schema",
            "parameters must be an object",
            path="parameters",
            expected='an object such as {"start": "A", "end": "B", "algorithm": "dijkstra"}',
            got=describe(raw),
            fix="write the parameters as a JSON object (or leave the key out)",
        )
    _check_dups(raw, "parameters")
    params: dict[str, tuple[str, Any]] = {
        k: ("problem_type", v) for k, v in (implied or {}).items()
    }
    ignored: list[str] = []
    for key, value in raw.items():
        if not isinstance(key, str):
            raise ToolError(
                "schema",
                "parameters has a key that is not a string",
                path="parameters",
                expected="string parameter names",
                got=describe(key),
                fix='write parameter names as strings, e.g. "start"',
            )
        canon = PARAM_BY_NAME.get(normalize(key))
        if canon is None:
            ignored.append(key)
            continue
        if canon in params:
            old_key, old = params[canon]
            if not _same(old, value):
                raise ToolError(
                    "bad_parameter",
                    f"parameters gives {canon} twice with different values: "
                    f"{old_key}={describe(old)} and {key}={describe(value)}",
                    path=f"parameters.{key}",
                    expected=f"one value for {canon} (names accepted: "
                    f"{', '.join(PARAM_SYNONYMS[canon])})",
                    got="two different values",
                    fix=f"keep only one of {old_key} and {key}",
                )
            continue
        params[canon] = (key, value)
    algorithm: str | None = None
    if "algorithm" in params:
        key, value = params.pop("algorithm")
        if value is not None and not isinstance(value, str):
            raise ToolError(
                "schema",
                f"parameters.{key} must be a string",
                path=f"parameters.{key}",
                expected='an algorithm name such as "dijkstra" (informative only)',
                got=describe(value),
                fix="write the algorithm's name as a string, or leave it out",
            )
        algorithm = value
    return params, algorithm, tuple(ignored)


def _same(a: object, b: object) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return normalize(a) == normalize(b) or a == b
    return type(a) is type(b) and a == b


def read_call(
    call: object, limits: ToolLimits | None = None
) -> tuple[ToolCall | None, ToolGraph | None, str | None, ToolError | None]:
    """Parse a call as far as it goes: ``(call, graph, problem type, first error)``.

    The graph and the canonical problem type are returned whenever their own part of
    the call is valid, even if another part is not. Errors are reported in the order
    of the fields: the JSON, ``problem_type``, ``graph``, then ``parameters``.

    Example:
        >>> c, g, ptype, err = read_call({"problem_type": "max flow", "graph": {
        ...     "data": {"a": ["b"]}, "directed": True, "weighted": False}})
        >>> c, g.edges, ptype, err.kind
        (None, (('a', 'b', None),), None, 'unknown_problem_type')
    """
    limits = limits or ToolLimits()
    try:
        obj = load_call(call, limits)
    except ToolError as exc:
        return None, None, None, exc
    first: ToolError | None = None
    ptype: str | None = None
    written, implied = "", dict[str, str]()
    try:
        ptype, written, implied = parse_problem_type(obj)
    except ToolError as exc:
        first = exc
    graph_part: ToolCall | None = None
    try:
        graph_part = parse_graph(obj, limits)
    except ToolError as exc:
        first = first or exc
    graph = graph_part.graph if graph_part else None
    if first is not None or graph_part is None or ptype is None:
        return None, graph, ptype, first
    try:
        params, algorithm, ignored = parse_parameters(obj, implied)
    except ToolError as exc:
        return None, graph, ptype, exc
    parsed = ToolCall(
        problem_type=ptype,
        requested_type=written,
        graph=graph_part.graph,
        listing=graph_part.listing,
        params=params,
        algorithm=algorithm,
        ignored=ignored,
    )
    return parsed, graph, ptype, None


def parse_call(call: object, limits: ToolLimits | None = None) -> ToolCall:
    """Parse and validate a whole call (text or mapping).

    Raises:
        ToolError: for the first problem with the call (see the module docstring).

    Example:
        >>> c = parse_call({"problem_type": "mst", "graph": {"data": {"a": {"b": 1}},
        ...                 "directed": False, "weighted": True}})
        >>> c.problem_type, c.params, c.ignored
        ('minimum_spanning_tree', {}, ())
    """
    parsed, _, _, error = read_call(call, limits)
    if error is not None:
        raise error
    assert parsed is not None  # no error means every part parsed
    return parsed


def tool_json_schema() -> dict[str, Any]:
    """A JSON Schema (draft 2020-12) of the call object, e.g. for an OpenAI ``tools`` entry.

    The schema states the canonical form; the parser is more lenient (synonyms, numeric
    strings, the list form of ``data``), as the module docstring describes.

    Example:
        >>> s = tool_json_schema()
        >>> s["required"], s["properties"]["problem_type"]["enum"][:3]
        (['problem_type', 'graph'], ['shortest_path', 'graph_coloring', 'tsp'])
    """
    weight = {
        "anyOf": [
            {"type": "number", "minimum": 0},
            {"type": "string", "pattern": r"^\s*[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$"},
        ],
        "description": "Edge weight (ignored when weighted is false).",
    }
    neighbours = {
        "anyOf": [
            {"type": "object", "additionalProperties": weight},
            {
                "type": "array",
                "items": {
                    "anyOf": [
                        {"type": "string"},
                        {
                            "type": "array",
                            "prefixItems": [{"type": "string"}, weight],
                            "minItems": 2,
                            "maxItems": 2,
                        },
                    ]
                },
            },
        ],
        "description": "The node's neighbours: {neighbour: weight} (or a list of names).",
    }
    node = {"type": "string", "description": "A node name exactly as in graph.data."}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "GRAIN graph tool call",
        "type": "object",
        "required": ["problem_type", "graph"],
        "properties": {
            "problem_type": {
                "type": "string",
                "enum": list(PROBLEM_TYPES),
                "description": "The problem to solve.",
            },
            "graph": {
                "type": "object",
                "required": ["data", "directed", "weighted"],
                "properties": {
                    "type": {"const": "adjacency_list"},
                    "data": {
                        "type": "object",
                        "minProperties": 1,
                        "additionalProperties": neighbours,
                        "description": "Adjacency list: {node: {neighbour: weight}}.",
                    },
                    "directed": {"type": "boolean"},
                    "weighted": {"type": "boolean"},
                },
            },
            "parameters": {
                "type": "object",
                "properties": {
                    "start": {**node, "description": "Start/source node."},
                    "end": {**node, "description": "End/target node."},
                    "node": {**node, "description": "The node asked about."},
                    "measure": {
                        "type": "string",
                        "enum": ["degree", "closeness", "betweenness"],
                        "description": "Centrality measure.",
                    },
                    "order": {
                        "type": "string",
                        "enum": ["listed", "numeric", "alphabetical"],
                        "description": "Neighbour order for bfs; tie rule for topological_sort.",
                    },
                    "algorithm": {"type": "string", "description": "Informative only."},
                },
                "additionalProperties": True,
            },
        },
    }
