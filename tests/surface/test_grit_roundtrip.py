"""Every GRIT scenario x form x naming round-trips through the independent reader."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from closurebench.seeding import rng
from closurebench.structures.grit import GritStructure
from closurebench.surface.grit import grammar as grammar_module
from closurebench.surface.grit import reader as reader_module
from closurebench.surface.grit import scenarios
from closurebench.surface.grit.naming import NAMINGS
from closurebench.surface.grit.reader import ReadError, RoundTripError, certify, read, read_view
from closurebench.surface.grit.render import FORMS, render
from closurebench.surface.grit.scenarios import bfs as bfs_wording
from closurebench.surface.grit.scenarios import frames as F
from closurebench.tasks.grit import CENTRALITIES

SEEDS = (0, 1, 2)


def build(
    task: str, n: int, g: np.random.Generator, directed: bool, weighted: bool
) -> GritStructure:
    """A random connected graph built here, independently of the package's samplers."""
    if task == "tsp":
        pts = g.integers(0, 30, size=(n, 2))
        edges = [
            (i, j, int(np.abs(pts[i] - pts[j]).sum()) + 1)
            for i in range(n)
            for j in range(i + 1, n)
        ]
        return GritStructure(task, n, False, True, edges)
    p = min(0.4, 5.0 / n)
    order = g.permutation(n).tolist()
    pairs = set()
    for k in range(1, n):
        u, v = order[k], order[int(g.integers(0, k))]
        pairs.add((u, v) if directed else (min(u, v), max(u, v)))
        if directed:
            pairs.add((v, u))
    for u in range(n):
        for v in range(n):
            if u != v and (directed or u < v) and g.random() < p:
                pairs.add((u, v))
    edges = [(u, v, int(g.integers(1, 11)) if weighted else 1) for u, v in sorted(pairs)]
    params: dict = {}
    if task == "shortest_path":
        s, t = g.choice(n, size=2, replace=False)
        params = {"source": int(s), "target": int(t)}
    elif task == "bfs":
        params = {"source": int(g.integers(0, n))}
    elif task == "centrality":
        params = {"centrality": CENTRALITIES[int(g.integers(0, 3))]}
    return GritStructure(task, n, directed, weighted, edges, params)


def instance(sc, seed: int) -> GritStructure:
    g = rng(seed, "test-grit", sc.id)
    top = 25 if sc.task == "tsp" else 60
    n = (4, top, int(g.integers(5, top)))[seed % 3]
    sp = sc.task == "shortest_path"
    directed = sp and seed != 1
    weighted = sc.task == "tsp" or (sp and seed != 2)
    return build(sc.task, n, g, directed, weighted)


@pytest.mark.parametrize("scenario_id", list(scenarios.SCENARIOS))
def test_every_view_round_trips(scenario_id: str) -> None:
    sc = scenarios.get(scenario_id)
    for seed in SEEDS:
        structure = instance(sc, seed)
        for form in FORMS:
            for naming in NAMINGS:
                q = render(structure, sc, form, naming, rng(seed, sc.id, form, naming))
                certify(structure, q)
                assert len({x.casefold() for x in (*q.names, *q.aliases)}) == structure.n + len(
                    q.aliases
                ), "names and aliases must be unique ignoring case"


def test_large_tsp_and_dense_directed_shortest_path_round_trip() -> None:
    g = rng(7, "large")
    big_tsp = build("tsp", 60, g, False, True)
    dense = GritStructure(
        "shortest_path",
        40,
        True,
        True,
        [(u, v, 1 + (u * v) % 10) for u in range(40) for v in range(40) if u != v and (u + v) % 3],
        {"source": 0, "target": 39},
    )
    for structure, sc in ((big_tsp, "tsp_school_bus"), (dense, "sp_metro_commute")):
        for form in FORMS:
            for naming in NAMINGS:
                certify(structure, render(structure, sc, form, naming, rng(1, form, naming)))


def test_same_seed_gives_identical_text_and_other_seeds_differ() -> None:
    structure = instance(scenarios.get("bfs_uav_scanning"), 2)
    for form in FORMS:
        for naming in NAMINGS:
            a = render(structure, "bfs_uav_scanning", form, naming, rng(5, form, naming))
            b = render(structure, "bfs_uav_scanning", form, naming, rng(5, form, naming))
            c = render(structure, "bfs_uav_scanning", form, naming, rng(6, form, naming))
            assert a == b and a.question == b.question
            if not (form == "standard" and naming == "canonical"):
                assert a.question != c.question


def test_reading_without_names_gives_an_isomorphic_structure() -> None:
    sc = scenarios.get("cen_protein_hubs")
    structure = instance(sc, 2)
    for naming in NAMINGS:
        q = render(structure, sc, "realistic", naming, rng(3, naming))
        view = read_view(q.question, "centrality", sc)
        # the reader numbers nodes in listed order; map them back through the listing
        back = {k: q.listing[k] for k in range(structure.n)}
        if naming == "canonical":
            back = {k: k for k in range(structure.n)}
        relabelled = GritStructure(
            "centrality",
            structure.n,
            False,
            False,
            [(back[u], back[v]) for u, v, _ in view.structure.edges],
            view.structure.params,
        )
        assert relabelled == structure


def _units(text: str) -> list[str]:
    return [u for line in text.split("\n") for u in line.split(". ")]


def test_distractors_never_change_the_recovered_graph() -> None:
    for sc in scenarios.SCENARIOS.values():
        structure = instance(sc, 0)
        q = render(structure, sc, "realistic", "semantic", rng(9, sc.id))
        base = read(q.question, sc.task, sc, q.names)
        assert base == structure
        stripped = q.question
        for d in sc.distractors:
            stripped = stripped.replace(" " + d, "").replace(d + " ", "").replace(d, "")
        assert read(stripped, sc.task, sc, q.names) == structure
        flooded = q.question.replace("\n\n", "\n\n" + " ".join(sc.distractors) + "\n\n", 1)
        assert read(flooded, sc.task, sc, q.names) == structure


def test_certify_names_the_first_difference() -> None:
    structure = GritStructure(
        "shortest_path",
        4,
        False,
        True,
        [(0, 1, 3), (1, 2, 4), (2, 3, 5)],
        {"source": 0, "target": 3},
    )
    q = render(structure, "sp_logistics_cost", "standard", "canonical", rng(0))
    certify(structure, q)
    wrong_weight = GritStructure(
        "shortest_path",
        4,
        False,
        True,
        [(0, 1, 3), (1, 2, 9), (2, 3, 5)],
        {"source": 0, "target": 3},
    )
    with pytest.raises(RoundTripError, match=r"edge \(1, 2\) has weight 4, expected 9"):
        certify(wrong_weight, q)
    missing = GritStructure(
        "shortest_path",
        4,
        False,
        True,
        [(0, 1, 3), (0, 3, 1), (1, 2, 4), (2, 3, 5)],
        {"source": 0, "target": 3},
    )
    with pytest.raises(RoundTripError, match=r"edge \(0, 3\) \(weight 1\) is missing"):
        certify(missing, q)
    other_query = GritStructure(
        "shortest_path", 4, False, True, structure.edges, {"source": 3, "target": 0}
    )
    with pytest.raises(RoundTripError, match="params"):
        certify(other_query, q)


def test_reader_rejects_ambiguous_or_broken_text() -> None:
    structure = GritStructure("vertex_cover", 4, False, False, [(0, 1), (1, 2), (2, 3)])
    q = render(structure, "vc_social_liaisons", "realistic", "semantic", rng(2))
    a, b = q.names[0], q.names[3]
    sneaky = q.question.replace("\n\n", f"\n\nI once saw {a} chatting with {b}.\n\n", 1)
    with pytest.raises(ReadError, match="mentions 2 nodes"):
        read(sneaky, "vertex_cover", "vc_social_liaisons")
    first_edge = next(u for u in _units(q.question) if "friend" in u or "know each" in u)
    doubled = q.question + "\n" + first_edge.rstrip(".") + "."
    with pytest.raises(ReadError, match="repeats an earlier edge"):
        read(doubled, "vertex_cover", "vc_social_liaisons")
    with pytest.raises(ReadError, match="node declaration"):
        read("Nothing to see here.", "vertex_cover", "vc_social_liaisons")
    # Another task's query sentences are read, and refused, not skipped.
    vocab = scenarios.get("vc_social_liaisons").vocabulary()
    order = F.BFS_ORDER["alphabetical"].format(**vocab)
    rule = bfs_wording.QUERY.order_rule[0].format(**vocab, order=order)  # type: ignore[index]
    with pytest.raises(ReadError, match="should not state a BFS neighbour order"):
        read(q.question + "\n" + rule, "vertex_cover", "vc_social_liaisons")
    s = GritStructure("centrality", 3, False, False, [(0, 1), (1, 2)], {"centrality": "degree"})
    cen = render(s, "cen_airport_hubs", "standard", "semantic", rng(1)).question
    wrong = cen.replace("Degree centrality counts", "Betweenness centrality counts")
    assert wrong != cen
    with pytest.raises(ReadError, match="definition given is"):
        read(wrong, "centrality", "cen_airport_hubs")


def test_spot_checks_of_rules_kinds_and_directions() -> None:
    bfs = instance(scenarios.get("bfs_cave_exploration"), 2)
    expected = {
        "canonical": "in increasing order of their numbers",
        "random": "in increasing order of their numbers",
        "semantic": "in alphabetical order of their names",
        "mixed": "in the order in which the chambers are listed above",
    }
    for naming, phrase in expected.items():
        for form in FORMS:
            q = render(bfs, "bfs_cave_exploration", form, naming, rng(0, naming))
            assert phrase in q.question
            assert q.tie_break == {"canonical": "numeric", "random": "numeric"}.get(
                naming, "alphabetical" if naming == "semantic" else "listed"
            )
            assert q.neighbour_order is not None
            order = [q.names[i] for i in q.neighbour_order]
            if naming == "semantic":
                assert order == sorted(order, key=str.casefold)
            if naming in ("canonical", "random"):
                assert order == sorted(order, key=int)
    for kind in CENTRALITIES:
        s = GritStructure("centrality", 3, False, False, [(0, 1), (1, 2)], {"centrality": kind})
        for form in FORMS:
            text = render(s, "cen_airport_hubs", form, "semantic", rng(1)).question
            assert f"{kind} centrality" in text.lower()
    one_way = GritStructure("shortest_path", 3, True, True, [(0, 1, 2), (1, 2, 2), (2, 0, 2)],
                            {"source": 0, "target": 2})  # fmt: skip
    for form in FORMS:
        assert "one-way" in render(one_way, "sp_ski_resort", form, "canonical", rng(0)).question


def test_mixed_naming_states_every_alias_and_uses_them() -> None:
    structure = instance(scenarios.get("vc_pipeline_sensors"), 1)
    used = 0
    for seed in range(5):
        for form in FORMS:
            q = render(structure, "vc_pipeline_sensors", form, "mixed", rng(seed, form))
            assert q.aliases
            for alias, node in q.aliases.items():
                assert f"'{alias}'" in q.question
                assert 0 <= node < structure.n and alias not in q.names
                used += q.question.count(alias) > 1
    assert used > 0, "aliases should be used after they are introduced"


def test_reader_does_not_import_the_renderer() -> None:
    for module in (reader_module, grammar_module):
        assert module.__file__ is not None
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
        }
        assert not any(m.endswith(("render", "naming", "preview")) for m in imported), imported
