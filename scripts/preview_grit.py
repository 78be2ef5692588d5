"""Print sample GRIT questions so a person can read them for naturalness.

A developer script of the repository (not part of the installed package).
``samples(task)`` renders one small random instance of ``task`` in every scenario of the
task, both forms and all four naming schemes, and returns the texts joined with headers::

    uv run python scripts/preview_grit.py tsp [--n 6] [--seed 0]

The instance generator here is a small, self-contained stand-in for the task samplers
(connected Erdős–Rényi graphs; a complete grid-metric graph for TSP); it is for previews
and tests of the surface only and makes no claim about answers.

Example:
    >>> from closurebench.seeding import rng
    >>> s = example_structure("tsp", 4, rng(0, "doc"))
    >>> s.m, s.weighted
    (6, True)
    >>> "=== tsp_parcel_delivery standard/canonical" in samples("tsp", n=4)
    True
"""

from __future__ import annotations

import argparse

import numpy as np

from closurebench.seeding import rng as make_rng
from closurebench.structures.grit import GritStructure
from closurebench.surface.grit import scenarios as registry
from closurebench.surface.grit.naming import NAMINGS
from closurebench.surface.grit.render import FORMS, render
from closurebench.tasks.grit import GRIT_TASKS, GraphTrait, get

__all__ = ["example_structure", "main", "samples"]


def example_structure(
    task: str,
    n: int,
    g: np.random.Generator,
    directed: bool = False,
    weighted: bool | None = None,
    p: float = 0.3,
) -> GritStructure:
    """A random connected instance of ``task`` on ``n`` nodes (for previews and tests).

    Args:
        task: A GRIT task.
        n: Number of nodes (>= 2).
        g: Generator to draw from.
        directed: Make it directed (strongly connected), if the task allows direction.
        weighted: For tasks that may be weighted or not: weights 1..10 (default True);
            tasks that are always (or never) weighted ignore it.
        p: Extra-edge probability on top of a random spanning tree (cycle if directed).
    """
    t = get(task)
    if t.complete:
        pts = g.integers(0, 25, size=(n, 2))
        dist = np.abs(pts[:, None, :] - pts[None, :, :]).sum(axis=2) + 1
        edges = [(i, j, int(dist[i, j])) for i in range(n) for j in range(i + 1, n)]
        return t.structure(n, False, True, edges)
    directed = directed and t.directed is not GraphTrait.NEVER
    if t.weighted is GraphTrait.EITHER:
        weighted = True if weighted is None else weighted
    else:
        weighted = t.weighted is GraphTrait.ALWAYS
    order = [int(x) for x in g.permutation(n)]
    pairs: set[tuple[int, int]] = set()
    for k in range(1, n):
        u, v = order[k], order[int(g.integers(0, k))]
        pairs.add((v, u) if directed else (min(u, v), max(u, v)))
    if directed:  # close a cycle through the tree order so everything is reachable back
        pairs.update((order[k], order[k - 1]) for k in range(1, n))
    extra = np.argwhere(g.random((n, n)) < p)
    pairs.update((int(u), int(v)) for u, v in extra if u != v and (directed or u < v))
    edges = [(u, v, int(g.integers(1, 11)) if weighted else 1) for u, v in sorted(pairs)]
    return t.structure(n, directed, weighted, edges, t.sample_params(g, n))


def samples(task: str, n: int = 6, seed: int = 0, forms=FORMS, namings=NAMINGS) -> str:
    """One question per scenario x form x naming of ``task``, with ``=== id view`` headers."""
    out = []
    for sc in registry.for_task(task):
        g = make_rng(seed, "preview", sc.id)
        directed = get(task).directed is GraphTrait.EITHER and bool(g.random() < 0.5)
        structure = example_structure(task, n, g, directed=directed)
        for form in forms:
            for naming in namings:
                q = render(structure, sc, form, naming, make_rng(seed, sc.id, form, naming))
                out.append(f"=== {sc.id} {q.view}\n{q.question}")
    return "\n\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """``python scripts/preview_grit.py TASK [--n N] [--seed S]``: print the samples."""
    parser = argparse.ArgumentParser(
        prog="python scripts/preview_grit.py", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("task", choices=sorted(GRIT_TASKS), help="a GRIT task")
    parser.add_argument("--n", type=int, default=6, help="nodes of each instance (default 6)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    args = parser.parse_args(argv)
    print(samples(args.task, n=args.n, seed=args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
