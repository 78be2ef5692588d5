"""The graph tool's typed functions give function-calling schemas through transformers.

``transformers.utils.get_json_schema`` (what chat templates and TRL use for tools) reads
a function's type hints and Google-style docstring; every tool function must pass it with
each argument described, so training code can hand the functions over as they are.
"""

from __future__ import annotations

import inspect

import pytest

from closurebench.tools import FUNCTIONS, PROBLEM_TYPES


@pytest.mark.parametrize("name", PROBLEM_TYPES)
def test_every_tool_function_has_a_transformers_schema(name: str) -> None:
    from transformers.utils import get_json_schema

    fn = FUNCTIONS[name]
    schema = get_json_schema(fn)
    assert schema["type"] == "function" and schema["function"]["name"] == name
    params = schema["function"]["parameters"]
    assert set(params["properties"]) == set(inspect.signature(fn).parameters)
    assert all(p.get("description") for p in params["properties"].values())
    assert "graph" in params["required"]
