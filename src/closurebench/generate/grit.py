"""Generate the GRIT splits: sample → solve → verify → render 8 views → certify → JSONL.

Split specs follow ``docs/categories.md`` (paper Table 1):

=====  ========  ======  =========================  ======================================
split  n range   graphs  scenarios                  regime (ER p, directed shortest path)
=====  ========  ======  =========================  ======================================
train  4-40      2,160   the 31 in-distribution     ``app-a`` (0.10-0.30, half)
test   10-40     345     the 31 in-distribution     ``app-h`` (0.28-0.44, none: App. G)
large  40-60     120     the 31 in-distribution     ``app-h`` (0.28-0.44, none)
ood    10-40     180     the 24 held-out (OOD)      ``app-h`` (0.28-0.44, none)
=====  ========  ======  =========================  ======================================

Regimes (:data:`REGIMES`). A regime is the structural draw other than size: the
Erdős–Rényi edge probability range and the share of shortest-path graphs drawn directed.
``large`` and ``ood`` are drawn in ``test``'s regime, so that test→large changes only the
size and test→OOD only the scenarios and identifiers (before 0.3 ``large`` was drawn in
``app-a``, mixing size with density and direction; ``regime="app-a"`` / ``--regime app-a``
gives that draw back). ``density_min`` / ``density_max`` / ``directed_share`` override
single parts of the regime; the manifest records the regime and the effective values.

Density (issue 11). The paper contradicts itself: App. A says the Erdős–Rényi edge
probability is ``p in [0.1, 0.3]``, but App. H's statistics of the 2,760 test graphs it
evaluated on show a mean density ``2|E| / (|V|(|V| - 1))`` of 0.457-0.470 in every size
bucket and 34 / 72 / 146 / 285 mean edges at 10-15 / 16-20 / 21-30 / 31-40 nodes, which
``p in [0.1, 0.3]`` cannot give (about 0.21 with complete TSP graphs counted in). The
``app-h`` regime follows App. H, what the paper's numbers were measured on: ``p`` uniform
in :data:`~closurebench.tasks.grit.base.APP_H_DENSITY` (0.28-0.44) for the non-TSP tasks,
which with the complete TSP graphs gives a mean density of ~0.47 and 33 / 73 / 148 / 294
mean edges per bucket (App. H's tertile cut points are not reproduced: the paper does not
give the distribution). ``test``, ``large`` and ``ood`` use it, so the test-vs-OOD gap
measures the surface (unseen scenarios and identifiers) and test-vs-large the size, not
the structure; ``train`` keeps App. A's range (the ``app-a`` regime). The exact solvers
prove the large split at App. H density in about 15 s for its 120 graphs on 2 cores. Both
ends are knobs (``density_min`` / ``density_max``, or a whole ``regime``); the manifest
records the range used, ``density_note`` and, per task, the mean density and mean edge
count (``density_stats``).

Direction. App. G and H describe the test graphs as connected and undirected, so the
``app-h`` regime draws every shortest-path graph undirected (``directed_share`` 0);
``app-a`` (``train``) keeps half of them directed (strongly connected), which the
manifest records (``directed`` count per task in ``density_stats``). The draw that
decides the direction is made either way, so changing the share changes no other graph.

Layout (how many graphs each task gets). The ``paper`` layout (:data:`LAYOUTS`, the
default) gives each task its share of the split as the paper has it: the test split's
2,760 questions are 60 graphs for each task except vertex cover, which has 45 (App. F,
Table 18A: 120 vertex-cover questions where every other task has 160), so ``test`` is 345
graphs; the other splits are even. The ``even`` layout gives every task the same number
(``test``: 60 x 6 = 360 graphs, 2,880 questions, this generator's layout before 0.3). A
``count`` (total base graphs) is apportioned over the chosen tasks in proportion to the
layout's per-task graphs (largest remainder, ties to the earlier task), so ``count=345``
is the paper's test layout and any count under ``even`` is the round robin
``tasks[i % len(tasks)]``; the manifest records ``layout`` and ``task_graphs``.

The graphs are interleaved round by round: round ``k`` holds the ``k``-th graph of every
task that has more than ``k`` (so the first graphs of the file cover every task) and,
being the ``k``-th of the ``K`` graphs of its task, graph ``i`` gets ``n = n_min +
floor((2k + 1) W / 2K)`` with ``W = n_max - n_min + 1`` (node sizes spread evenly over the
range: every size gets ``floor(K/W)`` or ``ceil(K/W)`` graphs of each task) and the scenario
``perm[k mod len(scenarios)]`` of a per-task seeded permutation of that task's scenarios.
Its structure is drawn from ``rng(seed, "grit", split, "graph", i, "attempt", a)``, or, for
its ``r``-th redraw, ``rng(seed, "grit", split, "graph", i, "redraw", r, "attempt", a)``: a
graph is redrawn when its structure (task, graph, params; the key ``check-overlap`` compares)
repeats one of an earlier graph of the split, which only tiny graphs (``train``'s n = 4) can
do; the decision follows graph order, so it does not depend on ``workers``. Each of
its 8 views (2 forms x 4 namings) is rendered from its own surface seed
``rng(seed, "grit", split, "surface", i, form, naming)`` and certified through the
independent reader before it is written. BFS reference orders are recomputed per view from
the view's stated neighbour order.

Every graph gives all 8 of its views; the paper's 2,760 test questions are 345 graphs x 8.

Determinism: the same master seed and arguments give byte-identical files, whatever
``workers`` is (results are re-ordered by graph index) and whatever ``PYTHONHASHSEED`` is.
The only time-dependent branch is a solver timeout (``time_limit`` seconds per exact solve,
default 60 s, far above the measured worst case at the splits' sizes), which resamples the
graph; the manifest records the limit and how many resamples timeouts caused, so a file
that depended on time says so.

Progress: ``progress`` is called after each graph; in one process, ``status`` is also told
what the current graph is doing (``grit-test-00003 graph_coloring n=150: attempt 2, solving;
1 timeout``), so a long solve is visible while it runs.

Example:
    >>> recs, _ = generate_records(GritConfig(split="test", seed=0, count=1, n_max=10))
    >>> len(recs), recs[0].task, sorted({r.view for r in recs})[0]
    (8, 'shortest_path', 'realistic/canonical')
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from closurebench import __version__
from closurebench.errors import ConfigError, SamplingError
from closurebench.generate.io import canonical_json, clean, write_jsonl
from closurebench.generate.shard import Shard, shard_entry
from closurebench.schema import GritInstance, Suite
from closurebench.seeding import derive_seed, rng
from closurebench.surface.grit import FORMS, NAMINGS, certify, render
from closurebench.surface.grit.scenarios import for_task
from closurebench.tasks.grit import GRIT_TASKS, sample_solved
from closurebench.tasks.grit.base import (
    APP_H_DENSITY,
    DEFAULT_DENSITY,
    DEFAULT_DIRECTED_SHARE,
    DEFAULT_TIME_LIMIT,
)

__all__ = [
    "DENSITY_NOTE",
    "LAYOUTS",
    "REGIMES",
    "SPLITS",
    "STAGES",
    "GraphJob",
    "GraphResult",
    "GritConfig",
    "Regime",
    "SplitSpec",
    "apportion",
    "canonical_json",
    "density_stats",
    "generate_graph",
    "generate_records",
    "manifest",
    "plan",
    "resample_counts",
    "shard_jobs",
    "write_split",
]

#: Stages timed per graph (seconds), reported by the benchmark.
STAGES: tuple[str, ...] = ("sample", "solve", "verify", "render", "certify")

#: Per-task layouts: ``paper`` (each task's graphs as in the paper; the default) and
#: ``even`` (every task the same number of graphs).
LAYOUTS: tuple[str, ...] = ("paper", "even")

#: Redraws of a graph whose structure repeats an earlier graph's before giving up.
_REDRAWS = 100


@dataclass(frozen=True)
class Regime:
    """The structural draw of a split other than its size.

    Attributes:
        name: Regime name (a key of :data:`REGIMES`).
        density: ``(lo, hi)`` range of the Erdős–Rényi edge probability ``p``.
        directed_share: Probability that a shortest-path graph is drawn directed.
        source: Where the paper states it.
    """

    name: str
    density: tuple[float, float]
    directed_share: float
    source: str


#: The two regimes the paper describes: App. A's stated range and App. H's measured one.
REGIMES: dict[str, Regime] = {
    "app-h": Regime(
        "app-h", APP_H_DENSITY, 0.0, "App. H statistics of the test graphs; App. G undirected"
    ),
    "app-a": Regime("app-a", DEFAULT_DENSITY, DEFAULT_DIRECTED_SHARE, "App. A, p in [0.1, 0.3]"),
}


@dataclass(frozen=True)
class SplitSpec:
    """One row of the spec's split table.

    Attributes:
        name: Split name.
        n_min, n_max: Inclusive node-count range.
        graphs: Number of base graphs in the ``even`` layout (each yields 8 questions).
        scenarios: ``"in_distribution"`` or ``"ood"`` (which scenario set to draw from).
        regime: Default regime (a key of :data:`REGIMES`).
        paper_task_graphs: ``(task, graphs)`` of the tasks whose graph count in the
            ``paper`` layout differs from the even share ``graphs / 6``.
    """

    name: str
    n_min: int
    n_max: int
    graphs: int
    scenarios: str
    regime: str = "app-h"
    paper_task_graphs: tuple[tuple[str, int], ...] = ()

    def task_graphs(self, layout: str = "paper") -> dict[str, int]:
        """Base graphs per task (all six, registry order) in ``layout``.

        Example:
            >>> SPLITS["test"].task_graphs()["vertex_cover"], SPLITS["test"].task_graphs()["tsp"]
            (45, 60)
            >>> sum(SPLITS["test"].task_graphs("even").values())
            360
        """
        if layout not in LAYOUTS:
            raise ConfigError(f"layout {layout!r} is unknown; choose one of {', '.join(LAYOUTS)}")
        even = self.graphs // len(GRIT_TASKS)
        override = dict(self.paper_task_graphs) if layout == "paper" else {}
        return {t: override.get(t, even) for t in GRIT_TASKS}

    def layout_graphs(self, layout: str = "paper") -> int:
        """Base graphs of the whole split in ``layout`` (``test``: 345 paper, 360 even)."""
        return sum(self.task_graphs(layout).values())


SPLITS: dict[str, SplitSpec] = {
    "train": SplitSpec("train", 4, 40, 2160, "in_distribution", "app-a"),
    "test": SplitSpec("test", 10, 40, 360, "in_distribution", "app-h", (("vertex_cover", 45),)),
    "large": SplitSpec("large", 40, 60, 120, "in_distribution", "app-h"),
    "ood": SplitSpec("ood", 10, 40, 180, "ood", "app-h"),
}

#: Why the presets' densities differ (recorded in every manifest).
DENSITY_NOTE = (
    "The paper contradicts itself: App. A draws Erdos-Renyi p in [0.1, 0.3], but App. H "
    "reports its test graphs at mean density ~0.46 (34/72/146/285 mean edges at "
    "10-15/16-20/21-30/31-40 nodes), which p in [0.1, 0.3] cannot give. The test, large "
    "and ood splits are drawn in the app-h regime (p in [0.28, 0.44], complete TSP graphs "
    "included: mean density ~0.47; undirected shortest-path graphs, App. G), so that "
    "test-to-large changes only size and test-to-ood only scenarios and identifiers; "
    "train keeps App. A's range and half of its shortest-path graphs directed (app-a). "
    "Set regime, or density_min/density_max/directed_share, to choose."
)


@dataclass(frozen=True)
class GritConfig:
    """What to generate.

    Attributes:
        split: One of :data:`SPLITS`.
        seed: Master seed.
        count: Number of base graphs (default: the split's in ``layout``); each gives 8
            records. Apportioned over ``tasks`` by the layout's per-task graphs.
        tasks: Subset of task names (default: all six, in registry order).
        n_min, n_max: Override the split's node range (inclusive).
        regime: A key of :data:`REGIMES` (default: the split's, see the module docstring).
        density_min, density_max: Override the ends of the regime's Erdős–Rényi edge
            probability range (``0 < density_min <= density_max <= 1``).
        directed_share: Override the regime's probability that a shortest-path graph is
            directed (0 to 1).
        time_limit: Seconds per exact solve (and its cross-check) before a graph is
            resampled.
        workers: Processes (1 = in-process); does not change the output.
        layout: ``paper`` (each task's share as in the paper: test has 45 vertex-cover
            graphs, 60 of every other task) or ``even`` (the same for every task).
    """

    split: str = "test"
    seed: int = 0
    count: int | None = None
    tasks: tuple[str, ...] | None = None
    n_min: int | None = None
    n_max: int | None = None
    regime: str | None = None
    density_min: float | None = None
    density_max: float | None = None
    directed_share: float | None = None
    time_limit: float = DEFAULT_TIME_LIMIT
    workers: int = 1
    layout: str = "paper"

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ConfigError(f"split {self.split!r} is unknown; choose one of {list(SPLITS)}")
        if self.regime is not None and self.regime not in REGIMES:
            raise ConfigError(
                f"regime={self.regime!r} is unknown; choose one of {', '.join(REGIMES)} "
                "(app-h: the paper's measured test graphs; app-a: its stated p in [0.1, 0.3])"
            )
        if self.layout not in LAYOUTS:
            raise ConfigError(
                f"layout={self.layout!r} is unknown; choose one of {', '.join(LAYOUTS)} "
                "(paper: each task's graphs as in the paper; even: the same for every task)"
            )
        if self.tasks is not None:
            tasks = tuple(self.tasks)
            bad = [t for t in tasks if t not in GRIT_TASKS]
            if bad or not tasks:
                raise ConfigError(
                    f"task(s) {bad or tasks!r} unknown or empty; choose from {list(GRIT_TASKS)}"
                )
            if len(set(tasks)) != len(tasks):
                raise ConfigError(f"tasks {tasks!r} repeat a name; list each task once")
            object.__setattr__(self, "tasks", tasks)
        if self.count is not None and (isinstance(self.count, bool) or self.count < 0):
            raise ConfigError(f"count={self.count!r} must be a non-negative int")
        lo, hi = self.n_range
        if lo < 2 or hi < lo:
            spec = self.spec
            hint = ""
            if self.n_min is not None and self.n_max is None:
                hint = f" (the {spec.name} split's n_max is {spec.n_max}: pass --n-max too)"
            elif self.n_max is not None and self.n_min is None:
                hint = f" (the {spec.name} split's n_min is {spec.n_min}: pass --n-min too)"
            raise ConfigError(f"node range {lo}..{hi} is invalid; need 2 <= n_min <= n_max{hint}")
        if isinstance(self.time_limit, bool) or not self.time_limit > 0:
            raise ConfigError(
                f"time_limit={self.time_limit!r} must be a positive number of seconds"
            )
        if self.workers < 1:
            raise ConfigError(f"workers={self.workers!r} must be >= 1")
        self._check_density()

    def _check_density(self) -> None:
        for name in ("density_min", "density_max", "directed_share"):
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{name}={value!r} must be a number")
            object.__setattr__(self, name, float(value))
        lo, hi = self.density
        if not (0.0 < lo <= hi <= 1.0):
            preset = self.regime_spec.density
            raise ConfigError(
                f"density range {lo:g}..{hi:g} is invalid; need 0 < --density-min <= "
                f"--density-max <= 1 (the {self.regime_spec.name} regime's range is "
                f"{preset[0]:g}..{preset[1]:g}; pass both ends to leave it)"
            )
        share = self.directed_share
        if share is not None and not 0.0 <= share <= 1.0:
            raise ConfigError(
                f"directed_share={share:g} must be in [0, 1] (the share of shortest-path "
                "graphs drawn directed)"
            )

    @property
    def regime_spec(self) -> Regime:
        """The regime drawn in: :attr:`regime`, else the split's.

        Example:
            >>> GritConfig(split="large").regime_spec.name, GritConfig(split="train").density
            ('app-h', (0.1, 0.3))
        """
        return REGIMES[self.regime or self.spec.regime]

    @property
    def density(self) -> tuple[float, float]:
        """Effective ``(lo, hi)`` Erdős–Rényi edge probability range."""
        lo, hi = self.regime_spec.density
        return (
            lo if self.density_min is None else float(self.density_min),
            hi if self.density_max is None else float(self.density_max),
        )

    @property
    def directed(self) -> float:
        """Effective probability that a shortest-path graph is directed."""
        share = self.directed_share
        return self.regime_spec.directed_share if share is None else share

    @property
    def spec(self) -> SplitSpec:
        """The split's table row."""
        return SPLITS[self.split]

    @property
    def task_names(self) -> tuple[str, ...]:
        """The tasks to generate, in registry order when not given."""
        return self.tasks or tuple(GRIT_TASKS)

    @property
    def n_range(self) -> tuple[int, int]:
        """Effective inclusive node range."""
        lo = self.spec.n_min if self.n_min is None else int(self.n_min)
        hi = self.spec.n_max if self.n_max is None else int(self.n_max)
        return lo, hi

    @property
    def graphs(self) -> int:
        """Effective number of base graphs."""
        return self.spec.layout_graphs(self.layout) if self.count is None else int(self.count)

    def task_graphs(self) -> dict[str, int]:
        """Base graphs per chosen task: :attr:`graphs` apportioned by the layout's shares.

        Example:
            >>> GritConfig(split="test").task_graphs()["vertex_cover"]
            45
            >>> GritConfig(split="test", layout="even").task_graphs()["vertex_cover"]
            60
            >>> list(GritConfig(split="test", count=7).task_graphs().values())
            [2, 1, 1, 1, 1, 1]
        """
        shares = self.spec.task_graphs(self.layout)
        return apportion(self.graphs, {t: shares[t] for t in self.task_names})

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, Any]) -> GritConfig:
        """The config whose :meth:`arguments` a manifest recorded (``workers`` 1).

        Raises:
            ConfigError: an argument is missing, unknown or invalid.

        Example:
            >>> config = GritConfig(split="train", count=7, n_max=9, density_max=0.25)
            >>> GritConfig.from_arguments(config.arguments()).arguments() == config.arguments()
            True
        """
        kwargs = dict(arguments)
        try:
            lo, hi = kwargs.pop("density")
            tasks = kwargs.pop("tasks")
            return cls(
                **kwargs,
                tasks=None if tasks is None else tuple(tasks),
                density_min=lo,
                density_max=hi,
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(
                f"the manifest's arguments {sorted(arguments)} are not a GritConfig's ({exc!r}); "
                "merge with the closurebench version that wrote them"
            ) from None

    def arguments(self) -> dict[str, Any]:
        """The output-determining arguments recorded in the manifest (not ``workers``)."""
        d = asdict(self)
        for key in ("workers", "density_min", "density_max"):
            d.pop(key)
        d["tasks"] = list(self.task_names)
        d["regime"] = self.regime_spec.name
        d["density"] = list(self.density)
        d["directed_share"] = self.directed
        d["count"] = self.graphs
        d["n_min"], d["n_max"] = self.n_range
        return d


def apportion(total: int, weights: dict[str, int]) -> dict[str, int]:
    """Split ``total`` over the keys of ``weights`` in proportion (largest remainder).

    Each key gets ``floor(total * w / W)``; what is left goes one each to the largest
    remainders, ties to the earlier key. Equal weights give the round robin (the first
    ``total mod len`` keys one more).

    Example:
        >>> apportion(345, {"a": 60, "b": 45, "c": 60, "d": 60, "e": 60, "f": 60})["b"]
        45
        >>> apportion(7, {"a": 1, "b": 1, "c": 1})
        {'a': 3, 'b': 2, 'c': 2}
    """
    whole = sum(weights.values())
    if whole <= 0:
        raise ConfigError(f"weights {weights!r} must have a positive sum")
    floors = {k: total * w // whole for k, w in weights.items()}
    left = total - sum(floors.values())
    keys = list(weights)
    order = sorted(keys, key=lambda k: (-(total * weights[k] % whole), keys.index(k)))
    for k in order[:left]:
        floors[k] += 1
    return floors


@dataclass(frozen=True)
class GraphJob:
    """Everything needed to generate one base graph (picklable)."""

    split: str
    seed: int
    index: int
    task: str
    n: int
    scenario: str
    density: tuple[float, float]
    time_limit: float
    directed_share: float = DEFAULT_DIRECTED_SHARE
    redraw: int = 0

    @property
    def graph_id(self) -> str:
        """``grit-<split>-<index:05d>``."""
        return f"grit-{self.split}-{self.index:05d}"


@dataclass
class GraphResult:
    """The 8 records of one graph, plus stage timings and the resampling counts.

    Attributes:
        index: The graph's index in the split.
        records: Its 8 records (empty in the summaries :func:`generate_records` returns).
        timings: Seconds per stage (:data:`STAGES`).
        attempts: Draws it took (1 = the first draw was kept), redraws included.
        timeouts: How many of the rejected draws a solver timeout rejected.
        redraws: How many times it was redrawn because its structure repeated an
            earlier graph's.
    """

    index: int
    records: list[GritInstance]
    timings: dict[str, float] = field(default_factory=dict)
    attempts: int = 1
    timeouts: int = 0
    redraws: int = 0


def plan(config: GritConfig) -> list[GraphJob]:
    """The deterministic list of graph jobs for ``config`` (see the module docstring)."""
    tasks = config.task_names
    lo, hi = config.n_range
    width = hi - lo + 1
    scenario_set = config.spec.scenarios
    perms: dict[str, list[str]] = {}
    for t in tasks:
        ids = [s.id for s in for_task(t, scenario_set)]
        order = rng(config.seed, "grit", config.split, "scenarios", t).permutation(len(ids))
        perms[t] = [ids[int(i)] for i in order]
    per_task = config.task_graphs()
    rounds = [
        (task, k) for k in range(max(per_task.values())) for task in tasks if k < per_task[task]
    ]
    jobs = []
    for i, (task, k) in enumerate(rounds):
        # Evenly spread: each n in the range gets floor or ceil of K / width graphs of the
        # task, and both ends are reached whenever K >= width or K is large enough.
        n = lo + ((2 * k + 1) * width) // (2 * per_task[task])
        jobs.append(
            GraphJob(
                split=config.split,
                seed=config.seed,
                index=i,
                task=task,
                n=n,
                scenario=perms[task][k % len(perms[task])],
                density=config.density,
                time_limit=config.time_limit,
                directed_share=config.directed,
            )
        )
    return jobs


def generate_graph(job: GraphJob, status: Callable[[str], None] | None = None) -> GraphResult:
    """Sample, solve, verify, then render and certify all 8 views of one graph.

    Args:
        job: The graph to make.
        status: Told, as it happens, which attempt is at which step (for a live display).

    Raises:
        SamplingError: no well-posed, provable instance within the attempt budget.
        VerificationError: two independent routes disagree (a bug; names the instance).
        RoundTripError: the reader did not recover a view exactly.
    """
    task = GRIT_TASKS[job.task]
    where = f"{job.graph_id} ({job.task}, n={job.n}, seed={job.seed})"
    label = f"{job.graph_id} {job.task} n={job.n}"

    def report(attempt: int, step: str, timeouts: int) -> None:
        if status is not None:
            plural = "" if timeouts == 1 else "s"
            done = f"; {timeouts} timeout{plural}" if timeouts else ""
            status(f"{label}: attempt {attempt}, {step}{done}")

    redraw = ("redraw", job.redraw) if job.redraw else ()
    inst = sample_solved(
        task,
        job.seed,
        ("grit", job.split, "graph", job.index, *redraw),
        n=job.n,
        density=job.density,
        directed_share=job.directed_share,
        time_limit=job.time_limit,
        where=where,
        report=report,
    )
    timings = dict(inst.timings)
    timings["render"] = timings["certify"] = 0.0
    s = inst.structure
    body = s.to_dict()
    records = []
    for form in FORMS:
        for naming in NAMINGS:
            surface_seed = derive_seed(
                job.seed, "grit", job.split, "surface", job.index, form, naming
            )
            t0 = time.perf_counter()
            view = render(s, job.scenario, form, naming, rng(surface_seed))
            t1 = time.perf_counter()
            certify(s, view)
            t2 = time.perf_counter()
            answer, solution = task.for_view(s, inst.solved, view, where=f"{where} {view.view}")
            timings["render"] += t1 - t0
            timings["certify"] += t2 - t1
            timings["verify"] += time.perf_counter() - t2
            records.append(
                {
                    "id": f"{job.graph_id}-{form}-{naming}",
                    "suite": Suite.GRIT,
                    "split": job.split,
                    "task": job.task,
                    "graph_id": job.graph_id,
                    "view": view.view,
                    "form": form,
                    "naming": naming,
                    "scenario": view.scenario,
                    "n": s.n,
                    "question": view.question,
                    "answer": answer,
                    "solution": solution,
                    "certificate": inst.solved.certificate,
                    "graph": body["graph"],
                    "names": list(view.names),
                    "aliases": dict(view.aliases),
                    "params": body["params"],
                    "seed": {"structure": inst.seed, "surface": surface_seed},
                    "version": __version__,
                }
            )
    if status is not None:
        status(f"{job.graph_id} {job.task} n={job.n}: rendering and certifying 8 views")
    typed = [GritInstance.model_validate(clean(r)) for r in records]
    return GraphResult(job.index, typed, timings, inst.attempts, inst.timeouts)


def shard_jobs(config: GritConfig, shard: Shard | None = None) -> tuple[list[GraphJob], int]:
    """The jobs a run (or shard) makes, in graph order, and the index its own graphs start at.

    Without ``shard``: every planned graph, from 0. With it: the graphs before the
    shard's block (:meth:`~closurebench.generate.shard.Shard.range` of the plan) that share
    a task and ``n`` with one of its graphs, then the block. A structure key holds the task
    and the graph, ``n`` included, so only those earlier graphs can repeat one of the block's
    structures: made in order (and dropped), they give :func:`distinct` what the whole run
    decides for the block. Sizes grow with the round, so they sit just before the block.

    Example:
        >>> from closurebench.generate.shard import Shard
        >>> jobs, start = shard_jobs(GritConfig(split="test", count=24, n_max=12), Shard(2, 2))
        >>> start, [j.index for j in jobs if j.index < start]
        (12, [7, 8, 10, 11])
    """
    jobs = plan(config)
    if shard is None:
        return jobs, 0
    start, stop = shard.range(len(jobs))
    groups = {(j.task, j.n) for j in jobs[start:stop]}
    replay = [j for j in jobs[:start] if (j.task, j.n) in groups]
    return replay + jobs[start:stop], start


def iter_results(
    config: GritConfig,
    status: Callable[[str], None] | None = None,
    shard: Shard | None = None,
) -> Iterator[GraphResult]:
    """Yield one :class:`GraphResult` per planned graph (of ``shard``'s block), in graph order.

    Args:
        config: What to generate.
        status: Live step messages of the current graph (one process only: workers
            report per finished graph).
        shard: Only this block of the graphs, exactly as the whole run makes them (see
            :func:`shard_jobs`).
    """
    jobs, start = shard_jobs(config, shard)
    if config.workers <= 1 or len(jobs) <= 1:
        made = distinct(((job, generate_graph(job, status)) for job in jobs), status)
        yield from (res for res in made if res.index >= start)
        return
    if status is not None:
        status(f"{len(jobs)} graphs on {config.workers} worker processes")
    # fork where there is one (explicitly: Python 3.14 changes the default), so scripts
    # calling this need no ``if __name__ == "__main__"`` guard.
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else None)
    with ProcessPoolExecutor(max_workers=config.workers, mp_context=ctx) as pool:
        # map() yields in submission order, so the output does not depend on scheduling.
        results = pool.map(generate_graph, jobs, chunksize=1)
        made = distinct(zip(jobs, results, strict=True), status)
        yield from (res for res in made if res.index >= start)


def distinct(
    results: Iterable[tuple[GraphJob, GraphResult]],
    status: Callable[[str], None] | None = None,
) -> Iterator[GraphResult]:
    """Yield the results in order, redrawing any graph whose structure an earlier one has.

    A repeated graph is made again, in this process, with ``redraw`` 1, 2, ... until
    its structure key is new; its attempts count the rejected draws. The decisions
    follow graph order, so one process and many give the same graphs.

    Raises:
        SamplingError: when :data:`_REDRAWS` redraws all repeat an earlier structure.
    """
    seen: set[str] = set()
    for job, res in results:
        attempts, timeouts = res.attempts, res.timeouts
        redraw = job.redraw
        while res.records[0].structure_key in seen:
            redraw += 1
            if redraw > _REDRAWS:
                raise SamplingError(
                    f"{job.graph_id} ({job.task}, n={job.n}): {_REDRAWS} redraws all repeat "
                    "the structure of an earlier graph of the split; raise --n-min or lower "
                    "--count"
                )
            res = generate_graph(replace(job, redraw=redraw), status)
            attempts, timeouts = attempts + res.attempts, timeouts + res.timeouts
        seen.add(res.records[0].structure_key)
        res.attempts, res.timeouts, res.redraws = attempts, timeouts, redraw - job.redraw
        yield res


def generate_records(
    config: GritConfig,
    progress: Callable[[GraphResult], None] | None = None,
    status: Callable[[str], None] | None = None,
    shard: Shard | None = None,
) -> tuple[list[GritInstance], list[GraphResult]]:
    """All records of ``config`` (or of ``shard``'s block) in order, and the per-graph results.

    Args:
        config: What to generate.
        progress: Called after each graph (e.g. to advance a progress bar).
        status: Live step messages of the current graph (see :func:`iter_results`).
        shard: Only this block of the graphs (see :func:`shard_jobs`).
    """
    records: list[GritInstance] = []
    results: list[GraphResult] = []
    for res in iter_results(config, status, shard):
        records.extend(res.records)
        results.append(
            GraphResult(res.index, [], res.timings, res.attempts, res.timeouts, res.redraws)
        )
        if progress is not None:
            progress(res)
    return records, results


def density_stats(records: Sequence[GritInstance]) -> dict[str, dict[str, Any]]:
    """Per task (and ``"all"``): graphs, mean edge density, mean edges, directed graphs.

    One entry per base graph (its 8 views share the graph). Density is App. H's
    ``2|E| / (|V|(|V| - 1))`` for an undirected graph and ``|E| / (|V|(|V| - 1))`` for a
    directed one (each ordered pair is a possible arc).

    Example:
        >>> recs, _ = generate_records(GritConfig(split="test", seed=0, count=1, n_max=10))
        >>> s = density_stats(recs)["shortest_path"]
        >>> s["graphs"], s["directed"], 0 < s["mean_density"] <= 1
        (1, 0, True)
    """
    graphs: dict[str, GritInstance] = {}
    for r in records:
        graphs.setdefault(r.graph_id, r)
    rows: dict[str, list[tuple[float, int, bool]]] = {}
    for r in graphs.values():
        g = r.graph
        pairs = g.n * (g.n - 1) // (1 if g.directed else 2)
        row = (len(g.edges) / pairs if pairs else 0.0, len(g.edges), bool(g.directed))
        rows.setdefault(str(r.task), []).append(row)
        rows.setdefault("all", []).append(row)
    return {
        task: {
            "graphs": len(v),
            "mean_density": round(sum(x[0] for x in v) / len(v), 4),
            "mean_edges": round(sum(x[1] for x in v) / len(v), 2),
            "directed": sum(x[2] for x in v),
        }
        for task, v in sorted(rows.items())
    }


def resample_counts(results: Sequence[GraphResult]) -> dict[str, int]:
    """The manifest's ``resamples`` of per-graph results (sums over graphs: shards add up).

    Example:
        >>> resample_counts([GraphResult(0, [], attempts=3, timeouts=1, redraws=1)])
        {'draws': 2, 'timeouts': 1, 'graphs_with_timeouts': 1, 'repeats': 1}
    """
    return {
        "draws": sum(r.attempts - 1 for r in results),
        "timeouts": sum(r.timeouts for r in results),
        "graphs_with_timeouts": sum(r.timeouts > 0 for r in results),
        "repeats": sum(r.redraws for r in results),
    }


def manifest(
    config: GritConfig,
    records: Sequence[GritInstance],
    sha256: str,
    file: str,
    results: Sequence[GraphResult] = (),
    resamples: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """The manifest: counts per task/split/form/naming, checksum, version, seed, arguments.

    It also records ``density_stats`` (:func:`density_stats`: per task, mean edge
    density, mean edges and directed graphs) and ``density_note`` (the paper's two
    density statements and which one the presets follow).

    With the per-graph ``results`` it also records the resampling: ``resamples.draws``
    (rejected draws in all), ``resamples.timeouts`` (those rejected because a solver
    passed ``arguments.time_limit``: only these make the file depend on time) and
    ``resamples.repeats`` (graphs redrawn because their structure repeated an earlier
    graph's; the split holds no structure twice). It records ``layout`` and
    ``task_graphs`` (base graphs per task). ``resamples`` (the counts themselves, e.g.
    the sums of shards' manifests) replaces those of ``results``.
    """
    return {
        "resamples": dict(resamples) if resamples is not None else resample_counts(results),
        "suite": "grit",
        "version": __version__,
        "seed": config.seed,
        "arguments": config.arguments(),
        "files": {file: {"sha256": sha256, "records": len(records)}},
        "graphs": len({r.graph_id for r in records}),
        "records": len(records),
        "counts": {
            key: dict(sorted(Counter(str(getattr(r, key)) for r in records).items()))
            for key in ("split", "task", "form", "naming", "scenario")
        },
        "layout": config.layout,
        "task_graphs": config.task_graphs(),
        "density_stats": density_stats(records),
        "density_note": DENSITY_NOTE,
        "deviations": _deviations(config),
    }


def _deviations(config: GritConfig) -> list[str]:
    """How ``config`` departs from the paper's layout of its split (none by default)."""
    paper = config.spec.layout_graphs("paper")
    if config.layout == "paper" or config.spec.layout_graphs("even") == paper:
        return []
    return [
        f"even layout: every task has the same number of graphs ({config.split}: "
        f"{config.spec.layout_graphs('even') * 8:,} questions at full size, paper {paper * 8:,})"
    ]


def split_file_name(config: GritConfig) -> str:
    """The dataset file ``write_split`` writes: ``grit-<split>.jsonl``.

    Example:
        >>> split_file_name(GritConfig(split="test"))
        'grit-test.jsonl'
    """
    return f"grit-{config.split}.jsonl"


def write_split(
    config: GritConfig,
    out: str | Path,
    progress: Callable[[GraphResult], None] | None = None,
    status: Callable[[str], None] | None = None,
    shard: Shard | None = None,
) -> tuple[Path, Path, list[GraphResult]]:
    """Generate ``config``; write ``out/grit-<split>.jsonl`` and ``grit-<split>.manifest.json``.

    Args:
        config: What to generate.
        out: Output directory (created if needed).
        progress: Called after each graph.
        status: Live step messages of the current graph (see :func:`iter_results`).
        shard: Only this block of the graphs, to ``out/grit-<split>.shard-<i>-of-<N>.jsonl``
            (:mod:`closurebench.generate.shard`); its manifest is the block's (its
            ``resamples`` those of its graphs), plus a ``shard`` entry (``unit``: graphs).

    Returns:
        The JSONL path, the manifest path and the per-graph results (timings).
    """
    records, results = generate_records(config, progress, status, shard)
    whole = split_file_name(config)

    def make(sha: str, name: str) -> dict[str, Any]:
        man = manifest(config, records, sha, name, results)
        if shard is not None:
            man["shard"] = shard_entry(shard, config.graphs, "graphs", whole)
        return man

    name = whole if shard is None else shard.file_name(whole)
    path, man_path = write_jsonl(out, name, records, make)
    return path, man_path, results
