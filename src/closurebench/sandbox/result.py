"""What a sandboxed run returns: outcomes, never exceptions.

Example:
    >>> Outcome.OK == "ok", Outcome("forbidden") is Outcome.FORBIDDEN
    (True, True)
    >>> edge = CapturedEdge("a", "b", 2.0, (("weight", 2.0),))
    >>> g = CapturedGraph(True, False, ("a", "b"), (edge,))
    >>> g.edge_set(), g.weighted_edges()
    ({('a', 'b')}, {('a', 'b'): 2.0})
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "CapturedEdge",
    "CapturedGraph",
    "EinSandboxResult",
    "Node",
    "Outcome",
    "SandboxResult",
    "Scalar",
]

#: A node name as captured: a JSON scalar kept as is, anything else as its ``repr()``.
Node = str | int | float | bool | None
#: An edge attribute value as captured (non-scalars become their ``repr()``).
Scalar = str | int | float | bool | None


class Outcome(StrEnum):
    """How a sandboxed program ended (a member *is* its string, for records)."""

    OK = "ok"
    SYNTAX_ERROR = "syntax_error"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    FORBIDDEN = "forbidden"


@dataclass(frozen=True)
class CapturedEdge:
    """One edge of a captured graph.

    Attributes:
        source: The tail node (``u`` of ``G.add_edge(u, v)``).
        target: The head node.
        weight: The ``weight`` attribute as a float, or ``None`` when absent or not a number.
        attrs: Every JSON-scalar attribute, sorted by name.
    """

    source: Node
    target: Node
    weight: float | None = None
    attrs: tuple[tuple[str, Scalar], ...] = ()


@dataclass(frozen=True)
class CapturedGraph:
    """A networkx graph the program built, as it stood when the program ended.

    Attributes:
        directed: ``G.is_directed()``.
        multigraph: ``G.is_multigraph()``.
        nodes: The nodes in insertion order.
        edges: The edges in networkx's order.
        name: The global variable the program bound it to, when one did.
    """

    directed: bool
    multigraph: bool
    nodes: tuple[Node, ...]
    edges: tuple[CapturedEdge, ...]
    name: str | None = None

    def edge_set(self) -> set[tuple[Node, Node]]:
        """The edges as ``(source, target)`` pairs (both orientations kept as given)."""
        return {(e.source, e.target) for e in self.edges}

    def weighted_edges(self) -> dict[tuple[Node, Node], float | None]:
        """``(source, target) -> weight`` (the last one wins for parallel edges)."""
        return {(e.source, e.target): e.weight for e in self.edges}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CapturedGraph:
        """Rebuild a graph from the bootstrap's JSON record (see ``bootstrap.dump_graph``)."""
        edges = []
        for u, v, attrs in data.get("edges", ()):
            clean = tuple(sorted((str(k), _scalar(x)) for k, x in dict(attrs).items()))
            w = dict(clean).get("weight")
            weight = float(w) if isinstance(w, int | float) and not isinstance(w, bool) else None
            edges.append(CapturedEdge(_scalar(u), _scalar(v), weight, clean))
        name = data.get("name")
        return cls(
            directed=bool(data.get("directed")),
            multigraph=bool(data.get("multigraph")),
            nodes=tuple(_scalar(n) for n in data.get("nodes", ())),
            edges=tuple(edges),
            name=name if isinstance(name, str) else None,
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready form: ``{"directed", "multigraph", "nodes", "edges", "name"}``."""
        return {
            "directed": self.directed,
            "multigraph": self.multigraph,
            "nodes": list(self.nodes),
            "edges": [[e.source, e.target, dict(e.attrs)] for e in self.edges],
            "name": self.name,
        }


def _scalar(value: Any) -> Scalar:
    return value if value is None or isinstance(value, str | int | float | bool) else repr(value)


@dataclass(frozen=True)
class SandboxResult:
    """The outcome of one sandboxed Python program.

    Attributes:
        outcome: How it ended.
        detail: ``runtime_error``: the exception type name (``"ZeroDivisionError"``);
            ``forbidden``: the refused operation (``"socket.connect"``, ``"os.fork"``,
            ``"open(write) /etc/x"``); ``syntax_error``: the message with its line;
            ``timeout``: ``"wall"`` or ``"cpu"``; ``memory_limit``/``output_limit``: what
            hit the cap. Empty for ``ok``.
        stdout: The program's stdout, decoded (UTF-8, replacement characters), capped.
        stderr: The head of its stderr (capped), e.g. the traceback.
        exit_code: The child's exit status, or ``-N`` when signal ``N`` ended it.
        wall_seconds: Seconds from the spawn to the reaped exit.
        graphs: The networkx graphs the program built (see :mod:`.bootstrap`).
        graphs_truncated: ``True`` when some graphs or parts of them were left out.
        isolation: The isolation level the run used (``bwrap``, or ``none`` when the
            caller chose to run without a wall).
    """

    outcome: Outcome
    detail: str = ""
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    wall_seconds: float = 0.0
    graphs: tuple[CapturedGraph, ...] = ()
    graphs_truncated: bool = False
    isolation: str = "none"

    @property
    def ok(self) -> bool:
        """``True`` when the program ran to its end without error."""
        return self.outcome is Outcome.OK

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record (graphs included)."""
        return {
            "outcome": str(self.outcome),
            "detail": self.detail,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "exit_code": self.exit_code,
            "wall_seconds": self.wall_seconds,
            "graphs": [g.to_json() for g in self.graphs],
            "graphs_truncated": self.graphs_truncated,
            "isolation": self.isolation,
        }


@dataclass(frozen=True)
class EinSandboxResult:
    """The outcome of one Ein program run in a separate process.

    Attributes:
        outcome: ``ok``, ``syntax_error``, ``runtime_error``, ``timeout``, ``memory_limit``
            or ``output_limit``.
        error: The :class:`~closurebench.ein.errors.EinError` class name (empty for ``ok``);
            when the process limits, not Ein, stopped it: ``"timeout"`` (wall clock),
            ``"cpu_limit"``, ``"MemoryError"``, ``"output_limit"`` (the reply cap) or
            ``"worker_crash"``.
        message: The error's located message (with its caret line), empty for ``ok``.
        printed: ``(label, JSON value)`` for every ``:print``, in order.
        value: The result as JSON (scalar, list or list of lists), ``None`` unless ``ok``.
        label: The result's label.
        wall_seconds: Seconds from the spawn to the reaped exit.
        isolation: The level the worker ran at (``bwrap``, or ``none`` when the caller
            chose to run without a wall).
    """

    outcome: Outcome
    error: str = ""
    message: str = ""
    printed: tuple[tuple[str, Any], ...] = ()
    value: Any = None
    label: str = ""
    wall_seconds: float = 0.0
    isolation: str = "none"

    @property
    def ok(self) -> bool:
        """``True`` when the program ran to its end."""
        return self.outcome is Outcome.OK
