"""The paper's own call, determinism, the result object, the JSON Schema and the functions."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tool_calls import HAND_CALLS, TABLE_14

import closurebench.tools as tools
from closurebench.tools import (
    FUNCTIONS,
    PROBLEM_TYPES,
    ToolGraph,
    run_tool,
    tool_json_schema,
)

TABLE_14_RESULT = (
    "Shortest path algorithm (Dijkstra) result:\n"
    "• Path: Xundral View → Trelvon Bay → Copper Clock Square → Zaphrel Summit\n"
    "• Total Length: 16"
)


def test_table_14_call_verbatim_gives_table_14_result() -> None:
    r = run_tool(TABLE_14)
    assert r.ok and r.kind == "ok" and r.problem_type == "shortest_path"
    assert r.value == 16
    assert r.details["path"] == [
        "Xundral View",
        "Trelvon Bay",
        "Copper Clock Square",
        "Zaphrel Summit",
    ]
    assert r.text == TABLE_14_RESULT
    assert r.algorithm == "dijkstra"
    assert isinstance(r.graph, ToolGraph)
    assert r.graph.directed is False and r.graph.weighted is True
    assert r.graph.edge_count == 12 and len(r.graph.nodes) == 10
    assert r.graph.edges[0] == ("Knights Market", "Xundral View", 7)
    assert r.graph.nodes[:3] == ("Knights Market", "Xundral View", "Skyline Gardens")
    assert r.seconds >= 0


def test_same_call_same_bytes() -> None:
    calls: list[str | dict[str, Any]] = [TABLE_14, *HAND_CALLS.values()]
    for call in calls:
        first, second = run_tool(call), run_tool(call)
        assert first.text == second.text
        assert first.details == second.details and first.value == second.value
        text_call = call if isinstance(call, str) else json.dumps(call)
        assert run_tool(text_call).text == first.text


def test_texts_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    calls: list[str | dict[str, Any]] = [
        TABLE_14,
        *HAND_CALLS.values(),
        '{"problem_type": "x"}',
        "{bad",
    ]
    script = (
        "import json, sys\n"
        "from closurebench.tools import run_tool\n"
        "calls = json.load(sys.stdin)\n"
        "print(json.dumps([run_tool(c).text for c in calls]))\n"
    )
    outputs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", script],
            input=json.dumps(calls),
            capture_output=True,
            text=True,
            check=True,
            env=env,
            cwd=tmp_path,
        )
        outputs.append(json.loads(out.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0] == [run_tool(c).text for c in calls]


def test_results_are_json() -> None:
    calls: list[str | dict[str, Any]] = [
        TABLE_14,
        *HAND_CALLS.values(),
        "{",
        {"problem_type": "bfs"},
    ]
    for call in calls:
        d = run_tool(call).as_dict()
        text = json.dumps(d, allow_nan=False)
        assert json.loads(text)["text"] == d["text"]
        assert set(d) >= {"ok", "kind", "problem_type", "value", "details", "text", "graph"}


def test_the_json_schema_accepts_the_paper_call_and_the_hand_calls() -> None:
    schema = tool_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(json.loads(TABLE_14))
    for call in HAND_CALLS.values():
        validator.validate(call)
    assert not validator.is_valid({"problem_type": "shortest_path"})
    assert not validator.is_valid(
        {"problem_type": "nope", "graph": {"data": {"a": {}}, "directed": False, "weighted": False}}
    )
    bad_weight = json.loads(TABLE_14)
    bad_weight["graph"]["data"]["Knights Market"]["Xundral View"] = "7 km"
    assert not validator.is_valid(bad_weight)
    assert schema["properties"]["problem_type"]["enum"] == list(PROBLEM_TYPES)


@pytest.mark.parametrize("name", PROBLEM_TYPES)
def test_one_typed_function_per_problem_type(name: str) -> None:
    fn = FUNCTIONS[name]
    assert fn.__name__ == name and getattr(tools, name) is fn
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    assert params[0].name == "graph"
    assert all(p.annotation is not inspect.Parameter.empty for p in params)
    assert sig.return_annotation is not inspect.Signature.empty
    doc = inspect.getdoc(fn) or ""
    for section in ("Args:", "Returns:", "Example:"):
        assert section in doc
    for p in params:
        assert f"{p.name}:" in doc
    call = HAND_CALLS[name]
    kwargs = {k: v for k, v in call["parameters"].items()}
    out = fn(
        call["graph"]["data"],
        **kwargs,
        directed=call["graph"]["directed"],
        weighted=call["graph"]["weighted"],
    )
    assert out["ok"] and out["value"] == run_tool(call).value
    assert set(out) == {"ok", "kind", "value", "details", "text"}


def test_functions_return_errors_instead_of_raising() -> None:
    out = tools.shortest_path({"a": {"b": "far"}}, "a", "b")
    assert out["ok"] is False and out["kind"] == "schema" and out["value"] is None
    assert 'graph.data["a"]["b"]' in out["text"]


def test_importing_the_tool_loads_no_heavy_library() -> None:
    probe = (
        "import json, sys, closurebench.tools; "
        "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    heavy = {"scipy", "networkx", "matplotlib", "pydantic", "openai", "torch", "numpy"}
    assert not heavy & set(json.loads(out.stdout))
