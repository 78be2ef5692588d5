"""G-REAL (MA-GTS, Yuan et al., EMNLP 2025): read its records into peer items.

G-REAL's files (``G-REAL/data/<Task>_data_50/graph_<k>.json``) hold records with a
structured graph: ``adj`` (an ``n x n`` matrix: 0/1 adjacency for colouring and vertex
cover, distances for TSP), ``name_list`` (node ``i``'s name), ``Q`` (the realistic
narrative question) and ``result`` (``{algorithm: {...answer...}}``). The graph is read
from ``adj`` and ``name_list``, never from the narrative; every name must appear in ``Q``.
A file may be one JSON list (or object) of records, or JSON Lines of them.

Task mapping (told from ``result``'s exact algorithm, or a ``task`` field):

=============  ==================  ===================================================
G-REAL task    GRIT task           peer reference compared
=============  ==================  ===================================================
coloring       ``graph_coloring``  ``backtracking.min_colors`` + ``color_assignment_text``
vertex_cover   ``vertex_cover``    ``brute_force.min_vertex`` + ``vertex_cover_text``
tsp            ``tsp``             ``dynamic_programming.ans_distance`` + ``ans_path_text``
=============  ==================  ===================================================

The heuristic results G-REAL also stores (greedy, DSATUR, Christofides, ...) are not
references and are not compared.

Example:
    >>> rec = {"adj": [[0, 1, 0], [1, 0, 1], [0, 1, 0]], "name_list": ["A", "B", "C"],
    ...        "Q": "Links: A-B, B-C.", "result": {"brute_force": {"min_vertex": 1,
    ...        "vertex_cover_text": ["B"]}}, "graph_index": 0}
    >>> item = read_record(rec, "f.json", "f.json: record 0", 0)
    >>> item.structure.task, item.structure.edges, item.reference.certificate
    ('vertex_cover', ((0, 1, 1), (1, 2, 1)), [1])
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError, DatasetFileError, GraphError
from closurebench.generate.peers.base import (
    PeerItem,
    ReadResult,
    Reference,
    Skipped,
    id_part,
    input_files,
    load_json,
    sha256,
)
from closurebench.structures.grit import GritStructure
from closurebench.tasks.grit import GRIT_TASKS

__all__ = ["MAPPING", "TASKS", "GRealTask", "read_greal", "read_record"]

Edges = list[tuple[int, int, int]]


def _distances(adj: list[list[int]]) -> tuple[Edges, bool]:
    """A distance matrix as the weighted edges of a complete graph (every distance >= 1).

    Raises:
        GraphError: naming the first distance below 1.
    """
    n = len(adj)
    edges = [(i, j, adj[i][j]) for i in range(n) for j in range(i + 1, n)]
    low = next(((i, j, w) for i, j, w in edges if w < 1), None)
    if low is not None:
        raise GraphError(f"'adj'[{low[0]}][{low[1]}] is {low[2]}; distances must be >= 1")
    return edges, True


def _adjacency(adj: list[list[int]]) -> tuple[Edges, bool]:
    """A 0/1 adjacency matrix as unweighted edges.

    Raises:
        GraphError: naming the first entry that is not 0 or 1.
    """
    n = len(adj)
    bad_entry = next(((i, j) for i in range(n) for j in range(n) if adj[i][j] not in (0, 1)), None)
    if bad_entry is not None:
        i, j = bad_entry
        raise GraphError(f"'adj'[{i}][{j}] is {adj[i][j]}; an adjacency matrix holds 0 or 1")
    return [(i, j, 1) for i in range(n) for j in range(i + 1, n) if adj[i][j]], False


def _node_list(names: list[str], given: Any, what: str) -> list[int] | str:
    """A list of node names (a cover) in node ids, or why it cannot be read."""
    return _ids(names, given, what)


def _tour(names: list[str], given: Any, what: str) -> list[int] | str:
    """A tour of node names, starting at node 0, in node ids, or why it cannot be read."""
    ids = _ids(names, given, what)
    if isinstance(ids, str):
        return ids
    if ids and ids[0] != 0:
        return f"the tour starts at {names[ids[0]]!r}, not at {names[0]!r}"
    return ids


def _colouring(names: list[str], given: Any, what: str) -> dict[int, Any] | str:
    """A ``{name: colour}`` mapping as ``{node id: colour}``, or why it cannot be read."""
    if not isinstance(given, Mapping):
        return f"{what} is not {{name: colour}}"
    ids = _ids(names, list(given), what)
    if isinstance(ids, str):
        return ids
    return {i: given[names[i]] for i in ids}


@dataclass(frozen=True)
class GRealTask:
    """How one G-REAL task's records are read.

    Attributes:
        name: G-REAL's name of the task (a record's ``task``).
        ours: The GRIT task it poses.
        algorithm: The key in ``result`` of G-REAL's exact algorithm (the reference).
        value_key: The key of its objective value.
        certificate_key: The key of its solution, in node names.
        scenario: The scenario the questions tell.
        read_adj: ``read_adj(adj) -> (edges, weighted)`` from the (checked, square,
            symmetric) matrix; raises :class:`~closurebench.errors.GraphError`.
        read_certificate: ``read_certificate(names, given, what)``: the solution in node
            ids, or (a ``str``) why it cannot be read.
    """

    name: str
    ours: str
    algorithm: str
    value_key: str
    certificate_key: str
    scenario: str
    read_adj: Callable[[list[list[int]]], tuple[Edges, bool]]
    read_certificate: Callable[[list[str], Any, str], Any]


#: G-REAL task -> how its records are read.
TASKS: Mapping[str, GRealTask] = {
    t.name: t
    for t in (
        GRealTask(
            "coloring",
            "graph_coloring",
            "backtracking",
            "min_colors",
            "color_assignment_text",
            "wifi-frequencies",
            _adjacency,
            _colouring,
        ),
        GRealTask(
            "vertex_cover",
            "vertex_cover",
            "brute_force",
            "min_vertex",
            "vertex_cover_text",
            "network-monitoring",
            _adjacency,
            _node_list,
        ),
        GRealTask(
            "tsp",
            "tsp",
            "dynamic_programming",
            "ans_distance",
            "ans_path_text",
            "parcel-delivery",
            _distances,
            _tour,
        ),
    )
}

#: G-REAL task -> our GRIT task.
MAPPING: dict[str, str] = {t.name: t.ours for t in TASKS.values()}

_LAYOUT = ("adj", "name_list", "Q", "result")


def _peer_task(rec: Mapping[str, Any]) -> GRealTask | None:
    """The G-REAL task of a record: its ``task`` field, else its exact algorithm's key."""
    task = rec.get("task")
    if isinstance(task, str):
        return TASKS.get(task)
    result = rec.get("result")
    if isinstance(result, Mapping):
        for spec in TASKS.values():
            exact = result.get(spec.algorithm)
            if isinstance(exact, Mapping) and spec.value_key in exact:
                return spec
    return None


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _structure(spec: GRealTask, adj: Any, names: Any) -> GritStructure:
    """The structure ``adj`` and ``name_list`` state (strictly: square, symmetric, ...).

    Raises:
        GraphError: naming the first entry that breaks the layout.
    """
    if not (isinstance(adj, list) and adj and all(isinstance(r, list) for r in adj)):
        raise GraphError("'adj' is not a non-empty list of rows")
    n = len(adj)
    for i, row in enumerate(adj):
        if len(row) != n:
            raise GraphError(f"'adj' row {i} has {len(row)} entries; the matrix is {n} x {n}")
        bad = next((j for j, x in enumerate(row) if not _is_int(x)), None)
        if bad is not None:
            raise GraphError(f"'adj'[{i}][{bad}] is {row[bad]!r}, not an integer")
    for i in range(n):
        if adj[i][i] != 0:
            raise GraphError(f"'adj'[{i}][{i}] is {adj[i][i]}; the diagonal must be 0")
        for j in range(i + 1, n):
            if adj[i][j] != adj[j][i]:
                raise GraphError(
                    f"'adj'[{i}][{j}] = {adj[i][j]} but 'adj'[{j}][{i}] = {adj[j][i]}; "
                    "the graph is undirected, so the matrix must be symmetric"
                )
    if not (isinstance(names, list) and all(isinstance(x, str) and x.strip() for x in names)):
        raise GraphError("'name_list' is not a list of names")
    if len(names) != n:
        raise GraphError(f"'name_list' has {len(names)} names for {n} nodes")
    folded = [" ".join(x.split()).casefold() for x in names]
    dup = next((x for i, x in enumerate(names) if folded[i] in folded[:i]), None)
    if dup is not None:
        raise GraphError(f"'name_list' names {dup!r} twice")
    edges, weighted = spec.read_adj(adj)
    try:
        return GRIT_TASKS[spec.ours].structure(n, False, weighted, edges)
    except ConfigError as exc:
        raise GraphError(str(exc)) from None


def _ids(names: list[str], given: Any, what: str) -> list[int] | str:
    """Node names as ids, or why they are not names of this graph."""
    if not isinstance(given, list):
        return f"{what} is a {type(given).__name__}, not a list of names"
    index = {x: i for i, x in enumerate(names)}
    out = []
    for x in given:
        if not isinstance(x, str) or x not in index:
            return f"{what} names {x!r}, which is not a node of the graph"
        out.append(index[x])
    return out


def _reference(spec: GRealTask, rec: Mapping[str, Any], names: list[str]) -> Reference:
    """The exact algorithm's answer of a record (value and certificate, in node ids)."""
    algo, value_key, cert_key = spec.algorithm, spec.value_key, spec.certificate_key
    result = rec.get("result")
    raw = result.get(algo) if isinstance(result, Mapping) else None
    if not isinstance(raw, Mapping):
        return Reference(raw=raw, problem=f"'result' has no exact answer '{algo}'")
    raw = {k: v for k, v in raw.items() if k != "cost_time"}
    value = raw.get(value_key)
    if not _is_int(value):
        return Reference(raw=raw, problem=f"'{algo}.{value_key}' is {value!r}, not an integer")
    certificate = spec.read_certificate(names, raw.get(cert_key), f"'{algo}.{cert_key}'")
    if isinstance(certificate, str):
        return Reference(raw=raw, problem=certificate)
    return Reference(value=value, certificate=certificate, raw=raw)


def read_record(rec: Any, name: str, where: str, position: int) -> PeerItem | Skipped:
    """One G-REAL record as a peer item, or why it is skipped.

    Args:
        rec: The record (a JSON object).
        name: The file's name (relative to the input).
        where: The file and line/record, for messages.
        position: The record's position in its file (used when it has no ``graph_index``).
    """
    if not isinstance(rec, Mapping):
        return Skipped(where, "?", "unreadable", f"a record is a JSON object, not {rec!r:.40}")
    spec = _peer_task(rec)
    if spec is None:
        return Skipped(
            where,
            str(rec.get("task", "?")),
            "unreadable",
            "the task is not told: no 'task' field and no exact answer of colouring, TSP "
            "or vertex cover in 'result'",
        )
    task = spec.name
    missing = [k for k in _LAYOUT if k not in rec]
    if missing:
        return Skipped(where, task, "unreadable", f"field {missing[0]!r} is missing")
    question = rec["Q"]
    if not isinstance(question, str) or not question.strip():
        return Skipped(where, task, "unreadable", "'Q' is not the question text")
    try:
        s = _structure(spec, rec["adj"], rec["name_list"])
    except GraphError as exc:
        return Skipped(where, task, "unreadable", str(exc))
    names = list(rec["name_list"])
    absent = next((x for x in names if x not in question), None)
    if absent is not None:
        return Skipped(where, task, "unreadable", f"node {absent!r} does not appear in 'Q'")
    index = rec.get("graph_index")
    index = index if _is_int(index) else position
    source = rec.get("source_file")
    file = source if isinstance(source, str) and source else name
    key = id_part(Path(file).parent.name + "/" + Path(file).name) if "/" in file else id_part(file)
    return PeerItem(
        where=where,
        origin=f"{file}#{index}",
        key=f"{key}-{index}",
        peer_task=task,
        structure=s,
        names=tuple(names),
        question=question,
        form="realistic",
        naming="semantic",
        scenario=f"g-real/{spec.scenario}",
        reference=_reference(spec, rec, names),
    )


def _records(file: Path, name: str) -> list[tuple[str, Any]]:
    """``(where, record)`` for every record of a G-REAL file (JSON, or JSON Lines)."""
    if file.name.endswith(".jsonl"):
        out = []
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise DatasetFileError(
                f"{file}: byte {exc.start} is not UTF-8; pass the G-REAL file as published"
            ) from None
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                out.append((f"{name}:{lineno}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise DatasetFileError(
                    f"{file}:{lineno}: not valid JSON ({exc.msg}); each line must be one "
                    "G-REAL record (fix or delete that line)"
                ) from None
        return out
    data = load_json(file, "G-REAL")
    if isinstance(data, Mapping) and "adj" in data:
        data = [data]
    elif isinstance(data, Mapping):
        data = list(data.values())
    if not isinstance(data, list):
        raise DatasetFileError(
            f"{file}: a G-REAL file holds a list of records, not a {type(data).__name__}; "
            "pass G-REAL/data/<Task>_data_50/graph_<k>.json files"
        )
    return [(f"{name}: record {i}", rec) for i, rec in enumerate(data)]


def read_greal(path: Path) -> ReadResult:
    """Read a copy of G-REAL (a ``.json``/``.jsonl`` file, or a folder of them).

    Raises:
        DatasetFileError: a file that is not JSON or holds no G-REAL record (naming it and
            the fix).
    """
    out = ReadResult()
    for file, name in input_files(path, (".json", ".jsonl"), "G-REAL"):
        records = _records(file, name)
        if records and not any(
            isinstance(r, Mapping) and all(k in r for k in _LAYOUT) for _, r in records
        ):
            raise DatasetFileError(
                f"{file}: {records[0][0].removeprefix(name).lstrip(': ') or 'record 0'}: "
                f"not a G-REAL record (no {'/'.join(_LAYOUT)} fields); pass "
                "G-REAL's graph_<k>.json files, or the folder holding only them"
            )
        for i, (where, rec) in enumerate(records):
            got = read_record(rec, name, where, i)
            (out.skipped if isinstance(got, Skipped) else out.items).append(got)  # type: ignore[arg-type]
        out.files.append((name, sha256(file), len(records)))
    return out
