"""Solution checkers: optimal solutions pass, mutated ones fail with a reason, junk never raises."""

from __future__ import annotations

import numpy as np
import pytest

from closurebench.graphs.exact import (
    SolverError,
    Verdict,
    bfs_order,
    check_bfs_order,
    check_centrality,
    check_colouring,
    check_cover,
    check_path,
    check_tour,
    chromatic_number,
    shortest_path,
    tsp,
    vertex_cover,
)
from closurebench.seeding import rng

JUNK = [
    None,
    "0 1 2",
    b"01",
    3,
    2.5,
    float("nan"),
    True,
    {"a": 1},
    {0: "x"},
    [None],
    ["0", "1"],
    [0.0, 1.0],
    [True, False],
    [-1, 0],
    [0, 99],
    [[0, 1]],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    [],
    (x for x in range(3)),
    object(),
    np.array([[0, 1], [1, 0]]),
]


def graph(k: int, n: int = 9, p: float = 0.45):
    g = rng(0, "test", "check", k)
    edges = [
        (u, v, int(g.integers(1, 11))) for u in range(n) for v in range(u + 1, n) if g.random() < p
    ]
    # A spanning path keeps it connected.
    present = {(u, v) for u, v, _ in edges}
    edges += [(i, i + 1, 5) for i in range(n - 1) if (i, i + 1) not in present]
    return n, edges


def weights(k: int, n: int = 9) -> np.ndarray:
    g = rng(0, "test", "check-tsp", k)
    pts = g.integers(0, 20, size=(n, 2))
    return np.rint(np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))).astype(int)


def test_junk_candidates_give_invalid_verdicts_never_exceptions() -> None:
    n, edges = graph(0)
    w = weights(0)
    for junk in JUNK:
        verdicts = [
            check_path(n, edges, 0, n - 1, junk, directed=False, optimum=1),
            check_tour(w, junk, optimum=1),
            check_cover(n, edges, junk, optimum=1),
            check_colouring(n, edges, junk, optimum=3),
            check_bfs_order(n, edges, 0, junk),
            check_centrality(n, edges, "degree", junk),
        ]
        for v in verdicts:
            assert isinstance(v, Verdict)
            assert not v.ok and v.reason, (junk, v)


def test_reason_strings() -> None:
    tri = [(0, 1, 1), (1, 2, 1), (2, 3, 1)]
    assert check_path(4, tri, 0, 3, [0, 2, 3], directed=False).reason == "edge 0-2 does not exist"
    assert check_path(4, tri, 0, 3, [0, 1, 0, 1, 2, 3], directed=False).reason.startswith("node 0")
    assert "arc 1->0" in check_path(4, tri, 1, 0, [1, 0], directed=True).reason
    assert "not at the target" in check_path(4, tri, 0, 3, [0, 1], directed=False).reason
    assert check_cover(4, tri, [1]).reason == "cover leaves edge (2, 3) uncovered"
    assert check_cover(4, tri, [1, 1, 2]).reason == "node 1 is listed twice in the cover"
    assert check_cover(4, tri, [0, 1, 2]).reason == "size 3 exceeds optimum 2"
    assert check_colouring(4, tri, [0, 0, 1, 0]).reason.startswith("colour conflict on edge (0, 1)")
    assert (
        check_colouring(4, tri, [0, 1, 2, 0]).reason == "uses 3 colours, the chromatic number is 2"
    )
    assert check_colouring(4, tri, {0: 0, 1: 1, 2: 0}).reason == "node 3 has no colour"
    w = [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]]
    assert check_tour(w, [0, 1, 2]).reason == "tour misses node 3"
    assert check_tour(w, [0, 2, 1, 3]).reason == "cost 6 exceeds optimum 4"
    assert "visited twice" in check_tour(w, [0, 1, 1, 2, 3]).reason
    assert check_tour(w, [3, 2, 1, 0, 3]).ok and check_tour(w, np.array([1, 2, 3, 0])).ok
    with pytest.raises(SolverError, match="below the stated optimum"):
        check_tour(w, [0, 1, 2, 3], optimum=5)


@pytest.mark.parametrize("k", range(25))
def test_optimal_solutions_pass_and_mutations_fail(k: int) -> None:
    n, edges = graph(k)
    g = rng(0, "test", "check-mutate", k)
    # shortest path
    sp = shortest_path(n, edges, 0, n - 1, directed=False)
    assert check_path(n, edges, 0, n - 1, list(sp.path), directed=False).ok
    if len(sp.path) > 2:
        dropped = [*sp.path[:1], *sp.path[2:]]
        assert not check_path(n, edges, 0, n - 1, dropped, directed=False).ok
    assert not check_path(n, edges, 0, n - 1, list(sp.path[:-1]), directed=False).valid
    # vertex cover
    vc = vertex_cover(n, edges)
    assert check_cover(n, edges, set(vc.cover)).ok
    removed = list(vc.cover)
    removed.pop(int(g.integers(0, len(removed))))
    assert not check_cover(n, edges, removed, optimum=vc.size).valid  # a minimum cover is minimal
    extra = sorted(set(range(n)) - set(vc.cover))
    if extra:
        v = check_cover(n, edges, [*vc.cover, extra[0]], optimum=vc.size)
        assert v.valid and not v.optimal
    # colouring
    col = chromatic_number(n, edges)
    assert check_colouring(n, edges, list(col.colouring)).ok
    names = ["red", "green", "blue", "cyan", "black", "white", "pink", "gold", "grey"]
    assert check_colouring(n, edges, {v: names[c] for v, c in enumerate(col.colouring)}).ok
    a, b = edges[int(g.integers(0, len(edges)))][:2]
    clash = list(col.colouring)
    clash[a] = clash[b]
    assert not check_colouring(n, edges, clash, optimum=col.value).valid
    # tsp
    w = weights(k)
    t = tsp(w)
    assert check_tour(w, list(t.tour)).ok
    assert check_tour(w, [*reversed(t.tour), t.tour[-1]], optimum=t.cost).ok
    swapped = list(t.tour)
    i, j = (int(x) for x in g.choice(len(swapped), size=2, replace=False))
    swapped[i], swapped[j] = swapped[j], swapped[i]
    v = check_tour(w, swapped, optimum=t.cost)
    assert v.valid and v.optimal == (v.value == t.cost)
    # bfs: strict vs lenient
    rank = [int(x) for x in g.permutation(n)]
    order = list(bfs_order(n, edges, 0, neighbour_key=rank).order)
    assert check_bfs_order(n, edges, 0, order, neighbour_key=rank).ok
    other = list(bfs_order(n, edges, 0).order)
    strict = check_bfs_order(n, edges, 0, other, neighbour_key=rank)
    assert strict.valid and strict.ok == (other == order)
    assert check_bfs_order(n, edges, 0, other, neighbour_key=rank, lenient=True).ok
    # Visiting the farthest layer first is never breadth-first (the graphs have >= 2 layers).
    backwards = [order[0], *order[1:][::-1]]
    assert not check_bfs_order(n, edges, 0, backwards, lenient=True).valid
    assert not check_bfs_order(n, edges, 0, order[:-1], lenient=True).valid


def test_bfs_lenient_on_directed_and_disconnected() -> None:
    edges = [(0, 1), (0, 2), (1, 3), (2, 3), (4, 5)]
    assert check_bfs_order(6, edges, 0, [0, 2, 1, 3], lenient=True).ok
    assert "not reachable" in check_bfs_order(6, edges, 0, [0, 1, 2, 3, 4], lenient=True).reason
    assert "misses node 3" in check_bfs_order(6, edges, 0, [0, 1, 2], lenient=True).reason
    arcs = [(0, 1), (2, 0), (1, 2)]
    assert check_bfs_order(3, arcs, 0, [0, 1, 2], directed=True).ok
    assert not check_bfs_order(3, arcs, 0, [0, 2, 1], directed=True, lenient=True).valid
