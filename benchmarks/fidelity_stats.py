"""Paper-fidelity statistics of generated splits (issue 11): what RESULTS.md reports.

Usage::

    uv run python benchmarks/fidelity_stats.py [--seed 0] [--workers 2] [--grit-graphs N]

Generates ClosureBench heldout, train and finetune at their default sizes and GRIT test
and OOD (``--grit-graphs`` base graphs each; default: the split's size), in memory, and
prints Markdown tables:

* the modal share (share of the most common answer) per non-boolean category and split,
  against the 40 % cap;
* structures shared between the three ClosureBench splits (must be 0);
* kinship lineage depth (longest parent→child chain, in generations) and the Spearman
  correlation between the recorded ρ and the share of people with two parents (ρ is the
  probability of each further parent link);
* GRIT test/OOD edge density (App. H's formula), mean edges, directed graphs per task,
  and OOD semantic names also used in test (must be 0).
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from itertools import combinations

from scipy.stats import spearmanr

from closurebench.generate.closure import MODAL_CAP, ClosureConfig, generate_records, modal_shares
from closurebench.generate.grit import GritConfig, density_stats
from closurebench.generate.grit import generate_records as grit_records
from closurebench.schema import ClosureInstance
from closurebench.tasks.closure import CLOSURE_TASKS


def _depth(r: ClosureInstance) -> int:
    """Generations in a kinship graph: the longest parent→child chain, in nodes."""
    children: dict[int, list[int]] = {}
    indeg = Counter[int]()
    for u, v in r.graph.edges:
        children.setdefault(u, []).append(v)
        indeg[v] += 1
    memo: dict[int, int] = {}

    def longest(u: int) -> int:
        if u not in memo:
            memo[u] = 1 + max((longest(v) for v in children.get(u, [])), default=0)
        return memo[u]

    return max(longest(u) for u in range(r.n))


def main() -> None:
    """Generate, measure, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--grit-graphs", type=int, default=None)
    args = ap.parse_args()

    splits: dict[str, list[ClosureInstance]] = {}
    for split in ("heldout", "train", "finetune"):
        t0 = time.perf_counter()
        splits[split] = generate_records(
            ClosureConfig(split=split, seed=args.seed, workers=args.workers)
        )
        print(f"<!-- {split}: {len(splits[split])} in {time.perf_counter() - t0:.1f} s -->")

    shares = {s: modal_shares(recs) for s, recs in splits.items()}
    print("\n| category | " + " | ".join(splits) + " |")
    print("|---|" + "---:|" * len(splits))
    for cat in shares["heldout"]:
        print(f"| {cat} | " + " | ".join(f"{shares[s][cat]:.2f}" for s in splits) + " |")
    print(
        "| **max** | "
        + " | ".join(f"**{max(shares[s].values()):.2f}**" for s in splits)
        + f" |\n\ncap {MODAL_CAP:.2f}"
    )

    keys = {s: {r.structure_key for r in recs} for s, recs in splits.items()}
    print("\n| splits | shared structures |\n|---|---:|")
    for a, b in combinations(splits, 2):
        print(f"| {a} / {b} | {len(keys[a] & keys[b])} |")

    kin = [r for r in splits["heldout"] if CLOSURE_TASKS[r.category].kinship]
    depths = Counter(_depth(r) for r in kin)
    # ρ is the chance of each further parent link (beyond a person's first parent, at
    # most 2 parents): compare it with the share of non-roots that got a second parent.
    second = []
    for r in kin:
        indeg = Counter(v for _, v in r.graph.edges)
        second.append(sum(d >= 2 for d in indeg.values()) / max(1, len(indeg)))
    rho = spearmanr([r.density for r in kin], second).statistic
    print(
        f"\nkinship (heldout, {len(kin)} instances): generations "
        + ", ".join(f"{d}: {c}" for d, c in sorted(depths.items()))
        + f"; Spearman(ρ, share of people with two parents) = {rho:.2f}"
    )

    names: dict[str, set[str]] = {}
    print("\n| split | task | graphs | mean density | mean edges | directed |")
    print("|---|---|---:|---:|---:|---:|")
    for split in ("test", "ood"):
        t0 = time.perf_counter()
        recs, _ = grit_records(
            GritConfig(split=split, seed=args.seed, count=args.grit_graphs, workers=args.workers)
        )
        for task, st in density_stats(recs).items():
            print(
                f"| {split} | {task} | {st['graphs']} | {st['mean_density']:.3f} | "
                f"{st['mean_edges']:.1f} | {st['directed']} |"
            )
        names[split] = {name for r in recs if str(r.naming) == "semantic" for name in r.node_names}
        print(f"<!-- grit {split}: {len(recs)} in {time.perf_counter() - t0:.1f} s -->")
    print(
        f"\nOOD semantic names also in test: {len(names['ood'] & names['test'])} "
        f"of {len(names['ood'])}"
    )


if __name__ == "__main__":
    main()
