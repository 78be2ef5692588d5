"""Import times of the entry points users and training workers load (fresh process each).

Run: ``uv run python benchmarks/bench_imports.py [--repeats 7] [--src PATH]``.
Prints, per module, the median and minimum seconds of ``import <module>`` in a fresh
interpreter (``-X importtime`` names the culprits: see the ``--detail`` flag), so reward
workers and the CLI can be checked for heavy eager imports (scipy, networkx, matplotlib).
``--src`` times another checkout's ``src`` (e.g. a ``git worktree`` of an older commit).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

MODULES = (
    "closurebench",
    "closurebench.schema",
    "closurebench.scoring",
    "closurebench.dataset",
    "closurebench.evaluate.runner",
    "closurebench.cli",
)

_PROBE = (
    "import time, importlib; t = time.perf_counter(); importlib.import_module({m!r}); "
    "print(time.perf_counter() - t)"
)


def time_import(module: str, src: Path, repeats: int) -> list[float]:
    """Seconds to import ``module`` from ``src``, once per fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = []
    for _ in range(repeats):
        res = subprocess.run(
            [sys.executable, "-c", _PROBE.format(m=module)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        out.append(float(res.stdout.strip()))
    return out


def heaviest(module: str, src: Path, top: int = 8) -> list[str]:
    """The ``top`` slowest cumulative entries of ``-X importtime`` for ``module``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    res = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in res.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    return [f"{us / 1e6:7.3f} s  {name}" for us, name in sorted(rows, reverse=True)[:top]]


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    parser.add_argument("--detail", action="store_true", help="Show -X importtime culprits.")
    args = parser.parse_args()
    print(f"| module | median s | min s |  (src: {args.src}, {args.repeats} fresh processes)")
    print("|---|---:|---:|")
    for module in MODULES:
        try:
            times = time_import(module, args.src, args.repeats)
        except subprocess.CalledProcessError:
            print(f"| `{module}` | (not importable) | |")
            continue
        print(f"| `{module}` | {statistics.median(times):.3f} | {min(times):.3f} |")
        if args.detail:
            for row in heaviest(module, args.src):
                print(f"|   {row} | | |")


if __name__ == "__main__":
    main()
