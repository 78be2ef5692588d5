"""Which node of the graph a parameter's value names (exact, then loose, else an error).

A solver reads a node parameter (``start``, ``end``, ``node``, the members of ``within``)
through :func:`match_node`: the name as written in ``graph.data`` wins, then the one node
whose name matches when case and runs of spaces are ignored; anything else is a
``bad_parameter`` :class:`~closurebench.tools.errors.ToolError` naming the closest nodes.

Example:
    >>> match_node("dragons gate", ("Knights Market", "Dragons Gate"), "parameters.end")
    'Dragons Gate'
    >>> match_node(7, ("7", "8"), "parameters.node")
    '7'
"""

from __future__ import annotations

import difflib

from closurebench.tools.errors import ToolError, describe, quote

__all__ = ["match_node"]


def _squash(name: str) -> str:
    return " ".join(name.casefold().split())


def match_node(value: object, nodes: tuple[str, ...], path: str) -> str:
    """The graph node a parameter names.

    An exact match wins; otherwise a unique case- and whitespace-insensitive match;
    otherwise a ``bad_parameter`` error listing the closest names. An integer names the
    node whose name is its decimal text.

    Raises:
        ToolError: ``bad_parameter`` (not a string, no such node, ambiguous).

    Example:
        >>> match_node("knights  market", ("Knights Market", "Dragons Gate"), "parameters.start")
        'Knights Market'
        >>> match_node("Knight Market", ("Knights Market", "Dragons Gate"), "parameters.start")
        Traceback (most recent call last):
        ...
        closurebench.tools.errors.ToolError: parameters.start names no node of the graph
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() < 600:
        value = str(value)
    if not isinstance(value, str):
        raise ToolError(
            "bad_parameter",
            f"{path} must name a node",
            path=path,
            expected="a node name (a string) as written in graph.data",
            got=describe(value),
            fix="write the node's name as a string",
        )
    if value in nodes:
        return value
    if len(value) > 1000:
        raise ToolError(
            "bad_parameter",
            f"{path} names no node of the graph",
            path=path,
            expected="a node name as written in graph.data",
            got=f"a string of {len(value):,} characters",
            fix="write the node's name exactly as in graph.data",
        )
    squashed = _squash(value)
    loose = [x for x in nodes if _squash(x) == squashed]
    if len(loose) == 1:
        return loose[0]
    if len(loose) > 1:
        raise ToolError(
            "bad_parameter",
            f"{path} matches several nodes when case and spacing are ignored",
            path=path,
            expected="exactly one of " + ", ".join(quote(x) for x in loose),
            got=describe(value),
            fix="write the node's name exactly as in graph.data",
        )
    close = difflib.get_close_matches(value, list(nodes), n=3, cutoff=0.6)
    if not close:
        by_casefold = {_squash(x): x for x in nodes}
        close = [
            by_casefold[c]
            for c in difflib.get_close_matches(squashed, list(by_casefold), n=3, cutoff=0.6)
        ]
    if close:
        expected = "a node of the graph, e.g. " + " or ".join(quote(x) for x in close)
        fix = f"did you mean {quote(close[0])}? Use the name exactly as in graph.data"
    else:
        shown = ", ".join(quote(x) for x in nodes[:8]) + (", …" if len(nodes) > 8 else "")
        expected = f"one of the graph's nodes ({shown})"
        fix = "add the node to graph.data, or name a node that is there"
    raise ToolError(
        "bad_parameter",
        f"{path} names no node of the graph",
        path=path,
        expected=expected,
        got=describe(value),
        fix=fix,
    )
