"""Seeded samplers: determinism, invariants, connectivity, statistics, errors."""

from __future__ import annotations

import itertools
import math
from typing import Literal

import networkx as nx
import numpy as np
import pytest

from closurebench.errors import ConfigError, SamplingError
from closurebench.graphs.convert import to_networkx
from closurebench.graphs.measures import density, triangle_count
from closurebench.graphs.sample import (
    erdos_renyi,
    erdos_renyi_out_degree,
    kinship_dag,
    metric_complete,
    planted_triangles,
    weighted,
)
from closurebench.seeding import rng

SAMPLERS = {
    "er": lambda g: erdos_renyi(g, 9, 0.3),
    "er_undirected_connected": lambda g: erdos_renyi(
        g, 9, 0.3, directed=False, require="connected"
    ),
    "er_strong": lambda g: erdos_renyi(g, 9, 0.4, require="strong"),
    "er_out_degree": lambda g: erdos_renyi_out_degree(g, 50, 3.0),
    "kinship": lambda g: kinship_dag(g, 10),
    "triangles": lambda g: planted_triangles(g, 8, 0.2, triangles=2),
    "metric": lambda g: metric_complete(g, 7, grid=20),
    "weighted": lambda g: weighted(g, erdos_renyi(g, 7, 0.5)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_same_seed_same_graph(name: str) -> None:
    sampler = SAMPLERS[name]
    for k in range(5):
        assert sampler(rng(0, "test", name, k)) == sampler(rng(0, "test", name, k))
    distinct = {repr(sampler(rng(0, "test", name, k))) for k in range(10)}
    assert len(distinct) > 1


def test_rng_must_be_a_generator() -> None:
    with pytest.raises(ConfigError, match="Generator"):
        erdos_renyi(42, 5, 0.5)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- ER
@pytest.mark.parametrize("directed", [True, False])
def test_er_shape(directed: bool) -> None:
    for k in range(20):
        g = erdos_renyi(rng(0, "test", k), 8, 0.4, directed=directed)
        assert g.n == 8 and g.directed is directed
        assert all(u != v for u, v in g.edges)
        if not directed:
            assert all(u < v for u, v in g.edges)


@pytest.mark.parametrize("directed", [True, False])
def test_er_extremes(directed: bool) -> None:
    pairs = 6 * 5 if directed else 15
    assert erdos_renyi(rng(0, "test", 1), 6, 0.0, directed=directed).m == 0
    assert erdos_renyi(rng(0, "test", 1), 6, 1.0, directed=directed).m == pairs
    assert erdos_renyi(rng(0, "test", 1), 1, 0.7, directed=directed).m == 0


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("p", [0.1, 0.3, 0.5])
def test_er_density_statistics(directed: bool, p: float) -> None:
    n, samples = 10, 400
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    counts = np.zeros((n, n))
    dens = []
    for k in range(samples):
        g = erdos_renyi(rng(0, "test", "stat", k), n, p, directed=directed)
        dens.append(density(g))
        counts += g.adjacency()
    sd_mean = math.sqrt(p * (1 - p) / pairs / samples)
    assert abs(np.mean(dens) - p) < 6 * sd_mean
    # every pair is equally likely: per-pair frequencies stay within a generous band
    off = ~np.eye(n, dtype=bool)
    freq = counts[off] / samples
    sd_pair = math.sqrt(p * (1 - p) / samples)
    assert np.all(np.abs(freq - p) < 5 * sd_pair)


def test_er_large_is_fast_and_right() -> None:
    g = erdos_renyi_out_degree(rng(0, "test", "big"), 5000, 10.0)
    assert abs(g.m / 5000 - 10.0) < 0.3
    u = erdos_renyi_out_degree(rng(0, "test", "big"), 5000, 10.0, directed=False)
    assert abs(2 * u.m / 5000 - 10.0) < 0.3


@pytest.mark.parametrize("n", [2, 5, 12])
def test_connected_guarantee(n: int) -> None:
    for k in range(40):
        g = erdos_renyi(rng(0, "test", "conn", k), n, 0.15, directed=False, require="connected")
        assert nx.is_connected(to_networkx(g))
        w = erdos_renyi(rng(0, "test", "weak", k), n, 0.1, directed=True, require="connected")
        assert nx.is_weakly_connected(to_networkx(w))


@pytest.mark.parametrize("n", [2, 5, 12])
def test_strong_guarantee(n: int) -> None:
    for k in range(40):
        g = erdos_renyi(rng(0, "test", "strong", k), n, 0.25, require="strong")
        assert nx.is_strongly_connected(to_networkx(g))
        h = erdos_renyi_out_degree(
            rng(0, "test", "strong-d", k), n, min(1.5, n - 1), require="strong"
        )
        assert nx.is_strongly_connected(to_networkx(h))


def test_sampling_error_names_parameters_and_fix() -> None:
    with pytest.raises(SamplingError) as info:
        erdos_renyi(rng(0, "test", 0), 30, 0.01, require="strong", max_attempts=5)
    msg = str(info.value)
    assert "n=30" in msg and "density=0.01" in msg and "5 attempts" in msg
    assert "raise the density" in msg and "strongly connected" in msg
    with pytest.raises(SamplingError, match="connected undirected"):
        erdos_renyi(rng(0, "test", 0), 4, 0.0, directed=False, require="connected")


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda g: erdos_renyi(g, 5, 1.5), "density=1.5"),
        (lambda g: erdos_renyi(g, 5, -0.1), "density=-0.1"),
        (lambda g: erdos_renyi(g, 5, float("nan")), "density=nan"),
        (lambda g: erdos_renyi(g, 0, 0.5), "n=0"),
        (lambda g: erdos_renyi(g, 5.0, 0.5), "n=5.0"),  # type: ignore[arg-type]
        (lambda g: erdos_renyi(g, 5, 0.5, require="weak"), "require='weak'"),  # type: ignore[arg-type]
        (lambda g: erdos_renyi(g, 5, 0.5, require="strong", max_attempts=0), "max_attempts=0"),
        (lambda g: erdos_renyi_out_degree(g, 5, 7), "out_degree=7"),
        (lambda g: erdos_renyi_out_degree(g, 1, 0), "n=1"),
        (lambda g: planted_triangles(g, 4, 0.1, triangles=5), "triangles=5"),
        (lambda g: planted_triangles(g, 2, 0.1), "n=2"),
        (lambda g: kinship_dag(g, 3, generations=4), "generations=4"),
        (lambda g: kinship_dag(g, 3, generations=0), "generations=0"),
        (lambda g: kinship_dag(g, 5, max_children=0), "max_children=0"),
        (lambda g: kinship_dag(g, 5, max_parents=0), "max_parents=0"),
        (lambda g: kinship_dag(g, 5, link_prob=1.5), "link_prob=1.5"),
        (lambda g: metric_complete(g, 10, grid=3), "n=10"),
        (lambda g: metric_complete(g, 3, distance="cosine"), "distance='cosine'"),  # type: ignore[arg-type]
        (lambda g: weighted(g, erdos_renyi(g, 3, 0.5), low=5, high=2), "high=2"),
    ],
)
def test_config_errors_name_the_value(call, needle: str) -> None:
    with pytest.raises(ConfigError) as info:
        call(rng(0, "test", "err"))
    assert needle in str(info.value), str(info.value)


def test_out_degree_mean() -> None:
    means = [erdos_renyi_out_degree(rng(0, "test", "od", k), 40, 4.0).m / 40 for k in range(100)]
    assert abs(np.mean(means) - 4.0) < 0.2


# --------------------------------------------------------------------------- planted triangles
def test_planted_triangles_at_least() -> None:
    for k in range(30):
        t = k % 5 + 1
        g = planted_triangles(rng(0, "test", "tri", k), 7, 0.1, triangles=t)
        assert not g.directed
        assert triangle_count(g) >= t
    full = planted_triangles(rng(0, "test", "tri"), 5, 0.0, triangles=10)
    assert full.m == 10
    big = planted_triangles(rng(0, "test", "tri-big"), 60, 0.0, triangles=40)
    assert triangle_count(big) >= 40


# --------------------------------------------------------------------------- kinship
def _check_kinship(k, n: int, max_parents: int, max_children: int) -> None:
    g, gen = k.graph, k.generation
    assert g.n == n and g.directed and len(gen) == n
    parents = np.bincount([v for _, v in g.edges], minlength=n)
    children = np.bincount([u for u, _ in g.edges], minlength=n)
    assert parents.max(initial=0) <= max_parents
    assert children.max(initial=0) <= max_children
    assert all(gen[v] == gen[u] + 1 for u, v in g.edges)
    assert nx.is_directed_acyclic_graph(to_networkx(g))
    for v in range(n):
        assert (parents[v] == 0) == (gen[v] == 0)
    assert sorted(set(gen)) == list(range(k.generations))


@pytest.mark.parametrize(
    ("n", "gens", "mp", "mc"),
    [
        (4, None, 2, 3),
        (10, None, 2, 3),
        (10, 5, 2, 1),
        (12, 4, 1, 2),
        (30, None, 3, 2),
        (7, 7, 2, 3),
        (1, None, 2, 3),
        (200, None, 2, 3),
    ],
)
def test_kinship_invariants(n: int, gens: int | None, mp: int, mc: int) -> None:
    for s in range(25):
        k = kinship_dag(
            rng(0, "test", "kin", s), n, generations=gens, max_parents=mp, max_children=mc
        )
        _check_kinship(k, n, mp, mc)
        if gens is not None:
            assert k.generations == gens


def test_kinship_has_two_parent_children_and_shuffled_ids() -> None:
    two_parents = 0
    root_ids = set()
    for s in range(30):
        k = kinship_dag(rng(0, "test", "kin2", s), 10)
        indeg = np.bincount([v for _, v in k.graph.edges], minlength=10)
        two_parents += int((indeg == 2).sum())
        root_ids |= {v for v in range(10) if k.generation[v] == 0}
    assert two_parents > 0
    assert len(root_ids) > 5  # ids carry no generation information


def test_kinship_tight_caps() -> None:
    # Each generation may hold at most max_children times the previous one.
    for s in range(20):
        k = kinship_dag(rng(0, "test", "tight", s), 15, generations=4, max_children=2)
        sizes = np.bincount(k.generation)
        assert all(sizes[g + 1] <= 2 * sizes[g] for g in range(3))
        _check_kinship(k, 15, 2, 2)


# --------------------------------------------------------------------------- metric
def _assert_metric(w: np.ndarray) -> None:
    n = w.shape[0]
    # every triple: w[i,k] <= w[i,j] + w[j,k]
    assert np.all(w[:, None, :] <= w[:, :, None] + w[None, :, :]), "triangle inequality"
    assert np.all(w[~np.eye(n, dtype=bool)] >= 1)


def _weight_matrix(g) -> np.ndarray:
    w = np.zeros((g.n, g.n), dtype=np.int64)
    for (u, v), x in zip(g.edges, g.weights, strict=True):
        w[u, v] = w[v, u] = x
    return w


@pytest.mark.parametrize("distance", ["euclidean", "manhattan"])
def test_metric_complete_triangle_inequality(distance: Literal["euclidean", "manhattan"]) -> None:
    for s in range(30):
        mg = metric_complete(rng(0, "test", "metric", s), 12, grid=8 + s, distance=distance)
        g = mg.graph
        assert not g.directed and g.m == 66 and g.weights is not None
        assert all(isinstance(x, int) for x in g.weights)
        assert len(set(mg.points)) == 12
        assert all(0 <= x < 8 + s and 0 <= y < 8 + s for x, y in mg.points)
        w = _weight_matrix(g)
        _assert_metric(w)
        for (u, v), x in zip(g.edges, g.weights, strict=True):
            (ax, ay), (bx, by) = mg.points[u], mg.points[v]
            if distance == "euclidean":
                assert x == math.ceil(math.hypot(ax - bx, ay - by) - 1e-12)
                assert x * x >= (ax - bx) ** 2 + (ay - by) ** 2 > (x - 1) ** 2
            else:
                assert x == abs(ax - bx) + abs(ay - by)


def test_metric_complete_full_grid_and_collinear() -> None:
    mg = metric_complete(rng(0, "test", "full"), 25, grid=5)
    assert sorted(mg.points) == list(itertools.product(range(5), range(5)))
    _assert_metric(_weight_matrix(mg.graph))


# --------------------------------------------------------------------------- weighted
def test_weighted_range_and_structure() -> None:
    base = erdos_renyi(rng(0, "test", "w"), 12, 0.4)
    seen = set()
    for s in range(20):
        g = weighted(rng(0, "test", "w", s), base)
        assert g.edges == base.edges and g.weights is not None
        assert all(1 <= w <= 10 and isinstance(w, int) for w in g.weights)
        seen |= set(g.weights)
    assert seen == set(range(1, 11))
    g = weighted(rng(0, "test", "w"), base, low=3, high=3)
    assert g.weights is not None and set(g.weights) <= {3}
