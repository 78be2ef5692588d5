"""``benchmarks/scaling.py``: the measuring function runs in quick mode and returns points.

Structure only: no wall-clock bound is asserted (the machine is shared).
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

_SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "scaling.py"


@pytest.fixture(scope="module")
def scaling() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("bench_scaling", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def test_quick_measure_returns_points_slopes_and_outputs(
    scaling: ModuleType, tmp_path: Path
) -> None:
    lines: list[str] = []
    points = scaling.measure(
        categories=("reachability", "ancestor"),
        tasks=("bfs",),
        closure_ns=(10, 20, 50),
        grit_ns=(10, 20),
        repeats=1,
        time_limit=10.0,
        max_n=20,
        log=lines.append,
    )
    assert [(p.suite, p.curve, p.n) for p in points] == [
        ("closure", "reachability", 10),
        ("closure", "reachability", 20),
        ("closure", "reachability", 50),
        ("closure", "ancestor", 10),
        ("closure", "ancestor", 20),
        ("closure", "ancestor", 50),
        ("grit", "bfs", 10),
        ("grit", "bfs", 20),
    ]
    assert len(lines) == len(points)
    for p in points:
        if p.n == 50:  # over max_n: skipped, and the reason is said
            assert p.status == "skipped" and "--max-n" in p.note and not p.instances
            continue
        assert p.status == "ok" and p.group == ("GRIT" if p.suite == "grit" else "L1")
        assert len(p.instances) == 1
        inst = p.instances[0]
        assert inst.status == "ok" and inst.index == 0
        assert inst.seconds > 0 and inst.peak_mib is not None and inst.peak_mib > 0
        assert p.median_s == inst.seconds and p.median_peak_mib == inst.peak_mib
        assert inst.edges is not None and inst.edges > 0
        if p.suite == "closure":
            assert inst.ein_chars is not None and {"sample", "ein", "certify"} <= set(inst.stages)
        else:
            assert set(inst.stages) == {"sample", "solve", "verify"}

    summaries = {(s.suite, s.curve): s for s in scaling.summarise(points)}
    assert set(summaries) == {("closure", "reachability"), ("closure", "ancestor"), ("grit", "bfs")}
    for s in summaries.values():
        # Two points with a known median each: the fits are finite numbers.
        assert s.slope_time is not None and math.isfinite(s.slope_time)
        assert s.slope_memory is not None and math.isfinite(s.slope_memory)
        assert s.largest_n == 20
    assert summaries[("closure", "reachability")].notes  # the skipped n = 50 is named

    result = {
        "meta": {
            "command": "scaling.py --quick",
            "started": "now",
            "wall_s": 1.0,
            "repeats": 1,
            "time_limit": 10.0,
            "machine": "test",
            "cpus": 1,
            "python": "3",
            "numpy": "2",
            "load_before": "0",
            "load_after": "0",
        },
        "points": [scaling.asdict(p) for p in points],
        "curves": [scaling.asdict(s) for s in summaries.values()],
        "profile": None,
    }
    # Figures are left out here (matplotlib's import alone takes seconds); --quick draws them.
    written = scaling.write_outputs(result, tmp_path, figures=False)
    names = {p.name for p in written}
    assert names == {"scaling.json", "SCALING.md"}
    assert all((tmp_path / name).stat().st_size > 0 for name in names)
    assert len(json.loads((tmp_path / "scaling.json").read_text())["points"]) == len(points)
    md = (tmp_path / "SCALING.md").read_text()
    assert "| reachability | L1 |" in md and "| bfs |" in md and "skip" in md
    # A hand-written analysis between the markers survives a rewrite.
    md = md.replace("(Not written yet: add the analysis between these markers.)", "KEEP ME")
    (tmp_path / "SCALING.md").write_text(md)
    scaling.write_outputs(result, tmp_path, figures=False)
    assert "KEEP ME" in (tmp_path / "SCALING.md").read_text()


def test_fit_slope_and_censored_median(scaling: ModuleType) -> None:
    assert scaling.fit_slope([10, 100], [0.01, 1.0]) == pytest.approx(2.0)
    assert scaling.fit_slope([10, 20], [None, 1.0]) is None
    # Timeouts sort above every completed time: the median is known below half.
    assert scaling._median_censored([1.0, 2.0, 3.0], 2) == 3.0
    assert scaling._median_censored([1.0, 2.0], 2) is None
