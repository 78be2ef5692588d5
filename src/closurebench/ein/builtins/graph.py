"""Graph builtins: ``edges``, ``tc``, ``reach``, ``desc``, ``has_path``.

The closure builtins delegate to :mod:`closurebench.graphs.closure` (exact,
sparse SCC-condensation algorithms, fast for large graphs) and convert its boolean
results to float64 0/1.

Memory: the closure algorithms convert the dense matrix to a sparse graph and
build bitsets, so their scratch memory grows with the number of edges; each call
charges a calibrated upper bound (:func:`graph_scratch`) to the run's live-bytes
budget before it starts. The deadline is checked before a call, not inside it.

Matrix or edge list (``edges``): the first argument is read by one deterministic
rule. An empty list or a list whose rows all have length 2 is an **edge list**
``[[u, v], ...]``. Anything else must be a square **dense 0/1 adjacency matrix**
(the paper's §2.5 and Appendix D style). So a 2-node graph is always written as an
edge list: ``[[1, 1], [0, 0]]`` means the self-loops 1→1 and 0→0.

Example:
    >>> edges(np.array([[0.0, 1.0], [1.0, 2.0]])).astype(int).tolist()
    [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    >>> A = edges(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=float), 3)
    >>> tc(A).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    >>> reach(A, 1).tolist(), desc(A, 1).tolist(), float(has_path(A, 2, 0))
    ([0.0, 1.0, 1.0], [0.0, 0.0, 1.0], 0.0)
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from closurebench.ein.abstract import Abstract, ensure_elements
from closurebench.ein.budget import charge, tick
from closurebench.ein.builtins.base import (
    Param,
    builtin,
    check_node,
    check_square,
    known_int,
    result,
)
from closurebench.ein.errors import (
    ArgumentError,
    IndexOutOfRangeError,
    NonIntegerIndexError,
    ShapeError,
)
from closurebench.ein.limits import DEFAULT_LIMITS, Limits
from closurebench.ein.values import int_text
from closurebench.errors import GraphError
from closurebench.graphs import closure

__all__ = ["desc", "edges", "has_path", "reach", "tc"]

_MATRIX = (2,)


def _fmt(x: float) -> str:
    return int_text(int(x)) if float(x).is_integer() else repr(float(x))


def _first_bad_node(flat: np.ndarray, n: int | None) -> int:
    """Index of the first entry of ``flat`` that is not a valid node id, else ``flat.size``.

    A valid id is a finite integer ``>= 0`` (and ``< n`` when ``n`` is given): one
    vectorised pass, so :func:`edges_plan` walks edges in Python only from the first bad
    one (to word its error) instead of over all of them.

    Example:
        >>> _first_bad_node(np.array([0.0, 1.0, 2.5, -1.0]), None)
        2
        >>> _first_bad_node(np.array([0.0, 3.0]), 3), _first_bad_node(np.array([0.0, 1.0]), 3)
        (1, 2)
    """
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(flat) & (flat == np.floor(flat)) & (flat >= 0)
        if n is not None:
            ok &= flat < n
    if ok.all():
        return int(flat.size)
    return int(np.argmin(ok))


def edges_plan(lst: np.ndarray, n: int | None) -> tuple[str, int]:
    """Classify and validate the ``edges`` argument; return ``(form, N)``.

    ``form`` is ``"list"`` (edge list) or ``"matrix"`` (dense adjacency matrix).

    Example:
        >>> edges_plan(np.array([[0.0, 3.0]]), None)
        ('list', 4)
        >>> edges_plan(np.zeros((3, 3)), 3)
        ('matrix', 3)
    """
    if lst.ndim == 1 and lst.size == 0:
        lst = lst.reshape(0, 2)
    if lst.ndim != 2:
        raise ArgumentError(
            f"edges expects an edge list [[u,v],...] or a square 0/1 matrix, got a "
            f"rank-{lst.ndim} value of shape {lst.shape}"
        )
    if lst.shape[1] == 2 or lst.shape[0] == 0:
        flat = lst.reshape(-1)
        bad = _first_bad_node(flat, n)
        for k, (u, v) in enumerate(lst.reshape(-1, 2)[bad // 2 :].tolist(), start=bad // 2):
            for node in (u, v):
                if not float(node).is_integer():
                    raise NonIntegerIndexError(
                        f"edges: edge #{k} [{_fmt(u)}, {_fmt(v)}] has the non-integer node id "
                        f"{_fmt(node)}; node ids are integers 0..N-1"
                    )
                if node < 0 or (n is not None and node >= n):
                    valid = f"0..{n - 1}" if n is not None else "0 or more"
                    raise IndexOutOfRangeError(
                        f"edges: edge #{k} [{_fmt(u)}, {_fmt(v)}] has node id {_fmt(node)} "
                        f"out of range (valid: {valid})"
                    )
        if n is None:
            if lst.size == 0:
                raise ArgumentError(
                    "edges: cannot infer N from an empty edge list; pass N, e.g. edges([], 3)"
                )
            n = int(lst.max()) + 1
        return "list", n
    rows, cols = lst.shape
    if rows != cols:
        raise ShapeError(
            f"edges: rows of length {cols} are not edges [u, v], so a dense adjacency matrix "
            f"was expected, but shape ({rows}, {cols}) is not square"
        )
    if n is not None and n != rows:
        raise ShapeError(
            f"edges: the adjacency matrix has shape ({rows}, {cols}) but N = {n} asks for "
            f"shape ({n}, {n})"
        )
    if not np.isin(lst, (0.0, 1.0)).all():
        raise ArgumentError("edges: a dense adjacency matrix may only hold 0 and 1 entries")
    return "matrix", rows


def _infer_edges(lst: Abstract, n: Abstract | None = None) -> Abstract:
    known_n = known_int(n)
    if lst.value is not None and (n is None or known_n is not None):
        _, size = edges_plan(lst.value, known_n)
        return Abstract((size, size))
    if lst.value is not None and lst.value.size:
        edges_plan(lst.value, None)  # N comes from data: check what is known (node ids)
    if known_n is not None:
        return Abstract((known_n, known_n))
    return Abstract((None, None))


@builtin(
    "edges",
    Param("L", "tensor", ranks=(1, 2)),
    Param("N", "size", optional=True),
    infer=_infer_edges,
)
def edges(lst: np.ndarray, n: int | None = None, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """N×N adjacency matrix from an edge list [[u,v],...] (N defaults to max id + 1),
    or from a dense square 0/1 matrix; rows of length 2 always mean an edge list.

    Args:
        lst: Edge list of shape (m, 2), an empty list, or a square 0/1 matrix.
        n: Number of nodes (must match a dense matrix).
        limits: Resource caps; N×N must fit the element cap.

    Returns:
        The float64 0/1 adjacency matrix (duplicate edges count once).

    Example:
        >>> edges(np.zeros(0), 2).tolist()
        [[0.0, 0.0], [0.0, 0.0]]
    """
    form, size = edges_plan(lst, n)
    what = f"edges(..., {int_text(size)})"
    if n is None:
        what = f"edges(L) with N = {int_text(size)} (the largest node id + 1)"
    ensure_elements((size, size), limits, what)
    if form == "matrix":
        return result(lst)
    adj = np.zeros((size, size))
    pairs = lst.reshape(-1, 2).astype(np.int64)
    adj[pairs[:, 0], pairs[:, 1]] = 1.0
    return adj


def _infer_square(a: Abstract, *_: Abstract | None) -> Abstract:
    check_square("tc", a.shape)
    return Abstract(a.shape)


def _infer_vector(fname: str) -> Callable[..., Abstract]:
    def infer(a: Abstract, *idx: Abstract | None) -> Abstract:
        check_square(fname, a.shape)
        n = None if a.shape is None else a.shape[0]
        if n is None and a.shape is not None:
            n = a.shape[1]
        if n is not None:
            for pos, x in enumerate(idx, start=1):
                k = known_int(x)
                if k is not None:
                    check_node(fname, "node", k, n, arg=pos)
        return Abstract(() if fname == "has_path" else (n,))

    return infer


def _adj(fname: str, a: np.ndarray) -> np.ndarray:
    check_square(fname, a.shape)
    return a


# Peak scratch bytes per edge of closure.tc / closure.reach on dense input, measured
# with tracemalloc at n = 2000 (a dense DAG needs ~105 B per edge for tc, ~33 for the
# single-source queries), rounded up.
_TC_BYTES_PER_EDGE = 112
_QUERY_BYTES_PER_EDGE = 40


def graph_scratch(fname: str, a: np.ndarray, *, edges: int | None = None) -> int:
    """Upper bound of the bytes a closure builtin allocates on adjacency matrix ``a``.

    The result (float64), the boolean edge mask of the dense-to-sparse conversion
    (1 byte per entry, plus 1 byte per entry for ``tc``'s unpacked bitsets) and the
    sparse graph, condensation and bitsets (per edge).

    Args:
        fname: The builtin (``"tc"``, ``"reach"``, ...).
        a: Its square adjacency matrix.
        edges: The number of nonzero entries of ``a``, when the caller has counted them.

    Example:
        >>> graph_scratch("tc", np.eye(10)), graph_scratch("reach", np.eye(10))
        (2120, 580)
    """
    n = int(a.shape[0])
    edges_ = int(np.count_nonzero(a)) if edges is None else edges
    if fname == "tc":
        return 10 * n * n + _TC_BYTES_PER_EDGE * edges_
    return n * n + _QUERY_BYTES_PER_EDGE * edges_ + 8 * n


def _charge_what(fname: str, a: np.ndarray) -> str:
    return f"{fname}(...) on a {a.shape[0]}-node graph"


def _charge_graph(fname: str, a: np.ndarray) -> None:
    charge(graph_scratch(fname, a), _charge_what(fname, a))


def _tc_tick() -> None:
    tick("tc")


def _graph_call(fname: str, fn: object, *args: object) -> np.ndarray:
    try:
        return result(fn(*args))  # type: ignore[operator]
    except GraphError as exc:
        raise ArgumentError(f"{fname}: {exc}") from None


@builtin("tc", Param("A", ranks=_MATRIX), infer=_infer_square)
def tc(a: np.ndarray, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """Strict transitive closure: tc[i,j] = 1 iff a path of length >= 1 leads
    from i to j (so tc[i,i] = 1 iff i is on a cycle).

    Example:
        >>> tc(np.array([[0.0, 1.0], [1.0, 0.0]])).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """
    mask = _adj("tc", a) != 0
    charge(graph_scratch("tc", a, edges=int(np.count_nonzero(mask))), _charge_what("tc", a))
    # The boolean edge mask feeds the closure (no second float comparison there) once its
    # entries are known finite; otherwise the float matrix goes, for the closure's error.
    finite = np.isfinite(a.reshape(-1)[np.flatnonzero(mask)]).all()
    return _graph_call("tc", functools.partial(closure.tc, tick=_tc_tick), mask if finite else a)


@builtin("reach", Param("A", ranks=_MATRIX), Param("i", "index"), infer=_infer_vector("reach"))
def reach(a: np.ndarray, i: int, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """0/1 vector of the nodes reachable from i, INCLUDING i.

    Example:
        >>> reach(np.array([[0.0, 1.0], [0.0, 0.0]]), 1).tolist()
        [0.0, 1.0]
    """
    check_node("reach", "node", i, _adj("reach", a).shape[0], arg=1)
    _charge_graph("reach", a)
    return _graph_call("reach", closure.reach, a, i)


@builtin("desc", Param("A", ranks=_MATRIX), Param("i", "index"), infer=_infer_vector("desc"))
def desc(a: np.ndarray, i: int, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """0/1 vector of the descendants of i (paths of length >= 1), EXCLUDING i even on a cycle.

    Example:
        >>> desc(np.array([[0.0, 1.0], [1.0, 0.0]]), 0).tolist()
        [0.0, 1.0]
    """
    check_node("desc", "node", i, _adj("desc", a).shape[0], arg=1)
    _charge_graph("desc", a)
    return _graph_call("desc", closure.desc, a, i)


@builtin(
    "has_path",
    Param("A", ranks=_MATRIX),
    Param("i", "index"),
    Param("j", "index"),
    infer=_infer_vector("has_path"),
)
def has_path(a: np.ndarray, i: int, j: int, *, limits: Limits = DEFAULT_LIMITS) -> np.ndarray:
    """1.0 if a path leads from i to j (i = j gives 1.0), else 0.0.

    Example:
        >>> float(has_path(np.array([[0.0, 1.0], [0.0, 0.0]]), 0, 1))
        1.0
    """
    n = _adj("has_path", a).shape[0]
    check_node("has_path", "node", i, n, arg=1)
    check_node("has_path", "node", j, n, arg=2)
    _charge_graph("has_path", a)
    return _graph_call("has_path", closure.has_path, a, i, j)
