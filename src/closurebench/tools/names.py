"""How the tool reads names: :func:`normalize`, and the parameter-name synonyms.

Names are matched after :func:`normalize`: case-insensitive, surrounding space dropped,
runs of spaces, hyphens and dots turned into one underscore (``"Shortest Path"``,
``"shortest-path"`` and ``"SHORTEST_PATH"`` are all ``shortest_path``). This holds for
problem types (declared, with their synonyms, once each in
:data:`~closurebench.tools.problems.PROBLEMS`) and for parameter names.

Parameters (:data:`PARAM_SYNONYMS`): ``start`` (source, from, origin, ...), ``end``
(target, to, destination, ...), ``node``, ``within`` (triangle_count's node subset),
``measure`` (centrality, metric, ...), ``order`` (BFS / topological tie rule) and
``algorithm`` (informative only).

Example:
    >>> normalize("  Shortest-Path ")
    'shortest_path'
    >>> PARAM_BY_NAME["destination"]
    'end'
"""

from __future__ import annotations

import re

__all__ = ["PARAM_BY_NAME", "PARAM_SYNONYMS", "normalize"]

#: Canonical parameter -> the (normalised) names accepted for it, canonical first.
PARAM_SYNONYMS: dict[str, tuple[str, ...]] = {
    "start": ("start", "source", "from", "origin", "start_node", "source_node", "root"),
    "end": ("end", "target", "to", "destination", "end_node", "target_node", "goal"),
    "node": ("node", "vertex", "query_node", "nodes"),
    "within": ("within", "among", "subset", "restrict_to"),
    "measure": ("measure", "centrality", "metric", "centrality_type", "kind"),
    "order": ("order", "neighbor_order", "neighbour_order", "tie_break", "ordering"),
    "algorithm": ("algorithm", "method"),
}

#: Accepted parameter name (normalised) -> canonical parameter.
PARAM_BY_NAME: dict[str, str] = {
    alias: canon for canon, aliases in PARAM_SYNONYMS.items() for alias in aliases
}

_SEPARATORS = re.compile(r"[\s\-.]+")


def normalize(name: str) -> str:
    """Lower-case ``name`` and turn runs of spaces, hyphens and dots into ``_``.

    Example:
        >>> normalize("Minimum Spanning-Tree")
        'minimum_spanning_tree'
    """
    return _SEPARATORS.sub("_", name.strip().lower()).strip("_")
