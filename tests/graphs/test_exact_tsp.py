"""Exact TSP: Held-Karp agrees on small instances; G-REAL optima reproduced; timeouts raise."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import numpy as np
import pytest

from closurebench.errors import GraphError
from closurebench.graphs.exact import SolverTimeout, check_tour, tour_cost, tsp
from closurebench.seeding import rng

# The package re-exports the function ``tsp``, which shadows the submodule attribute.
tsp_module = importlib.import_module("closurebench.graphs.exact.tsp")
GREAL = Path(__file__).resolve().parents[3] / "shared" / "external" / "g-real"


def held_karp(w: np.ndarray) -> float:
    """Textbook O(2^n n^2) dynamic programme, vectorised over the last node."""
    n = len(w)
    if n == 1:
        return 0.0
    full = 1 << (n - 1)
    dp = np.full((full, n - 1), np.inf)
    for j in range(n - 1):
        dp[1 << j, j] = w[0, j + 1]
    sub = w[1:, 1:]
    for mask in range(1, full):
        row = dp[mask]
        if not np.isfinite(row).any():
            continue
        # extend to every node k not in mask: dp[mask | k][k] = min_j dp[mask][j] + w[j][k]
        cand = (row[:, None] + sub).min(axis=0)
        for k in range(n - 1):
            if not mask >> k & 1:
                nm = mask | 1 << k
                if cand[k] < dp[nm, k]:
                    dp[nm, k] = cand[k]
    return float((dp[full - 1] + w[1:, 0]).min())


def instance(k: int) -> np.ndarray:
    g = rng(0, "test", "tsp", k)
    n = int(g.integers(2, 12))
    kind = k % 3
    if kind == 0:  # metric: rounded distances between grid points
        pts = g.integers(0, 30, size=(n, 2))
        w = np.rint(np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))).astype(int)
    else:  # arbitrary symmetric integer weights (not metric), as in G-REAL
        w = np.triu(g.integers(1, 11, size=(n, n)), 1)
        w = w + w.T
    return w


@pytest.mark.parametrize("enumerate_up_to", [8, 2])
def test_tsp_matches_held_karp(monkeypatch: pytest.MonkeyPatch, enumerate_up_to: int) -> None:
    # With the threshold at 2 every instance with n >= 3 goes through the MILP path.
    monkeypatch.setattr(tsp_module, "_ENUMERATE_UP_TO", enumerate_up_to)
    for k in range(120):
        w = instance(k)
        n = len(w)
        r = tsp(w)
        assert sorted(r.tour) == list(range(n)) and r.tour[0] == 0
        assert r.cost == tour_cost(w.tolist(), r.tour) == round(held_karp(w.astype(float)))
        assert isinstance(r.cost, int)
        assert r.certificate.gap == 0 and r.certificate.bound == r.cost
        assert check_tour(w, list(r.tour), optimum=r.cost).ok


def test_tsp_float_weights() -> None:
    g = rng(0, "test", "tsp-float", 0)
    pts = g.uniform(0, 10, size=(11, 2))
    w = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    r = tsp(w)
    assert r.cost == pytest.approx(held_karp(w), abs=1e-9)


def test_tsp_timeout_and_bad_input() -> None:
    g = rng(0, "test", "tsp-timeout", 0)
    pts = g.integers(0, 101, size=(60, 2))
    w = np.rint(np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))).astype(int)
    with pytest.raises(SolverTimeout, match="tsp"):
        tsp(w, time_limit=1e-3)
    with pytest.raises(GraphError, match="symmetric"):
        tsp([[0, 1, 2], [1, 0, 3], [2, 4, 0]])
    with pytest.raises(GraphError, match="square"):
        tsp([[0, 1], [1, 0, 3]])
    with pytest.raises(GraphError, match="number"):
        tsp([[0, "1"], ["1", 0]])
    with pytest.raises(GraphError, match="matrix"):
        tsp("0 1; 1 0")
    assert tsp([[0]]).tour == (0,) and tsp([[0]]).cost == 0
    assert tsp([[0, 3], [3, 0]]).cost == 6


def greal(task: str) -> list[dict]:
    path = GREAL / f"{task}.jsonl"
    if not path.is_file():
        pytest.skip(f"G-REAL reference data not found at {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_greal_tsp_optima_reproduced() -> None:
    records = greal("tsp")
    assert len(records) == 110
    for rec in records:
        w = np.array(rec["adj"])
        ids = {name: i for i, name in enumerate(rec["name_list"])}
        dp = rec["result"]["dynamic_programming"]
        r = tsp(w)
        assert r.cost == dp["ans_distance"], rec["source_file"]
        ref_tour = [ids[name] for name in dp["ans_path_text"]]
        assert check_tour(w, ref_tour, optimum=r.cost).ok
        for algo, res in rec["result"].items():  # heuristics: valid, optimal iff as cheap
            if algo == "dynamic_programming":
                continue
            v = check_tour(w, [ids[x] for x in res["ans_path_text"]], optimum=r.cost)
            assert v.valid and v.optimal == (res["ans_distance"] == r.cost), (algo, v)
