"""Record the flame graphs under ``benchmarks/profiles/`` (py-spy, one SVG per target).

Usage::

    uv run python benchmarks/make_profiles.py [--only heldout,grit_large,...] [--rate 200]

py-spy is not a dependency: it is run through ``uvx py-spy`` (downloaded once into uv's
cache). Each target is a few lines of Python run in a fresh interpreter under
``py-spy record``; the SVG shows where the wall time of that process goes (imports
included, so read the widest frames under the target function). Targets:

* ``heldout``: ClosureBench heldout split (1,300 instances, every check on), one process.
* ``grit_large``: the first 30 graphs of the GRIT large split (240 questions), one worker.
* ``colouring_dsatur``: the slowest n = 60, p = 0.5 graph of ``bench_exact.py`` (index 18),
  DSATUR branch and bound (the SAT method runs in a child process as native code; its
  time is CaDiCaL's, which py-spy without ``--native`` does not break down).
* ``ein_tc``: ``T = tc(edges(<10,000 pairs>, 1000))`` as a whole Ein program, 20 runs.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "profiles"

TARGETS: dict[str, str] = {
    "heldout": """
from closurebench.generate.closure import ClosureConfig, generate_records
generate_records(ClosureConfig(split="heldout", seed=0))
""",
    "grit_large": """
from closurebench.generate.grit import GritConfig, generate_records
generate_records(GritConfig(split="large", seed=0, count=30, workers=1))
""",
    "colouring_dsatur": f"""
import sys
sys.path.insert(0, {str(HERE)!r})
from bench_exact import er_graph
from closurebench.graphs.exact.coloring import chromatic_number
edges = [e[:2] for e in er_graph(60, "0.5", 18)]
chromatic_number(60, edges, method="dsatur", time_limit=600)
""",
    "ein_tc": """
from closurebench import ein
from closurebench.graphs import erdos_renyi_out_degree
from closurebench.seeding import rng
g = erdos_renyi_out_degree(rng(0, "profile-ein-tc"), 1000, 10)
pairs = ", ".join(f"[{u}, {v}]" for u, v in g.edges)
program = f"A = edges([{pairs}], 1000)\\nT = tc(A)\\n:print sum(T)\\n"
for _ in range(20):
    ein.run(program)
""",
}


def record(name: str, code: str, rate: int) -> Path:
    """Run ``code`` under ``py-spy record`` and return the SVG written."""
    OUT.mkdir(exist_ok=True)
    svg = OUT / f"{name}.svg"
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / f"{name}.py"
        script.write_text(code, encoding="utf-8")
        cmd = ["uvx", "py-spy", "record", "--rate", str(rate), "-o", str(svg)]
        subprocess.run([*cmd, "--", sys.executable, str(script)], check=True)
    return svg


def main() -> None:
    """Parse arguments and record each chosen target."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=",".join(TARGETS), help="comma-separated targets")
    ap.add_argument("--rate", type=int, default=200, help="samples per second")
    args = ap.parse_args()
    if shutil.which("uvx") is None:
        sys.exit("uvx (from uv) is needed to run py-spy; install uv first")
    for name in [t for t in args.only.split(",") if t]:
        if name not in TARGETS:
            sys.exit(f"unknown target {name!r}; choose from {', '.join(TARGETS)}")
        print(f"{name}: {record(name, TARGETS[name], args.rate)}")


if __name__ == "__main__":
    main()
