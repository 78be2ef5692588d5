"""run_tool never raises, whatever the model writes (hypothesis-generated input)."""

from __future__ import annotations

import json
import math
import time
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tool_calls import TABLE_14

from closurebench.tools import ERROR_KINDS, PARAM_SYNONYMS, PROBLEM_TYPES, ToolResult, run_tool

NAMES = st.sampled_from(["a", "b", "c", "d", "A", " a", "0", "1", "10", "Knights Market", "é"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8)
    | NAMES
    | st.sampled_from(["7", "7.5", "7 km", "-3", "1e400", "NaN", ""])
)
ANYTHING = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=5) | NAMES | st.integers(), children, max_size=4)
    ),
    max_leaves=12,
)
GOOD_WEIGHT = st.integers(1, 12) | st.sampled_from(["3", "2.5", " 4 "])
MEASURES = st.sampled_from(["degree", "closeness", "betweenness", "Degree Centrality"])
ORDERS = st.sampled_from(["listed", "numeric", "alphabetical", "alphabetic"])
PARAM_KEYS = st.sampled_from(
    [k for names in PARAM_SYNONYMS.values() for k in names] + ["foo", "Start", "weight"]
)


@st.composite
def valid_calls(draw: st.DrawFn) -> dict[str, Any]:
    """Well-formed calls (they may still name a missing node or break a rule)."""
    weighted = draw(st.booleans())
    directed = draw(st.booleans())
    data: dict[str, Any] = {}
    listed: set[tuple[str, str]] = set()
    for key in draw(st.lists(NAMES, min_size=1, max_size=7, unique=True)):
        others = [x for x in draw(st.lists(NAMES, max_size=4, unique=True)) if x != key]
        # an undirected edge may come twice, but then with one weight: keep the first
        others = [x for x in others if directed or (x, key) not in listed]
        listed.update((key, x) for x in others)
        if weighted or draw(st.booleans()):
            data[key] = {x: draw(GOOD_WEIGHT) for x in others}
        else:
            data[key] = others
    nodes = sorted({*data, *(x for nbrs in data.values() for x in nbrs)})
    start = draw(st.sampled_from(nodes) | NAMES)
    params: dict[str, Any] = {
        "start": start,
        "end": draw(st.sampled_from(nodes) | NAMES),
        "node": start,
        "measure": draw(MEASURES),
        "order": draw(ORDERS),
        "algorithm": draw(st.sampled_from(["dijkstra", "greedy", "bfs"])),
    }
    mostly = st.sampled_from([True, True, True, True, False])
    keep = [k for k in params if draw(mostly)]
    return {
        "problem_type": draw(st.sampled_from([*PROBLEM_TYPES, "mst", "Dijkstra"])),
        "graph": {
            "type": "adjacency_list",
            "data": data,
            "directed": directed,
            "weighted": weighted,
        },
        "parameters": {k: params[k] for k in keep},
    }


@st.composite
def broken_calls(draw: st.DrawFn) -> Any:
    """A well-formed call with one place replaced by anything, or one key dropped."""
    call: Any = draw(valid_calls())
    graph, data = call["graph"], call["graph"]["data"]
    where = draw(
        st.sampled_from(
            [
                "problem_type",
                "graph",
                "parameters",
                "type",
                "data",
                "directed",
                "weighted",
                "node",
                "neighbours",
                "weight",
                "param",
                "drop",
            ]
        )
    )
    junk = draw(ANYTHING)
    key = draw(st.sampled_from(sorted(data)))
    if where in ("problem_type", "graph", "parameters"):
        call[where] = junk
    elif where in ("type", "data", "directed", "weighted"):
        graph[where] = junk
    elif where == "node":
        data[draw(NAMES | st.integers())] = junk
    elif where == "neighbours":
        data[key] = junk
    elif where == "weight" and isinstance(data[key], dict):
        data[key][draw(NAMES)] = junk
    elif where == "param":
        call["parameters"][draw(PARAM_KEYS)] = junk
    elif where == "drop":
        target = call if draw(st.booleans()) else graph
        target.pop(draw(st.sampled_from(["problem_type", "graph", "data", "directed"])), None)
    return call


calls = valid_calls() | broken_calls()


def check(result: ToolResult) -> None:
    assert isinstance(result, ToolResult)
    assert result.kind == "ok" or result.kind in ERROR_KINDS
    assert result.kind != "internal", result.text
    assert result.ok == (result.kind == "ok")
    assert isinstance(result.text, str) and result.text
    if not result.ok:
        assert result.text.startswith(f"Error ({result.kind}): ")
    json.dumps(result.as_dict(), allow_nan=False)


@settings(max_examples=400, deadline=None)
@given(calls)
def test_nearly_right_calls_never_raise(call: Any) -> None:
    first = run_tool(call)
    check(first)
    assert run_tool(call).text == first.text
    try:
        text = json.dumps(call)
    except (TypeError, ValueError):
        return
    check(run_tool(text))


@settings(max_examples=200, deadline=None)
@given(ANYTHING)
def test_any_json_value_never_raises(value: Any) -> None:
    check(run_tool(value))
    check(run_tool(json.dumps(value)))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.binary(max_size=300))
def test_any_text_or_bytes_never_raises(text: str | bytes) -> None:
    check(run_tool(text))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(TABLE_14) - 1), st.integers(1, 6), st.text(max_size=4))
def test_corrupted_paper_call_never_raises(at: int, cut: int, insert: str) -> None:
    check(run_tool(TABLE_14[:at] + insert + TABLE_14[at + cut :]))


def test_extreme_values() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    base = json.loads(TABLE_14)
    odd_calls: list[Any] = [
        deep,
        {
            "problem_type": "bfs",
            "graph": {"data": {"a": deep}, "directed": False, "weighted": False},
        },
        '{"problem_type": "bfs", "graph": {"data": {"a": {"b": 1e400}}, "directed": false, '
        '"weighted": true}}',
        base | {"parameters": {"start": 10**5000, "end": "Zaphrel Summit"}},
        base | {"parameters": {"start": math.nan, "end": math.inf}},
        {
            "problem_type": "bfs",
            "graph": {"data": {(1, 2): []}, "directed": False, "weighted": False},
        },
        {
            "problem_type": "bfs",
            "graph": {"data": {None: []}, "directed": False, "weighted": False},
        },
        {
            "problem_type": "bfs",
            "graph": {"data": {1: [], "1": []}, "directed": False, "weighted": False},
        },
        {
            "problem_type": "bfs",
            "graph": {"data": {"a": {"b": 10**5000}}, "directed": 1, "weighted": True},
        },
        {
            "problem_type": "tsp",
            "graph": {"data": {"a": {"b": 10**5000}}, "directed": False, "weighted": True},
        },
        {"problem_type": b"bfs", "graph": object()},
        {1: 2},
        set(),
        None,
        12,
        "\x00" * 10,
        "\ud800",
        "{" + '"a":' * 10 + "1" + "}" * 10,
    ]
    for call in odd_calls:
        check(run_tool(call))


def _adversarial(k: int) -> list[Any]:
    """Inputs of about ``k`` characters that a backtracking pattern would take quadratic time on."""
    long_name = json.loads(TABLE_14)
    long_name["parameters"]["start"] = "Xundral View " * (k // 13)
    return [
        "<graph>" + " " * k + "x",
        "```" + " " * k + "x",
        "```json" + "\n" * k,
        "{" + " " * k,
        '{"problem_type": "' + "a " * (k // 2) + '"}',
        long_name,
    ]


def test_adversarial_text_is_answered_in_linear_time() -> None:
    """Four times the input takes well under sixteen times the time (a ratio, one process)."""

    def best(k: int) -> float:
        calls = _adversarial(k)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            for call in calls:
                check(run_tool(call))
            times.append(time.perf_counter() - start)
        return min(times)

    small, large = best(49_750), best(199_000)
    assert large / max(small, 1e-3) < 10, (small, large)  # linear ~4x, quadratic ~16x
