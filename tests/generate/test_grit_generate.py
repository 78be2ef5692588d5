"""GRIT generation: splits, 8 certified views per graph, invariants, determinism, CLI."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench.cli import app as cli_app
from closurebench.errors import ConfigError, SamplingError
from closurebench.generate.grit import (
    SPLITS,
    GritConfig,
    apportion,
    canonical_json,
    generate_records,
    plan,
    write_split,
)
from closurebench.schema import GritInstance
from closurebench.surface.grit import FORMS, NAMINGS, GritStructure, read_view
from closurebench.surface.grit.scenarios import for_task
from closurebench.tasks.grit import GRIT_TASKS, GritTask, Solved

KEYS = {
    "id", "suite", "split", "task", "graph_id", "view", "form", "naming", "scenario", "n",
    "question", "answer", "solution", "certificate", "graph", "names", "aliases", "params",
    "seed", "version",
}  # fmt: skip


@pytest.fixture(scope="module")
def records() -> list[GritInstance]:
    out: list[GritInstance] = []
    for seed in (0, 1):
        out += generate_records(GritConfig(split="test", seed=seed, count=12, n_max=12))[0]
    out += generate_records(GritConfig(split="ood", seed=2, count=6, n_max=11))[0]
    out += generate_records(GritConfig(split="train", seed=3, count=6, n_max=6))[0]
    return out


def _structure(r: GritInstance) -> GritStructure:
    return GritStructure.from_record(r)


def test_split_table_matches_the_spec() -> None:
    rows = {k: (s.n_min, s.n_max, s.graphs, s.scenarios) for k, s in SPLITS.items()}
    assert rows == {
        "train": (4, 40, 2160, "in_distribution"),
        "test": (10, 40, 360, "in_distribution"),
        "large": (40, 60, 120, "in_distribution"),
        "ood": (10, 40, 180, "ood"),
    }


@pytest.mark.parametrize("split", list(SPLITS))
def test_plan_balances_tasks_sizes_and_scenarios(split: str) -> None:
    jobs = plan(GritConfig(split=split))
    spec = SPLITS[split]
    assert len(jobs) == spec.layout_graphs()
    per_task = Counter(j.task for j in jobs)
    assert per_task == spec.task_graphs()
    sizes = Counter(j.n for j in jobs)
    assert min(sizes) == spec.n_min and max(sizes) == spec.n_max
    for task in GRIT_TASKS:
        counts = Counter(j.n for j in jobs if j.task == task)
        full = [counts.get(n, 0) for n in range(spec.n_min, spec.n_max + 1)]
        assert max(full) - min(full) <= 1 and full[0] and full[-1]
    for j in jobs:
        assert j.scenario in {s.id for s in for_task(j.task, spec.scenarios)}
    used = {j.scenario for j in jobs}
    assert used == {s.id for t in GRIT_TASKS for s in for_task(t, spec.scenarios)}


def test_test_split_has_the_papers_2760_questions_and_the_even_layout_is_a_knob() -> None:
    paper = GritConfig(split="test")
    assert paper.graphs == 345 and paper.graphs * 8 == 2760
    assert paper.task_graphs() == {t: 45 if t == "vertex_cover" else 60 for t in GRIT_TASKS}
    even = GritConfig(split="test", layout="even")
    assert even.graphs == 360 and set(even.task_graphs().values()) == {60}
    # A count is apportioned in the layout's proportions: 345 is the paper's layout, and
    # under the even layout any count is the old round robin.
    assert GritConfig(split="test", count=345, layout="paper").task_graphs() == (
        paper.task_graphs()
    )
    jobs = plan(GritConfig(split="test", count=14, layout="even"))
    assert [j.task for j in jobs] == [list(GRIT_TASKS)[i % 6] for i in range(14)]
    # The first graphs cover every task (round by round); vertex cover drops out last.
    order = [j.task for j in plan(paper)]
    assert set(order[:270]) == set(GRIT_TASKS) and "vertex_cover" not in order[270:]
    for split in ("train", "large", "ood"):
        assert (
            GritConfig(split=split).task_graphs()
            == GritConfig(split=split, layout="even").task_graphs()
        )
    with pytest.raises(ConfigError, match=r"layout='uneven'.*paper, even"):
        GritConfig(layout="uneven")


def test_apportion_is_proportional_and_round_robin_for_equal_weights() -> None:
    assert apportion(7, {"a": 1, "b": 1, "c": 1}) == {"a": 3, "b": 2, "c": 2}
    assert apportion(0, {"a": 60, "b": 45}) == {"a": 0, "b": 0}
    # 36.4 / 27.3 / 36.4: the one left over goes to the earlier of the tied remainders.
    assert apportion(100, {"a": 60, "b": 45, "c": 60}) == {"a": 37, "b": 27, "c": 36}


def test_a_split_never_holds_a_structure_twice(tmp_path: Path) -> None:
    # Four-node vertex-cover graphs repeat by chance (graph 4 of seed 0 does): it is
    # redrawn, the same way in one process and in two.
    cfg = GritConfig(split="train", seed=0, count=10, n_min=4, n_max=4, tasks=("vertex_cover",))
    recs, results = generate_records(cfg)
    assert len({r.structure_key for r in recs}) == 10
    assert [r.redraws for r in results] == [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
    assert results[4].attempts >= 2
    assert generate_records(GritConfig(**{**cfg.__dict__, "workers": 2}))[0] == recs
    p, m, _ = write_split(cfg, tmp_path)
    assert json.loads(m.read_text())["resamples"]["repeats"] == 1
    res = CliRunner().invoke(cli_app, ["check-overlap", str(p)])
    assert res.exit_code == 0, res.output


def test_redraws_give_up_naming_the_graph() -> None:
    # Connected three-node graphs are a path (three ways) or a triangle: no room for 9.
    cfg = GritConfig(split="train", seed=0, count=9, n_min=3, n_max=3, tasks=("vertex_cover",))
    with pytest.raises(SamplingError, match=r"grit-train-\d+ \(vertex_cover, n=3\).*--n-min"):
        generate_records(cfg)


def test_records_have_the_spec_fields_and_8_views(records: list[GritInstance]) -> None:
    by_graph: dict[tuple, list[GritInstance]] = defaultdict(list)
    for r in records:
        assert set(r.to_json()) == KEYS
        assert r.suite == "grit" and r.view == f"{r.form}/{r.naming}"
        assert r.n == r.graph.n == len(r.names)
        by_graph[(r.split, r.seed.structure, r.graph_id)].append(r)
    assert len({r.task for r in records}) == 6
    for views in by_graph.values():
        assert sorted(v.view for v in views) == sorted(f"{f}/{n}" for f in FORMS for n in NAMINGS)
        assert len({v.seed.surface for v in views}) == 8
        assert len({v.graph.model_dump_json() for v in views}) == 1


def test_reader_round_trip(records: list[GritInstance]) -> None:
    for r in records:
        got = read_view(r.question, r.task, r.scenario, r.names)
        assert got.structure == _structure(r), r.id
        assert got.aliases == r.aliases


def test_answers_are_invariant_or_map_to_the_same_nodes(records: list[GritInstance]) -> None:
    by_graph: dict[tuple[str, int, str], list[GritInstance]] = defaultdict(list)
    for r in records:
        by_graph[(r.split, r.seed.structure, r.graph_id)].append(r)
    for views in by_graph.values():
        task = views[0].task
        if task == "bfs":
            for v in views:
                assert isinstance(v.solution, list)
                ids = [i for i in v.solution if isinstance(i, int)]
                assert ids == v.solution  # node ids
                assert v.answer == [v.names[i] for i in ids]
        elif task == "centrality":
            assert len({v.solution for v in views}) == 1
            for v in views:
                assert isinstance(v.solution, int)
                assert v.answer == v.names[v.solution]
        else:
            assert len({json.dumps(v.answer) for v in views}) == 1
            assert len({json.dumps(v.solution) for v in views}) == 1


def test_stored_solutions_pass_their_checkers(records: list[GritInstance]) -> None:
    for r in records:
        task, s = GRIT_TASKS[r.task], _structure(r)
        if r.task == "bfs" or r.task == "centrality":
            assert task.check(s, r.solution) == r.solution
        else:
            assert task.check(s, r.solution) == r.answer, r.id
        if r.task in ("graph_coloring", "tsp", "vertex_cover"):
            assert r.certificate is not None
            assert r.certificate["gap"] == 0 and r.certificate["bound"] == r.answer


def test_json_round_trip(records: list[GritInstance]) -> None:
    for r in records:
        line = canonical_json(r)
        assert json.loads(line) == r.to_json() and canonical_json(json.loads(line)) == line


def test_same_seed_same_records_different_seed_different() -> None:
    cfg = GritConfig(split="test", seed=7, count=6, n_max=10)
    a, b = generate_records(cfg)[0], generate_records(cfg)[0]
    assert a == b
    c = generate_records(GritConfig(split="test", seed=8, count=6, n_max=10))[0]
    assert [r.question for r in a] != [r.question for r in c]


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_files_are_byte_identical_across_runs_processes_and_workers(tmp_path: Path) -> None:
    cfg = GritConfig(split="test", seed=5, count=6, n_max=11, tasks=("bfs", "tsp", "centrality"))
    p1, m1, _ = write_split(cfg, tmp_path / "a")
    p2, m2, _ = write_split(cfg, tmp_path / "b")
    assert p1.read_bytes() == p2.read_bytes() and m1.read_bytes() == m2.read_bytes()
    man = json.loads(m1.read_text())
    assert man["files"]["grit-test.jsonl"]["sha256"] == _sha(p1)
    assert man["records"] == 48 and man["counts"]["task"] == {
        "bfs": 16,
        "centrality": 16,
        "tsp": 16,
    }
    p3, m3, _ = write_split(GritConfig(**{**cfg.__dict__, "workers": 2}), tmp_path / "c")
    assert p3.read_bytes() == p1.read_bytes() and m3.read_bytes() == m1.read_bytes()
    code = (
        "from closurebench.generate.grit import GritConfig, write_split;"
        f"write_split(GritConfig(split='test', seed=5, count=6, n_max=11, "
        f"tasks=('bfs','tsp','centrality')), {str(tmp_path / 'd')!r})"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)
    assert (tmp_path / "d" / "grit-test.jsonl").read_bytes() == p1.read_bytes()
    assert (tmp_path / "d" / "grit-test.manifest.json").read_bytes() == m1.read_bytes()


def test_config_errors_name_the_value_and_choices() -> None:
    with pytest.raises(ConfigError, match=r"'bogus'.*train"):
        GritConfig(split="bogus")
    with pytest.raises(ConfigError, match=r"'nope'.*shortest_path"):
        GritConfig(tasks=("nope",))
    with pytest.raises(ConfigError, match="node range"):
        GritConfig(n_min=9, n_max=5)


def test_cli_writes_split_and_rejects_bad_names(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        cli_app,
        ["generate", "grit", "--split", "ood", "--seed", "1", "--out", str(tmp_path),
         "--count", "2", "--tasks", "vertex_cover,bfs", "--n-min", "6", "--n-max", "8"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    lines = (tmp_path / "grit-ood.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 16
    man = json.loads((tmp_path / "grit-ood.manifest.json").read_text())
    assert man["files"]["grit-ood.jsonl"]["sha256"] == _sha(tmp_path / "grit-ood.jsonl")
    assert man["layout"] == "paper" and man["arguments"]["layout"] == "paper"
    assert man["task_graphs"] == {"vertex_cover": 1, "bfs": 1} and man["deviations"] == []
    res = runner.invoke(
        cli_app,
        ["generate", "grit", "--split", "test", "--out", str(tmp_path / "e"), "--count", "7",
         "--tasks", "vertex_cover,bfs", "--n-max", "10", "--layout", "even"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    man = json.loads((tmp_path / "e" / "grit-test.manifest.json").read_text())
    assert man["layout"] == "even" and man["task_graphs"] == {"vertex_cover": 4, "bfs": 3}
    assert "2,880 questions" in man["deviations"][0]
    for args, needle in [
        (["--layout", "nope"], "'nope'"),
        (["--split", "nope"], "'nope'"),
        (["--tasks", "tsp,shortestpath"], "'shortestpath'"),
        (["--n-min", "30", "--n-max", "20"], "node range"),
    ]:
        res = runner.invoke(cli_app, ["generate", "grit", "--out", str(tmp_path / "x"), *args])
        assert res.exit_code == 1 and needle in res.output and "Traceback" not in res.output


def _time_out_first_solves(monkeypatch: pytest.MonkeyPatch, task: str, times: int) -> list[float]:
    """Make ``task``'s first ``times`` solves raise SolverTimeout; returns the limits seen."""
    from closurebench.graphs.exact.errors import SolverTimeout

    cls = type(GRIT_TASKS[task])
    real = cls.solve
    limits: list[float] = []

    def solve(self: GritTask, s: GritStructure, *, time_limit: float = 60.0) -> Solved:
        limits.append(time_limit)
        if len(limits) <= times:
            raise SolverTimeout(task, time_limit, "forced by the test")
        return real(self, s, time_limit=time_limit)

    monkeypatch.setattr(cls, "solve", solve)
    return limits


def test_time_limit_reaches_the_solver_and_timeouts_are_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = _time_out_first_solves(monkeypatch, "tsp", 2)
    statuses: list[str] = []
    cfg = GritConfig(split="test", seed=3, count=1, tasks=("tsp",), n_max=10, time_limit=7.5)
    _, man_path, results = write_split(cfg, tmp_path, status=statuses.append)
    assert set(limits) == {7.5}
    assert (results[0].attempts, results[0].timeouts) == (3, 2)
    man = json.loads(man_path.read_text())
    assert man["arguments"]["time_limit"] == 7.5
    assert man["resamples"] == {
        "draws": 2,
        "timeouts": 2,
        "graphs_with_timeouts": 1,
        "repeats": 0,
    }
    # The live status names the graph, the attempt, the step and the timeouts so far.
    assert "grit-test-00000 tsp n=10: attempt 1, sampling" in statuses
    assert "grit-test-00000 tsp n=10: attempt 3, solving; 2 timeouts" in statuses
    assert statuses[-1].endswith("rendering and certifying 8 views")


def test_cli_time_limit_option_and_timeout_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _time_out_first_solves(monkeypatch, "bfs", 1)
    res = CliRunner().invoke(
        cli_app,
        ["generate", "grit", "--out", str(tmp_path), "--count", "1", "--tasks", "bfs",
         "--n-max", "10", "--time-limit", "2.5"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "resampled after a solver passed --time-limit 2.5 s" in res.output
    man = json.loads((tmp_path / "grit-test.manifest.json").read_text())
    assert man["arguments"]["time_limit"] == 2.5 and man["resamples"]["timeouts"] == 1
    for bad in ("0", "-1"):
        res = CliRunner().invoke(
            cli_app, ["generate", "grit", "--out", str(tmp_path), "--time-limit", bad]
        )
        assert res.exit_code == 1 and "time_limit" in res.output and "Traceback" not in res.output


def test_cli_n_min_above_the_splits_range_says_to_pass_n_max(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        cli_app, ["generate", "grit", "--out", str(tmp_path), "--n-min", "150"]
    )
    assert res.exit_code == 1
    assert "150..40" in res.output and "pass --n-max too" in res.output


def test_default_manifest_records_no_timeouts(tmp_path: Path) -> None:
    cfg = GritConfig(split="test", seed=0, count=2, tasks=("bfs",), n_max=10)
    _, man_path, _ = write_split(cfg, tmp_path)
    man = json.loads(man_path.read_text())
    assert man["resamples"]["timeouts"] == 0
    assert man["arguments"]["time_limit"] == 60.0


# ------------------------------------------------- issue 11, point 10: density and direction


@pytest.fixture(scope="module")
def test_split() -> list[GritInstance]:
    """A real test split over the preset's whole n range: 60 graphs, 10 per task."""
    return generate_records(GritConfig(split="test", seed=11, count=60, layout="even"))[0]


def _density(r: GritInstance) -> float:
    g = r.graph
    return len(g.edges) / (g.n * (g.n - 1) / (1 if g.directed else 2))


def test_test_split_density_follows_app_h(test_split: list[GritInstance]) -> None:
    graphs = {r.graph_id: r for r in test_split}.values()
    assert len(graphs) == 60 and min(r.n for r in graphs) <= 12 and max(r.n for r in graphs) >= 38
    mean = sum(_density(r) for r in graphs) / len(graphs)
    assert abs(mean - 0.467) < 0.03  # App. H: 0.457-0.470 per size bucket; documented ~0.47
    others = [_density(r) for r in graphs if r.task != "tsp"]
    assert 0.33 < sum(others) / len(others) < 0.39  # p ~ U[0.28, 0.44] for non-TSP tasks
    assert all(_density(r) == 1.0 for r in graphs if r.task == "tsp")


def test_shortest_path_test_graphs_are_undirected(test_split: list[GritInstance]) -> None:
    sp = [r for r in test_split if r.task == "shortest_path"]
    assert len(sp) == 80 and not any(r.graph.directed for r in sp)  # App. G


def test_train_keeps_directed_shortest_paths_and_app_a_density() -> None:
    cfg = GritConfig(split="train", seed=4, count=12, tasks=("shortest_path",), n_max=12)
    assert cfg.density == (0.1, 0.3) and cfg.directed == 0.5
    recs = generate_records(cfg)[0]
    assert {r.graph.directed for r in recs} == {True, False}


def test_density_knobs_validate_and_reach_the_manifest(tmp_path: Path) -> None:
    assert GritConfig(split="test").density == (0.28, 0.44)
    assert GritConfig(split="ood").directed == 0.0
    cfg = GritConfig(split="test", density_min=0.1, density_max=0.3, count=2, n_max=10)
    assert cfg.density == (0.1, 0.3)
    with pytest.raises(ConfigError, match=r"0\.5\.\.0\.2.*density-min.*app-h regime.s range"):
        GritConfig(split="test", density_min=0.5, density_max=0.2)
    with pytest.raises(ConfigError, match=r"density range 0\.\.0\.44"):
        GritConfig(split="test", density_min=0)
    with pytest.raises(ConfigError, match=r"directed_share=1\.5"):
        GritConfig(split="train", directed_share=1.5)
    _, man_path, _ = write_split(cfg, tmp_path)
    man = json.loads(man_path.read_text())
    assert man["arguments"]["density"] == [0.1, 0.3]
    assert man["arguments"]["directed_share"] == 0.0
    assert "App. H" in man["density_note"] and "App. A" in man["density_note"]
    stats = man["density_stats"]
    assert stats["all"]["graphs"] == 2 and set(stats) == {"all", "shortest_path", "graph_coloring"}
    assert stats["shortest_path"]["directed"] == 0
    assert {"mean_density", "mean_edges"} <= set(stats["graph_coloring"])


# ------------------------------------------ issue 21, point 3: regimes that vary one thing


def test_large_and_ood_are_drawn_in_the_test_regime_and_app_a_is_a_knob(tmp_path: Path) -> None:
    test = GritConfig(split="test")
    for split in ("large", "ood"):
        cfg = GritConfig(split=split)
        assert (cfg.regime_spec.name, cfg.density, cfg.directed) == (
            "app-h",
            test.density,
            test.directed,
        )
    old = GritConfig(split="large", regime="app-a")
    assert (old.density, old.directed) == ((0.1, 0.3), 0.5)
    # A part of the regime can still be overridden alone.
    assert GritConfig(split="large", regime="app-a", directed_share=0).directed == 0.0
    with pytest.raises(ConfigError, match=r"regime='app-x' is unknown.*app-h, app-a"):
        GritConfig(split="large", regime="app-x")
    args = ["grit", "--split", "large", "--count", "6", "--n-max", "41", "--seed", "5",
            "--tasks", "shortest_path", "--regime", "app-a", "--out", str(tmp_path)]  # fmt: skip
    res = CliRunner().invoke(cli_app, ["generate", *args])
    assert res.exit_code == 0, res.output
    man = json.loads((tmp_path / "grit-large.manifest.json").read_text())
    assert man["arguments"]["regime"] == "app-a"
    assert man["arguments"]["density"] == [0.1, 0.3]
    assert man["density_stats"]["shortest_path"]["directed"] > 0
    res = CliRunner().invoke(
        cli_app, ["generate", "grit", "--regime", "dense", "--out", str(tmp_path)]
    )
    assert res.exit_code == 1 and "regime='dense' is unknown" in res.output
