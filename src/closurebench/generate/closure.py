"""Generate ClosureBench splits: sample → solve ×3 → verbalise → certify → JSONL.

Splits (``spec/closurebench.md``): ``train`` and ``heldout`` hold 1,300 instances
each (50 per category), ``finetune`` 2,500; a custom ``count`` spreads instances
evenly over the chosen categories (the first ``count mod C`` categories get one more).

Instance ``i`` of category ``c`` in split ``s`` has

* structural seed ``derive_seed(master, "closure", s, "structure", c, i)`` — it alone
  fixes ``n`` (uniform in the n range, at least the category's ``min_n``), ``ρ``
  (uniform in the density range; redrawn, seeded, when no well-posed instance exists
  at that (n, ρ)), the graph, the anchors and the answer (three routes must agree,
  else generation fails loudly naming the instance);
* surface seed ``derive_seed(master, "closure", s, "surface", c, i, r)`` — it alone fixes
  the label pool, frame, style, edge order and encoding; ``r`` counts redraws made only
  to avoid a duplicate question text within the split.

``workers > 1`` generates instances in that many processes and gives byte-identical
output: each instance is first generated as if no question were taken yet (surface
redraw 0); then, in plan order, an instance whose question duplicates an earlier one
is generated again in this process against the questions before it - exactly what the
one-process run does (see :func:`merge_in_order`).

Boolean-valued categories (and the boolean part of ``multi_query``, the branch of
``conditional``) alternate the wanted value by index, so a split of 50 per category
is exactly 25 / 25. Every rendered question is read back by the independent reader
(:func:`closurebench.surface.closure.certify`), so no question is ambiguous or lossy.

Example:
    >>> recs = generate_records(ClosureConfig(split="heldout", seed=0, count=2,
    ...                                       categories=("reach_then_count", "reachability")))
    >>> [r.category for r in recs], recs[0].suite.value
    (['reachability', 'reach_then_count'], 'closure')
"""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from closurebench import __version__
from closurebench.errors import ConfigError, SamplingError
from closurebench.generate.io import write_jsonl
from closurebench.jsonl import clean
from closurebench.schema import ClosureInstance, ResultType, Suite
from closurebench.seeding import derive_seed, rng
from closurebench.surface.closure import ENCODINGS, certify, render_closure
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import TIMINGS, ClosureTask, Verified, sample_verified

__all__ = [
    "SPLITS",
    "STAGES",
    "ClosureConfig",
    "generate_instance",
    "generate_records",
    "generate_split",
    "label_answer",
    "manifest",
    "merge_in_order",
    "write_split",
]

#: Draws of the knobs (n, ρ) before a category is declared impossible for the ranges.
_KNOB_DRAWS = 20

#: Stages a ``timings`` dict reports: sampling draws, the graph-core solver, the Ein
#: route, the Python route, rendering, and reading back (certify).
STAGES = ("sample", "solve", "ein", "python", "render", "certify")

#: Default number of instances per split.
SPLITS: Mapping[str, int] = {"train": 1300, "heldout": 1300, "finetune": 2500}


class _HasQuestion(Protocol):
    @property
    def question(self) -> str: ...


R = TypeVar("R", bound=_HasQuestion)


@dataclass(frozen=True)
class ClosureConfig:
    """What to generate. Every field is validated on construction.

    Attributes:
        split: ``train``, ``heldout`` or ``finetune`` (names the seed stream).
        seed: Master seed.
        count: Instances in total (default: the split's size).
        categories: Categories to include (default: all 26, or those of ``levels``).
        levels: Restrict to these levels (1, 2, 3).
        n_min: Smallest graph (>= 4).
        n_max: Largest graph (>= n_min).
        density_min: Smallest edge probability ρ (> 0).
        density_max: Largest ρ (<= 1).
        encodings: Encodings to draw from (``nl``, ``json``, ``matrix``).
        workers: Processes (1 = in-process); does not change the output.
    """

    split: str = "heldout"
    seed: int = 0
    count: int | None = None
    categories: tuple[str, ...] | None = None
    levels: tuple[int, ...] | None = None
    n_min: int = 4
    n_max: int = 10
    density_min: float = 0.1
    density_max: float = 0.5
    encodings: tuple[str, ...] = ("nl",)
    workers: int = 1

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ConfigError(f"split {self.split!r} is unknown; choose one of {', '.join(SPLITS)}")
        if self.workers < 1:
            raise ConfigError(f"workers={self.workers!r} must be >= 1")
        if self.count is not None and self.count < 1:
            raise ConfigError(f"count {self.count} must be at least 1")
        if self.n_min < 4 or self.n_max < self.n_min:
            raise ConfigError(
                f"node range {self.n_min}..{self.n_max} is invalid; need 4 <= n_min <= n_max"
            )
        if not 0 < self.density_min <= self.density_max <= 1:
            raise ConfigError(
                f"density range {self.density_min}..{self.density_max} is invalid; "
                "need 0 < density_min <= density_max <= 1"
            )
        bad = [e for e in self.encodings if e not in ENCODINGS]
        if bad or not self.encodings:
            raise ConfigError(
                f"encodings {list(self.encodings)} invalid; choose from {', '.join(ENCODINGS)}"
            )
        if self.levels is not None and any(lv not in (1, 2, 3) for lv in self.levels):
            raise ConfigError(f"levels {list(self.levels)} invalid; choose from 1, 2, 3")
        unknown = [c for c in self.categories or () if c not in CLOSURE_TASKS]
        if unknown:
            raise ConfigError(f"unknown categories {unknown}; valid: {', '.join(CLOSURE_TASKS)}")
        if not self.selected():
            raise ConfigError("no category is left after applying categories and levels")

    def selected(self) -> list[str]:
        """The categories to generate, in registry order."""
        names = [
            name
            for name, task in CLOSURE_TASKS.items()
            if (self.categories is None or name in self.categories)
            and (self.levels is None or task.level in self.levels)
        ]
        return names

    def total(self) -> int:
        """Number of instances to generate."""
        return self.count if self.count is not None else SPLITS[self.split]

    def plan(self) -> list[tuple[str, int]]:
        """``(category, index within category)`` for each instance, interleaved."""
        cats = self.selected()
        per = [self.total() // len(cats) + (k < self.total() % len(cats)) for k in range(len(cats))]
        out: list[tuple[str, int]] = []
        for i in range(max(per)):
            out.extend((cat, i) for cat, m in zip(cats, per, strict=True) if i < m)
        return out


def label_answer(task: ClosureTask, answer: Any, labels: Sequence[str]) -> Any:
    """The answer as the model must give it: node ids replaced by labels.

    Sets become lists sorted by label; a ``string`` answer becomes one label.

    Example:
        >>> from closurebench.tasks.closure import CLOSURE_TASKS
        >>> label_answer(CLOSURE_TASKS["negative_reach"], (2, 0), ["b", "c", "a"])
        ['a', 'b']
    """
    if answer is None:
        return None
    if task.result_type == "set":
        return sorted(labels[i] for i in answer)
    if task.result_type == "string":
        return labels[answer]
    return answer


def _want(task: ClosureTask, index: int) -> bool | None:
    return index % 2 == 0 if task.balanced() else None


def generate_instance(
    config: ClosureConfig,
    category: str,
    index: int,
    seen: set[str] | None = None,
    timings: dict[str, float] | None = None,
) -> ClosureInstance:
    """Generate one certified instance record (see the module docstring for seeds).

    With ``timings``, the seconds spent per stage (:data:`STAGES`) are added to it.
    """
    if timings is None:
        return _generate_instance(config, category, index, seen, None)
    token = TIMINGS.set(timings)
    try:
        return _generate_instance(config, category, index, seen, timings)
    finally:
        TIMINGS.reset(token)


def _generate_instance(
    config: ClosureConfig,
    category: str,
    index: int,
    seen: set[str] | None,
    timings: dict[str, float] | None,
) -> ClosureInstance:
    task = CLOSURE_TASKS[category]
    structural = derive_seed(config.seed, "closure", config.split, "structure", category, index)
    lo, hi = max(config.n_min, task.min_n), max(config.n_max, task.min_n)
    for knobs in range(_KNOB_DRAWS):
        # Some (n, ρ) cannot host a well-posed instance of a category (a dense graph is
        # strongly connected, so nothing is unreachable); redraw the knobs, seeded.
        g = rng(structural, "knobs", knobs)
        n = int(g.integers(lo, hi + 1))
        density = round(float(g.uniform(config.density_min, config.density_max)), 4)
        try:
            verified: Verified = sample_verified(
                task,
                structural,
                ("closure", knobs),
                n=n,
                density=density,
                want=_want(task, index),
                max_attempts=200,
            )
            break
        except SamplingError:
            continue
    else:
        raise SamplingError(
            f"{category} #{index}: no well-posed instance for {_KNOB_DRAWS} draws of (n, ρ) in "
            f"n {lo}..{hi}, ρ {config.density_min}..{config.density_max}; widen the ranges"
        )
    s = verified.structure
    t0 = time.perf_counter()
    for redraw in range(100):
        surface = derive_seed(
            config.seed, "closure", config.split, "surface", category, index, redraw
        )
        sg = rng(surface)
        encoding = config.encodings[int(sg.integers(len(config.encodings)))]
        rendered = render_closure(s, g=sg, encoding=encoding)
        if seen is None or rendered.question not in seen:
            break
    else:  # pragma: no cover - 100 colliding surfaces would need a degenerate config
        raise ConfigError(f"{category} #{index}: 100 surface draws all duplicated a question")
    if timings is not None:
        t1 = time.perf_counter()
        timings["render"] = timings.get("render", 0.0) + (t1 - t0)
        t0 = t1
    certify(s, rendered)
    if timings is not None:
        timings["certify"] = timings.get("certify", 0.0) + (time.perf_counter() - t0)
    if seen is not None:
        seen.add(rendered.question)
    labels = list(rendered.labels)
    record = {
        "id": f"closure-{config.split}-{category}-{index:04d}",
        "suite": Suite.CLOSURE,
        "split": config.split,
        "category": category,
        "level": task.level,
        "result_type": task.result_type,
        "n": s.n,
        "density": density,
        "structural_seed": structural,
        "surface_seed": surface,
        "label_pool": rendered.label_pool,
        "labels": labels,
        "domain": rendered.domain,
        "style": rendered.style,
        "encoding": rendered.encoding,
        "question": rendered.question,
        "answer": label_answer(task, verified.answer, labels),
        "answer_ids": list(verified.answer)
        if isinstance(verified.answer, tuple)
        else verified.answer,
        "alt_answer": label_answer(task, verified.alt_answer, labels),
        "ambiguity": task.ambiguity,
        "graph": s.graph.to_dict(),
        "graph2": s.graph2.to_dict() if s.graph2 is not None else None,
        "anchors": dict(s.anchors),
        "programs": verified.programs,
        "version": __version__,
    }
    return ClosureInstance.model_validate(clean(record))


def merge_in_order(
    records: Iterable[R],
    regenerate: Callable[[R, set[str]], R],
) -> Iterator[R]:
    """Yield ``records`` in order, regenerating any whose question was seen before.

    ``records`` were generated independently (no question taken). A record whose
    question is new is what the sequential run makes too; a repeated one is replaced by
    ``regenerate(record, seen)``, which draws against ``seen`` (the earlier questions).

    Args:
        records: Independently generated records, in plan order.
        regenerate: Makes the record again against the questions seen so far.

    Yields:
        The records of the sequential run.

    Example:
        >>> from types import SimpleNamespace as Q
        >>> recs = [Q(question="a"), Q(question="b"), Q(question="a")]
        >>> [r.question for r in merge_in_order(recs, lambda r, seen: Q(question="c"))]
        ['a', 'b', 'c']
    """
    seen: set[str] = set()
    for record in records:
        if record.question in seen:
            record = regenerate(record, seen)
        seen.add(record.question)
        yield record


def _instance_job(job: tuple[ClosureConfig, str, int]) -> ClosureInstance:
    config, category, index = job
    return generate_instance(config, category, index, None)


def generate_records(
    config: ClosureConfig,
    progress: Callable[[ClosureInstance], None] | None = None,
    timings: dict[str, float] | None = None,
) -> list[ClosureInstance]:
    """Generate every record of ``config`` in plan order (no duplicate question texts).

    With ``timings``, seconds per stage (:data:`STAGES`) are accumulated into it (and
    the run stays in this process).
    """
    plan = config.plan()
    records: list[ClosureInstance] = []
    if config.workers <= 1 or len(plan) <= 1 or timings is not None:
        seen: set[str] = set()
        for category, index in plan:
            record = generate_instance(config, category, index, seen, timings)
            records.append(record)
            if progress is not None:
                progress(record)
        return records

    def again(record: ClosureInstance, seen: set[str]) -> ClosureInstance:
        category, index = record.category, int(record.id.rsplit("-", 1)[1])
        return generate_instance(config, category, index, seen)

    # fork (where there is one): workers start at once with everything imported, and a
    # script calling this needs no ``if __name__ == "__main__"`` guard. The children
    # only generate; they touch no lock a parent thread (a progress bar) may hold.
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else None)
    jobs = [(config, category, index) for category, index in plan]
    chunk = max(1, min(32, len(jobs) // (4 * config.workers)))
    with ProcessPoolExecutor(max_workers=config.workers, mp_context=ctx) as pool:
        # map() yields in submission order, so the output does not depend on scheduling.
        for record in merge_in_order(pool.map(_instance_job, jobs, chunksize=chunk), again):
            records.append(record)
            if progress is not None:
                progress(record)
    return records


def manifest(
    config: ClosureConfig, records: Sequence[ClosureInstance], sha256: str, file: str
) -> dict[str, Any]:
    """Counts per category/level/encoding/domain/style, checksum, version, arguments."""
    booleans = [r.answer for r in records if r.result_type is ResultType.BOOLEAN]
    return {
        "suite": "closure",
        "version": __version__,
        "seed": config.seed,
        "arguments": {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in asdict(config).items()
            if k != "workers"  # does not change the output
        },
        "files": {file: {"sha256": sha256, "records": len(records)}},
        "records": len(records),
        "counts": {
            key: dict(sorted(Counter(str(getattr(r, key)) for r in records).items()))
            for key in ("category", "level", "encoding", "domain", "style", "label_pool", "n")
        },
        "boolean_true_share": (
            round(sum(bool(a) for a in booleans) / len(booleans), 4) if booleans else None
        ),
        "mean_density": round(math.fsum(r.density for r in records) / len(records), 4),
    }


def write_split(
    config: ClosureConfig,
    out: str | Path,
    progress: Callable[[ClosureInstance], None] | None = None,
) -> tuple[Path, Path, list[ClosureInstance]]:
    """Generate ``config`` and write ``out/closure-<split>.jsonl`` and ``out/manifest.json``."""
    records = generate_records(config, progress)
    path, man = write_jsonl(
        out,
        f"closure-{config.split}.jsonl",
        records,
        lambda sha, name: manifest(config, records, sha, name),
    )
    return path, man, records


def generate_split(
    split: str = "heldout", *, seed: int = 0, out: str | Path | None = None, **config: Any
) -> list[ClosureInstance]:
    """Generate a ClosureBench split; with ``out``, also write the JSONL and manifest.

    Args:
        split: ``train``, ``heldout`` or ``finetune``.
        seed: Master seed.
        out: Directory to write ``closure-<split>.jsonl`` and ``manifest.json`` into.
        **config: Other :class:`ClosureConfig` fields (``count``, ``categories``, ...).

    Returns:
        The records, in file order.
    """
    for key in ("categories", "levels", "encodings"):
        if config.get(key) is not None:
            config[key] = tuple(config[key])
    cfg = ClosureConfig(split=split, seed=seed, **config)
    if out is None:
        return generate_records(cfg)
    return write_split(cfg, out)[2]
