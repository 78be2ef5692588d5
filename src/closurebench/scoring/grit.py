"""Scoring a GRIT response: ``<answer>``/``\\boxed{}``/JSON extraction, then the checkers.

Names are mapped to node ids through ``names`` and ``aliases`` (exact first; then case-
and whitespace-insensitive, only when that match is unambiguous). The response is judged
by verdict:

* value tasks (``shortest_path``, ``tsp``, ``vertex_cover``, ``graph_coloring``): a number is
  compared with the reference cost / size / colour count; a solution (path, tour, cover,
  colouring as ``{name: colour}``, as colour classes ``[[names], ...]`` or as a list of
  colours in node order) is checked with the exact checkers for validity *and* optimality,
  so any optimal solution is correct even when it differs from the stored one;
* ``bfs``: the order of names must be the stated one (strict); with ``lenient_bfs`` any
  valid BFS order is ``lenient_only`` (the spec's lenient mode);
* ``centrality``: the node (name, alias, or a one-element list of it).

A wrong value type (a string for a cost, an object for an order, a boolean anywhere) is a
``format_error``; a well-typed answer naming unknown nodes is ``wrong``.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping, Sequence
from typing import Any

from closurebench.graphs.exact.check import (
    Verdict,
    check_bfs_order,
    check_colouring,
    check_cover,
    check_path,
    check_tour,
)
from closurebench.schema.enums import ExtractStatus, Outcome
from closurebench.scoring.extract import extract_answer
from closurebench.scoring.outcome import Score

__all__ = ["resolve_name", "score_grit"]


_WS = re.compile(r"\s+")


def _norm(name: str) -> str:
    return _WS.sub(" ", name).strip().casefold()


def _name_tables(record: Mapping[str, Any]) -> tuple[dict[str, int], dict[str, int | None]]:
    exact: dict[str, int] = {}
    loose: dict[str, int | None] = {}
    pairs = [(str(n), i) for i, n in enumerate(record.get("names") or [])]
    pairs += [(str(a), int(i)) for a, i in (record.get("aliases") or {}).items()]
    for name, node in pairs:
        exact.setdefault(name, node)
        key = _norm(name)
        if key in loose and loose[key] != node:
            loose[key] = None  # ambiguous under case/whitespace folding
        else:
            loose.setdefault(key, node)
    return exact, loose


def resolve_name(record: Mapping[str, Any], name: Any) -> int | None:
    """The node id a name (or alias) stands for in ``record``'s view, or ``None``.

    Exact match first; then case/whitespace-insensitive if that is unambiguous.
    Integers are read as names (``7`` is the node *named* "7").

    Example:
        >>> rec = {"names": ["Oak Road", "oak  road ", "Elm"], "aliases": {"Big Elm": 2}}
        >>> [resolve_name(rec, x) for x in ("Oak Road", "ELM", "big elm", "OAK ROAD", 3)]
        [0, 2, 2, None, None]
    """
    if isinstance(name, bool):
        return None
    if isinstance(name, float) and name.is_integer():
        name = int(name)
    if not isinstance(name, str | int):
        return None
    text = str(name)
    exact, loose = _name_tables(record)
    if text in exact:
        return exact[text]
    if text.strip() in exact:
        return exact[text.strip()]
    return loose.get(_norm(text))


def _names_list(value: Any) -> list[Any] | None:
    if isinstance(value, str):
        parts = re.split(r"->|→|⟶|[,;\n]", value)
        return [p.strip() for p in parts if p.strip()]
    if isinstance(value, list | tuple):
        return list(value)
    return None


def _ids(record: Mapping[str, Any], names: Sequence[Any]) -> list[int] | str:
    out = []
    for name in names:
        node = resolve_name(record, name)
        if node is None:
            return f"unknown node {name!r}"
        out.append(node)
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _weights(record: Mapping[str, Any]) -> list[list[float]]:
    n = record["graph"]["n"]
    w = [[0.0] * n for _ in range(n)]
    for u, v, weight in record["graph"]["edges"]:
        w[u][v] = w[v][u] = weight
    return w


def _colouring(record: Mapping[str, Any], value: Any) -> Any:
    """A colouring candidate in node ids (mapping or per-node list), or a reason string."""
    n = record["graph"]["n"]
    if isinstance(value, Mapping):
        out = {}
        for name, colour in value.items():
            node = resolve_name(record, name)
            if node is None:
                return f"unknown node {name!r}"
            if node in out:
                return f"node {name!r} is coloured twice"
            out[node] = colour
        return out
    if isinstance(value, list) and value and all(isinstance(c, list) for c in value):
        out = {}
        for colour, group in enumerate(value):
            ids = _ids(record, group)
            if isinstance(ids, str):
                return ids
            for node in ids:
                if node in out:
                    return f"node {record['names'][node]!r} is in two colour classes"
                out[node] = colour
        return out
    if isinstance(value, list) and len(value) == n:
        return value
    return f"colouring {value!r} is neither a mapping, colour classes nor {n} colours"


def _solution_verdict(record: Mapping[str, Any], task: str, value: Any) -> Verdict | str:
    g, params, answer = record["graph"], record.get("params") or {}, record["answer"]
    n, edges = g["n"], g["edges"]
    if task == "graph_coloring":
        cand = _colouring(record, value)
        if isinstance(cand, str):
            return cand
        return check_colouring(n, [e[:2] for e in edges], cand, optimum=answer)
    names = _names_list(value)
    if names is None:
        return "format"
    ids = _ids(record, names)
    if isinstance(ids, str):
        return ids
    if task == "shortest_path":
        return check_path(
            n,
            edges,
            params["source"],
            params["target"],
            ids,
            directed=g["directed"],
            optimum=answer,
        )
    if task == "tsp":
        return check_tour(_weights(record), ids, optimum=answer)
    return check_cover(n, [e[:2] for e in edges], ids, optimum=answer)


def score_grit(
    record: Mapping[str, Any], response_text: str | None, *, lenient_bfs: bool = False
) -> Score:
    """Score one GRIT response against its instance record (see the module docstring).

    Args:
        record: A GRIT instance (``task``, ``answer``, ``solution``, ``graph``, ``names``,
            ``aliases``, ``params``).
        response_text: The model's raw output (untrusted; never raises on it).
        lenient_bfs: Accept any valid BFS order as ``lenient_only``.

    Returns:
        The :class:`Score`.
    """
    got = extract_answer(response_text, grit=True)
    if got.status is not ExtractStatus.OK:
        return Score.fail(Outcome(got.status))
    task, value = record["task"], got.value
    if isinstance(value, bool) or value is None:
        return Score.fail(
            Outcome.FORMAT_ERROR, value, f"{value!r} is not an answer to a {task} question"
        )
    if task in ("shortest_path", "tsp", "vertex_cover", "graph_coloring"):
        if _is_number(value):
            ok = float(value) == float(record["answer"])
            reason = "" if ok else f"{value} differs from the optimum {record['answer']}"
            return Score.decide(ok, ok, value, reason)
        if isinstance(value, str) and len(_names_list(value) or []) < 2:
            return Score.fail(
                Outcome.FORMAT_ERROR, value, f"expected a number or a solution for {task}"
            )
        verdict = _solution_verdict(record, task, value)
        if verdict == "format":
            return Score.fail(
                Outcome.FORMAT_ERROR, value, f"expected a number or a solution for {task}"
            )
        if isinstance(verdict, str):
            return Score.decide(False, False, value, verdict)
        return Score.decide(verdict.ok, verdict.ok, value, verdict.reason)
    if task == "bfs":
        names = _names_list(value)
        if names is None:
            return Score.fail(Outcome.FORMAT_ERROR, value, "expected an order of names")
        ids = _ids(record, names)
        if isinstance(ids, str):
            return Score.decide(False, False, value, ids)
        g = record["graph"]
        verdict = check_bfs_order(
            g["n"],
            [e[:2] for e in g["edges"]],
            record["params"]["source"],
            ids,
            directed=g["directed"],
            lenient=True,
        )
        exact = ids == list(record["solution"])
        if exact:
            return Score.decide(True, True, value, "")
        reason = verdict.reason or "a valid BFS order, but not with neighbours in the stated order"
        return Score.decide(False, lenient_bfs and verdict.ok, value, reason)
    if task == "centrality":
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, str | int) or isinstance(value, bool):
            return Score.fail(Outcome.FORMAT_ERROR, value, "expected one node name")
        node = resolve_name(record, value)
        if node is None:
            return Score.decide(False, False, value, f"unknown node {value!r}")
        target = record.get("solution")
        if target is None:
            target = resolve_name(record, record["answer"])
        ok = node == target
        return Score.decide(ok, ok, value, "" if ok else f"{value!r} is not the most central node")
    raise ValueError(f"unknown GRIT task {task!r}")
