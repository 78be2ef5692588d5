"""The GRAIN graph tool: a model writes ``<graph>{json}</graph>``, the tool answers.

The call (paper Table 12; ``docs/tools.md``, "The agent protocol")::

    {"problem_type": str,
     "graph": {"type": "adjacency_list", "data": {node: {neighbour: weight}},
               "directed": bool, "weighted": bool},
     "parameters": {..., "algorithm": str}}

:func:`run_tool` parses and validates it (:mod:`~closurebench.tools.calls`), solves it
with a proven-exact solver (:mod:`~closurebench.tools.problems`: the six GRIT tasks,
the ClosureBench primitives and the extras GRAIN's prompt names) and returns a
:class:`ToolResult` whose ``text`` goes inside ``<result>…</result>``. It never raises on
any input: a bad call gets ``Error (<kind>): …`` naming the field, what was expected,
what was found and the fix (kinds: :data:`ERROR_KINDS`). :mod:`~closurebench.tools.functions`
offers one typed function per problem type for function calling, and
:func:`tool_json_schema` the call's JSON Schema.

Example (paper Table 14's call, verbatim):
    >>> call = '''{"problem_type": "shortest_path", "graph": {"type": "adjacency_list",
    ...   "data": {"Knights Market": {"Xundral View": 7, "Skyline Gardens": 1,
    ...   "Dragons Gate": 3, "Trelvon Bay": 6}, "Xundral View": {"Trelvon Bay": 1},
    ...   "Draycon Arcade": {"Copper Clock Square": 2, "Vorlen Heights": 8},
    ...   "Copper Clock Square": {"Trelvon Bay": 7, "Vorlen Heights": 5, "Zaphrel Summit": 8},
    ...   "Granite Plaza": {"Trelvon Bay": 8}, "Dragons Gate": {"Trelvon Bay": 7},
    ...   "Trelvon Bay": {}, "Zaphrel Summit": {}}, "directed": false, "weighted": true},
    ...   "parameters": {"start": "Xundral View", "end": "Zaphrel Summit",
    ...   "algorithm": "dijkstra"}}'''
    >>> result = run_tool(call)
    >>> print(result.text)
    Shortest path algorithm (Dijkstra) result:
    • Path: Xundral View → Trelvon Bay → Copper Clock Square → Zaphrel Summit
    • Total Length: 16
    >>> result.value, result.graph.edge_count
    (16, 12)
"""

from closurebench.tools import functions
from closurebench.tools.calls import parse_call, tool_json_schema
from closurebench.tools.errors import ERROR_KINDS, ToolError
from closurebench.tools.functions import *  # noqa: F403
from closurebench.tools.limits import ToolLimits
from closurebench.tools.names import PARAM_SYNONYMS
from closurebench.tools.problems import ORDER_RULES, PROBLEM_SYNONYMS, PROBLEM_TYPES, PROBLEMS
from closurebench.tools.run import ToolResult, run_tool
from closurebench.tools.types import ToolCall, ToolEdge, ToolGraph

__all__ = [
    "ERROR_KINDS",
    "ORDER_RULES",
    "PARAM_SYNONYMS",
    "PROBLEMS",
    "PROBLEM_SYNONYMS",
    "PROBLEM_TYPES",
    "ToolCall",
    "ToolEdge",
    "ToolError",
    "ToolGraph",
    "ToolLimits",
    "ToolResult",
    "parse_call",
    "run_tool",
    "tool_json_schema",
]
# FUNCTIONS and the typed function of every problem type (type checkers read this form).
__all__ += functions.__all__
