"""GRAIN Table 20, panel B: structure recovery by the gold graph's density tertile.

Hand-built agent results with known densities (the cut points 0.314 and 0.415 among
them) give the counts and rates a hand count gives; a GRIT split's own graphs give the
density the results record, and an older run without it gets it from the dataset file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from report_fixtures import record

from closurebench.generate.grit import GritConfig, write_split
from closurebench.generate.io import load_instances
from closurebench.report.aggregate import Rate, attach_instances, load_run
from closurebench.report.grain import (
    DENSITY_TERTILES,
    grain_structure_by_density_table,
    grain_tables,
)
from closurebench.report.tables import render_markdown
from closurebench.scoring.structure import StructureScore

EXACT = StructureScore(1.0, 1.0, True, 1.0, "exact").to_json()
MISSING = StructureScore(1.0, 0.8, False, 2 / 3, "missing_edges", missing_edges=1).to_json()
PARSE = StructureScore(0.0, 0.0, False, 0.0, "parse_failure").to_json()


def _agent(structure: dict[str, Any] | None, density: float | None, **meta: Any) -> dict[str, Any]:
    extra = {"structure": structure, "rounds": 2, "tool_calls": 1, "agent_outcome": "answered"}
    meta.setdefault("n", 12)
    return record(
        "wrong", mode="agent", extra=extra, suite="grit", task="bfs", naming="canonical",
        form="standard", density=density, **meta,
    )  # fmt: skip


#: (density, structure): Low 0.2001, 0.3139; Mid 0.314 (the cut point), 0.4, 0.4149;
#: High 0.415 (the cut point), 0.985, 1.0; and one result without a density.
CASES: list[tuple[float | None, dict[str, Any] | None]] = [
    (0.2001, EXACT),
    (0.3139, MISSING),
    (0.314, PARSE),
    (0.4, None),
    (0.4149, EXACT),
    (0.415, EXACT),
    (0.985, MISSING),
    (1.0, EXACT),
    (None, EXACT),
]


def test_panel_b_equals_the_hand_count(make_run) -> None:
    recs = [_agent(s, d, id=f"g{i}") for i, (d, s) in enumerate(CASES)]
    t = grain_structure_by_density_table([load_run(make_run("a", recs))])
    assert t.key == "grain_structure_density" and "Table 20, panel B" in t.title
    assert t.header == ["Run", "Density", "N", "Avg.", "Parse", "Edge-F1", "Exact"]
    assert [row[1] for row in t.rows] == [label for label, _, _ in DENSITY_TERTILES]
    assert [row[1] for row in t.rows] == ["Low (<0.314)", "Mid (0.314–0.415)", "High (≥0.415)"]
    low, mid, high = (row[2:] for row in t.rows)
    # Low: 0.2001 exact, 0.3139 missing an edge.
    assert low == ["2", "0.257", "100.00", "90.00", Rate(1, 2).fmt(digits=2)]
    # Mid: 0.314 (exactly the cut: Mid) a parse failure, 0.4 no call, 0.4149 exact.
    assert mid == ["3", "0.376", "33.33", "33.33", Rate(1, 3).fmt(digits=2)]
    # High: 0.415 (exactly the cut: High) exact, 0.985 missing, 1.0 (closed end) exact.
    assert high == ["3", "0.800", "100.00", "93.33", Rate(2, 3).fmt(digits=2)]
    assert sum(int(row[2]) for row in t.rows) == len(CASES) - 1  # no density: left out


def test_panel_b_sits_next_to_panel_a_only_when_results_carry_a_density(make_run) -> None:
    with_density = [_agent(EXACT, 0.3, id="a"), _agent(None, 0.5, id="b")]
    keys = [t.key for t in grain_tables([load_run(make_run("d", with_density))], "grit")]
    assert keys[keys.index("grain_structure_size") + 1] == "grain_structure_density"
    without = [_agent(EXACT, None, id="a")]
    run = load_run(make_run("nd", without))
    assert "grain_structure_density" not in [t.key for t in grain_tables([run], "grit")]
    assert "structure recovery by density (Table 20, panel B)" in render_markdown(
        [load_run(make_run("d2", with_density))]
    )


def test_a_grit_split_gives_the_density_and_old_runs_join_it(make_run, tmp_path: Path) -> None:
    path, _, _ = write_split(GritConfig(split="test", seed=3, count=6, n_max=10), tmp_path / "d")
    instances = load_instances(path)
    for inst in instances:
        g = inst.graph
        assert inst.density == 2 * len(g.edges) / (g.n * (g.n - 1))  # undirected test graphs
    # An agent run written before results carried the density: --dataset joins it.
    recs = [_agent(EXACT, None, id=inst.id, n=inst.n) for inst in instances]
    run = load_run(make_run("old", recs))
    assert "grain_structure_density" not in [t.key for t in grain_tables([run], "grit")]
    assert attach_instances([run], [path]) == len(instances)
    assert [r.density for r in run.records] == [inst.density for inst in instances]
    (table,) = [t for t in grain_tables([run], "grit") if t.key == "grain_structure_density"]
    by_hand = {
        label: sum(
            1 for inst in instances if lo <= inst.density < hi or (hi == 1.0 == inst.density)
        )
        for label, lo, hi in DENSITY_TERTILES
    }
    assert {row[1]: int(row[2]) for row in table.rows} == {k: v for k, v in by_hand.items() if v}
