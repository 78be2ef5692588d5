"""NLGraph (Wang et al., NeurIPS 2023): read its ``<task>/test.json`` files into peer items.

Each file is one JSON object ``{"0": {"question": ..., "answer": ..., "difficulty": ...},
...}``. NLGraph has no structured graph field: the graph is read from the question text
by a strict parser that must account for every line (the header, one edge per line, the
query); anything else refuses the item, with the line it could not read.

Task mapping (told from the question's own query sentence, not the file name):

==============  =================  ==============================================
NLGraph task    GRIT task          imported
==============  =================  ==============================================
shortest_path   ``shortest_path``  yes: weighted, undirected; answer = path cost
connectivity    none               skipped (counted): no GRIT task poses it
cycle           none               skipped (counted)
topology        none               skipped (counted)
hamilton        none               skipped (counted)
flow, matching  none               skipped (counted)
==============  =================  ==============================================

The reference ``"The shortest path from node s to node t is a,b,c with a total weight of
W"`` gives the value ``W`` and the certificate ``[a, b, c]``.

Example:
    >>> q = ("In an undirected graph, the nodes are numbered from 0 to 2, and the edges are:\\n"
    ...      "an edge between node 0 and node 1 with weight 2,\\n"
    ...      "an edge between node 1 and node 2 with weight 3.\\n"
    ...      "Q: Give the shortest path from node 0 to node 2.\\nA:")
    >>> s = parse_shortest_path(q)
    >>> s.n, s.edges, s.params
    (3, ((0, 1, 2), (1, 2, 3)), (('source', 0), ('target', 2)))
    >>> read_answer("The shortest path from node 0 to node 2 is 0,1,2 with a total weight of 5",
    ...             s).certificate
    [0, 1, 2]
"""

from __future__ import annotations

import re
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

__all__ = [
    "MAPPING",
    "TASKS",
    "NLGraphTask",
    "parse_shortest_path",
    "peer_task",
    "read_answer",
    "read_nlgraph",
]

# The query sentence of each NLGraph task (what tells the task, whatever the file's name).
_QUERIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("shortest_path", re.compile(r"Q: Give the shortest path from node \d+ to node \d+\.")),
    ("connectivity", re.compile(r"Q: Is there a path between node \d+ and node \d+\?")),
    ("cycle", re.compile(r"Q: Is there a cycle in this graph\?")),
    ("topology", re.compile(r"should be visited before node \d+")),
    ("hamilton", re.compile(r"visits every node exactly once")),
    ("flow", re.compile(r"maximum flow", re.I)),
    ("matching", re.compile(r"\bjobs?\b.*\bapplicants?\b|\bapplicants?\b.*\bjobs?\b", re.I | re.S)),
)

_HEADER = re.compile(
    r"In an undirected graph, the nodes are numbered from 0 to (\d+), and the edges are:"
)
_EDGE = re.compile(r"an edge between node (\d+) and node (\d+) with weight (\d+)([,.])")
_QUERY = re.compile(r"Q: Give the shortest path from node (\d+) to node (\d+)\.")
_ANSWER = re.compile(
    r"The shortest path from node (\d+) to node (\d+) is (\d+(?:\s*,\s*\d+)*) "
    r"with a total weight of (\d+)\.?"
)


def peer_task(question: str) -> str | None:
    """The NLGraph task a question asks, from its query sentence (None: not recognised).

    Example:
        >>> peer_task("Graph: (0,1)\\nQ: Is there a path between node 0 and node 1?\\nA:")
        'connectivity'
        >>> peer_task("What is 2 + 2?") is None
        True
    """
    for name, pattern in _QUERIES:
        if pattern.search(question):
            return name
    return None


def parse_shortest_path(question: str) -> GritStructure:
    """The graph and query of an NLGraph shortest-path question, read strictly.

    Every line must be the header, an edge line (``an edge between node i and node j with
    weight w,``; the last ends with ``.``), the query or the closing ``A:``.

    Raises:
        GraphError: naming the first line it cannot read, or what is inconsistent (a node
            outside the stated range, a repeated edge, a self-loop, weight 0).

    Example:
        >>> parse_shortest_path("In a graph, nodes 0 to 1.\\nQ: Give the shortest path from "
        ...                     "node 0 to node 1.\\nA:")
        Traceback (most recent call last):
        ...
        closurebench.errors.GraphError: line 1 is not the header 'In an undirected graph, \
the nodes are numbered from 0 to N, and the edges are:': 'In a graph, nodes 0 to 1.'
    """
    lines = question.strip().split("\n")
    head = _HEADER.fullmatch(lines[0].strip()) if lines else None
    if head is None:
        raise GraphError(
            "line 1 is not the header 'In an undirected graph, the nodes are numbered from 0 "
            f"to N, and the edges are:': {lines[0][:80]!r}"
        )
    if len(lines) < 3 or lines[-1].strip() != "A:":
        raise GraphError("the question does not end with the query line and 'A:'")
    query = _QUERY.fullmatch(lines[-2].strip())
    if query is None:
        raise GraphError(
            f"line {len(lines) - 1} is not 'Q: Give the shortest path from node s to node t.': "
            f"{lines[-2][:80]!r}"
        )
    edges: list[tuple[int, int, int]] = []
    body = lines[1:-2]
    for i, line in enumerate(body, start=2):
        m = _EDGE.fullmatch(line.strip())
        if m is None:
            raise GraphError(
                f"line {i} is not 'an edge between node i and node j with weight w,': {line[:80]!r}"
            )
        last = i == len(body) + 1
        if (m.group(4) == ".") != last:
            raise GraphError(
                f"line {i} ends with {m.group(4)!r}: edge lines end with ',' and the last "
                "with '.'; the edge list may be cut or joined"
            )
        edges.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    n = int(head.group(1)) + 1
    params = {"source": int(query.group(1)), "target": int(query.group(2))}
    try:
        return GRIT_TASKS["shortest_path"].structure(n, False, True, edges, params)
    except ConfigError as exc:
        raise GraphError(str(exc)) from None


def read_answer(answer: Any, s: GritStructure) -> Reference:
    """The peer's reference to a shortest-path item: the stated weight and the path.

    A reference that does not read, or names other end nodes than the question, is kept
    with its ``problem`` (it is then reported as a disagreement, never trusted).

    Example:
        >>> s = parse_shortest_path("In an undirected graph, the nodes are numbered from 0 to "
        ...     "1, and the edges are:\\nan edge between node 0 and node 1 with weight 4.\\n"
        ...     "Q: Give the shortest path from node 0 to node 1.\\nA:")
        >>> read_answer("The shortest path from node 1 to node 0 is 1,0 with a total weight "
        ...             "of 4", s).problem
        'it is for nodes 1 -> 0, the question asks 0 -> 1'
    """
    if not isinstance(answer, str):
        return Reference(raw=answer, problem=f"the answer is a {type(answer).__name__}, not text")
    m = _ANSWER.fullmatch(answer.strip())
    if m is None:
        return Reference(
            raw=answer,
            problem="it does not read as 'The shortest path from node s to node t is a,b,c "
            "with a total weight of W'",
        )
    src, dst = int(m.group(1)), int(m.group(2))
    want = (s.param("source"), s.param("target"))
    if (src, dst) != want:
        return Reference(
            raw=answer,
            problem=f"it is for nodes {src} -> {dst}, the question asks {want[0]} -> {want[1]}",
        )
    path = [int(x) for x in m.group(3).split(",")]
    return Reference(value=int(m.group(4)), certificate=path, raw=answer)


@dataclass(frozen=True)
class NLGraphTask:
    """How the items of one imported NLGraph task are read.

    Attributes:
        name: NLGraph's name of the task (what its query sentence tells).
        ours: The GRIT task it poses.
        parse: ``parse(question)``: the structure the question states (raises
            :class:`~closurebench.errors.GraphError`).
        read_reference: ``read_reference(answer, structure)``: the peer's reference.
    """

    name: str
    ours: str
    parse: Callable[[str], GritStructure]
    read_reference: Callable[[Any, GritStructure], Reference]


#: NLGraph task -> how its items are read (the tasks a GRIT task poses).
TASKS: Mapping[str, NLGraphTask] = {
    t.name: t
    for t in (NLGraphTask("shortest_path", "shortest_path", parse_shortest_path, read_answer),)
}

#: NLGraph's tasks that no GRIT task poses (their items are skipped, counted).
_UNPOSED = ("connectivity", "cycle", "topology", "hamilton", "flow", "matching")

#: NLGraph task -> our GRIT task (None: no GRIT task poses it; such items are skipped).
MAPPING: dict[str, str | None] = {
    **{t.name: t.ours for t in TASKS.values()},
    **dict.fromkeys(_UNPOSED),
}


def _items(data: Any, where: str) -> list[tuple[str, Any]]:
    """The ``(key, item)`` pairs of an NLGraph file, in the file's order."""
    if isinstance(data, dict):
        return [(str(k), v) for k, v in data.items()]
    if isinstance(data, list):
        return [(str(i), v) for i, v in enumerate(data)]
    raise DatasetFileError(
        f'{where}: an NLGraph file is one JSON object {{"0": {{"question": ..., '
        f'"answer": ...}}, ...}}, not a {type(data).__name__}; pass NLGraph\'s '
        "<task>/test.json (or main.json) files"
    )


def read_nlgraph(path: Path) -> ReadResult:
    """Read a copy of NLGraph (a ``.json`` file, or a folder of them) into peer items.

    Items whose question another file already asked (``main.json`` holds every item of
    ``test.json``) are skipped as duplicates of the first.

    Raises:
        DatasetFileError: a file that is not JSON or not in NLGraph's layout (naming it,
            the line or item, and the fix).
    """
    out = ReadResult()
    seen: dict[str, str] = {}
    for file, name in input_files(path, (".json",), "NLGraph"):
        pairs = _items(load_json(file, "NLGraph"), str(file))
        good = [
            (k, v)
            for k, v in pairs
            if isinstance(v, dict) and isinstance(v.get("question"), str) and "answer" in v
        ]
        if pairs and not good:
            raise DatasetFileError(
                f"{file}: item {pairs[0][0]!r} has no 'question' text and 'answer' (not an "
                "NLGraph task file); pass NLGraph's <task>/test.json files, or the folder "
                "holding only them"
            )
        for key, value in pairs:
            where = f"{name}: item {key!r}"
            if not (isinstance(value, dict) and isinstance(value.get("question"), str)):
                out.skipped.append(
                    Skipped(where, "?", "unreadable", "no 'question' text in this item")
                )
                continue
            question = value["question"]
            task = peer_task(question)
            if task is None:
                out.skipped.append(
                    Skipped(where, "?", "unreadable", "the question's task is not recognised")
                )
                continue
            spec = TASKS.get(task)
            if spec is None:
                out.skipped.append(
                    Skipped(where, task, "no GRIT task", f"no GRIT task poses NLGraph's {task}")
                )
                continue
            origin = f"{name}#{key}"
            if question in seen:
                out.skipped.append(
                    Skipped(where, task, "duplicate", f"the same question as {seen[question]}")
                )
                continue
            seen[question] = origin
            try:
                s = spec.parse(question)
            except GraphError as exc:
                out.skipped.append(Skipped(where, task, "unreadable", f"question: {exc}"))
                continue
            difficulty = value.get("difficulty")
            level = f"/{difficulty}" if isinstance(difficulty, str) and difficulty else ""
            out.items.append(
                PeerItem(
                    where=where,
                    origin=origin,
                    key=f"{id_part(name)}-{id_part(key)}",
                    peer_task=task,
                    structure=s,
                    names=tuple(str(i) for i in range(s.n)),
                    question=question,
                    form="standard",
                    naming="canonical",
                    scenario=f"nlgraph/{task}{level}",
                    reference=spec.read_reference(value.get("answer"), s),
                )
            )
        out.files.append((name, sha256(file), len(pairs)))
    return out
