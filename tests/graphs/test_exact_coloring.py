"""Chromatic number: brute force, DSATUR, SAT and the ILP agree; G-REAL reproduced; timeouts."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from closurebench.errors import ConfigError
from closurebench.graphs.exact import SolverTimeout, check_colouring, chromatic_number
from closurebench.seeding import rng

GREAL = Path(__file__).resolve().parents[3] / "shared" / "external" / "g-real"


def gnp(tag: str, k: int, n: int, p: float):
    g = rng(0, "test", tag, k)
    return [(u, v) for u in range(n) for v in range(u + 1, n) if g.random() < p]


def brute_force_chi(n: int, edges: list[tuple[int, int]]) -> int:
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        nbrs[max(u, v)].append(min(u, v))
    for k in range(1, n + 1):
        colour = [0] * n

        def place(v: int, used: int, k: int = k, colour: list[int] = colour) -> bool:
            if v == n:
                return True
            for c in range(min(used + 1, k)):  # new colours in order: no symmetric copies
                if all(colour[u] != c for u in nbrs[v]):
                    colour[v] = c
                    if place(v + 1, max(used, c + 1)):
                        return True
            return False

        if place(0, 0):
            return k
    return 0


def test_dsatur_sat_and_ilp_match_brute_force() -> None:
    for k in range(150):
        g = rng(0, "test", "colour-size", k)
        n = int(g.integers(1, 11))
        edges = gnp("colour", k, n, float(g.uniform(0.1, 0.9)))
        expected = brute_force_chi(n, edges)
        for method in ("dsatur", "ilp", "sat"):
            r = chromatic_number(n, edges, method=method)
            assert r.chromatic_number == expected, (k, method)
            assert max(r.colouring) + 1 == expected and r.certificate.bound == expected
            assert check_colouring(n, edges, list(r.colouring), optimum=expected).ok
        assert len(r.clique) <= expected


def test_dsatur_and_ilp_agree_on_medium_graphs() -> None:
    # Disconnected pieces, low-degree vertices (peeled) and chi > omega all occur here.
    for k in range(6):
        n, p = (18, 24, 30)[k % 3], (0.15, 0.3, 0.5)[k % 3]
        edges = gnp("colour-medium", k, n, p)
        a = chromatic_number(n, edges)
        b = chromatic_number(n, edges, method="ilp")
        c = chromatic_number(n, edges, method="sat")
        assert a.value == b.value == c.value
        assert c.certificate.method == "sat-cadical195"
        for r in (a, b, c):
            assert check_colouring(n, edges, r.colouring, optimum=a.value).ok


def test_known_graphs() -> None:
    # Mycielski graph of C5 (Grötzsch): triangle-free, chi = 4 (so the clique bound is 2).
    groetzsch = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    groetzsch += [(5 + i, (i + 1) % 5) for i in range(5)] + [(5 + i, (i - 1) % 5) for i in range(5)]
    groetzsch += [(10, 5 + i) for i in range(5)]
    for method in ("dsatur", "ilp", "sat"):
        r = chromatic_number(11, groetzsch, method=method)
        assert r.value == 4
    assert len(chromatic_number(11, groetzsch).clique) == 2
    assert chromatic_number(1, []).value == 1
    odd_wheel = [(0, i) for i in range(1, 6)] + [(i, i % 5 + 1) for i in range(1, 6)]
    assert chromatic_number(6, odd_wheel).value == 4


def test_colouring_timeout_and_errors() -> None:
    edges = gnp("colour-timeout", 0, 60, 0.5)
    with pytest.raises(SolverTimeout, match="chromatic_number"):
        chromatic_number(60, edges, time_limit=0.05)
    with pytest.raises(SolverTimeout, match="chromatic_number"):
        chromatic_number(60, edges, method="ilp", time_limit=0.05)
    with pytest.raises(SolverTimeout, match="CaDiCaL"):  # the child process is killed
        chromatic_number(60, edges, method="sat", time_limit=0.05)
    with pytest.raises(ConfigError, match="unknown"):
        chromatic_number(3, [(0, 1)], method="greedy")


def greal(task: str) -> list[dict]:
    path = GREAL / f"{task}.jsonl"
    if not path.is_file():
        pytest.skip(f"G-REAL reference data not found at {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_greal_colouring_reproduced() -> None:
    records = greal("coloring")
    assert len(records) == 110
    above = 0
    for rec in records:
        adj = np.array(rec["adj"])
        n = len(adj)
        edges = [(int(u), int(v)) for u, v in zip(*np.nonzero(np.triu(adj, 1)), strict=True)]
        ids = {name: i for i, name in enumerate(rec["name_list"])}
        ref = rec["result"]["backtracking"]
        r = chromatic_number(n, edges)
        assert r.value == ref["min_colors"], rec["source_file"]
        if rec["size_param"] % 4 == 0:  # the ILP on a quarter of them, to keep the suite fast
            assert chromatic_number(n, edges, method="ilp").value == r.value
        for algo, res in rec["result"].items():
            mapping = {ids[name]: c for name, c in res["color_assignment_text"].items()}
            v = check_colouring(n, edges, mapping, optimum=r.value)
            assert v.valid, (algo, v)
            assert v.optimal == (len(set(mapping.values())) == r.value), (algo, v)
            above += not v.optimal
    assert above > 50  # greedy / DSATUR answers above chi: feasible, not optimal


def test_sat_child_descends_from_a_poor_bound() -> None:
    # Started from the trivial n-colouring, the child must find better colourings several
    # times before UNSAT, keeping its variables indexed by the first width (a past bug read
    # the model at the shrinking width).
    from closurebench.graphs.exact._sat_child import solve

    n = 14
    edges = gnp("colour-descend", 0, n, 0.5)
    chi = chromatic_number(n, edges).value
    clique = list(chromatic_number(n, edges).clique)
    order = clique + [v for v in range(n) if v not in clique]
    colouring, calls = solve(n, [list(e) for e in edges], order, len(clique), list(range(n)))
    assert calls >= 2
    assert len(set(colouring)) == chi
    assert check_colouring(n, edges, colouring, optimum=chi).ok


def test_sat_child_is_warm_and_replaced_after_a_kill() -> None:
    from closurebench.graphs.exact import _sat_worker

    hard = gnp("colour-timeout", 0, 60, 0.5)
    medium = gnp("colour-medium", 2, 30, 0.5)
    expected = chromatic_number(30, medium).value
    assert chromatic_number(30, medium, method="sat").value == expected
    (first,) = _sat_worker._IDLE.snapshot(0)  # idle, warm
    assert chromatic_number(30, medium, method="sat").value == expected
    assert _sat_worker._IDLE.snapshot(0) == [first]  # one child serves both jobs
    with pytest.raises(SolverTimeout, match="CaDiCaL"):
        chromatic_number(60, hard, method="sat", time_limit=0.05)
    assert first.proc.poll() is not None  # killed and reaped
    assert _sat_worker._IDLE.snapshot(0) == []  # not given back
    assert chromatic_number(30, medium, method="sat").value == expected  # a fresh child


def forced_cubes(monkeypatch: pytest.MonkeyPatch, workers: int = 2, target: int = 6) -> None:
    """Make the SAT method split every level it cannot settle at once into cubes."""
    from closurebench.graphs.exact import _sat_worker

    monkeypatch.setattr(_sat_worker, "CONFLICT_BUDGET", -1)  # every level is split
    monkeypatch.setattr(_sat_worker, "TABU_MOVES", 0)
    monkeypatch.setattr(_sat_worker, "WORKERS", workers)
    monkeypatch.setattr(_sat_worker, "CUBE_TARGET", target)


def test_cube_and_conquer_matches_brute_force_and_dsatur(monkeypatch: pytest.MonkeyPatch) -> None:
    forced_cubes(monkeypatch)
    for k in range(40):
        g = rng(0, "test", "colour-cubes", k)
        n = int(g.integers(5, 11))
        edges = gnp("colour-cubes", k, n, float(g.uniform(0.3, 0.9)))
        r = chromatic_number(n, edges, method="sat")
        assert r.value == brute_force_chi(n, edges), k
        assert check_colouring(n, edges, list(r.colouring), optimum=r.value).ok
    for k in range(12):  # larger graphs, where levels really are split (counted below)
        n, p = (18, 24, 30)[k % 3], (0.3, 0.5, 0.7)[k % 3]
        edges = gnp("colour-cubes-medium", k, n, p)
        r = chromatic_number(n, edges, method="sat")
        assert r.value == chromatic_number(n, edges).value, k
        assert check_colouring(n, edges, list(r.colouring), optimum=r.value).ok


def test_cube_and_conquer_splits_and_resumes() -> None:
    from closurebench.graphs.exact._common import Deadline, adjacency_bitsets
    from closurebench.graphs.exact._sat_worker import solve_with_cubes
    from closurebench.graphs.exact.clique import max_clique
    from closurebench.graphs.exact.coloring import dsatur_greedy

    n = 24
    edges = gnp("colour-medium", 2, n, 0.5)
    adj = adjacency_bitsets(n, edges)
    clique = max_clique(adj)
    order = clique + [v for v in range(n) if v not in clique]
    job = {"n": n, "edges": edges, "order": order, "omega": len(clique)}
    job["colouring"] = list(range(n))  # a poor bound: several satisfiable levels
    chi = chromatic_number(n, edges).value
    seen = []
    for workers in (1, 2, 2):
        colour, stats = solve_with_cubes(
            job, adj, Deadline(60.0, "x"), budget=-1, workers=workers, target=4, tabu_moves=0
        )
        assert len(set(colour)) == chi and check_colouring(n, edges, colour, optimum=chi).ok
        assert stats["splits"] >= 2 and stats["tabu"] == 0  # SAT levels went through cubes
        seen.append(colour)
    assert seen[0] == seen[1] == seen[2]  # independent of the number of children
    colour, stats = solve_with_cubes(
        job | {"colouring": dsatur_greedy(adj)}, adj, Deadline(60.0, "x"), budget=1
    )
    assert len(set(colour)) == chi


def test_sat_colouring_is_deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    edges = gnp("colour-determinism", 0, 40, 0.5)
    default = [chromatic_number(40, edges, method="sat").colouring for _ in range(2)]
    assert default[0] == default[1]
    runs = []
    for workers in (1, 2, 2):
        with monkeypatch.context() as m:
            forced_cubes(m, workers=workers, target=12)
            runs.append(chromatic_number(40, edges, method="sat").colouring)
    assert runs[0] == runs[1] == runs[2]
    assert max(runs[0]) == max(default[0]) == chromatic_number(40, edges).value - 1


def test_timeout_in_the_cube_phase_kills_the_children(monkeypatch: pytest.MonkeyPatch) -> None:
    import select as real_select
    import types

    from closurebench.graphs.exact import _sat_worker

    made: list[object] = []
    real_init = _sat_worker._Child.__init__
    real_send = _sat_worker._Pool.send
    cubes_sent = []

    def record(self: object) -> None:
        real_init(self)  # type: ignore[arg-type]
        made.append(self)

    def send(self: object, i: int, request: dict[str, object], tag: object) -> None:
        real_send(self, i, request, tag)  # type: ignore[arg-type]
        if request.get("op") == "cube":
            cubes_sent.append(i)

    def select(r: list[int], w: list[int], x: list[int], timeout: float | None = None) -> tuple:
        if cubes_sent:  # the deadline passes while cubes are owed, however fast they are
            return [], [], []
        return real_select.select(r, w, x, timeout)

    monkeypatch.setattr(_sat_worker._Child, "__init__", record)
    monkeypatch.setattr(_sat_worker._Pool, "send", send)
    monkeypatch.setattr(_sat_worker, "select", types.SimpleNamespace(select=select))
    forced_cubes(monkeypatch, workers=2, target=48)
    hard = gnp("colour-timeout", 0, 60, 0.5)
    before = _sat_worker._IDLE.snapshot(0) + _sat_worker._IDLE.snapshot(1)
    with pytest.raises(SolverTimeout, match="CaDiCaL"):
        chromatic_number(60, hard, method="sat", time_limit=60.0)
    assert sorted(set(cubes_sent)) == [0, 1]  # both children were solving cubes
    seen = before + made
    idle = _sat_worker._IDLE.snapshot(0) + _sat_worker._IDLE.snapshot(1)
    assert idle == []  # both owed a reply: both were killed, none given back ...
    assert seen and all(child.proc.poll() is not None for child in seen)  # type: ignore[attr-defined]
    monkeypatch.undo()
    medium = gnp("colour-medium", 2, 30, 0.5)  # ... and fresh children serve the next solve
    assert chromatic_number(30, medium, method="sat").value == chromatic_number(30, medium).value


def test_encoding_models_are_the_symmetry_broken_colourings() -> None:
    import itertools

    from pysat.solvers import Solver

    from closurebench.graphs.exact._common import adjacency_bitsets
    from closurebench.graphs.exact._sat_child import clauses
    from closurebench.graphs.exact._sat_cubes import cubes
    from closurebench.graphs.exact.clique import max_clique

    for t in range(25):
        g = rng(0, "test", "colour-encoding", t)
        n = int(g.integers(2, 8))
        edges = gnp("colour-encoding", t, n, float(g.uniform(0.2, 0.8)))
        adj = adjacency_bitsets(n, edges)
        clique = max_clique(adj)
        omega = len(clique)
        order = clique + sorted(set(range(n)) - set(clique), key=lambda v: (-adj[v].bit_count(), v))
        for k in range(omega, omega + 3):
            expected = set()
            for col in itertools.product(range(k), repeat=n):
                if any(col[u] == col[v] for u, v in edges):
                    continue
                if any(col[v] != c for c, v in enumerate(clique)):
                    continue
                used, ok = omega, True
                for v in order[omega:]:
                    ok = ok and col[v] <= used
                    used = max(used, col[v] + 1)
                if ok:
                    expected.add(col)
            models = set()
            with Solver(name="cadical195", bootstrap_with=clauses(n, edges, order, omega, k)) as s:
                for model in s.enum_models():
                    true = {lit for lit in model if lit > 0}
                    col = tuple(
                        next(c for c in range(k) if v * k + c + 1 in true) for v in range(n)
                    )
                    models.add(col)
            assert models == expected, (t, k)
            for target in (1, 3, 50):  # every colouring extends exactly one cube
                cover = cubes(adj, order, omega, k, target=target)
                for col in expected:
                    hits = [cb for cb in cover if all(col[v] == c for v, c in cb)]
                    assert len(hits) == 1, (t, k, target)
                if not expected:
                    assert all(
                        not Solver(
                            name="cadical195",
                            bootstrap_with=clauses(n, edges, order, omega, k)
                            + [[v * k + c + 1] for v, c in cb],
                        ).solve()
                        for cb in cover
                    )


def test_tabu_colouring_and_heavy_clique() -> None:
    import networkx as nx

    from closurebench.graphs.exact._common import adjacency_bitsets
    from closurebench.graphs.exact._sat_cubes import heavy_clique, tabu_colouring
    from closurebench.graphs.exact.clique import max_clique

    for t in range(30):
        g = rng(0, "test", "colour-tabu", t)
        n = int(g.integers(3, 26))
        edges = gnp("colour-tabu", t, n, float(g.uniform(0.1, 0.8)))
        adj = adjacency_bitsets(n, edges)
        chi = chromatic_number(n, edges).value
        start = [0] * n
        found = tabu_colouring(adj, chi, start, max_moves=20000, seed=t)
        assert found is not None and max(found) < chi
        assert all(found[u] != found[v] for u, v in edges)
        assert found == tabu_colouring(adj, chi, start, max_moves=20000, seed=t)
        if chi > 1:
            assert tabu_colouring(adj, chi - 1, start, max_moves=500) is None
        mc = max_clique(adj)
        heavy = heavy_clique(adj, mc)
        assert len(heavy) == len(mc)
        assert all(adj[a] >> b & 1 for i, a in enumerate(heavy) for b in heavy[i + 1 :])
        graph = nx.Graph(edges)
        graph.add_nodes_from(range(n))
        best = max(
            sum(graph.degree(v) for v in q) for q in nx.find_cliques(graph) if len(q) == len(mc)
        )
        assert sum(adj[v].bit_count() for v in heavy) == best


def test_sat_child_reports_a_bad_job_as_a_solver_error() -> None:
    from closurebench.graphs.exact import SolverError
    from closurebench.graphs.exact._common import Deadline
    from closurebench.graphs.exact._sat_worker import solve_in_child

    with pytest.raises(SolverError, match="KeyError"):
        solve_in_child({"n": 3}, Deadline(30.0, "chromatic_number"))
    # The child survived its error reply and still answers.
    ok = {"n": 3, "edges": [[0, 1], [1, 2], [0, 2]], "order": [0, 1, 2], "omega": 3}
    assert solve_in_child(ok | {"colouring": [0, 1, 2]}, Deadline(30.0, "x")) == [0, 1, 2]
    with pytest.raises(SolverError, match="improve without an open descent"):
        solve_in_child({"op": "improve", "colouring": [0], "budget": 1}, Deadline(30.0, "x"))
    with pytest.raises(SolverError, match="unknown op"):
        solve_in_child({"op": "nope"}, Deadline(30.0, "x"))


def test_auto_picks_the_rule_method() -> None:
    from closurebench.graphs.exact.coloring import (
        AUTO_SAT_MIN_DENSITY,
        AUTO_SAT_MIN_N,
        DEFAULT_COLOURING_METHOD,
        auto_method,
    )

    assert DEFAULT_COLOURING_METHOD == "auto"
    n = AUTO_SAT_MIN_N
    pairs = n * (n - 1) // 2
    dense = -(-int(AUTO_SAT_MIN_DENSITY * pairs * 1000) // 1000)  # ceil, exact enough here
    assert auto_method(n, pairs) == "sat"
    assert auto_method(n, dense + 1) == "sat"
    assert auto_method(n, dense - 2) == "dsatur"
    assert auto_method(n - 1, (n - 1) * (n - 2) // 2) == "dsatur"  # complete, but too small
    assert auto_method(1, 0) == auto_method(2, 1) == "dsatur"
    # The certificate names the method that ran: DSATUR on a small graph.
    assert chromatic_number(12, gnp("auto", 0, 12, 0.6)).certificate.method == "dsatur-bnb"


def test_auto_runs_sat_on_large_dense_graphs(monkeypatch: pytest.MonkeyPatch) -> None:
    # Lower the rule's threshold instead of solving a graph at n >= 50 (test budget).
    from closurebench.graphs.exact import coloring

    monkeypatch.setattr(coloring, "AUTO_SAT_MIN_N", 10)
    edges = gnp("auto-sat", 0, 14, 0.6)
    r = chromatic_number(14, edges)
    assert r.certificate.method == "sat-cadical195"
    assert r.colouring == chromatic_number(14, edges, method="dsatur").colouring


def test_every_method_returns_the_canonical_colouring() -> None:
    # DSATUR's colouring is the canonical one; SAT and the ILP map to it (n <= 30).
    for k in range(24):
        g = rng(0, "test", "colour-canonical", k)
        n = int(g.integers(6, 31))
        edges = gnp("colour-canonical", k, n, float(g.uniform(0.15, 0.7)))
        ref = chromatic_number(n, edges, method="dsatur")
        for method in ("sat", "ilp", "auto") if n <= 20 else ("sat", "auto"):
            r = chromatic_number(n, edges, method=method)
            assert r.colouring == ref.colouring, (k, method)
            assert r.value == ref.value
        own = chromatic_number(n, edges, method="sat", canonical=False)
        assert own.value == ref.value
        assert check_colouring(n, edges, list(own.colouring), optimum=ref.value).ok


def test_canonical_colouring_with_several_open_cores() -> None:
    # Grötzsch (chi 4) and C5 (chi 3) side by side: omega 2, both cores left open by
    # greedy DSATUR, so each core gets its own target (core_chi by the method).
    groetzsch = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    groetzsch += [(5 + i, (i + 1) % 5) for i in range(5)] + [(5 + i, (i - 1) % 5) for i in range(5)]
    groetzsch += [(10, 5 + i) for i in range(5)]
    c5 = [(11 + i, 11 + (i + 1) % 5) for i in range(5)]
    edges = groetzsch + c5
    ref = chromatic_number(16, edges, method="dsatur")
    assert ref.value == 4
    assert ref.colouring == (0, 1, 0, 2, 1, 0, 2, 0, 2, 3, 1, 1, 0, 1, 0, 2)  # as before issue 42
    for method in ("sat", "ilp"):
        assert chromatic_number(16, edges, method=method).colouring == ref.colouring


def test_canonical_colouring_rejects_a_wrong_chromatic_number() -> None:
    from closurebench.errors import ClosureBenchError
    from closurebench.graphs.exact._common import Deadline, adjacency_bitsets
    from closurebench.graphs.exact.coloring import canonical_colouring

    groetzsch = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    groetzsch += [(5 + i, (i + 1) % 5) for i in range(5)] + [(5 + i, (i - 1) % 5) for i in range(5)]
    groetzsch += [(10, 5 + i) for i in range(5)]
    adj = adjacency_bitsets(11, groetzsch)
    assert max(canonical_colouring(11, adj, 4, Deadline(10.0, "t"))) == 3
    for wrong in (3, 5):
        with pytest.raises(ClosureBenchError, match="disagree"):
            canonical_colouring(11, adj, wrong, Deadline(10.0, "t"))


def test_dsatur_colouring_is_unchanged() -> None:
    # Pinned DSATUR colourings (computed before issue 42): the canonical colouring that
    # GRIT stores must not move.
    edges = gnp("colour-pinned", 0, 16, 0.45)
    pinned = (0, 0, 1, 1, 2, 3, 1, 0, 1, 2, 2, 2, 1, 3, 3, 0)
    for method in ("auto", "dsatur", "sat"):
        assert chromatic_number(16, edges, method=method).colouring == pinned
