"""Scoring fuzz, full size: 10^5 fuzzed replies through every scorer entry point.

Run: ``uv run python benchmarks/bench_scoring_fuzz.py [--count 100000] [--seed 20260101]``

Uses the generator and the checks of ``tests/scoring/test_scoring_fuzz.py`` (loaded from
its file; the test runs fewer replies to stay within its time): real generated instances
of both suites, deterministic replies from one seeded :class:`random.Random`, each reply
through every entry point (ClosureBench JSON extraction + Algorithm 1, GRIT extraction +
the six tasks' checkers, extraction, the program modes' readers, the agent's turn reader,
the graph tool and the structure scores), plus one fuzzed value in four through the value
scorers. Prints the replies, characters, calls per entry point, outcomes, exceptions (with
the first tracebacks) and the wall time; exits 1 when any call raised or returned an
undocumented outcome.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

_TESTS = Path(__file__).resolve().parents[1] / "tests"
_TEST = _TESTS / "scoring" / "test_scoring_fuzz.py"


def _fuzz_module() -> ModuleType:
    if str(_TESTS) not in sys.path:  # the test's helpers (cpu_timing, fuzz_scale)
        sys.path.insert(0, str(_TESTS))
    spec = importlib.util.spec_from_file_location("scoring_fuzz", _TEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def main() -> int:
    """Run the fuzz and print what it found."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100_000, help="fuzzed replies")
    ap.add_argument("--seed", type=int, default=20260101)
    args = ap.parse_args()
    fuzz = _fuzz_module()
    report = fuzz.fuzz(args.count, seed=args.seed)
    print(f"replies: {report.replies:,} ({report.chars:,} characters), values: {report.values:,}")
    print(f"wall: {report.seconds:.1f} s ({1e3 * report.seconds / report.replies:.2f} ms/reply)")
    print(f"calls: {sum(report.calls.values()):,}")
    for entry, n in sorted(report.calls.items()):
        print(f"  {entry}: {n:,}")
    print("outcomes: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report.outcomes.items())))
    print(f"exceptions: {report.exceptions}")
    for failure in report.failures:
        print(failure)
    return 1 if report.exceptions else 0


if __name__ == "__main__":
    sys.exit(main())
