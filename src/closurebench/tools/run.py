"""Run one tool call: :func:`run_tool` parses, validates, solves and formats, never raising.

Example:
    >>> r = run_tool('{"problem_type": "shortest_path", "graph": {"type": "adjacency_list", '
    ...              '"data": {"A": {"B": 4, "C": 1}, "C": {"B": 2}}, "directed": false, '
    ...              '"weighted": true}, "parameters": {"start": "A", "end": "B"}}')
    >>> r.ok, r.kind, r.value, r.details["path"]
    (True, 'ok', 3, ['A', 'C', 'B'])
    >>> print(r.text)
    Shortest path algorithm (Dijkstra) result:
    • Path: A → C → B
    • Total Length: 3
    >>> bad = run_tool('{"problem_type": "bfs", "graph": {"data": {}, "directed": true}}')
    >>> bad.ok, bad.kind, bad.problem_type
    (False, 'schema', 'bfs')
    >>> print(bad.text)
    Error (schema): graph.weighted is missing: expected true or false, got no such key.
    Fix: add "weighted": true or "weighted": false to the graph object.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from closurebench.tools.calls import read_call
from closurebench.tools.errors import ToolError
from closurebench.tools.limits import ToolLimits
from closurebench.tools.problems import solve
from closurebench.tools.types import ToolGraph

__all__ = ["ToolResult", "run_tool"]


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call.

    Attributes:
        ok: True when the problem was solved.
        text: The ``<result>`` body (an ``Error (<kind>): …`` line when not ``ok``); the
            same call always gives the same text.
        kind: ``"ok"`` or the error kind (:data:`~closurebench.tools.errors.ERROR_KINDS`).
        problem_type: The canonical problem type, when ``problem_type`` was understood.
        graph: The parsed graph whenever the ``graph`` field was valid, even if another
            part of the call was not (the input of the structure metrics).
        value: The main answer as JSON: a path cost, chromatic number, tour cost, cover
            size, BFS order, top node, bool, list, ... (``None`` on error, or when no
            answer exists, e.g. no path or no topological order).
        details: JSON-able extras (path, coloring, tour, cover, scores, ...); on error the
            error's ``path``, ``expected``, ``got`` and ``fix``.
        seconds: Wall-clock time of the call.
        algorithm: The ``algorithm`` parameter as written (informative), if any.
    """

    ok: bool
    text: str
    kind: str
    problem_type: str | None
    graph: ToolGraph | None
    value: Any
    details: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    algorithm: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The result as a JSON-able dict (the graph as its fields).

        Example:
            >>> d = run_tool('{"problem_type": "triangle_count", "graph": {"data": '
            ...              '{"a": ["b", "c"], "b": ["c"]}, "directed": false, '
            ...              '"weighted": false}}').as_dict()
            >>> d["value"], d["graph"]["edges"][0]
            (1, ['a', 'b', None])
        """
        graph = None
        if self.graph is not None:
            graph = {
                "directed": self.graph.directed,
                "weighted": self.graph.weighted,
                "nodes": list(self.graph.nodes),
                "edges": [list(e) for e in self.graph.edges],
            }
        return {
            "ok": self.ok,
            "kind": self.kind,
            "problem_type": self.problem_type,
            "algorithm": self.algorithm,
            "value": self.value,
            "details": self.details,
            "text": self.text,
            "graph": graph,
            "seconds": self.seconds,
        }


def run_tool(call: str | bytes | Mapping[str, Any], limits: ToolLimits | None = None) -> ToolResult:
    """Answer one tool call; never raises on any input.

    Args:
        call: The inside of ``<graph>…</graph>`` (surrounding whitespace, the tags
            themselves and a Markdown fence are tolerated), or the call as a mapping.
        limits: Size and time limits (default :class:`ToolLimits`).

    Returns:
        The :class:`ToolResult`; its ``text`` is what goes inside ``<result>…</result>``.

    Example:
        >>> r = run_tool({"problem_type": "graph coloring", "graph": {"data": {
        ...     "a": ["b", "c"], "b": ["c"]}, "directed": False, "weighted": False}})
        >>> r.value, r.details["coloring"]
        (3, {'a': 1, 'b': 2, 'c': 3})
    """
    start = time.perf_counter()
    graph: ToolGraph | None = None
    ptype: str | None = None
    algorithm: str | None = None
    try:
        lim = limits if isinstance(limits, ToolLimits) else ToolLimits()
        parsed, graph, ptype, error = read_call(call, lim)
        if error is not None:
            raise error
        assert parsed is not None
        algorithm = parsed.algorithm
        answer = solve(parsed, lim)
        return ToolResult(
            ok=True,
            text=answer.text(),
            kind="ok",
            problem_type=ptype,
            graph=graph,
            value=answer.value,
            details=answer.details,
            seconds=time.perf_counter() - start,
            algorithm=algorithm,
        )
    except ToolError as exc:
        return _failed(exc, ptype, graph, algorithm, start)
    except RecursionError:
        deep = ToolError(
            "invalid_json",
            "the call is nested too deeply to read",
            expected="the flat call object of the schema",
            got="values nested hundreds of levels deep",
            fix="send the call object of the schema",
        )
        return _failed(deep, ptype, graph, algorithm, start)
    except Exception as exc:  # never let a bug reach the model as a crash
        where = traceback.extract_tb(exc.__traceback__)[-1]
        internal = ToolError(
            "internal",
            f"the tool failed unexpectedly ({type(exc).__name__} at "
            f"{where.name}:{where.lineno}); this is a bug in the tool, not in the call",
            fix="retry once; if it fails again, answer without the tool",
        )
        return _failed(internal, ptype, graph, algorithm, start)


def _failed(
    exc: ToolError,
    ptype: str | None,
    graph: ToolGraph | None,
    algorithm: str | None,
    start: float,
) -> ToolResult:
    return ToolResult(
        ok=False,
        text=exc.text(),
        kind=exc.kind,
        problem_type=ptype,
        graph=graph,
        value=None,
        details=exc.as_dict(),
        seconds=time.perf_counter() - start,
        algorithm=algorithm,
    )
