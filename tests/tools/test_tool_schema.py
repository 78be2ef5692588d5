"""What the tool accepts (synonyms, numeric strings, both directions, list form, fences)
and what it refuses: every error kind, with the field's path, expected vs got, and a fix."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from tool_calls import DIGRAPH, ROADS, SQUARE, TABLE_14, WHEEL, make_call

from closurebench.tools import (
    ERROR_KINDS,
    PARAM_SYNONYMS,
    PROBLEM_SYNONYMS,
    PROBLEM_TYPES,
    ToolLimits,
    ToolResult,
    parse_call,
    run_tool,
)
from closurebench.tools import problems as problems_module
from closurebench.tools.names import normalize


def fail(call: Any, kind: str, *parts: str, limits: ToolLimits | None = None) -> ToolResult:
    """Run ``call``; it must fail with ``kind`` and a text holding every one of ``parts``."""
    r = run_tool(call, limits)
    assert not r.ok and r.kind == kind, r.text
    assert r.text.startswith(f"Error ({kind}): ")
    assert r.value is None
    for part in parts:
        assert part in r.text, f"{part!r} not in {r.text!r}"
    assert r.details["message"] in r.text
    return r


# --- accepted ---------------------------------------------------------------------------


def test_wrappers_and_whitespace_are_tolerated() -> None:
    plain = run_tool(TABLE_14)
    for text in (
        f"\n  {TABLE_14}  \n",
        f"```json\n{TABLE_14}\n```",
        f"```\n{TABLE_14}```",
        f"<graph>\n{TABLE_14}\n</graph>",
        f"<graph>```json\n{TABLE_14}\n```</graph>",
        TABLE_14.encode(),
    ):
        r = run_tool(text)
        assert r.ok and r.text == plain.text


def test_problem_type_synonyms_and_spelling() -> None:
    for spelling in (
        "shortest_path",
        "Shortest Path",
        "shortest-path",
        "SHORTEST_PATH_LENGTH",
        "dijkstra",
        " Shortest  path ",
    ):
        r = run_tool(make_call(spelling, ROADS, weighted=True, start="A", end="E"))
        assert r.ok and r.problem_type == "shortest_path" and r.value == 11
    for synonym, (canon, implied) in PROBLEM_SYNONYMS.items():
        assert canon in PROBLEM_TYPES and normalize(synonym) == synonym
        assert set(implied) <= set(PARAM_SYNONYMS)
    assert run_tool(make_call("Graph Colouring", WHEEL)).problem_type == "graph_coloring"
    assert run_tool(make_call("travelling salesman", SQUARE, weighted=True)).value == 4
    assert run_tool(make_call("betweenness centrality", WHEEL)).details["measure"] == "betweenness"


@pytest.mark.parametrize("start_key", PARAM_SYNONYMS["start"])
@pytest.mark.parametrize("end_key", PARAM_SYNONYMS["end"])
def test_parameter_synonyms(start_key: str, end_key: str) -> None:
    ends: dict[str, Any] = {start_key: "A", end_key: "E"}
    call = make_call("shortest_path", ROADS, weighted=True, **ends)
    r = run_tool(call)
    assert r.ok and r.value == 11, r.text
    assert "Note" not in r.text


def test_parameter_names_are_case_and_separator_insensitive() -> None:
    end: dict[str, Any] = {"Target-Node": "E"}
    call = make_call("shortest_path", ROADS, weighted=True, Source="A", **end)
    assert run_tool(call).value == 11
    assert run_tool(make_call("bfs", WHEEL, start="h", tie_break="Alphabetical")).ok


def test_weights_as_numeric_strings() -> None:
    data = {"A": {"B": "7", "C": " 2.5 "}, "C": {"B": "1e0"}}
    r = run_tool(make_call("shortest_path", data, weighted=True, start="A", end="B"))
    assert r.ok and r.value == 3.5 and r.details["path"] == ["A", "C", "B"]
    assert r.graph is not None and r.graph.edges == (("A", "B", 7), ("A", "C", 2.5), ("C", "B", 1))
    assert "Total Length: 3.5" in r.text
    whole = run_tool(
        make_call("shortest_path", {"a": {"b": 4.0}}, weighted=True, start="a", end="b")
    )
    assert (
        whole.value == 4 and isinstance(whole.value, int) and "Total Length: 4\n" not in whole.text
    )
    assert whole.text.endswith("Total Length: 4")


def test_undirected_edges_listed_once_or_both_ways() -> None:
    once = run_tool(
        make_call("shortest_path", {"a": {"b": 2}, "b": {}}, weighted=True, start="b", end="a")
    )
    both = run_tool(
        make_call(
            "shortest_path", {"a": {"b": 2}, "b": {"a": "2"}}, weighted=True, start="b", end="a"
        )
    )
    assert once.value == both.value == 2
    assert both.graph is not None and both.graph.edges == (("a", "b", 2),)
    assert both.graph.edge_count == 1
    directed = run_tool(
        make_call(
            "shortest_path",
            {"a": {"b": 2}, "b": {"a": 5}},
            directed=True,
            weighted=True,
            start="b",
            end="a",
        )
    )
    assert directed.value == 5 and directed.graph is not None and directed.graph.edge_count == 2


def test_unweighted_graphs_ignore_every_weight() -> None:
    data = {"a": {"b": "7 km", "c": None}, "b": {"c": True}}
    r = run_tool(make_call("shortest_path", data, start="a", end="c"))
    assert r.ok and r.value == 1
    assert r.graph is not None and all(w is None for *_, w in r.graph.edges)


def test_list_form_and_neighbour_only_nodes() -> None:
    r = run_tool(make_call("bfs", {"a": ["b", "c"], "c": [5]}, start="a"))
    # Listed order: the keys (a, c), then nodes named only as neighbours (b, 5).
    assert r.ok and r.value == ["a", "c", "b", "5"]
    assert r.graph is not None and r.graph.nodes == ("a", "b", "c", "5")  # first mention
    pairs = run_tool(
        make_call(
            "shortest_path",
            {"a": [["b", 3], ["c", "1"]], "c": [["b", 1]]},
            weighted=True,
            start="a",
            end="b",
        )
    )
    assert pairs.value == 2
    t14 = parse_call(TABLE_14)
    assert "Skyline Gardens" in t14.graph.nodes and "Vorlen Heights" in t14.graph.nodes
    assert t14.listing[-2:] == ("Skyline Gardens", "Vorlen Heights")


def test_integer_keys_of_a_mapping_call_are_their_text() -> None:
    call = make_call("shortest_path", {1: {2: 3}, 2: {}}, weighted=True, start=1, end="2")  # type: ignore[dict-item]
    r = run_tool(call)
    assert r.ok and r.value == 3 and r.details["path"] == ["1", "2"]


def test_node_names_match_exactly_then_loosely() -> None:
    r = run_tool(make_call("shortest_path", ROADS, weighted=True, start=" a ", end="e"))
    assert r.ok and r.details["path"][0] == "A"
    t14 = json.loads(TABLE_14)
    t14["parameters"] = {"start": "xundral  VIEW", "end": "Zaphrel Summit"}
    assert run_tool(t14).value == 16
    both = {"ab": ["AB"]}
    assert run_tool(make_call("shortest_path", both, start="AB", end="ab")).value == 1
    fail(
        make_call("shortest_path", both, start="Ab", end="ab"),
        "bad_parameter",
        "parameters.start",
        "several nodes",
        '"ab"',
        '"AB"',
    )


def test_algorithm_is_informative_and_unknown_parameters_are_named() -> None:
    r = run_tool(
        make_call(
            "shortest_path",
            ROADS,
            weighted=True,
            start="A",
            end="E",
            algorithm="Bellman-Ford",
            weight="distance",
        )
    )
    assert r.ok and r.value == 11 and r.algorithm == "Bellman-Ford"
    assert 'Note: ignored parameter(s) "weight": not used by shortest_path' in r.text
    assert '"algorithm": "Bellman-Ford" is informative only' in r.text
    same = run_tool(
        make_call(
            "shortest_path",
            ROADS,
            weighted=True,
            start="A",
            end="E",
            algorithm="Dijkstra's algorithm",
        )
    )
    assert "Note" not in same.text
    unused = run_tool(make_call("graph_coloring", WHEEL, start="h"))
    assert 'ignored parameter(s) "start"' in unused.text


# --- refused: one test per error kind ---------------------------------------------------


def test_invalid_json() -> None:
    fail('{"problem_type": "bfs",}', "invalid_json", "line 1, column", "Fix:")
    fail("{'problem_type': 'bfs'}", "invalid_json", "double quotes")
    fail('{"problem_type": "bfs"} {"x": 1}', "invalid_json", "exactly one JSON object")
    fail('{"a": True}', "invalid_json", "true, false and null in lower case")
    fail("   ", "invalid_json", "empty")
    fail("```json\n```", "invalid_json", "empty")
    fail(b"\xff\xfe{", "invalid_json", "UTF-8")
    fail('{"problem_type": "bfs", "x": NaN}', "invalid_json", "NaN")
    fail('{"w": 1' + "0" * 5000 + "}", "invalid_json", "cannot be read")
    fail("[" * 50_000 + "]" * 50_000, "invalid_json", "nested too deeply")


def test_schema_errors_name_the_field_expected_and_got() -> None:
    r = fail(
        make_call("bfs", {"a": ["b"]}, start="a")
        | {"graph": {"data": {"a": ["b"]}, "directed": "yes", "weighted": False}},
        "schema",
        "graph.directed must be true or false",
        "expected true or false",
        'got "yes" (a string)',
        "without quotes",
    )
    assert r.details["path"] == "graph.directed"
    assert r.details["expected"] == "true or false"
    km = fail(
        make_call(
            "shortest_path",
            {"Knights Market": {"Xundral View": "7 km"}},
            weighted=True,
            start="Knights Market",
            end="Xundral View",
        ),
        "schema",
        'graph.data["Knights Market"]["Xundral View"]',
        'got "7 km" (a string)',
        "write the bare number 7, without units",
    )
    assert km.details["path"] == 'graph.data["Knights Market"]["Xundral View"]'
    fail(make_call("bfs", {"a": {"b": "1,000"}}, weighted=True), "schema", "write 1000, without")
    assert km.graph is None and km.problem_type == "shortest_path"
    fail(
        make_call("shortest_path", {"a": {"b": 7}, "b": {"a": 5}}, weighted=True),
        "schema",
        'graph.data["a"]["b"] is 7',
        'graph.data["b"]["a"] is 5',
        "two weights",
    )
    fail(make_call("bfs", {"a": {"a": 1}}), "schema", 'graph.data["a"]["a"] is a self-loop')
    fail(
        '{"problem_type": "bfs", "graph": {"data": {"a": {"b": 1, "b": 2}}, "directed": true, '
        '"weighted": true}}',
        "schema",
        'graph.data["a"]',
        'key "b" more than once',
    )
    fail(make_call("bfs", {"a": {"b": -1}}, weighted=True), "schema", "negative weight", "got -1")
    fail(make_call("bfs", {"a": {"b": True}}, weighted=True), "schema", "not a number", "got true")
    fail(make_call("bfs", {"a": {"b": None}}, weighted=True), "schema", "missing its weight")
    fail(
        make_call("bfs", {"a": ["b"]}, weighted=True),
        "schema",
        'graph.data["a"][0]',
        "without a weight",
        '"weighted": false',
    )
    fail(
        make_call("bfs", {"a": "b"}),
        "schema",
        'graph.data["a"] must be an object',
        'got "b" (a string)',
    )
    fail(make_call("bfs", {"a": [1.5]}), "schema", 'graph.data["a"][0]', "not a node name")
    fail(make_call("bfs", {"": []}), "schema", "empty node name")
    fail(make_call("bfs", {}), "schema", "graph.data has no nodes")
    fail(
        make_call("bfs", [["a", "b"]]),  # type: ignore[arg-type]
        "schema",
        "graph.data must be an object",
        "got a list of 1 item",
    )
    fail({"problem_type": "bfs"}, "schema", "the call has no graph")
    fail({"graph": {}}, "schema", "the call has no problem_type")
    fail({"problem_type": 3, "graph": {}}, "schema", "problem_type must be a string", "got 3")
    fail(
        {"problem_type": "bfs", "graph": {"data": {"a": []}, "directed": False}},
        "schema",
        "graph.weighted is missing",
    )
    fail(
        {
            "problem_type": "bfs",
            "graph": {"type": "edge_list", "data": {"a": []}, "directed": False, "weighted": False},
        },
        "schema",
        "graph.type",
        'got "edge_list"',
    )
    fail(
        make_call("bfs", {"a": []}) | {"parameters": ["a"]},
        "schema",
        "parameters must be an object",
    )
    fail(
        make_call("shortest_path", ROADS, start="A", end="E", algorithm=3),
        "schema",
        "parameters.algorithm must be a string",
    )
    fail([1, 2], "schema", "must be a JSON object")
    fail(3.5, "schema", "must be a JSON object")


def test_unknown_problem_type_lists_the_known_ones() -> None:
    r = fail(
        make_call("shortest_pth", ROADS, weighted=True),
        "unknown_problem_type",
        '"shortest_pth"',
        "closest: shortest_path",
        *PROBLEM_TYPES,
    )
    assert r.graph is not None and r.graph.edge_count == 6  # the graph still parsed
    fail(make_call("max flow", ROADS), "unknown_problem_type", "expected one of shortest_path")


def test_bad_parameters() -> None:
    fail(
        make_call("shortest_path", ROADS, weighted=True, end="E"),
        "bad_parameter",
        "parameters.start is missing",
        "source, from, origin",
    )
    fail(
        make_call("shortest_path", ROADS, weighted=True, strat="A", end="E"),
        "bad_parameter",
        "parameters.start is missing",
        '"strat"',
    )
    r = fail(
        json.loads(TABLE_14) | {"parameters": {"start": "Xundral Veiw", "end": "Zaphrel Summit"}},
        "bad_parameter",
        "parameters.start names no node",
        'did you mean "Xundral View"',
    )
    assert r.details["path"] == "parameters.start"
    fail(
        make_call("shortest_path", ROADS, start="A", source="B", end="E"),
        "bad_parameter",
        "start twice with different values",
        "start=",
        "source=",
    )
    assert run_tool(make_call("shortest_path", ROADS, start="A", source="A", end="E")).ok
    fail(
        make_call("shortest_path", ROADS, start=["A"], end="E"),
        "bad_parameter",
        "parameters.start must name a node",
        "a list of 1 item",
    )
    fail(
        make_call("bfs", ROADS, start="A", order="random"),
        "bad_parameter",
        "parameters.order",
        "listed, numeric, alphabetical",
        'got "random"',
    )
    fail(
        make_call("centrality", WHEEL),
        "bad_parameter",
        "parameters.measure is missing",
        "degree, closeness, betweenness",
        '"measure": "degree"',
    )
    fail(make_call("centrality", WHEEL, measure="pagerank"), "bad_parameter", '"pagerank"')
    fail(
        make_call("degree centrality", WHEEL, measure="closeness"),
        "bad_parameter",
        "measure twice with different values",
    )
    fail(
        make_call("descendants", DIGRAPH, directed=True, node="a", start="b"),
        "bad_parameter",
        "name different nodes",
    )


def test_unsupported_graphs() -> None:
    incomplete = {"a": {"b": 1, "c": 2}, "b": {"c": 1}, "d": {"a": 3}}
    fail(
        make_call("tsp", incomplete, weighted=True),
        "unsupported",
        'there is none between "b" and "d"',
        "2 pairs are missing",
        'graph.data["b"]["d"]',
    )
    fail(make_call("tsp", SQUARE, directed=True, weighted=True), "unsupported", "graph.directed")
    fail(
        make_call("centrality", WHEEL, directed=True, measure="degree"),
        "unsupported",
        "undirected graphs only",
    )
    fail(make_call("mst", ROADS, directed=True, weighted=True), "unsupported", "undirected")
    fail(make_call("topological_sort", WHEEL), "unsupported", "needs a directed graph")
    fail(
        make_call("centrality", {"a": {"b": 0}}, weighted=True, measure="closeness"),
        "unsupported",
        "positive weights",
    )


def test_too_large_is_quick() -> None:
    limits = ToolLimits(max_nodes=5, max_edges=4, max_chars=2_000, max_name_chars=10)
    fail(
        make_call("bfs", {str(i): [] for i in range(6)}),
        "too_large",
        "at most 5 nodes",
        limits=limits,
    )
    fail(
        make_call("bfs", {"a": ["b", "c", "d", "e", "f"]}), "too_large", "node limit", limits=limits
    )
    fail(
        make_call("bfs", {"a": ["b", "c"], "b": ["c", "d"], "c": ["d"]}),
        "too_large",
        "at most 4 edges",
        limits=limits,
    )
    fail(make_call("bfs", {"a" * 11: []}), "too_large", "at most 10 characters", limits=limits)
    fail(
        json.dumps(make_call("bfs", {"a": [], "b": []}, start="a")) + " " * 2_000,
        "too_large",
        "at most 2,000 characters",
        limits=limits,
    )
    fail(make_call("bfs", {"a": {"b": 1e13}}, weighted=True), "too_large", "too large a weight")
    huge = {f"n{i}": [f"n{i + 1}"] for i in range(50_000)}  # 250x the node limit, 5x the characters
    huge_call = make_call("bfs", huge)
    huge_text = json.dumps(huge_call)
    fail(huge_call, "too_large", "at most 200 nodes")
    fail(huge_text, "too_large", "at most 200,000 characters")
    dense = {f"n{i}": [f"n{j}" for j in range(i + 1, 200)] for i in range(200)}
    fail(make_call("bfs", dense, start="n0"), "too_large", "at most 5,000 edges")

    # Rejection stops at the limit: far cheaper than one linear pass over the input
    # (ratios in one process, no wall-clock bound).
    def best(fn: Any) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return min(times)

    assert best(lambda: run_tool(huge_call)) * 10 < best(lambda: json.dumps(huge_call))
    assert best(lambda: run_tool(huge_text)) * 10 < best(lambda: json.loads(huge_text))


def test_timeout_never_returns_a_heuristic_answer() -> None:
    import random

    rng = random.Random(3)
    data: dict[str, dict[str, int]] = {str(i): {} for i in range(70)}
    for i in range(70):
        for j in range(i + 1, 70):
            if rng.random() < 0.5:
                data[str(i)][str(j)] = 1
    r = fail(
        make_call("graph_coloring", data),
        "timeout",
        "graph_coloring",
        "within 0.01 s",
        "never returns a heuristic answer",
        limits=ToolLimits(time_limit=0.01),
    )
    assert r.graph is not None and r.problem_type == "graph_coloring"


def test_a_bug_is_an_internal_error_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ctx: problems_module.Context) -> problems_module.Answer:
        raise ZeroDivisionError("boom")

    spec = problems_module.PROBLEMS["bfs"]
    monkeypatch.setitem(
        problems_module.PROBLEMS, "bfs", problems_module.ProblemSpec("bfs", broken, spec.params, "")
    )
    r = fail(make_call("bfs", WHEEL, start="h"), "internal", "ZeroDivisionError", "bug in the tool")
    assert r.graph is not None


def test_every_error_kind_is_documented_and_reached() -> None:
    assert set(ERROR_KINDS) == {
        "invalid_json",
        "schema",
        "unknown_problem_type",
        "bad_parameter",
        "unsupported",
        "too_large",
        "timeout",
        "internal",
    }
