"""The reference agent's plan of a category, in plain data the category writes it with.

The reference agent (``--model reader``) answers a ClosureBench question the way a
tool-using model would: it reads the question with the independent reader, then asks
the graph tool one call per turn (descendants, ancestors, successors, out-degrees,
SCCs, reachability, triangles) and only combines the tool's results. What to ask, in
which order, and how to combine the replies is the category's knowledge, so it lives on
the category: :meth:`~closurebench.tasks.closure.base.ClosureTask.plan`, a stateless
function ``(reading, results so far) -> next step``, written against the small types
here:

* :class:`Reading`: what the agent read from the question (the structure in node ids
  and the node labels in the order the question lists them);
* :class:`Call`: one graph-tool call on the graph read (the first, or the second of a
  two-graph question): a problem type and its parameters, nodes named by label;
* :class:`Step`: the next move, a :class:`Call` or the final answer (in labels);
* :class:`ToolReply`: what a plan reads of a tool result (``value``, ``details``).

Why this shape: ``tasks`` sits below ``surface``, ``tools`` and ``evaluate`` (see
``tests/test_layers.py``), so a category cannot import the reader, the tool or the
agent. It needs none of them: the agent
(:mod:`closurebench.evaluate.reference.plans`) reads the question into a
:class:`Reading`, encodes each :class:`Call` as the tool's JSON call, runs it, and
hands the tool's results (which satisfy :class:`ToolReply` structurally) back to the
plan. A plan is code rather than a declarative table because plans branch on the
tool's replies (``sibling`` stops when X has no parents, ``kinship_complex`` asks for
in-degrees only when X has ancestors); a table would need its own branching language.

Example:
    >>> from types import SimpleNamespace
    >>> from closurebench.graphs import Graph
    >>> s = ClosureStructure("reach_then_count", Graph(3, ((0, 1), (1, 2))), (("X", 0),))
    >>> q = Reading(s, ("a", "b", "c"))
    >>> q.on("descendants", node=q.name("X"))
    Step(call=Call(problem_type='descendants', params={'node': 'a'}, second=False), answer=None)
    >>> reply = SimpleNamespace(value=["c", "b"], details={})
    >>> q.ordered(set(reply.value)), Step(answer=len(reply.value)).call is None
    (['b', 'c'], True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from closurebench.structures.closure import ClosureStructure

__all__ = ["Call", "Reading", "Step", "ToolReply", "degrees", "mean"]


class ToolReply(Protocol):
    """What a plan reads of one graph-tool result (the tool's ``ToolResult`` has both)."""

    @property
    def value(self) -> Any:
        """The tool's main answer as JSON (a list of labels, a bool, a count, ...)."""

    @property
    def details(self) -> Mapping[str, Any]:
        """JSON-able extras (``argmax`` of an all-nodes degree call, ...)."""


@dataclass(frozen=True)
class Call:
    """One graph-tool call on the graph the agent read.

    Attributes:
        problem_type: The tool's problem type (``descendants``, ``out_degree``, ...).
        params: Its parameters, nodes named by label, in the order the call lists them.
        second: True to ask about the question's second graph (``graph_comparison``).
    """

    problem_type: str
    params: Mapping[str, Any] = field(default_factory=dict)
    second: bool = False


@dataclass(frozen=True)
class Step:
    """The next move of a plan: a tool ``call``, or the final ``answer`` (exactly one is set).

    The answer is in labels, as the question asks for it (a list of labels for a set).
    """

    call: Call | None = None
    answer: Any = None


@dataclass(frozen=True)
class Reading:
    """What the agent read from a question.

    Attributes:
        structure: The structure the independent reader recovered (graph(s), anchors).
        names: Node ``i``'s label is ``names[i]`` (the question's declaration order).
    """

    structure: ClosureStructure
    names: tuple[str, ...]

    def anchor(self, key: str) -> int:
        """The value of anchor ``key`` (a node id for ``X``/``Y``, a number for ``k``)."""
        return self.structure.anchor(key)

    def name(self, key: str) -> str:
        """The label of node anchor ``key`` (``"X"`` or ``"Y"``)."""
        return self.names[self.structure.anchor(key)]

    def ordered(self, items: Iterable[str]) -> list[str]:
        """``items`` (labels) in the order the question lists the nodes.

        Example:
            >>> from closurebench.graphs import Graph
            >>> q = Reading(ClosureStructure("c", Graph(3, ()), ()), ("b", "a", "c"))
            >>> q.ordered({"c", "b"})
            ['b', 'c']
        """
        keep = set(items)
        return [x for x in self.names if x in keep]

    def on(self, problem_type: str, *, second: bool = False, **params: Any) -> Step:
        """The step that calls the tool with ``problem_type`` and ``params`` on a graph read.

        Args:
            problem_type: The tool's problem type.
            second: Ask about the question's second graph instead of the first.
            **params: The call's parameters, in the order given.
        """
        return Step(call=Call(problem_type, dict(params), second))


def degrees(reply: ToolReply) -> dict[str, int]:
    """Label -> degree of an all-nodes ``out_degree``/``in_degree`` reply.

    Example:
        >>> from types import SimpleNamespace
        >>> degrees(SimpleNamespace(value={"a": 2.0, "b": 0}, details={}))
        {'a': 2, 'b': 0}
    """
    return {str(k): int(v) for k, v in reply.value.items()}


def mean(values: Sequence[int]) -> float:
    """The mean of ``values`` rounded to 6 decimals (0.0 for none).

    Example:
        >>> mean([1, 2, 2]), mean([])
        (1.666667, 0.0)
    """
    return round(sum(values) / len(values), 6) if values else 0.0
