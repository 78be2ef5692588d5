"""Scaling curves: seconds and peak memory per instance against the graph size n.

Usage::

    uv run --no-sync python benchmarks/scaling.py            # full run -> benchmarks/scaling/
    uv run --no-sync python benchmarks/scaling.py --quick    # smoke check: few n, 1 repeat
    uv run --no-sync python benchmarks/scaling.py --repeats 3 --time-limit 30 --max-n 80 \\
        --categories reachability cousin --tasks tsp --out /tmp/scaling
    uv run --no-sync python benchmarks/scaling.py --render-only   # redraw from scaling.json

Two suites (issue 14, part 2):

* **ClosureBench**: every category of the registry
  (:data:`closurebench.tasks.closure.CLOSURE_TASKS`) at n = 10, 20, 50, 100, 200, 1000.
  One instance is what the generator makes for one record, all checks on:
  :func:`closurebench.generate.closure.generate_instance` on the ``sweep`` split with
  ``n_min = n_max = n`` and the default density range ρ 0.1-0.5 (structure sampling, the
  graph-core solver, the Ein and Python routes, rendering, reading the question back,
  record validation). Instance ``r`` of a point is index ``r`` of one structure plan, so
  each call does the work of exactly one instance. An ``n`` a category does not allow is
  skipped and named in the output: below its ``min_n``; above ``--max-n``; or where the Ein
  reference program, which spells out every edge, would outgrow Ein's source limit
  (``closurebench categories``; predicted from the program lengths at the smaller n).
  A curve stops after an instance slower than ``--max-instance-seconds`` (kept).
* **GRIT**: every task of :data:`closurebench.tasks.grit.GRIT_TASKS` at n = 10, 20, 40,
  60, 80, 100, the GRIT default density (p uniform in 0.1-0.3; TSP: complete graphs on
  grid points) and half the shortest-path graphs directed. One instance is one seeded draw
  and the task's certified path: the exact ``solve`` and the independent ``verify`` (second
  method, networkx or checker), timed together under one ``--time-limit`` per instance. A
  draw the task rejects as ill posed (a centrality tie) is redrawn from the next seed; a
  solver that cannot prove optimality in time is recorded as a timeout. Once the median
  of a point is a timeout the curve stops there.

Per point the script reports the median seconds over ``--repeats`` instances (a timeout
counts as "more than the limit": the median is known while fewer than half time out) and
the median **tracemalloc peak**: the largest total size of Python-heap allocations made
during the one-instance call and alive at the same time, numpy arrays included (numpy
reports its buffers to tracemalloc); allocations of C/C++ libraries outside Python's
allocator (HiGHS's internal memory) are not seen, and neither is memory allocated before
the call. Memory is measured in a second pass over the same instances (tracemalloc slows
allocation-heavy Python code several times, so the timed pass runs without it).

For each curve the slope of ``log(time)`` and ``log(peak memory)`` against ``log(n)`` is
fitted with :func:`numpy.polyfit` over the points whose median is known, and again over
the large-n points only (n >= 50 for ClosureBench, n >= 40 for GRIT), where fixed
per-instance costs matter less. The ClosureBench curve with the steepest large-n slope
is profiled once with cProfile.

Outputs (``--out``, default ``benchmarks/scaling/``): ``closurebench_time.png``,
``closurebench_memory.png``, ``grit_time.png``, ``grit_memory.png`` (log-log), the raw
points in ``scaling.json`` and ``SCALING.md`` (tables, slopes, notes). Text between the
``<!-- analysis:begin -->`` and ``<!-- analysis:end -->`` markers of an existing
``SCALING.md`` is kept when it is rewritten. ``--quick`` writes files only with ``--out``.

Everything generated is seeded (:mod:`closurebench.seeding`); only the timings vary.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import datetime as dt
import io
import json
import math
import os
import platform
import pstats
import re
import shlex
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from closurebench.errors import ClosureBenchError, Resample
from closurebench.generate.closure import STAGES, ClosureConfig, StructurePlan, generate_instance
from closurebench.graphs.exact.errors import SolverTimeout
from closurebench.seeding import derive_seed, rng
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import TESTED_MAX_N
from closurebench.tasks.grit import GRIT_TASKS
from closurebench.tasks.grit.base import (
    CROSS_CHECK_MAX_N,
    DEFAULT_DENSITY,
    DEFAULT_DIRECTED_SHARE,
)

__all__ = [
    "CLOSURE_NS",
    "GRIT_NS",
    "CurveSummary",
    "Instance",
    "Point",
    "fit_slope",
    "main",
    "measure",
    "render_markdown",
    "summarise",
    "write_outputs",
]

T = TypeVar("T")

#: Sizes of the full run (the issue's).
CLOSURE_NS: tuple[int, ...] = (10, 20, 50, 100, 200, 1000)
GRIT_NS: tuple[int, ...] = (10, 20, 40, 60, 80, 100)
#: Sizes of ``--quick``.
QUICK_CLOSURE_NS: tuple[int, ...] = (10, 50)
QUICK_GRIT_NS: tuple[int, ...] = (10, 20)
#: The smallest n of the large-n slope, per suite. GRIT: above ``CROSS_CHECK_MAX_N`` (40)
#: vertex cover's verify no longer re-solves by the ILP (colouring's SAT cross-check runs at
#: every n), so the large-n points share one code path.
LARGE_FROM: dict[str, int] = {"closure": 50, "grit": CROSS_CHECK_MAX_N + 1}
_LARGE_LABEL: dict[str, str] = {"closure": "n ≥ 50", "grit": f"n > {CROSS_CHECK_MAX_N}"}
#: The split ClosureBench instances are drawn for: the size sweep avoids no other split's
#: structures, so the structure stage does no extra work.
CLOSURE_SPLIT = "sweep"
#: Attempts of a GRIT draw rejected as ill posed before the point is given up.
GRIT_ATTEMPTS = 50
#: The memory pass of a GRIT instance may take this many times its timed seconds (plus
#: :data:`MEMORY_SLACK_S`), at most twice the time limit: tracemalloc slows Python code.
MEMORY_FACTOR = 6.0
MEMORY_SLACK_S = 5.0

_MIB = 1024.0 * 1024.0
_SOURCE_LIMIT = re.compile(r"program is (\d+) characters long")
_DEFAULT_OUT = Path(__file__).resolve().parent / "scaling"
_BEGIN, _END = "<!-- analysis:begin -->", "<!-- analysis:end -->"


# --------------------------------------------------------------------------- records


@dataclass
class Instance:
    """One measured instance.

    Attributes:
        index: The instance's index in its point (it names its seed).
        status: ``ok``, ``timeout`` (GRIT: optimality not proven within the limit),
            ``source_limit`` (ClosureBench: the Ein program is over Ein's source limit)
            or ``error`` (anything else; ``detail`` says what).
        seconds: Wall-clock seconds of the timed pass (for a timeout: until it gave up).
        peak_mib: tracemalloc peak of the memory pass, MiB (``None``: not measured).
        stages: Seconds per stage of the timed pass (ClosureBench: sample, solve, ein,
            python, render, certify; GRIT: sample, which is not in ``seconds``, solve,
            verify).
        attempts: Draws it took (GRIT: 1 = the first draw was well posed).
        ein_chars: Length of the Ein reference program (ClosureBench).
        edges: Edges of the instance's graph(s).
        detail: The error message, shortened, when not ``ok``.
    """

    index: int
    status: str
    seconds: float
    peak_mib: float | None = None
    stages: dict[str, float] = field(default_factory=dict)
    attempts: int = 1
    ein_chars: int | None = None
    edges: int | None = None
    detail: str = ""


@dataclass
class Point:
    """One (suite, curve, n) point.

    Attributes:
        suite: ``closure`` or ``grit``.
        curve: The category or task.
        group: ``L1``, ``L2``, ``L3`` (ClosureBench level) or ``GRIT``.
        n: Number of nodes.
        status: ``ok`` (every instance completed), ``partial`` (some did not, the median
            is still known), ``timeout`` (half or more timed out: the median is only a
            lower bound), ``failed`` (none completed), ``slow`` (an instance passed
            ``--max-instance-seconds``; the curve stops) or ``skipped`` (not run).
        note: Why a point is skipped, partial, slow or failed.
        instances: The measured instances.
        median_s: Median seconds (``None`` when unknown).
        median_peak_mib: Median tracemalloc peak of the completed instances.
    """

    suite: str
    curve: str
    group: str
    n: int
    status: str
    note: str = ""
    instances: list[Instance] = field(default_factory=list)
    median_s: float | None = None
    median_peak_mib: float | None = None

    @property
    def known(self) -> bool:
        """Whether the median seconds are known (the point enters the slope fit)."""
        return self.median_s is not None


@dataclass
class CurveSummary:
    """Slopes and end points of one curve.

    Attributes:
        suite, curve, group: As in :class:`Point`.
        slope_time: Fitted slope of log(seconds) vs log(n), points with a known median.
        slope_time_large: The same over the large-n points (:data:`LARGE_FROM`).
        slope_memory: Fitted slope of log(peak MiB) vs log(n).
        largest_n: Largest n with a known median.
        peak_mib_largest: Median peak MiB there.
        seconds_largest: Median seconds there.
        dominant_stage: ClosureBench: the stage with the most time at ``largest_n``
            (``other``: outside the timed stages, i.e. record assembly and validation).
        notes: Skipped, stopped or partial points, in words.
    """

    suite: str
    curve: str
    group: str
    slope_time: float | None
    slope_time_large: float | None
    slope_memory: float | None
    largest_n: int | None
    peak_mib_largest: float | None
    seconds_largest: float | None
    dominant_stage: str | None
    notes: list[str]


# --------------------------------------------------------------------------- helpers


def fit_slope(ns: Sequence[float], values: Sequence[float | None]) -> float | None:
    """Least-squares slope of ``log(value)`` against ``log(n)``.

    Pairs whose value is ``None`` or not positive are left out; fewer than two distinct
    ``n`` left give ``None``.

    Example:
        >>> round(fit_slope([10, 20, 40], [1.0, 4.0, 16.0]), 6)
        2.0
        >>> fit_slope([10], [1.0]) is None
        True
    """
    pairs = [
        (float(n), float(v))
        for n, v in zip(ns, values, strict=True)
        if v is not None and v > 0 and n > 0
    ]
    if len({n for n, _ in pairs}) < 2:
        return None
    x = np.log([n for n, _ in pairs])
    y = np.log([v for _, v in pairs])
    return float(np.polyfit(x, y, 1)[0])


def _median_censored(values: Sequence[float], censored: int) -> float | None:
    """The median of ``values`` plus ``censored`` values known only to be larger.

    Known while fewer than half the values are censored (they sort above every
    observed one).

    Example:
        >>> _median_censored([1.0, 2.0, 3.0], 2), _median_censored([1.0, 2.0], 2)
        (3.0, None)
    """
    total = len(values) + censored
    if total == 0 or 2 * censored >= total:
        return None
    ordered = sorted(values)
    mid = total // 2
    if total % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def _traced(fn: Callable[[], T]) -> tuple[T, float]:
    """Run ``fn`` under a fresh tracemalloc; return its result and the peak in MiB."""
    tracemalloc.start()
    try:
        out = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out, peak / _MIB


def _short(exc: BaseException, limit: int = 160) -> str:
    text = f"{type(exc).__name__}: {exc}".replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _finish(point: Point) -> Point:
    """Fill a measured point's medians and status."""
    done = [i for i in point.instances if i.status == "ok"]
    timeouts = sum(i.status == "timeout" for i in point.instances)
    point.median_s = _median_censored([i.seconds for i in done], timeouts)
    peaks = [i.peak_mib for i in done if i.peak_mib is not None]
    point.median_peak_mib = statistics.median(peaks) if peaks else None
    if point.status == "slow":
        return point
    if not done:
        point.status = "timeout" if timeouts else "failed"
    elif point.median_s is None:
        point.status = "timeout"
    elif len(done) < len(point.instances):
        point.status = "partial"
    else:
        point.status = "ok"
    bad = [i for i in point.instances if i.status != "ok"]
    if bad and not point.note:
        kinds = sorted({i.status for i in bad})
        point.note = f"{len(bad)}/{len(point.instances)} instances {', '.join(kinds)}"
        if bad[0].detail:
            point.note += f" (e.g. {bad[0].detail})"
    return point


# --------------------------------------------------------------------------- ClosureBench


def _closure_config(category: str, n: int, seed: int) -> ClosureConfig:
    return ClosureConfig(split=CLOSURE_SPLIT, seed=seed, categories=(category,), n_min=n, n_max=n)


def _edges(record: Any) -> int:
    graphs = [record.graph, record.graph2]
    return sum(len(g.edges) for g in graphs if g is not None)


def _closure_instance(
    config: ClosureConfig, category: str, index: int, plan: StructurePlan, sink: dict[str, float]
) -> Instance:
    """Time one instance (index ``index`` of ``plan``); ``sink`` is the plan's timing dict."""
    sink.clear()
    t0 = time.perf_counter()
    try:
        record = generate_instance(config, category, index, timings=sink, plan=plan)
    except ClosureBenchError as exc:
        seconds = time.perf_counter() - t0
        found = _SOURCE_LIMIT.search(str(exc))
        status = "source_limit" if found else "error"
        chars = int(found.group(1)) if found else None
        return Instance(
            index, status, seconds, stages=dict(sink), ein_chars=chars, detail=_short(exc)
        )
    seconds = time.perf_counter() - t0
    return Instance(
        index,
        "ok",
        seconds,
        stages=dict(sink),
        ein_chars=len(record.programs["ein"]),
        edges=_edges(record),
    )


def _closure_memory(config: ClosureConfig, category: str, instances: Sequence[Instance]) -> None:
    """Second pass: the tracemalloc peak of each completed instance, on a fresh plan."""
    plan = StructurePlan(config)
    for inst in instances:
        if inst.status != "ok":
            # Keep the plan in step (draw r is computed before draw r + 1) untraced.
            with contextlib.suppress(ClosureBenchError):
                plan.draw(config.split, category, inst.index)
            continue
        _, inst.peak_mib = _traced(
            lambda i=inst: generate_instance(config, category, i.index, plan=plan)
        )


def _predicted_chars(done: Sequence[Point], n: int) -> float | None:
    """Ein program length at ``n``, extrapolated on log-log from the measured points."""
    pts = [
        (p.n, statistics.median(c))
        for p in done
        if (c := [i.ein_chars for i in p.instances if i.ein_chars is not None])
    ]
    pts = [(m, c) for m, c in pts if m >= 20] or pts
    if not pts:
        return None
    last_n, last_c = pts[-1]
    slope = fit_slope([m for m, _ in pts[-3:]], [c for _, c in pts[-3:]])
    return float(last_c) * (n / last_n) ** (slope if slope is not None else 2.0)


def _closure_curve(
    category: str,
    ns: Sequence[int],
    *,
    repeats: int,
    seed: int,
    max_n: int | None,
    max_instance_seconds: float,
    memory: bool,
    log: Callable[[str], None],
) -> list[Point]:
    from closurebench.ein import DEFAULT_LIMITS

    task = CLOSURE_TASKS[category]
    group = f"L{task.level}"
    limit = DEFAULT_LIMITS.max_source_chars
    points: list[Point] = []
    stopped: str | None = None
    warmed = False
    for n in ns:
        point = Point("closure", category, group, n, "skipped")
        points.append(point)
        if n < task.min_n:
            point.note = f"below the category's min_n = {task.min_n}"
        elif max_n is not None and n > max_n:
            point.note = f"above --max-n {max_n}"
        elif stopped is not None:
            point.note = stopped
        if point.note:
            log(f"closure {category} n={n}: skipped ({point.note})")
            continue
        predicted = _predicted_chars([p for p in points if p.known], n)
        if n > TESTED_MAX_N and predicted is not None and predicted > limit:
            point.note = (
                f"not workable: the Ein reference program would be ~{predicted:,.0f} "
                f"characters, over Ein's source limit of {limit:,} (closurebench categories)"
            )
            stopped = f"not workable above n = {n} (Ein source limit)"
            log(f"closure {category} n={n}: skipped ({point.note})")
            continue
        if not warmed:
            # Imports, caches and first-call costs; another seed, so nothing is reused.
            warm_seed = derive_seed(seed, "scaling", "warm-up") % 2**31
            generate_instance(_closure_config(category, n, warm_seed), category, 0)
            warmed = True
        config = _closure_config(category, n, seed)
        sink: dict[str, float] = {}
        plan = StructurePlan(config, sink)
        point.status = "running"
        for r in range(repeats):
            inst = _closure_instance(config, category, r, plan, sink)
            point.instances.append(inst)
            if inst.seconds > max_instance_seconds:
                point.status = "slow"
                point.note = (
                    f"instance #{r} took {inst.seconds:.1f} s > --max-instance-seconds "
                    f"{max_instance_seconds:g}: kept, curve stopped"
                )
                stopped = f"curve stopped after n = {n} (too slow)"
                break
        if all(i.status == "source_limit" for i in point.instances):
            chars = max(i.ein_chars or 0 for i in point.instances)
            point.note = (
                f"not workable: the Ein reference program is {chars:,} characters, over "
                f"Ein's source limit of {limit:,}"
            )
            stopped = f"not workable above n = {n} (Ein source limit)"
        if memory:
            _closure_memory(config, category, point.instances)
        _finish(point)
        log(_describe(point))
    return points


# --------------------------------------------------------------------------- GRIT


def _grit_instance(
    task_name: str, n: int, seed: int, index: int, time_limit: float, *, tag: str = "point"
) -> Instance:
    """Draw instance ``index`` and time its certified solve + verify under ``time_limit``."""
    task = GRIT_TASKS[task_name]
    lo, hi = DEFAULT_DENSITY
    stages = {"sample": 0.0, "solve": 0.0, "verify": 0.0}
    for attempt in range(GRIT_ATTEMPTS):
        g = rng(seed, "scaling", "grit", tag, task_name, n, index, "attempt", attempt)
        t0 = time.perf_counter()
        p = float(g.uniform(lo, hi)) if hi > lo else lo
        s = task.sample(g, n, p, directed_share=DEFAULT_DIRECTED_SHARE)
        t1 = time.perf_counter()
        stages["sample"] += t1 - t0
        try:
            solved = task.solve(s, time_limit=time_limit)
            t2 = time.perf_counter()
            stages["solve"] = t2 - t1
            left = time_limit - (t2 - t1)
            if left <= 0:
                raise SolverTimeout(task_name, time_limit, "no time left to verify")
            where = f"scaling {task_name} n={n} #{index} (attempt {attempt})"
            task.verify(s, solved, where=where, time_limit=left)
            stages["verify"] = time.perf_counter() - t2
        except Resample:
            continue
        except SolverTimeout as exc:
            seconds = time.perf_counter() - t1
            return Instance(
                index,
                "timeout",
                seconds,
                stages=stages,
                attempts=attempt + 1,
                edges=s.m,
                detail=_short(exc),
            )
        return Instance(
            index,
            "ok",
            stages["solve"] + stages["verify"],
            stages=stages,
            attempts=attempt + 1,
            edges=s.m,
        )
    return Instance(index, "error", 0.0, detail=f"no well-posed draw in {GRIT_ATTEMPTS} attempts")


def _grit_curve(
    task_name: str,
    ns: Sequence[int],
    *,
    repeats: int,
    seed: int,
    max_n: int | None,
    time_limit: float,
    memory: bool,
    log: Callable[[str], None],
) -> list[Point]:
    points: list[Point] = []
    stopped: str | None = None
    warmed = False
    for n in ns:
        point = Point("grit", task_name, "GRIT", n, "skipped")
        points.append(point)
        if max_n is not None and n > max_n:
            point.note = f"above --max-n {max_n}"
        elif stopped is not None:
            point.note = stopped
        if point.note:
            log(f"grit {task_name} n={n}: skipped ({point.note})")
            continue
        if not warmed:
            _grit_instance(task_name, n, seed, 0, time_limit, tag="warm-up")
            warmed = True
        point.status = "running"
        for r in range(repeats):
            point.instances.append(_grit_instance(task_name, n, seed, r, time_limit))
            timeouts = sum(i.status == "timeout" for i in point.instances)
            if 2 * timeouts >= repeats:
                point.note = (
                    f"{timeouts}/{len(point.instances)} instances timed out at "
                    f"{time_limit:g} s: the median is over the limit; "
                    f"{repeats - len(point.instances)} not run"
                )
                stopped = f"curve stopped after n = {n} (median over the time limit)"
                break
        if memory:
            for inst in point.instances:
                if inst.status != "ok":
                    continue
                budget = min(MEMORY_FACTOR * inst.seconds + MEMORY_SLACK_S, 2 * time_limit)
                again, inst.peak_mib = _traced(
                    lambda i=inst, b=budget, m=n: _grit_instance(task_name, m, seed, i.index, b)
                )
                if again.status != "ok":
                    inst.detail = f"memory pass: {again.status} (peak up to then)"
        _finish(point)
        log(_describe(point))
    return points


# --------------------------------------------------------------------------- driver


def _describe(p: Point) -> str:
    med = f"{p.median_s:.4f} s" if p.median_s is not None else "median unknown"
    mem = f", peak {p.median_peak_mib:.2f} MiB" if p.median_peak_mib is not None else ""
    ok = sum(i.status == "ok" for i in p.instances)
    note = f" - {p.note}" if p.note else ""
    return f"{p.suite} {p.curve} n={p.n}: {med}{mem} ({ok}/{len(p.instances)} ok){note}"


def measure(
    *,
    categories: Iterable[str] | None = None,
    tasks: Iterable[str] | None = None,
    closure_ns: Sequence[int] = CLOSURE_NS,
    grit_ns: Sequence[int] = GRIT_NS,
    repeats: int = 5,
    time_limit: float = 30.0,
    max_n: int | None = None,
    max_instance_seconds: float = 20.0,
    seed: int = 0,
    memory: bool = True,
    log: Callable[[str], None] | None = None,
) -> list[Point]:
    """Measure every requested curve; return its points in suite, curve, n order.

    Args:
        categories: ClosureBench categories (default: all, registry order; ``()``: none).
        tasks: GRIT tasks (default: all six; ``()``: none).
        closure_ns: ClosureBench sizes.
        grit_ns: GRIT sizes.
        repeats: Instances per point.
        time_limit: Seconds per GRIT instance (exact solve + verify together).
        max_n: Largest n of either suite (``None``: no cap).
        max_instance_seconds: A ClosureBench curve stops after an instance this slow.
        seed: Master seed of every instance.
        memory: Also run the tracemalloc pass.
        log: Told one line per point as it finishes.

    Raises:
        ValueError: for an unknown category or task, or ``repeats < 1``.
    """
    say = log or (lambda _line: None)
    cats = list(CLOSURE_TASKS) if categories is None else list(categories)
    grit = list(GRIT_TASKS) if tasks is None else list(tasks)
    unknown = [c for c in cats if c not in CLOSURE_TASKS] + [t for t in grit if t not in GRIT_TASKS]
    if unknown:
        raise ValueError(f"unknown categories/tasks {unknown}")
    if repeats < 1:
        raise ValueError(f"repeats={repeats} must be >= 1")
    points: list[Point] = []
    for category in cats:
        points += _closure_curve(
            category,
            sorted(closure_ns),
            repeats=repeats,
            seed=seed,
            max_n=max_n,
            max_instance_seconds=max_instance_seconds,
            memory=memory,
            log=say,
        )
    for task_name in grit:
        points += _grit_curve(
            task_name,
            sorted(grit_ns),
            repeats=repeats,
            seed=seed,
            max_n=max_n,
            time_limit=time_limit,
            memory=memory,
            log=say,
        )
    return points


def _curves(points: Iterable[Point]) -> dict[tuple[str, str], list[Point]]:
    out: dict[tuple[str, str], list[Point]] = {}
    for p in points:
        out.setdefault((p.suite, p.curve), []).append(p)
    return out


def summarise(points: Iterable[Point]) -> list[CurveSummary]:
    """One :class:`CurveSummary` per curve (slopes over the points with a known median)."""
    out = []
    for (suite, curve), pts in _curves(points).items():
        known = [p for p in pts if p.known]
        large = [p for p in known if p.n >= LARGE_FROM[suite]]
        mem = [p for p in known if p.median_peak_mib is not None]
        last = known[-1] if known else None
        dominant = None
        if last is not None and suite == "closure":
            medians = _stage_medians(last)
            if medians:
                dominant = max(medians, key=lambda s: medians[s])
        notes = [f"n={p.n}: {p.status}" + (f", {p.note}" if p.note else "") for p in pts if p.note]
        out.append(
            CurveSummary(
                suite=suite,
                curve=curve,
                group=pts[0].group,
                slope_time=fit_slope([p.n for p in known], [p.median_s for p in known]),
                slope_time_large=fit_slope([p.n for p in large], [p.median_s for p in large]),
                slope_memory=fit_slope([p.n for p in mem], [p.median_peak_mib for p in mem]),
                largest_n=last.n if last else None,
                peak_mib_largest=last.median_peak_mib if last else None,
                seconds_largest=last.median_s if last else None,
                dominant_stage=dominant,
                notes=notes,
            )
        )
    return out


def profile_closure(category: str, n: int, seed: int = 0, top: int = 12) -> str:
    """cProfile of one ClosureBench instance (index 0 of a fresh plan): top functions.

    Two tables: by own time (``tottime``) and by cumulative time; paths are shortened.
    """
    config = _closure_config(category, n, seed)
    prof = cProfile.Profile()
    prof.enable()
    try:
        generate_instance(config, category, 0)
    finally:
        prof.disable()
    text = []
    for key in ("tottime", "cumulative"):
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats(key).print_stats(top)
        body = buf.getvalue()
        body = body[body.find("   ncalls") :] if "   ncalls" in body else body
        text.append(f"sorted by {key}:\n{body.rstrip()}")
    total = pstats.Stats(prof).total_tt
    out = f"total {total:.2f} s under cProfile\n\n" + "\n\n".join(text)
    for root in sorted({str(Path(p).resolve()) for p in sys.path if p}, key=len, reverse=True):
        out = out.replace(root + os.sep, "")
    return out


# --------------------------------------------------------------------------- outputs


def _fmt_s(p: Point) -> str:
    if p.status == "skipped":
        return "skip"
    if p.median_s is None:
        return "t/o" if p.status == "timeout" else "fail"
    text = f"{p.median_s:.3g}"
    if p.status in ("partial", "slow"):
        text += "*"
    return text


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _table(summaries: Sequence[CurveSummary], points: Sequence[Point], suite: str) -> list[str]:
    ns = sorted({p.n for p in points if p.suite == suite})
    by = _curves(points)
    head = ["category" if suite == "closure" else "task"]
    head += ["level"] if suite == "closure" else []
    head += [f"n={n} s" for n in ns]
    head += ["peak MiB at largest n", "slope time", f"slope time ({_LARGE_LABEL[suite]})"]
    head += ["slope memory"]
    head += ["slowest stage at largest n"] if suite == "closure" else []
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in summaries:
        if s.suite != suite:
            continue
        at = {p.n: p for p in by[(suite, s.curve)]}
        cells = [s.curve] + ([s.group] if suite == "closure" else [])
        cells += [_fmt_s(at[n]) if n in at else "–" for n in ns]
        peak = f"{_fmt(s.peak_mib_largest)} (n={s.largest_n})" if s.largest_n else "–"
        cells += [peak, _fmt(s.slope_time), _fmt(s.slope_time_large), _fmt(s.slope_memory)]
        cells += [s.dominant_stage or "–"] if suite == "closure" else []
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _common_largest_n(points: Sequence[Point], suite: str) -> int | None:
    """The largest n at which at least half the suite's curves have a known median."""
    by = {k: v for k, v in _curves(points).items() if k[0] == suite}
    ns = sorted({p.n for pts in by.values() for p in pts if p.known}, reverse=True)
    for n in ns:
        if 2 * sum(any(p.n == n and p.known for p in pts) for pts in by.values()) >= len(by):
            return n
    return None


def _stage_medians(point: Point) -> dict[str, float]:
    """Median seconds per stage over the completed instances of a point.

    ``other`` is the rest of each instance's seconds (ClosureBench: record assembly and
    validation); GRIT's ``sample`` is outside its seconds, so it gets none.
    """
    done = [i for i in point.instances if i.status == "ok"]
    stages = sorted({k for i in done for k in i.stages})
    out = {k: statistics.median(i.stages.get(k, 0.0) for i in done) for k in stages}
    if done and point.suite == "closure":
        out["other"] = statistics.median(max(0.0, i.seconds - sum(i.stages.values())) for i in done)
    return out


def _notes(points: Sequence[Point]) -> list[str]:
    """Bullets for every point that was skipped, stopped or partial.

    Points skipped because the Ein program would be over the source limit are grouped
    per n (with each category's predicted length); the rest get one bullet each.
    """
    grouped: dict[int, list[str]] = {}
    lines = []
    for p in points:
        if not p.note:
            continue
        found = re.search(r"would be ~([\d,]+) characters", p.note)
        if p.status == "skipped" and found:
            chars = int(found.group(1).replace(",", ""))
            grouped.setdefault(p.n, []).append(f"`{p.curve}` ~{chars / 1e6:.1f}M")
        else:
            lines.append(f"- {p.suite} `{p.curve}` n = {p.n}: {p.status}: {p.note}")
    from closurebench.ein import DEFAULT_LIMITS

    limit = DEFAULT_LIMITS.max_source_chars
    head = [
        f"- closure n = {n}: skipped for {len(cats)} categories, not workable: their Ein "
        f"reference program (which spells out every edge) would be over Ein's source limit "
        f"of {limit:,} characters (`closurebench categories`); predicted from the lengths "
        f"at the smaller n: {', '.join(cats)} characters"
        for n, cats in sorted(grouped.items())
    ]
    return head + lines or ["None: every point ran all its instances."]


def _stage_table(points: Sequence[Point]) -> list[str]:
    """ClosureBench: median seconds per stage at the common largest n."""
    n = _common_largest_n(points, "closure")
    if n is None:
        return []
    rows = [p for p in points if p.suite == "closure" and p.n == n and p.known]
    stages = list(STAGES)
    lines = [
        f"### ClosureBench: median seconds per stage at n = {n}",
        "",
        "From the generator's `timings` hook: `sample` = drawing structures (the category's "
        "`sample` and the answer-stratum redraws), `solve` = graph core, `ein` = writing and "
        "running the Ein program, `python` = writing, compiling and running the Python + "
        "NetworkX program, `render` = the question text, `certify` = reading it back; "
        "`other` = the rest of the instance (record assembly and validation). Each column is "
        "a median over the instances, so the columns need not add up to the total.",
        "",
        "| category | " + " | ".join(stages) + " | other | total | edges (median) |",
        "|" + "---|" * (len(stages) + 4),
    ]
    for p in rows:
        med = _stage_medians(p)
        total = p.median_s or 0.0
        other = med.get("other", 0.0)
        edges = [i.edges for i in p.instances if i.status == "ok" and i.edges is not None]
        cells = [f"{med.get(k, 0.0):.3f}" for k in stages] + [f"{other:.3f}", f"{total:.3f}"]
        cells.append(f"{statistics.median(edges):,.0f}" if edges else "–")
        lines.append(f"| {p.curve} | " + " | ".join(cells) + " |")
    return lines


def render_markdown(result: dict[str, Any], analysis: str | None = None) -> str:
    """SCALING.md from a result (:func:`run`'s dict); ``analysis`` is the kept block."""
    meta = result["meta"]
    points = [_point_from(d) for d in result["points"]]
    summaries = [CurveSummary(**d) for d in result["curves"]]
    repeats = meta["repeats"]
    lines = [
        "## Scaling curves (`benchmarks/scaling.py`)",
        "",
        f"Reproduce: `{meta['command']}` ({meta['wall_s'] / 60:.1f} min wall time, "
        f"{meta['started']}).",
        "",
        f"Machine: {meta['machine']}; {meta['cpus']} cores, shared with other jobs "
        f"while this ran (load average {meta['load_before']} at the start, "
        f"{meta['load_after']} at the end), so single timings are noisy: every cell is the "
        f"median of {repeats} instance(s) per point (different seeded instances, "
        f"median seconds per instance). Python {meta['python']}, numpy {meta['numpy']}.",
        "",
        "Memory is the median **tracemalloc peak** per instance: the largest total of "
        "Python-heap allocations (numpy arrays included) made during the one-instance call "
        "and alive at once, measured in a second pass of the same instances (tracemalloc "
        "slows the code, so the timed pass runs without it). C/C++ allocations outside "
        "Python's allocator (HiGHS's internals) are not counted.",
        "",
        "Slopes are `numpy.polyfit` of log(median) on log(n) over the points whose median "
        f"is known; the large-n slope uses only {_LARGE_LABEL['closure']} (ClosureBench) / "
        f"{_LARGE_LABEL['grit']} (GRIT: above n = {CROSS_CHECK_MAX_N} vertex cover's verify "
        "no longer re-solves with the ILP, so smaller n run more code). "
        "Cells: median seconds; `*` = some instances of the point did not complete (see the "
        "notes); `skip` = not run (reason in the notes); `t/o` = half or more of the "
        "instances timed out, so the median is above the limit.",
        "",
        "### ClosureBench: one certified instance (sample, 3 routes, render, read back)",
        "",
        f"`generate_instance` on the `{CLOSURE_SPLIT}` split, n_min = n_max = n, density "
        "ρ 0.1–0.5 (drawn per instance), encodings `nl`.",
        "",
        *_table(summaries, points, "closure"),
        "",
        "### GRIT: certified exact solve + verify",
        "",
        f"Density p in {DEFAULT_DENSITY[0]}–{DEFAULT_DENSITY[1]} (TSP: complete graph on grid "
        f"points), time limit {meta['time_limit']:g} s per instance (solve and verify "
        f"together); sampling is not in the time. Verify: networkx or a checker for the "
        f"polynomial tasks; for colouring also the SAT method (CaDiCaL, a child process) at "
        f"every n; for vertex cover also the ILP up to n = {CROSS_CHECK_MAX_N}; for TSP "
        "Held-Karp up to n = 10.",
        "",
        *_table(summaries, points, "grit"),
        "",
        "### Skipped, stopped and partial points",
        "",
    ]
    lines += _notes(points)
    lines += ["", *_stage_table(points)]
    prof = result.get("profile")
    if prof:
        lines += [
            "",
            f"### cProfile of the worst ClosureBench offender: `{prof['category']}` at "
            f"n = {prof['n']}",
            "",
            prof.get("why", ""),
            "",
            "```text",
            prof["text"],
            "```",
        ]
    lines += [
        "",
        "### Analysis",
        "",
        _BEGIN,
        (analysis or "(Not written yet: add the analysis between these markers.)").strip(),
        _END,
        "",
    ]
    return "\n".join(lines)


def _point_from(d: dict[str, Any]) -> Point:
    d = dict(d)
    d["instances"] = [Instance(**i) for i in d["instances"]]
    return Point(**d)


def _plot(points: Sequence[Point], suite: str, metric: str, path: Path, time_limit: float) -> None:
    """One log-log figure: ClosureBench one panel per level, GRIT one panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    by = {k: v for k, v in _curves(points).items() if k[0] == suite}
    groups = sorted({pts[0].group for pts in by.values()})
    if not groups:
        return
    height = 4.2 * len(groups) + 0.6
    fig, axes = plt.subplots(len(groups), 1, figsize=(11, height), squeeze=False)
    colours = [*plt.get_cmap("tab10").colors, "black", "darkgoldenrod"]
    markers = "osD^v<>Pp*hX"
    is_time = metric == "time"
    ylabel = "median seconds per instance" if is_time else "median tracemalloc peak, MiB"
    ticks = sorted({p.n for pts in by.values() for p in pts})
    for ax, group in zip(axes[:, 0], groups, strict=True):
        curves = [(k[1], v) for k, v in by.items() if v[0].group == group]
        seen: list[tuple[int, float]] = []
        for k, (name, pts) in enumerate(curves):
            colour, marker = colours[k % len(colours)], markers[k % len(markers)]
            val = [(p.n, p.median_s if is_time else p.median_peak_mib) for p in pts]
            kept = [(n, float(v)) for n, v in val if v is not None and v > 0]
            xs, ys = [n for n, _ in kept], [v for _, v in kept]
            ax.plot(xs, ys, label=name, color=colour, marker=marker, linewidth=1.4, markersize=5)
            seen += kept
            over = [p.n for p in pts if p.status == "timeout"]
            if is_time and over:
                ax.scatter(over, [time_limit] * len(over), marker="x", s=70, color=colour)
                seen += [(n, time_limit) for n in over]
        if is_time and suite == "grit":
            ax.axhline(time_limit, color="grey", linestyle=":", linewidth=1)
            ax.annotate(
                f"time limit {time_limit:g} s (x: median timed out)",
                (ticks[0], time_limit * 1.15),
                fontsize=8,
                color="grey",
            )
        if seen:
            # Guides through the geometric mean at the smallest n: slopes 1, 2, 3.
            x0 = min(n for n, _ in seen)
            y0 = math.exp(statistics.fmean(math.log(v) for n, v in seen if n == x0))
            grid = np.array(sorted({n for n, _ in seen}), dtype=float)
            for power, dash in ((1, (1, 3)), (2, (4, 3)), (3, (8, 3))):
                guide = y0 * (grid / x0) ** power
                ax.plot(
                    grid,
                    guide,
                    color="0.6",
                    linewidth=0.8,
                    dashes=dash,
                    label=f"∝ n{'' if power == 1 else '²³'[power - 2]}",
                )
            values = [v for _, v in seen]
            ax.set_ylim(min(values) / 2, max(values) * 3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(t) for t in ticks])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("n (nodes)")
        ax.set_ylabel(ylabel)
        label = f"ClosureBench level {group[1:]}" if suite == "closure" else "GRIT"
        ax.set_title(f"{label}: {metric} per instance (log-log)")
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_outputs(result: dict[str, Any], out: Path, *, figures: bool = True) -> list[Path]:
    """Write the four figures (unless ``figures`` is false), ``scaling.json`` and ``SCALING.md``."""
    out.mkdir(parents=True, exist_ok=True)
    points = [_point_from(d) for d in result["points"]]
    tl = float(result["meta"]["time_limit"])
    written = []
    for suite, stem in (("closure", "closurebench"), ("grit", "grit")):
        for metric in ("time", "memory"):
            path = out / f"{stem}_{metric}.png"
            if figures and any(p.suite == suite for p in points):
                _plot(points, suite, metric, path, tl)
                written.append(path)
    (out / "scaling.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    written.append(out / "scaling.json")
    md = out / "SCALING.md"
    kept = None
    if md.exists():
        text = md.read_text(encoding="utf-8")
        if _BEGIN in text and _END in text:
            kept = text.split(_BEGIN, 1)[1].split(_END, 1)[0]
    md.write_text(render_markdown(result, kept), encoding="utf-8")
    written.append(md)
    return written


def _profile_worst(
    points: Sequence[Point], args: argparse.Namespace, log: Callable[[str], None]
) -> dict[str, Any] | None:
    """cProfile the worst ClosureBench offender (or ``--profile-target CATEGORY:N``).

    The worst offender is the category with the largest median seconds at the largest n
    most curves reached: every dense category's input grows as n², so the one far above
    the others there is the one doing extra work.
    """
    if args.profile_target:
        category, _, size = args.profile_target.partition(":")
        n, why = int(size), "Chosen with `--profile-target`."
    else:
        common = _common_largest_n(points, "closure")
        at = [p for p in points if p.suite == "closure" and p.n == common and p.known]
        if not at:
            return None
        worst = max(at, key=lambda p: p.median_s or 0.0)
        typical = statistics.median(p.median_s or 0.0 for p in at)
        category, n = worst.curve, worst.n
        why = (
            f"The slowest category at n = {n}: {worst.median_s:.2f} s per instance, "
            f"{(worst.median_s or 0.0) / typical:.1f}× the median category ({typical:.2f} s). "
            "One instance (index 0 of a fresh plan), whole `generate_instance` call."
        )
    log(f"profiling closure {category} at n={n}")
    return {
        "category": category,
        "n": n,
        "why": why,
        "text": profile_closure(category, n, args.seed),
    }


def run(
    args: argparse.Namespace, argv: Sequence[str], log: Callable[[str], None]
) -> dict[str, Any]:
    """Measure as ``args`` say; return the result dict (meta, points, curves, profile)."""
    started = dt.datetime.now().astimezone()
    load_before = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    t0 = time.perf_counter()
    points = measure(
        categories=args.categories,
        tasks=args.tasks,
        closure_ns=args.closure_n,
        grit_ns=args.grit_n,
        repeats=args.repeats,
        time_limit=args.time_limit,
        max_n=args.max_n,
        max_instance_seconds=args.max_instance_seconds,
        seed=args.seed,
        memory=not args.no_memory,
        log=log,
    )
    summaries = summarise(points)
    profile = _profile_worst(points, args, log) if args.profile else None
    wall = time.perf_counter() - t0
    return {
        "meta": {
            "command": " ".join(
                ["uv run --no-sync python benchmarks/scaling.py", *map(shlex.quote, argv)]
            ),
            "started": started.isoformat(timespec="seconds"),
            "wall_s": round(wall, 1),
            "repeats": args.repeats,
            "time_limit": args.time_limit,
            "max_instance_seconds": args.max_instance_seconds,
            "max_n": args.max_n,
            "seed": args.seed,
            "closure_ns": list(args.closure_n),
            "grit_ns": list(args.grit_n),
            "closure_split": CLOSURE_SPLIT,
            "grit_density": list(DEFAULT_DENSITY),
            "memory": "tracemalloc peak per one-instance call (Python heap incl. numpy), MiB",
            "machine": _machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "load_before": load_before,
            "load_after": ", ".join(f"{x:.1f}" for x in os.getloadavg()),
        },
        "points": [asdict(p) for p in points],
        "curves": [asdict(s) for s in summaries],
        "profile": profile,
    }


def _machine() -> str:
    """OS, architecture and CPU model (from ``/proc/cpuinfo`` where there is one)."""
    model = platform.processor() or "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{platform.system()} {platform.machine()}, {model}"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ap.add_argument("--quick", action="store_true", help="few n, 1 repeat, no profile")
    ap.add_argument("--repeats", type=int, default=None, help="instances per point (default 5)")
    ap.add_argument("--time-limit", type=float, default=30.0, help="seconds per GRIT instance")
    ap.add_argument("--max-n", type=int, default=None, help="largest n of either suite")
    ap.add_argument(
        "--max-instance-seconds",
        type=float,
        default=20.0,
        help="a ClosureBench curve stops after an instance this slow (it is kept)",
    )
    ap.add_argument("--closure-n", type=int, nargs="+", default=None, help="ClosureBench sizes")
    ap.add_argument("--grit-n", type=int, nargs="+", default=None, help="GRIT sizes")
    ap.add_argument("--categories", nargs="*", default=None, help="default: all 26")
    ap.add_argument("--tasks", nargs="*", default=None, help="GRIT tasks (default: all 6)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc pass")
    ap.add_argument(
        "--no-profile", dest="profile", action="store_false", help="skip the cProfile run"
    )
    ap.add_argument(
        "--profile-target",
        default=None,
        metavar="CATEGORY:N",
        help="profile this ClosureBench point instead of the slowest one",
    )
    ap.add_argument(
        "--render-only",
        action="store_true",
        help="measure nothing: redraw the figures and SCALING.md from OUT/scaling.json "
        "(and profile again unless --no-profile)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"output folder (default {_DEFAULT_OUT}; --quick: write nothing unless given)",
    )
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, measure, write the outputs and print SCALING.md."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    if args.repeats is None:
        args.repeats = 1 if args.quick else 5
    if args.closure_n is None:
        args.closure_n = list(QUICK_CLOSURE_NS if args.quick else CLOSURE_NS)
    if args.grit_n is None:
        args.grit_n = list(QUICK_GRIT_NS if args.quick else GRIT_NS)
    if args.quick:
        args.profile = False
    out = args.out if args.out is not None or args.quick else _DEFAULT_OUT

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    if args.render_only:
        out = args.out or _DEFAULT_OUT
        result = json.loads((out / "scaling.json").read_text(encoding="utf-8"))
        points = [_point_from(d) for d in result["points"]]
        result["curves"] = [asdict(c) for c in summarise(points)]
        if args.profile:
            result["profile"] = _profile_worst(points, args, log)
    else:
        result = run(args, argv, log)
    if out is not None:
        for path in write_outputs(result, out):
            log(f"wrote {path}")
        print((out / "SCALING.md").read_text(encoding="utf-8"))
    else:
        print(render_markdown(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
