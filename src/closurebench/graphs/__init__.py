"""Graph core: seeded samplers, exact closure, measures, networkx conversion."""

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
from closurebench.graphs.convert import from_adjacency, from_networkx, to_networkx, to_scipy_sparse
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
