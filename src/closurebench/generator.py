"""The paper's generator entry point: ``python -m closurebench.generator --seed N``.

Writes a fresh ClosureBench set (default: a held-out-sized split, 1,300 instances)
as canonical JSONL to stdout, or to ``--out DIR`` with a manifest. The same seed
gives byte-identical output.
"""

from __future__ import annotations

import argparse
import sys

from closurebench.errors import ClosureBenchError
from closurebench.generate.closure import SPLITS, ClosureConfig, generate_records, write_split
from closurebench.generate.io import canonical_json


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, generate, write; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m closurebench.generator",
        description="Generate a fresh ClosureBench set with verified answers.",
    )
    parser.add_argument("--seed", type=int, required=True, help="master seed")
    parser.add_argument("--split", default="heldout", choices=sorted(SPLITS))
    parser.add_argument("--count", type=int, default=None, help="instances (default: split size)")
    parser.add_argument("--n-min", type=int, default=4)
    parser.add_argument("--n-max", type=int, default=None, help="default: 10 (sweep: 20)")
    parser.add_argument("--out", default=None, help="directory (default: JSONL to stdout)")
    parser.add_argument("--workers", type=int, default=1, help="processes (output unchanged)")
    args = parser.parse_args(argv)
    try:
        config = ClosureConfig(
            split=args.split,
            seed=args.seed,
            count=args.count,
            n_min=args.n_min,
            n_max=args.n_max,
            workers=args.workers,
        )
        if args.out is None:
            for record in generate_records(config):
                sys.stdout.write(canonical_json(record.to_json()) + "\n")
        else:
            path, man, records = write_split(config, args.out)
            print(f"wrote {len(records)} records to {path} (manifest {man})", file=sys.stderr)
    except ClosureBenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
