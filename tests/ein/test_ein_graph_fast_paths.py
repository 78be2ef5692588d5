"""The fast paths behind ``edges``, ``tc`` and the output count agree with the plain ones.

Each fast path (issue 42 item 5) is checked against a straightforward reference written
here: ``edges``' vectorised node-id check against the per-edge loop it replaced (same
error, same message), ``tc`` on its boolean edge mask against a closure by repeated
boolean matrix products, and the output count's ``[0, 10)`` shortcut against the general
digit count. Random graphs include cycles, self-loops, the empty graph and n = 1.
"""

from __future__ import annotations

import numpy as np
import pytest

from closurebench import ein
from closurebench.ein.builtins import graph
from closurebench.ein.errors import ArgumentError, IndexOutOfRangeError, NonIntegerIndexError
from closurebench.ein.output import MAX_ENTRY_CHARS, _entry_chars

_POW10 = 10.0 ** np.arange(1, 16)


def _plain_node_check(lst: np.ndarray, n: int | None) -> None:
    """The per-edge loop ``edges_plan`` ran before its vectorised check (the reference)."""
    fmt = graph._fmt
    for k, (u, v) in enumerate(lst.reshape(-1, 2).tolist()):
        for node in (u, v):
            if not float(node).is_integer():
                raise NonIntegerIndexError(
                    f"edges: edge #{k} [{fmt(u)}, {fmt(v)}] has the non-integer node id "
                    f"{fmt(node)}; node ids are integers 0..N-1"
                )
            if node < 0 or (n is not None and node >= n):
                valid = f"0..{n - 1}" if n is not None else "0 or more"
                raise IndexOutOfRangeError(
                    f"edges: edge #{k} [{fmt(u)}, {fmt(v)}] has node id {fmt(node)} "
                    f"out of range (valid: {valid})"
                )


def _outcome(fn: object, *args: object) -> tuple[str, str]:
    try:
        fn(*args)  # type: ignore[operator]
    except (NonIntegerIndexError, IndexOutOfRangeError, ArgumentError) as exc:
        return type(exc).__name__, exc.message
    return "ok", ""


@pytest.mark.parametrize("seed", range(40))
def test_edges_node_check_matches_the_per_edge_loop(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 30))
    lst = rng.integers(0, 12, size=(m, 2)).astype(np.float64)
    for _ in range(int(rng.integers(0, 3))):  # plant a few bad ids anywhere
        bad = rng.choice([0.5, -1.0, -0.0, 12.0, 99.0, np.nan, np.inf, -np.inf, 2.0**60])
        lst[int(rng.integers(0, m)), int(rng.integers(0, 2))] = bad
    for n in (None, 12, 5):
        got = _outcome(graph.edges_plan, lst, n)
        want = _outcome(_plain_node_check, lst, n)
        if want[0] == "ok":
            assert got[0] == "ok" or got[1].startswith("edges: cannot infer"), (got, want)
        else:
            assert got == want


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("edges([[0,1],[2,0.5],[-1,0]], 3)", "edge #1 [2, 0.5] has the non-integer node id 0.5"),
        ("edges([[0,1],[3,1],[0,0.5]], 3)", "edge #1 [3, 1] has node id 3 out of range"),
        ("edges([[0,1],[1,-2]])", "edge #1 [1, -2] has node id -2 out of range (valid: 0 or"),
    ],
)
def test_edges_names_the_first_bad_edge(src: str, message: str) -> None:
    with pytest.raises(ein.EinError) as info:
        ein.run(f"A = {src}")
    assert message in str(info.value)


def _plain_tc(adj: np.ndarray) -> np.ndarray:
    """Strict closure by squaring ``R = A + A R`` to a fixed point (boolean, no shortcuts)."""
    a = adj != 0
    reach = a.copy()
    while True:
        step = reach | ((a.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if np.array_equal(step, reach):
            return reach
        reach = step


def _random_graph(rng: np.random.Generator, n: int) -> np.ndarray:
    p = float(rng.choice([0.0, 0.05, 0.2, 0.5]))
    adj = (rng.random((n, n)) < p).astype(np.float64)
    if rng.random() < 0.5:
        np.fill_diagonal(adj, 0.0)  # no self-loops: a node reaches itself only via a cycle
    return adj


@pytest.mark.parametrize("seed", range(30))
def test_tc_builtin_matches_a_plain_closure(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for n in (0, 1, int(rng.integers(2, 9)), int(rng.integers(10, 70))):
        adj = _random_graph(rng, n)
        got = graph.tc(adj)
        assert got.dtype == np.float64 and got.shape == (n, n)
        np.testing.assert_array_equal(got, _plain_tc(adj).astype(np.float64))


def test_tc_program_matches_a_plain_closure_with_cycles_and_self_loops() -> None:
    rng = np.random.default_rng(7)
    for n in (1, 2, 40):
        adj = _random_graph(rng, n)
        adj[0, 0] = 1.0  # a self-loop: node 0 reaches itself
        pairs = ",".join(f"[{u},{v}]" for u, v in zip(*np.nonzero(adj), strict=True))
        res = ein.run(f"A = edges([{pairs}], {n})\nT = tc(A)", keep=("T",))
        np.testing.assert_array_equal(res.env["T"], _plain_tc(adj).astype(np.float64))
    empty = ein.run("A = edges([], 3)\nT = tc(A)").value
    assert np.asarray(empty).tolist() == [[0.0] * 3] * 3


def test_tc_of_a_non_finite_matrix_keeps_its_error() -> None:
    adj = np.array([[0.0, np.nan], [0.0, 0.0]])
    with pytest.raises(ArgumentError, match="tc: adjacency matrix contains NaN or infinite"):
        graph.tc(adj)


def _plain_entry_chars(values: np.ndarray) -> int:
    """The digit count without the ``[0, 10)`` shortcut (the reference)."""
    mag = np.abs(values)
    integral = (values == np.floor(values)) & (mag < 2.0**53)
    digits = 1 + np.searchsorted(_POW10, mag, side="right") + (values < 0)
    return int(np.where(integral, digits, MAX_ENTRY_CHARS).sum())


@pytest.mark.parametrize("seed", range(20))
def test_the_small_entry_count_matches_the_digit_count(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pool = np.array([0.0, -0.0, 1.0, 9.0, 9.5, 0.25, 9.999, 10.0, -1.0, np.nan, np.inf])
    for size in (1, 5, 200):
        values = rng.integers(0, 10, size=size).astype(np.float64)
        if seed % 2:
            values[rng.integers(0, size, size=2)] = rng.choice(pool, size=2)
        assert _entry_chars(values) == _plain_entry_chars(values)
