"""Size and time limits of one tool call: over a limit is a ``too_large`` error, never a hang.

The defaults cover every GRIT split (at most 60 nodes; a complete 60-node TSP graph has
1,770 edges) with room to spare, while keeping the polynomial solvers well under a
second and bounding the NP-hard ones by ``time_limit``.

Example:
    >>> ToolLimits().max_nodes, ToolLimits().time_limit
    (200, 10.0)
    >>> ToolLimits(max_nodes=50).max_nodes
    50
    >>> ToolLimits(max_nodes=0)
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: ToolLimits.max_nodes=0 must be a positive number
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from closurebench.errors import ConfigError

__all__ = ["ToolLimits"]


@dataclass(frozen=True)
class ToolLimits:
    """Limits applied to one call.

    Attributes:
        max_chars: Most characters of the call's text (the inside of ``<graph>…</graph>``).
        max_nodes: Most distinct nodes in ``graph.data`` (keys and neighbours).
        max_edges: Most edges (an undirected edge listed both ways counts once).
        max_name_chars: Longest node name, in characters.
        max_weight: Largest absolute edge weight (weights beyond it lose float precision).
        time_limit: Seconds an exact NP-hard solver (colouring, TSP, vertex cover) may
            spend proving its answer; past it the call is a ``timeout`` error.
    """

    max_chars: int = 200_000
    max_nodes: int = 200
    max_edges: int = 5_000
    max_name_chars: int = 200
    max_weight: float = 1e12
    time_limit: float = 10.0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not (value > 0)
                or (f.name != "time_limit" and not math.isfinite(value))
            ):
                raise ConfigError(f"ToolLimits.{f.name}={value!r} must be a positive number")
