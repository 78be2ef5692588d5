"""Graph core: seeded samplers, exact closure, measures, networkx conversion.

Names are imported on first use (PEP 562), so ``from closurebench.graphs import Graph``
does not load scipy and networkx: scoring and the CLI stay quick to import.

Example:
    >>> from closurebench.graphs import Graph, tc
    >>> tc(Graph(3, [(0, 1), (1, 2)])).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from closurebench.graphs.closure import (
        Condensation,
        condensation,
        desc,
        has_path,
        is_strongly_connected,
        is_weakly_connected,
        reach,
        reach_in,
        scc_labels,
        tc,
    )
    from closurebench.graphs.convert import (
        from_adjacency,
        from_networkx,
        to_networkx,
        to_scipy_sparse,
    )
    from closurebench.graphs.measures import (
        degrees,
        density,
        in_degrees,
        out_degrees,
        triangle_count,
        triangles_per_node,
    )
    from closurebench.graphs.sample import (
        KinshipGraph,
        MetricGraph,
        erdos_renyi,
        erdos_renyi_out_degree,
        kinship_dag,
        metric_complete,
        planted_triangles,
        weighted,
    )
    from closurebench.graphs.types import Graph

__all__ = [
    "Condensation",
    "Graph",
    "KinshipGraph",
    "MetricGraph",
    "condensation",
    "degrees",
    "density",
    "desc",
    "erdos_renyi",
    "erdos_renyi_out_degree",
    "from_adjacency",
    "from_networkx",
    "has_path",
    "in_degrees",
    "is_strongly_connected",
    "is_weakly_connected",
    "kinship_dag",
    "metric_complete",
    "out_degrees",
    "planted_triangles",
    "reach",
    "reach_in",
    "scc_labels",
    "tc",
    "to_networkx",
    "to_scipy_sparse",
    "triangle_count",
    "triangles_per_node",
    "weighted",
]

#: Public name -> the module defining it.
_LAZY: dict[str, str] = {
    "Condensation": "closurebench.graphs.closure",
    "condensation": "closurebench.graphs.closure",
    "desc": "closurebench.graphs.closure",
    "has_path": "closurebench.graphs.closure",
    "is_strongly_connected": "closurebench.graphs.closure",
    "is_weakly_connected": "closurebench.graphs.closure",
    "reach": "closurebench.graphs.closure",
    "reach_in": "closurebench.graphs.closure",
    "scc_labels": "closurebench.graphs.closure",
    "tc": "closurebench.graphs.closure",
    "from_adjacency": "closurebench.graphs.convert",
    "from_networkx": "closurebench.graphs.convert",
    "to_networkx": "closurebench.graphs.convert",
    "to_scipy_sparse": "closurebench.graphs.convert",
    "degrees": "closurebench.graphs.measures",
    "density": "closurebench.graphs.measures",
    "in_degrees": "closurebench.graphs.measures",
    "out_degrees": "closurebench.graphs.measures",
    "triangle_count": "closurebench.graphs.measures",
    "triangles_per_node": "closurebench.graphs.measures",
    "KinshipGraph": "closurebench.graphs.sample",
    "MetricGraph": "closurebench.graphs.sample",
    "erdos_renyi": "closurebench.graphs.sample",
    "erdos_renyi_out_degree": "closurebench.graphs.sample",
    "kinship_dag": "closurebench.graphs.sample",
    "metric_complete": "closurebench.graphs.sample",
    "planted_triangles": "closurebench.graphs.sample",
    "weighted": "closurebench.graphs.sample",
    "Graph": "closurebench.graphs.types",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'closurebench.graphs' has no attribute {name!r}")
