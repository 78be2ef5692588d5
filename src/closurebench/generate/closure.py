"""Generate ClosureBench splits: sample → solve ×3 → verbalise → certify → JSONL.

Splits (``docs/categories.md``): ``train`` and ``heldout`` hold 1,300 instances
each (50 per category), ``finetune`` 2,500; a custom ``count`` spreads instances
evenly over the chosen categories (the first ``count mod C`` categories get one more).
``sweep`` is the paper's size sweep (n 4–20 by default, 1,300 instances; it avoids no
other split's structures, so ``check-overlap`` may find a chance repeat of a small one).
A named subset (:data:`SUBSETS`) draws a split's own instances in another plan:
``encoding-study`` takes 200 structures evenly over the levels and renders each in all
three encodings with the same surface draws (§4.6, Table 7).

Instance ``i`` of category ``c`` in split ``s`` is built in two stages.

1. **Structure** (graph, anchors, answer; no text). Its structural seed is
   ``derive_seed(master, "closure", s, "structure", c, i)``, or, for its ``r``-th
   redraw, ``derive_seed(master, "closure", s, "structure", c, i, "redraw", r)``. A
   seed alone fixes ``n`` (uniform in the n range, at least the category's ``min_n``),
   ``ρ`` (uniform in the density range; redrawn, seeded, when no well-posed instance
   exists at that (n, ρ)), the graph, the anchors and the answer; the record keeps the
   seed it was built from. The instance is redrawn (``r`` = 1, 2, ...) when its draw

   * **repeats a structure of a higher-priority split** (:data:`PRIORITY`: heldout,
     then train, then finetune): ``train`` never holds a (category, graph, anchors)
     structure of the first :func:`reference_count` instances per category of
     ``heldout`` (its default size), ``finetune`` none of heldout's or train's. The
     structure stage of a category depends on nothing else, so the generator computes
     those splits' structures of the category (no Ein, Python, text) to check; or
   * **repeats a structure of its own split**: instance ``i`` never has the
     (category, graph, anchors) key of instances ``0..i-1`` of its category (small
     graphs would otherwise collide by chance), so no split holds a structure twice
     (``check-overlap FILE`` reports any within-file repeat); or
   * **over-fills its answer stratum**: in a non-boolean category, instance ``i`` may
     not take an answer that ``⌊0.4·(i+1)⌋`` (at least 1) earlier instances of the
     category already have, so every prefix of a category — the whole split included —
     has a most common answer of at most 40 % (:data:`MODAL_CAP`; the manifest reports
     ``modal_share``). After :data:`STRATUM_DRAWS` draws the least common answer seen
     is kept (only tiny or degenerate configurations get there).

   Categories are independent, and within one the decisions follow index order; a
   category's structures therefore do not depend on ``count``, the other categories or
   ``--workers`` (instance ``i`` is the same in a split of any size that holds it).
2. **Surface and checks**: the kept structure's answer is computed by three routes
   (solver, Ein, Python; they must agree, else generation fails loudly naming the
   instance); the surface seed ``derive_seed(master, "closure", s, "surface", c, i, r)``
   alone fixes the label pool, frame, style, edge order and encoding, ``r`` counting
   redraws made only to avoid a duplicate question text within the split; the reader
   (:func:`closurebench.surface.closure.certify`) reads the question back.

Questions carry no per-category answer form unless ``answer_hints`` is set (recorded
in every record and in the manifest). ``conventions="implicit"`` asks the 12 ambiguous
categories (ambiguity ``count`` or ``set``) without their source-inclusion statement,
as the paper does (each task's ``implicit_template``: "How many accounts can A reach
through a chain of payments?" instead of "..., not counting A itself?"); the reference
answer and ``alt_answer`` do not change, every question is still read back by the
reader in that wording, and no draw depends on it, so an implicit split holds the same
structures, labels and surfaces as the explicit one. The manifest records it under
``arguments.conventions`` (absent: ``explicit``, the default, so default output keeps
its bytes).

``workers > 1`` computes the categories' structures in that many processes, then the
instances, and gives byte-identical output: each instance is first rendered as if no
question were taken yet (surface redraw 0); then, in plan order, an instance whose
question duplicates an earlier one is rendered again in this process against the
questions before it - exactly what the one-process run does (see :func:`merge_in_order`).

Boolean-valued categories (and the boolean part of ``multi_query``) alternate the wanted
value by index, so a split of 50 per category is exactly 25 / 25; ``conditional``, whose
"cannot reach" branch always answers -1, takes that branch at indices ``i mod 5`` in
{2, 4} (40 %), which the answer-stratum cap admits at every prefix. Every rendered
question is read back by the independent reader, so no question is ambiguous or lossy.

Example:
    >>> recs = generate_records(ClosureConfig(split="heldout", seed=0, count=2,
    ...                                       categories=("reach_then_count", "reachability")))
    >>> [r.category for r in recs], recs[0].suite.value
    (['reachability', 'reach_then_count'], 'closure')
"""

from __future__ import annotations

import functools
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
from closurebench.errors import ConfigError, Resample, SamplingError
from closurebench.generate.io import write_jsonl
from closurebench.generate.shard import Shard, shard_entry
from closurebench.jsonl import canonical_json, clean
from closurebench.schema import ClosureInstance, ResultType, Suite
from closurebench.schema.instances import structure_key
from closurebench.seeding import derive_seed, rng
from closurebench.structures.closure import ClosureStructure
from closurebench.surface.closure import ENCODINGS, RenderedClosure, certify, render_closure
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import (
    TIMINGS,
    Answer,
    ClosureTask,
    Verified,
    check_wording,
    verify,
)

__all__ = [
    "MODAL_CAP",
    "N_MAX",
    "PRIORITY",
    "SPLITS",
    "STAGES",
    "STRATUM_DRAWS",
    "SUBSETS",
    "ClosureConfig",
    "Draw",
    "StructurePlan",
    "default_split_records",
    "generate_instance",
    "generate_records",
    "generate_split",
    "label_answer",
    "manifest",
    "merge_in_order",
    "modal_shares",
    "reference_count",
    "stratum_cap",
    "write_split",
]

#: Draws of the knobs (n, ρ) before a category is declared impossible for the ranges.
_KNOB_DRAWS = 20

#: Draws of one (n, ρ) before the next (n, ρ) is tried.
_ATTEMPTS = 200

#: The largest share of a non-boolean category the most common answer may take.
MODAL_CAP = 0.4

#: Structural redraws of one instance before the least common answer seen is kept.
STRATUM_DRAWS = 64

#: Splits in priority order: a split never repeats a structure of an earlier one.
PRIORITY: tuple[str, ...] = ("heldout", "train", "finetune")

#: Stages a ``timings`` dict reports: sampling draws, the graph-core solver, the Ein
#: route, the Python route, rendering, and reading back (certify).
STAGES = ("sample", "solve", "ein", "python", "render", "certify")

#: Default number of instances per split. ``sweep`` is the paper's size sweep (§4.2,
#: Figure 4): n up to 20 by default (:data:`N_MAX`), 50 per category.
SPLITS: Mapping[str, int] = {"train": 1300, "heldout": 1300, "finetune": 2500, "sweep": 1300}

#: Default largest n per split (10 where not listed).
N_MAX: Mapping[str, int] = {"sweep": 20}

#: Named subsets: name -> default number of structures. ``encoding-study`` is the
#: paper's §4.6 subset: structures spread evenly over the levels (round-robin over each
#: level's categories, the split's own instances), each rendered once per encoding
#: (natural language, JSON, adjacency matrix) with the same labels, frame, style and
#: query sentence; record ids end in ``-nl``, ``-json`` and ``-matrix``.
SUBSETS: Mapping[str, int] = {"encoding-study": 200}


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
        n_max: Largest graph (>= n_min; default 10, or the split's :data:`N_MAX`).
        density_min: Smallest edge probability ρ (> 0).
        density_max: Largest ρ (<= 1).
        encodings: Encodings to draw from (``nl``, ``json``, ``matrix``).
        answer_hints: End each question with its category's answer form (off by
            default, as in the paper; recorded in every record and the manifest).
        conventions: ``"explicit"`` (default): every question states the
            source-inclusion convention in words; ``"implicit"``: the 12 ambiguous
            categories leave it unsaid, as the paper's questions do (recorded in the
            manifest; answers unchanged). One of
            :data:`~closurebench.tasks.closure.base.WORDINGS`.
        workers: Processes (1 = in-process); does not change the output.
        subset: A named subset (:data:`SUBSETS`) instead of the whole split; ``count``
            then counts its structures.
    """

    split: str = "heldout"
    seed: int = 0
    count: int | None = None
    categories: tuple[str, ...] | None = None
    levels: tuple[int, ...] | None = None
    n_min: int = 4
    n_max: int | None = None
    density_min: float = 0.1
    density_max: float = 0.5
    encodings: tuple[str, ...] = ("nl",)
    answer_hints: bool = False
    workers: int = 1
    subset: str | None = None
    conventions: str = "explicit"

    def __post_init__(self) -> None:
        if self.split not in SPLITS:
            raise ConfigError(f"split {self.split!r} is unknown; choose one of {', '.join(SPLITS)}")
        check_wording(self.conventions)
        if self.n_max is None:
            object.__setattr__(self, "n_max", N_MAX.get(self.split, 10))
        if self.subset is not None and self.subset not in SUBSETS:
            raise ConfigError(
                f"subset {self.subset!r} is unknown; choose one of {', '.join(SUBSETS)}"
            )
        if self.workers < 1:
            raise ConfigError(f"workers={self.workers!r} must be >= 1")
        if self.count is not None and self.count < 1:
            raise ConfigError(f"count {self.count} must be at least 1")
        if self.n_min < 4 or self.n_max_ < self.n_min:
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

    def arguments(self) -> dict[str, Any]:
        """The output-determining arguments the manifest records.

        Not ``workers`` (it does not change the output); ``subset`` only when set and
        ``conventions`` only when not ``explicit`` (so older manifests and default output
        keep their bytes).

        Example:
            >>> args = ClosureConfig(count=3).arguments()
            >>> args["count"], "workers" in args, "conventions" in args
            (3, False, False)
        """
        return {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in asdict(self).items()
            if k != "workers"
            and not (k == "subset" and v is None)
            and not (k == "conventions" and v == "explicit")
        }

    @classmethod
    def from_arguments(cls, arguments: Mapping[str, Any]) -> ClosureConfig:
        """The config whose :meth:`arguments` a manifest recorded (``workers`` 1).

        Raises:
            ConfigError: an argument is unknown or invalid.

        Example:
            >>> config = ClosureConfig(split="train", count=9, categories=("reachability",))
            >>> ClosureConfig.from_arguments(config.arguments()) == config
            True
        """
        kwargs: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in arguments.items()
        }
        try:
            return cls(**kwargs)
        except TypeError as exc:
            raise ConfigError(
                f"the manifest's arguments {sorted(kwargs)} are not a ClosureConfig's ({exc}); "
                "merge with the closurebench version that wrote them"
            ) from None

    def selected(self) -> list[str]:
        """The categories to generate, in registry order."""
        names = [
            name
            for name, task in CLOSURE_TASKS.items()
            if (self.categories is None or name in self.categories)
            and (self.levels is None or task.level in self.levels)
        ]
        return names

    @property
    def n_max_(self) -> int:
        """The resolved largest n (``n_max`` is set from the split when not given)."""
        return self.n_max if self.n_max is not None else N_MAX.get(self.split, 10)

    def structures(self) -> int:
        """Number of structures to draw (instances, or the subset's structures)."""
        if self.count is not None:
            return self.count
        return SUBSETS[self.subset] if self.subset is not None else SPLITS[self.split]

    def encodings_per_structure(self) -> tuple[str | None, ...]:
        """The forced encoding of each rendering of a structure (``None``: drawn)."""
        return tuple(ENCODINGS) if self.subset == "encoding-study" else (None,)

    def total(self) -> int:
        """Number of records to generate."""
        return self.structures() * len(self.encodings_per_structure())

    def plan(self) -> list[tuple[str, int]]:
        """``(category, index within category)`` for each structure.

        Interleaved over the categories; for ``encoding-study``, level by level, each
        level's share (equal, the first levels one more) interleaved over its categories.

        Example:
            >>> plan = ClosureConfig(subset="encoding-study", count=7).plan()
            >>> [CLOSURE_TASKS[c].level for c, _ in plan]
            [1, 1, 1, 2, 2, 3, 3]
        """
        cats = self.selected()
        if self.subset != "encoding-study":
            return _interleave(cats, self.structures())
        levels = sorted({CLOSURE_TASKS[c].level for c in cats})
        size = self.structures()
        out: list[tuple[str, int]] = []
        for k, level in enumerate(levels):
            share = size // len(levels) + (k < size % len(levels))
            if share:
                out += _interleave([c for c in cats if CLOSURE_TASKS[c].level == level], share)
        return out


def _interleave(cats: Sequence[str], total: int) -> list[tuple[str, int]]:
    """``total`` ``(category, index)`` pairs spread evenly over ``cats``, index-major."""
    per = [total // len(cats) + (k < total % len(cats)) for k in range(len(cats))]
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
    """The value the balance key must take at ``index`` (``None``: no balance).

    Boolean answers (and a compound answer's boolean part) alternate; a non-boolean
    category whose ``False`` branch is one constant answer (``conditional``: -1) takes
    it at ``index mod 5`` in {2, 4}, 40 % of every prefix the stratum cap admits.
    """
    if not task.balanced():
        return None
    if task.result_type in (ResultType.BOOLEAN, ResultType.COMPOUND):
        return index % 2 == 0
    return index % 5 not in (2, 4)


def stratum_cap(index: int) -> int:
    """How many earlier instances of a category may share the answer of instance ``index``.

    ``⌊0.4·(index + 1)⌋``, at least 1: every prefix of ``m >= 3`` instances keeps its most
    common answer at or under 40 % (:data:`MODAL_CAP`) when enough answers exist.

    Example:
        >>> [stratum_cap(i) for i in range(11)]
        [1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4]
    """
    return max(1, (index + 1) * 2 // 5)


def reference_count(split: str) -> int:
    """Instances per category of ``split`` that lower-priority splits never repeat.

    The default split size over all 26 categories, rounded up (heldout and train: 50,
    finetune: 97); a smaller split of the same seed and ranges is a prefix of it.

    Example:
        >>> reference_count("heldout"), reference_count("finetune")
        (50, 97)
    """
    return -(-SPLITS[split] // len(CLOSURE_TASKS))


@dataclass(frozen=True)
class Draw:
    """One kept structure of the structure stage (before Ein, Python and text).

    Attributes:
        structural_seed: The seed it was drawn from (alone it gives it back).
        density: The edge probability ρ it was drawn at.
        structure: Graph(s) and anchors.
        answer: The solver's answer (node ids); the three routes confirm it later.
        key: Its :func:`~closurebench.schema.instances.structure_key`.
        stratum: The answer as canonical JSON (what the modal share counts).
    """

    structural_seed: int
    density: float
    structure: ClosureStructure
    answer: Answer
    key: str
    stratum: str


def _higher(split: str) -> tuple[str, ...]:
    """The splits whose structures ``split`` avoids (none for ``sweep``, outside :data:`PRIORITY`).

    Example:
        >>> _higher("finetune"), _higher("sweep")
        (('heldout', 'train'), ())
    """
    return PRIORITY[: PRIORITY.index(split)] if split in PRIORITY else ()


def _timed(timings: dict[str, float] | None, stage: str, t0: float) -> float:
    t1 = time.perf_counter()
    if timings is not None:
        timings[stage] = timings.get(stage, 0.0) + (t1 - t0)
    return t1


def _draw(
    config: ClosureConfig,
    task: ClosureTask,
    index: int,
    structural: int,
    want: bool | None,
    timings: dict[str, float] | None,
) -> Draw:
    """The first well-posed structure of seed ``structural`` (solver answer only).

    Raises:
        SamplingError: when no (n, ρ) of :data:`_KNOB_DRAWS` draws hosts one.
    """
    lo, hi = max(config.n_min, task.min_n), max(config.n_max_, task.min_n)
    for knobs in range(_KNOB_DRAWS):
        # Some (n, ρ) cannot host a well-posed instance of a category (a dense graph is
        # strongly connected, so nothing is unreachable); redraw the knobs, seeded.
        g = rng(structural, "knobs", knobs)
        n = int(g.integers(lo, hi + 1))
        density = round(float(g.uniform(config.density_min, config.density_max)), 4)
        for attempt in range(_ATTEMPTS):
            t0 = time.perf_counter()
            try:
                s = task.sample(rng(structural, "closure", knobs, "attempt", attempt), n, density)
            except Resample:
                _timed(timings, "sample", t0)
                continue
            t0 = _timed(timings, "sample", t0)
            answer = task.norm(task.solve(s))
            _timed(timings, "solve", t0)
            if want is not None and task.balance_key(answer) not in (None, want):
                continue
            g2 = s.graph2.to_dict() if s.graph2 is not None else None
            return Draw(
                structural_seed=structural,
                density=density,
                structure=s,
                answer=answer,
                key=structure_key(task.name, s.graph.to_dict(), g2, dict(s.anchors)),
                stratum=canonical_json(answer),
            )
    raise SamplingError(
        f"{task.name} #{index}: no well-posed instance for {_KNOB_DRAWS} draws of (n, ρ) in "
        f"n {lo}..{hi}, ρ {config.density_min}..{config.density_max}; widen the ranges"
    )


#: :meth:`StructurePlan.reference_keys` by what they are a function of (seed, n and
#: density ranges, split, category, the category's class), for this process. Immutable
#: values; at most :data:`_REFERENCE_KEYS_MAX` entries (the oldest go first).
_REFERENCE_KEYS: dict[tuple[Any, ...], frozenset[str]] = {}
_REFERENCE_KEYS_MAX = 1024


def _remember_reference_keys(key: tuple[Any, ...], keys: frozenset[str]) -> None:
    _REFERENCE_KEYS[key] = keys
    while len(_REFERENCE_KEYS) > _REFERENCE_KEYS_MAX:
        try:  # no lock (a forked child must never wait on one): a racing thread only ends it
            _REFERENCE_KEYS.pop(next(iter(_REFERENCE_KEYS)), None)
        except (RuntimeError, StopIteration):
            break


class StructurePlan:
    """The structure stage of every split of one seed and set of ranges, computed lazily.

    ``draw(split, category, index)`` is a pure function of the seed, the n and density
    ranges, the split, the category and the index (see the module docstring); the plan
    caches each (split, category) schedule as far as it was asked for.

    Example:
        >>> plan = StructurePlan(ClosureConfig(seed=3))
        >>> a = plan.draw("train", "graph_comparison", 4)
        >>> a == StructurePlan(ClosureConfig(seed=3, count=7)).draw("train", "graph_comparison", 4)
        True
        >>> a.key in {plan.draw("heldout", "graph_comparison", i).key for i in range(50)}
        False
    """

    def __init__(self, config: ClosureConfig, timings: dict[str, float] | None = None) -> None:
        self.config = config
        self.timings = timings
        self._draws: dict[tuple[str, str], list[Draw]] = {}
        self._counts: dict[tuple[str, str], Counter[str]] = {}
        self._taken: dict[tuple[str, str], frozenset[str]] = {}
        self._own: dict[tuple[str, str], set[str]] = {}

    def _reference_key(self, split: str, category: str) -> tuple[Any, ...]:
        """What the first draws of ``(split, category)`` are a function of (see :meth:`draw`)."""
        c = self.config
        task = CLOSURE_TASKS[category]
        return (
            c.seed,
            c.n_min,
            c.n_max_,
            c.density_min,
            c.density_max,
            split,
            category,
            type(task),
        )

    def reference_keys(self, split: str, category: str) -> frozenset[str]:
        """The structure keys of the first :func:`reference_count` draws of ``(split, category)``.

        What lower-priority splits avoid. A pure function of the seed, the n and density
        ranges, the split and the category, so it is kept for the process (bounded) and
        shared by every plan of the same seed and ranges: a small train split reuses the
        heldout keys an earlier plan drew. A plan given ``timings`` (a benchmark) always
        draws them itself.
        """
        cache_key = self._reference_key(split, category)
        got = None if self.timings is not None else _REFERENCE_KEYS.get(cache_key)
        if got is None:
            got = frozenset(
                self.draw(split, category, i).key for i in range(reference_count(split))
            )
            _remember_reference_keys(cache_key, got)
        return got

    def taken(self, split: str, category: str) -> frozenset[str]:
        """Structure keys of ``category`` that ``split`` must not repeat."""
        got = self._taken.get((split, category))
        if got is None:
            got = frozenset().union(*(self.reference_keys(h, category) for h in _higher(split)))
            self._taken[(split, category)] = got
        return got

    def draw(self, split: str, category: str, index: int) -> Draw:
        """The kept structure of instance ``index`` of ``category`` in ``split``.

        Raises:
            SamplingError: when no draw is well posed, or every draw repeats a structure
                of a higher-priority split.
        """
        draws = self._draws.setdefault((split, category), [])
        counts = self._counts.setdefault((split, category), Counter())
        own = self._own.setdefault((split, category), set())
        while len(draws) <= index:
            d = self._next(split, category, len(draws), counts, own)
            counts[d.stratum] += 1
            own.add(d.key)
            draws.append(d)
            if split in PRIORITY and len(draws) == reference_count(split):
                # This plan drew them anyway: a later plan of a lower split needs no redraw.
                keys = frozenset(x.key for x in draws)
                _remember_reference_keys(self._reference_key(split, category), keys)
        return draws[index]

    def _next(
        self, split: str, category: str, index: int, counts: Counter[str], own: set[str]
    ) -> Draw:
        task = CLOSURE_TASKS[category]
        taken = self.taken(split, category)
        limited = task.result_type is not ResultType.BOOLEAN
        cap = stratum_cap(index)
        want = _want(task, index)
        best: Draw | None = None
        for redraw in range(STRATUM_DRAWS):
            extra = ("redraw", redraw) if redraw else ()
            seed = derive_seed(
                self.config.seed, "closure", split, "structure", category, index, *extra
            )
            d = _draw(self.config, task, index, seed, want, self.timings)
            if d.key in taken or d.key in own:
                continue
            if not limited or counts[d.stratum] < cap:
                return d
            if best is None or counts[d.stratum] < counts[best.stratum]:
                best = d
        if best is None:
            avoided = ", ".join((*_higher(split), f"{split} #0..{index - 1}"))
            raise SamplingError(
                f"{category} #{index} of {split}: all {STRATUM_DRAWS} draws repeat a structure "
                f"of {avoided}; widen the n or density range"
            )
        return best


def generate_instance(
    config: ClosureConfig,
    category: str,
    index: int,
    seen: set[str] | None = None,
    timings: dict[str, float] | None = None,
    plan: StructurePlan | None = None,
) -> ClosureInstance:
    """Generate one certified instance record (see the module docstring for seeds).

    Args:
        config: What to generate (split, seed, ranges, encodings, answer hints).
        category: The category.
        index: The index within the category.
        seen: Questions already taken (a duplicate is redrawn); ``None``: none.
        timings: Seconds per stage (:data:`STAGES`) are added to it.
        plan: The structure stage to reuse (a fresh one is made otherwise; reusing one
            saves recomputing earlier indices and other splits).
    """
    if plan is None:
        plan = StructurePlan(config, timings)
    if timings is None:
        return _render_instance(
            config, category, index, plan.draw(config.split, category, index), seen, None
        )
    token = TIMINGS.set(timings)
    try:
        d = plan.draw(config.split, category, index)
        return _render_instance(config, category, index, d, seen, timings)
    finally:
        TIMINGS.reset(token)


def _surface(
    config: ClosureConfig,
    category: str,
    index: int,
    draw: Draw,
    seen: set[str] | None,
    encoding: str | None = None,
) -> tuple[int, RenderedClosure]:
    """The surface seed and rendering of a kept structure: the first whose question is new.

    Redraw ``r`` uses ``derive_seed(master, "closure", split, "surface", category, index, r)``;
    a question already in ``seen`` is drawn again (``seen`` is not changed here).
    """
    for redraw in range(100):
        surface = derive_seed(
            config.seed, "closure", config.split, "surface", category, index, redraw
        )
        sg = rng(surface)
        drawn = config.encodings[int(sg.integers(len(config.encodings)))]
        rendered = render_closure(
            draw.structure,
            g=sg,
            encoding=encoding or drawn,
            answer_hints=config.answer_hints,
            conventions=config.conventions,
        )
        if seen is None or rendered.question not in seen:
            return surface, rendered
    # 100 colliding surfaces would need a degenerate config
    raise ConfigError(  # pragma: no cover
        f"{category} #{index}: 100 surface draws all duplicated a question"
    )


def _replay(
    config: ClosureConfig,
    category: str,
    index: int,
    draw: Draw,
    seen: set[str],
    encoding: str | None = None,
) -> None:
    """Add the question the full run asks at a position before a shard to ``seen``.

    Only the rendering: the routes and the reader already ran in the shard that holds it.
    """
    seen.add(_surface(config, category, index, draw, seen, encoding)[1].question)


def _render_instance(
    config: ClosureConfig,
    category: str,
    index: int,
    draw: Draw,
    seen: set[str] | None,
    timings: dict[str, float] | None,
    encoding: str | None = None,
) -> ClosureInstance:
    """Verify, render, certify and assemble one record.

    ``encoding`` forces the encoding (the surface draws are the same as without it);
    the record id then ends in ``-<encoding>``.
    """
    task = CLOSURE_TASKS[category]
    s = draw.structure
    verified: Verified = verify(task, s)
    t0 = time.perf_counter()
    surface, rendered = _surface(config, category, index, draw, seen, encoding)
    t0 = _timed(timings, "render", t0)
    certify(s, rendered)
    _timed(timings, "certify", t0)
    if seen is not None:
        seen.add(rendered.question)
    labels = list(rendered.labels)
    record = {
        "id": f"closure-{config.split}-{category}-{index:04d}"
        + (f"-{encoding}" if encoding else ""),
        "suite": Suite.CLOSURE,
        "split": config.split,
        "category": category,
        "level": task.level,
        "result_type": task.result_type,
        "n": s.n,
        "density": draw.density,
        "structural_seed": draw.structural_seed,
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
        "answer_hints": config.answer_hints,
        "version": __version__,
    }
    return ClosureInstance.model_validate(clean(record))


def merge_in_order(
    records: Iterable[R],
    regenerate: Callable[[R, set[str]], R],
    seen: set[str] | None = None,
) -> Iterator[R]:
    """Yield ``records`` in order, regenerating any whose question was seen before.

    ``records`` were generated independently (no question taken). A record whose
    question is new is what the sequential run makes too; a repeated one is replaced by
    ``regenerate(record, seen)``, which draws against ``seen`` (the earlier questions).

    Args:
        records: Independently generated records, in plan order.
        regenerate: Makes the record again against the questions seen so far.
        seen: The questions asked before the first record (a shard's earlier positions;
            default none); extended in place.

    Yields:
        The records of the sequential run.

    Example:
        >>> from types import SimpleNamespace as Q
        >>> recs = [Q(question="a"), Q(question="b"), Q(question="a")]
        >>> [r.question for r in merge_in_order(recs, lambda r, seen: Q(question="c"))]
        ['a', 'b', 'c']
    """
    seen = set() if seen is None else seen
    for record in records:
        if record.question in seen:
            record = regenerate(record, seen)
        seen.add(record.question)
        yield record


def _schedule_job(job: tuple[ClosureConfig, str, int]) -> list[Draw]:
    config, category, count = job
    plan = StructurePlan(config)
    return [plan.draw(config.split, category, i) for i in range(count)]


def _instance_job(job: tuple[ClosureConfig, str, int, Draw]) -> ClosureInstance:
    config, category, index, draw = job
    return _render_instance(config, category, index, draw, None, None)


def generate_records(
    config: ClosureConfig,
    progress: Callable[[ClosureInstance], None] | None = None,
    timings: dict[str, float] | None = None,
    shard: Shard | None = None,
) -> list[ClosureInstance]:
    """Generate every record of ``config`` in plan order (no duplicate question texts).

    With ``timings``, seconds per stage (:data:`STAGES`) are accumulated into it (and
    the run stays in this process). With ``shard``, only the records of its block of the
    plan (:meth:`~closurebench.generate.shard.Shard.range` of :meth:`ClosureConfig.structures`),
    exactly those the whole run writes there: the positions before the block are replayed
    (structure stage and question rendering only), so its questions avoid theirs.

    Example:
        >>> from closurebench.generate.shard import Shard
        >>> config = ClosureConfig(count=6, categories=("reachability", "reach_then_count"))
        >>> whole = generate_records(config)
        >>> parts = [generate_records(config, shard=Shard(i, 3)) for i in (1, 2, 3)]
        >>> [r.id for p in parts for r in p] == [r.id for r in whole]
        True
    """
    plan = config.plan()
    start, stop = (0, len(plan)) if shard is None else shard.range(len(plan))
    records: list[ClosureInstance] = []
    forced = config.encodings_per_structure()
    if forced != (None,):
        # A subset renders each structure several times; in this process (it is small).
        seen_by: dict[str | None, set[str]] = {e: set() for e in forced}
        structures = StructurePlan(config, timings)
        for category, index in plan[:start]:
            draw = structures.draw(config.split, category, index)
            for enc in forced:
                _replay(config, category, index, draw, seen_by[enc], enc)
        for category, index in plan[start:stop]:
            draw = structures.draw(config.split, category, index)
            for enc in forced:
                record = _render_instance(config, category, index, draw, seen_by[enc], timings, enc)
                records.append(record)
                if progress is not None:
                    progress(record)
        return records
    if config.workers <= 1 or stop - start <= 1 or timings is not None:
        seen: set[str] = set()
        structures = StructurePlan(config, timings)
        for category, index in plan[:start]:
            _replay(config, category, index, structures.draw(config.split, category, index), seen)
        for category, index in plan[start:stop]:
            record = generate_instance(config, category, index, seen, timings, structures)
            records.append(record)
            if progress is not None:
                progress(record)
        return records

    # fork (where there is one): workers start at once with everything imported, and a
    # script calling this needs no ``if __name__ == "__main__"`` guard. The children
    # only generate; they touch no lock a parent thread (a progress bar) may hold.
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else None)
    # Each category's indices run 0, 1, ... in plan order, so its count up to ``stop``
    # is what its schedule needs.
    per = Counter(category for category, _ in plan[:stop])
    with ProcessPoolExecutor(max_workers=config.workers, mp_context=ctx) as pool:
        # Stage 1, one job per category (its decisions follow index order); stage 2,
        # one job per instance. map() yields in submission order, so the output does
        # not depend on scheduling.
        cats = list(per)
        scheduled = pool.map(_schedule_job, [(config, c, per[c]) for c in cats])
        draws = dict(zip(cats, scheduled, strict=True))
        asked: set[str] = set()
        for category, index in plan[:start]:
            _replay(config, category, index, draws[category][index], asked)
        jobs = [
            (config, category, index, draws[category][index])
            for category, index in plan[start:stop]
        ]

        def again(record: ClosureInstance, seen: set[str]) -> ClosureInstance:
            category, index = record.category, int(record.id.rsplit("-", 1)[1])
            return _render_instance(config, category, index, draws[category][index], seen, None)

        chunk = max(1, min(32, len(jobs) // (4 * config.workers)))
        merged = merge_in_order(pool.map(_instance_job, jobs, chunksize=chunk), again, asked)
        for record in merged:
            records.append(record)
            if progress is not None:
                progress(record)
    return records


def modal_shares(records: Iterable[ClosureInstance]) -> dict[str, float]:
    """Share of its most common answer, per non-boolean category (4 decimals).

    The answer is compared as the model must give it (labels, canonical JSON).

    Example:
        >>> recs = generate_records(ClosureConfig(count=5, categories=("graph_comparison",)))
        >>> modal_shares(recs)["graph_comparison"] <= MODAL_CAP
        True
    """
    by: dict[str, Counter[str]] = {}
    for r in records:
        if r.result_type is not ResultType.BOOLEAN:
            by.setdefault(r.category, Counter())[canonical_json(r.answer)] += 1
    return {
        c: round(counts.most_common(1)[0][1] / counts.total(), 4)
        for c, counts in sorted(by.items())
    }


def manifest(
    config: ClosureConfig, records: Sequence[ClosureInstance], sha256: str, file: str
) -> dict[str, Any]:
    """Counts per category/level/encoding/domain/style, checksum, version, arguments.

    Also the modal share per non-boolean category (:func:`modal_shares`) and the
    splits whose structures this one avoids (``avoids_structures_of``: each with the
    instances per category it covers). ``arguments`` leaves out ``workers`` (it does not
    change the output), ``subset`` when unset and ``conventions`` when ``explicit`` (so
    manifests of default splits keep their bytes; absent means ``explicit``).
    """
    booleans = [r.answer for r in records if r.result_type is ResultType.BOOLEAN]
    return {
        "suite": "closure",
        "version": __version__,
        "seed": config.seed,
        "arguments": config.arguments(),
        "files": {file: {"sha256": sha256, "records": len(records)}},
        "records": len(records),
        "counts": {
            key: dict(sorted(Counter(str(getattr(r, key)) for r in records).items()))
            for key in ("category", "level", "encoding", "domain", "style", "label_pool", "n")
        },
        "boolean_true_share": (
            round(sum(bool(a) for a in booleans) / len(booleans), 4) if booleans else None
        ),
        "modal_share": modal_shares(records),
        "avoids_structures_of": {h: reference_count(h) for h in _higher(config.split)},
        "mean_density": round(math.fsum(r.density for r in records) / len(records), 4),
    }


def split_file_name(config: ClosureConfig) -> str:
    """The dataset file ``write_split`` writes: ``closure-<split>[-<subset>].jsonl``.

    Example:
        >>> split_file_name(ClosureConfig(split="heldout"))
        'closure-heldout.jsonl'
    """
    return f"closure-{config.split}" + (f"-{config.subset}" if config.subset else "") + ".jsonl"


def write_split(
    config: ClosureConfig,
    out: str | Path,
    progress: Callable[[ClosureInstance], None] | None = None,
    shard: Shard | None = None,
) -> tuple[Path, Path, list[ClosureInstance]]:
    """Generate ``config``; write ``out/closure-<split>[-<subset>].jsonl`` and its manifest.

    With ``shard``, only its block, to ``out/closure-<split>[-<subset>].shard-<i>-of-<N>.jsonl``
    (:mod:`closurebench.generate.shard`); its manifest is the block's, plus a ``shard``
    entry (``unit``: structures).
    """
    records = generate_records(config, progress, shard=shard)
    whole = split_file_name(config)

    def make(sha: str, name: str) -> dict[str, Any]:
        man = manifest(config, records, sha, name)
        if shard is not None:
            man["shard"] = shard_entry(shard, config.structures(), "structures", whole)
        return man

    name = whole if shard is None else shard.file_name(whole)
    path, man = write_jsonl(out, name, records, make)
    return path, man, records


def default_split_records(split: str, seed: int = 0) -> tuple[ClosureInstance, ...]:
    """The records of a default split (``ClosureConfig(split=split, seed=seed)``), made once.

    Generated on the first call for ``(split, seed)`` and kept for the process (the three
    most recent; records are frozen): a full split takes seconds, and the majority
    baseline and tests read the same ones. The same records as
    ``generate_records(ClosureConfig(split=split, seed=seed))``, as a tuple.
    """
    return _default_split_records(str(split), int(seed))


@functools.lru_cache(maxsize=3)
def _default_split_records(split: str, seed: int) -> tuple[ClosureInstance, ...]:
    # One cache key per (split, seed), however the public function was called.
    return tuple(generate_records(ClosureConfig(split=split, seed=seed)))


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
