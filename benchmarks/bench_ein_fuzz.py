"""The Ein fuzz corpus at any size: outcome counts, failures and time.

Run: ``uv run python benchmarks/bench_ein_fuzz.py [--count 20000] [--start 0]``.

Uses the corpus of ``tests/ein/test_ein_fuzz.py`` (``fuzz_program(k)`` is a pure
function of ``k``: token soup, mutated example and oracle programs, random programs,
huge literals, deep nesting, huge shapes, many prints) and its ``exercise`` check
(only located, documented EinError subclasses; output within its count and limit).
Prints how many programs ended in each outcome, every failure, the slowest programs
and the total time. The test runs programs 0 .. 4,999 (times ``CLOSUREBENCH_FUZZ_SCALE``);
larger counts explore further.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

_TESTS = Path(__file__).resolve().parents[1] / "tests"
_CORPUS = _TESTS / "ein" / "test_ein_fuzz.py"


def _load() -> ModuleType:
    if str(_TESTS) not in sys.path:  # the test's helper (fuzz_scale)
        sys.path.insert(0, str(_TESTS))
    spec = importlib.util.spec_from_file_location("ein_fuzz_corpus", _CORPUS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    """Run the corpus and print a Markdown summary."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=20_000)
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args()
    corpus = _load()
    corpus.oracle_programs()  # generated once, outside the timing
    outcomes: dict[str, int] = {}
    failures: list[tuple[int, str]] = []
    slowest: list[tuple[float, int]] = []
    start = time.perf_counter()
    for k in range(args.start, args.start + args.count):
        t = time.perf_counter()
        try:
            name = corpus.exercise(corpus.fuzz_program(k))
        except AssertionError as exc:
            name = "FAILURE"
            failures.append((k, str(exc)[:300]))
        slowest.append((time.perf_counter() - t, k))
        outcomes[name] = outcomes.get(name, 0) + 1
    total = time.perf_counter() - start
    print(f"{args.count:,} programs ({args.start} ..) in {total:.1f} s\n")
    print("| outcome | programs |\n|---|---|")
    for name, n in sorted(outcomes.items(), key=lambda kv: -kv[1]):
        print(f"| {name} | {n:,} |")
    print(f"\nfailures: {len(failures)}")
    for k, why in failures[:50]:
        print(f"- #{k}: {why}")
    print("\nslowest:")
    for secs, k in sorted(slowest, reverse=True)[:5]:
        print(f"- #{k} ({k % 8 = }): {secs * 1e3:.0f} ms")


if __name__ == "__main__":
    main()
