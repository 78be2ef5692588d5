"""Side by side with peer libraries, one run on one machine (issue 14, part 3).

Usage::

    uv run --group bench python benchmarks/side_by_side.py \\
        [--parts gen,closure,exact,harness] [--quick]

The peer libraries come from the optional ``bench`` dependency group (reasoning-gym,
rustworkx, OR-Tools, inspect_ai); a peer that is not installed gives a "not installed"
row instead of a crash. Four comparisons, each skippable with ``--parts``:

1. ``gen`` — verified ClosureBench generation (the heldout split through
   :func:`closurebench.generate.closure.generate_records`, all checks on: three solving
   routes per instance and the reader reading every question back; and the same items
   through the reasoning-gym-shaped :func:`closurebench.dataset.create_dataset`) against
   reasoning-gym's graph datasets (``reasoning_gym/graphs``). Every side generates the
   same number of items and scores each item's own answer with its own ``score_answer``;
   items per second, median over ``--gen-repeats`` runs in this process (imports and a
   warm-up excluded). reasoning-gym's answers are computed once, by the generator that
   wrote the question; ClosureBench's are computed three ways and the question is
   certified by an independent reader.
2. ``closure`` — strict transitive closure of a random digraph (expected out-degree 10,
   seeded with :func:`closurebench.seeding.rng`) and of a random DAG (same out-degree) at
   n = 1,000 and 5,000: the graph core's ``tc`` (CSR input), the whole Ein program
   ``A = edges(...); T = tc(A)`` (literal parsing included), rustworkx (``descendants`` of
   every node written into a boolean matrix, and the Rust all-pairs BFS
   ``digraph_distance_matrix``; strongly connected components give the diagonal, since
   neither counts a node as its own descendant), and networkx (``transitive_closure``, or
   ``transitive_closure_dag`` on the DAG) in a fresh process capped at ``--nx-cap``
   seconds and ``--nx-mem-gib`` of address space. Every result is checked against the
   core's. rustworkx 0.18 has no Python ``transitive_closure_dag`` (it lives in the Rust
   crate only), so the DAG uses the same two rustworkx routes.
3. ``exact`` — TSP, minimum vertex cover and chromatic number, the certified solvers of
   :mod:`closurebench.graphs.exact` against OR-Tools CP-SAT (``--cpsat-workers`` workers,
   ``--time-limit`` seconds, the same limit for both sides; an unproven call counts as the
   limit) at n = 40 and 60, ``--instances`` instances per cell, on the instance families
   of ``benchmarks/bench_exact.py`` (its seeds, so its first instances): grid TSP, ER with
   p ~ U[0.1, 0.3] for vertex cover, ER p = 0.3 and 0.5 for colouring. Where both prove
   optimality the optima must agree.
4. ``harness`` — this project's evaluation harness (``run_eval``, direct mode, the real
   ``openai`` client) against inspect_ai (``eval`` of a ``Task`` with the same questions,
   ``generate()`` and the ``includes()`` scorer, model ``openai-api/bench/bench``) over
   the same loopback OpenAI-compatible server (a raw asyncio HTTP/1.1 server in its own
   process that answers every chat completion at once and counts requests), the same
   concurrency, ``--harness-n`` instances; each run in a fresh interpreter (spawn), whose
   peak resident set (``VmHWM``; ``ru_maxrss`` would include the parent's size, which
   Linux carries across ``exec``) is that side's memory. Requests per second over the
   whole ``run_eval`` / ``eval`` call (no warm-up on either side).

Markdown goes to stdout and to ``--out``.md, raw numbers to ``--out``.json (default
``benchmarks/side_by_side``; ``--quick`` writes no files unless ``--out`` is given).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import importlib.metadata
import importlib.util
import json
import math
import multiprocessing as mp
import os
import platform
import resource
import shutil
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from closurebench.seeding import rng

# The same instances and the same canned reply as the single-project benchmarks (this
# script runs from benchmarks/, which is then first on sys.path).
from bench_exact import er_graph, grid_tsp  # isort: skip
from bench_harness import _serve  # isort: skip

HERE = Path(__file__).resolve().parent
PARTS = ("gen", "closure", "exact", "harness")
NOT_INSTALLED = "not installed"

#: reasoning-gym's graph family (``reasoning_gym/graphs/__init__.py``, 0.1.25).
RG_GRAPH_DATASETS = (
    "family_relationships",
    "shortest_path",
    "largest_island",
    "course_schedule",
    "quantum_lock",
    "path_star",
)


# --------------------------------------------------------------------------- helpers


def have(module: str) -> bool:
    """Whether ``module`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def version(dist: str) -> str:
    """Installed version of distribution ``dist``, or "not installed"."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return NOT_INSTALLED


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Wall seconds of one call of ``fn`` and its result."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, list[float], Any]:
    """Median wall seconds over ``repeats`` calls, all times and the last result."""
    times: list[float] = []
    out: Any = None
    for _ in range(max(1, repeats)):
        t, out = timed(fn)
        times.append(t)
    return statistics.median(times), times, out


def table(head: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> list[str]:
    """A Markdown table; ``align`` holds one ``l``/``r`` per column (default left)."""
    spec = align or "l" * len(head)
    sep = ["---:" if a == "r" else "---" for a in spec]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(sep) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


def ms(seconds: float | None) -> str:
    """Seconds as milliseconds text ("–" for None)."""
    return "–" if seconds is None else f"{seconds * 1e3:,.1f}"


def ratio(a: float | None, b: float | None, lower_bound: bool = False) -> str:
    """``a / b`` as text like ``12.3×``; ``> x×`` when ``a`` is only a lower bound."""
    if a is None or b is None or b <= 0:
        return "–"
    r = a / b
    text = f"{r:,.0f}×" if r >= 100 else f"{r:,.2f}×" if r < 10 else f"{r:,.1f}×"
    return ("> " if lower_bound else "") + text


def peak_rss_mib() -> float:
    """Peak resident set size of this process image so far, MiB.

    ``VmHWM`` from ``/proc/self/status``: unlike ``ru_maxrss``, which Linux carries
    across ``execve`` (a spawned child would report at least its parent's size at the
    fork), it covers only the memory of the running program. Falls back to ``ru_maxrss``
    where ``/proc`` is missing.
    """
    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load_average() -> str:
    """The 1/5/15-minute load averages as text."""
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def limit_address_space(extra_gib: float) -> None:
    """Cap this process's address space at its current size plus ``extra_gib`` GiB."""
    vm_kib = 0
    with contextlib.suppress(OSError), open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                vm_kib = int(line.split()[1])
    cap = vm_kib * 1024 + int(extra_gib * 2**30)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


# --------------------------------------------------------------------------- 1. generation


def _time_ours_split(count: int, repeats: int) -> dict[str, Any]:
    from closurebench.dataset import score_answer
    from closurebench.generate.closure import ClosureConfig, generate_records

    def run() -> float:
        records = generate_records(ClosureConfig(split="heldout", seed=0, count=count))
        total = 0.0
        for r in records:
            total += score_answer(json.dumps(r.answer, ensure_ascii=False, sort_keys=True), r)
        if len(records) != count:
            raise SystemExit(f"generated {len(records)} records, wanted {count}")
        return total / len(records)

    run_warm = generate_records(ClosureConfig(split="heldout", seed=1, count=26))
    del run_warm
    med, times, score = median_time(run, repeats)
    return {"seconds": times, "median_s": med, "items": count, "self_score": score}


def _time_ours_dataset(count: int, repeats: int) -> dict[str, Any]:
    from closurebench.dataset import create_dataset

    def run() -> float:
        ds = create_dataset("closure", seed=0, size=count, split="heldout")
        total = 0.0
        for i in range(len(ds)):
            item = ds[i]
            total += ds.score_answer(item["answer"], item)
        return total / count

    med, times, score = median_time(run, repeats)
    return {"seconds": times, "median_s": med, "items": count, "self_score": score}


def _time_rg(name: str, count: int, repeats: int) -> dict[str, Any]:
    import reasoning_gym

    def run() -> float:
        ds = reasoning_gym.create_dataset(name, size=count, seed=0)
        total = 0.0
        for i in range(count):
            item = ds[i]
            total += float(ds.score_answer(item["answer"], item))
        return total / count

    warm = reasoning_gym.create_dataset(name, size=5, seed=1)
    for i in range(5):
        warm.score_answer(warm[i]["answer"], warm[i])
    med, times, score = median_time(run, repeats)
    return {"seconds": times, "median_s": med, "items": count, "self_score": score}


def part_gen(args: argparse.Namespace) -> dict[str, Any]:
    """Items per second: ClosureBench verified generation vs reasoning-gym graph datasets."""
    count, repeats = args.gen_count, args.gen_repeats
    rows: list[dict[str, Any]] = []
    print(f"[gen] ClosureBench heldout, {count} items x {repeats}", file=sys.stderr, flush=True)
    ours = _time_ours_split(count, repeats)
    ours.update(name="ClosureBench heldout (generate_records)", library="closurebench")
    rows.append(ours)
    print(f"[gen]   {count / ours['median_s']:.0f} items/s", file=sys.stderr, flush=True)
    ds = _time_ours_dataset(count, repeats)
    ds.update(
        name="ClosureBench create_dataset('closure', split='heldout')", library="closurebench"
    )
    rows.append(ds)
    print(f"[gen]   dataset API {count / ds['median_s']:.0f} items/s", file=sys.stderr, flush=True)
    rg_ok = have("reasoning_gym")
    import_s = None
    if rg_ok:
        import_s, _ = timed(lambda: __import__("reasoning_gym"))
    for name in RG_GRAPH_DATASETS:
        if not rg_ok:
            rows.append(
                {
                    "name": f"reasoning-gym {name}",
                    "library": "reasoning_gym",
                    "error": NOT_INSTALLED,
                }
            )
            continue
        print(f"[gen] reasoning-gym {name}", file=sys.stderr, flush=True)
        try:
            r = _time_rg(name, count, repeats)
        except Exception as exc:  # a dataset missing from this version, or broken
            rows.append(
                {"name": f"reasoning-gym {name}", "library": "reasoning_gym", "error": repr(exc)}
            )
            continue
        r.update(name=f"reasoning-gym {name}", library="reasoning_gym")
        rows.append(r)
    for r in rows:
        if "median_s" in r:
            r["items_per_s"] = r["items"] / r["median_s"]
    base = rows[0]["items_per_s"]
    md = [
        "## 1. Generation: verified ClosureBench vs reasoning-gym graph datasets",
        "",
        f"{count:,} items per generator (ClosureBench: the heldout split, seed 0, all 26 "
        f"categories; reasoning-gym: `create_dataset(name, size={count}, seed=0)` with default "
        "configs), each item generated and then scored with the generator's own "
        f"`score_answer` on its own answer; median of {repeats} run(s) in one process, imports "
        "and a warm-up excluded"
        + (f" (reasoning-gym's import took {import_s:.1f} s)." if import_s else "."),
        "",
    ]
    body = []
    for r in rows:
        if "error" in r:
            body.append([r["name"], "–", "–", "–", "–", r["error"]])
            continue
        ips = r["items_per_s"]
        body.append(
            [
                r["name"],
                f"{r['median_s']:.2f}",
                f"{ips:,.0f}",
                f"{r['self_score']:.3f}",
                "yes: 3 routes + reader" if r["library"] == "closurebench" else "no",
                ratio(ips, base),
            ]
        )
    md += table(
        [
            "generator",
            "median s",
            "items/s",
            "self-score",
            "independently verified",
            "items/s ÷ ClosureBench split",
        ],
        body,
        "lrrrlr",
    )
    md += [
        "",
        "**Not like for like.** A reasoning-gym item's answer is computed once, by the same code "
        "that wrote the question, and `score_answer` compares a reply with that string; nothing "
        "checks the answer independently. Every ClosureBench item is triple-checked: the answer "
        "is computed by the graph-core solver, by an Ein program and by a Python/networkx "
        "program, which must agree, and the independent reader parses the rendered question "
        "back and must recover the same structure (plus seeded rejection sampling, the 40 % "
        "modal-answer cap and split-disjointness checks). The self-score column is the mean of "
        "`score_answer(item's answer, item)`: 1.000 means each generator accepts its own answers.",
        "",
    ]
    return {"rows": rows, "markdown": md}


# --------------------------------------------------------------------------- 2. closure


def _closure_graph(n: int, deg: int, kind: str) -> Any:
    """Seeded ER digraph (``general``) or DAG with expected out-degree ``deg``."""
    from closurebench.graphs import Graph, erdos_renyi_out_degree

    if kind == "general":
        return erdos_renyi_out_degree(rng(0, "side-by-side", "closure", n, deg), n, deg)
    und = erdos_renyi_out_degree(
        rng(0, "side-by-side", "closure-dag", n, deg), n, 2 * deg, directed=False
    )
    pos = rng(0, "side-by-side", "closure-dag-order", n, deg).permutation(n)
    e = np.asarray(und.edges, dtype=np.int64).reshape(-1, 2)
    flip = pos[e[:, 0]] > pos[e[:, 1]]
    e[flip] = e[flip][:, ::-1]
    return Graph(n, [(int(u), int(v)) for u, v in e.tolist()])


def _nx_child(n: int, edges: list[tuple[int, int]], dag: bool, mem_gib: float, conn: Any) -> None:
    import networkx as nx

    limit_address_space(mem_gib)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    conn.send("ready")
    try:
        t0 = time.perf_counter()
        c = nx.transitive_closure_dag(g) if dag else nx.transitive_closure(g, reflexive=False)
        elapsed = time.perf_counter() - t0
        conn.send(("ok", elapsed, c.number_of_edges()))
    except MemoryError:
        conn.send(("memory", None, None))
    conn.close()


def _time_networkx(
    n: int, edges: list[tuple[int, int]], dag: bool, cap: float, mem_gib: float
) -> dict[str, Any]:
    """networkx's closure in a fresh process; graph building is not timed."""
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_nx_child, args=(n, edges, dag, mem_gib, child))
    proc.start()
    child.close()
    try:
        if not parent.poll(120) or parent.recv() != "ready":
            return {"status": "failed to start"}
        if not parent.poll(cap):
            return {"status": "cap", "seconds": None}
        status, elapsed, pairs = parent.recv()
        return {"status": status, "seconds": elapsed, "pairs": pairs}
    except EOFError:
        return {"status": "crashed (likely out of memory)", "seconds": None}
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()


def _rx_graph(n: int, edges: list[tuple[int, int]]) -> Any:
    import rustworkx as rx

    g = rx.PyDiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from_no_data(edges)
    return g


def _rx_diagonal(g: Any, n: int) -> np.ndarray:
    """Nodes on a cycle (an SCC of two or more nodes, or a self-loop)."""
    import rustworkx as rx

    diag = np.zeros(n, dtype=bool)
    for comp in rx.strongly_connected_components(g):
        if len(comp) > 1:
            diag[list(comp)] = True
    for u, v in g.edge_list():
        if u == v:
            diag[u] = True
    return diag


def _rx_descendants(g: Any, n: int) -> np.ndarray:
    import rustworkx as rx

    out = np.zeros((n, n), dtype=bool)
    for i in range(n):
        d = rx.descendants(g, i)
        if d:
            out[i, np.fromiter(d, dtype=np.intp, count=len(d))] = True
    idx = np.flatnonzero(_rx_diagonal(g, n))
    out[idx, idx] = True
    return out


def _rx_distance(g: Any, n: int) -> np.ndarray:
    import rustworkx as rx

    out = rx.digraph_distance_matrix(g) > 0
    idx = np.flatnonzero(_rx_diagonal(g, n))
    out[idx, idx] = True
    return out


def part_closure(args: argparse.Namespace) -> dict[str, Any]:
    """Transitive closure: graph core and Ein vs rustworkx and networkx."""
    from closurebench import ein
    from closurebench.ein.limits import Limits
    from closurebench.graphs import tc, to_scipy_sparse

    limits = Limits(
        max_elements=3 * 10**7,
        max_source_chars=10**7,
        max_live_bytes=4 * 2**30,
        max_seconds=math.inf,
    )
    rx_ok, nx_ok = have("rustworkx"), have("networkx")
    rows: list[dict[str, Any]] = []
    deg = args.out_degree
    slow_reps = max(1, args.repeats // 2 + 1)  # Ein and rustworkx: seconds per call at n = 5,000
    for n in args.closure_sizes:
        for kind in ("general", "dag"):
            g = _closure_graph(n, deg, kind)
            edges = [(int(u), int(v)) for u, v in g.edges]
            print(f"[closure] n={n} {kind}: {len(edges)} edges", file=sys.stderr, flush=True)
            csr = to_scipy_sparse(g, weighted=False)
            ref = tc(csr)
            row: dict[str, Any] = {
                "n": n,
                "graph": kind,
                "out_degree": deg,
                "edges": len(edges),
                "pairs": int(ref.sum()),
            }
            row["core_s"], row["core_times"], _ = median_time(lambda c=csr: tc(c), args.repeats)
            literal = ",".join(f"[{u},{v}]" for u, v in edges)
            program = f"A = edges([{literal}], {n})\nT = tc(A)\n"
            res = ein.run(program, limits=limits)
            if not np.array_equal(np.asarray(res.value).astype(bool), ref):
                raise SystemExit(f"Ein tc disagrees with the core at n={n} ({kind})")
            del res
            row["ein_s"], row["ein_times"], _ = median_time(
                lambda p=program: ein.run(p, limits=limits), slow_reps
            )
            if rx_ok:
                rg = _rx_graph(n, edges)
                for key, fn in (("rx_desc", _rx_descendants), ("rx_dist", _rx_distance)):
                    med, times, out = median_time(lambda f=fn, x=rg, k=n: f(x, k), slow_reps)
                    if not np.array_equal(out, ref):
                        raise SystemExit(f"rustworkx {key} disagrees with the core at n={n}")
                    row[f"{key}_s"], row[f"{key}_times"] = med, times
                    del out
            else:
                row["rx_desc_s"] = row["rx_dist_s"] = None
                row["rx_error"] = NOT_INSTALLED
            if nx_ok:
                print(f"[closure]   networkx (cap {args.nx_cap:g} s)", file=sys.stderr, flush=True)
                nxr = _time_networkx(n, edges, kind == "dag", args.nx_cap, args.nx_mem_gib)
                if nxr.get("pairs") is not None and nxr["pairs"] != row["pairs"]:
                    raise SystemExit(f"networkx disagrees with the core at n={n} ({kind})")
                row["nx"] = nxr
            else:
                row["nx"] = {"status": NOT_INSTALLED}
            rows.append(row)
            print(
                f"[closure]   core {ms(row['core_s'])} ms, Ein {ms(row['ein_s'])} ms, "
                f"rx {ms(row.get('rx_desc_s'))} / {ms(row.get('rx_dist_s'))} ms, nx {row['nx']}",
                file=sys.stderr,
                flush=True,
            )
    return {"rows": rows, "markdown": _closure_markdown(rows, args)}


def _nx_text(row: dict[str, Any], cap: float) -> tuple[str, float | None, bool]:
    """networkx cell text, the seconds to use in ratios, and whether that is a lower bound."""
    nxr = row["nx"]
    status = nxr.get("status")
    if status == "ok":
        return f"{nxr['seconds']:.2f}", nxr["seconds"], False
    if status == "cap":
        return f"> {cap:g} (cap)", cap, True
    if status == "memory":
        return "out of memory (cap)", None, False
    return str(status), None, False


def _closure_markdown(rows: list[dict[str, Any]], args: argparse.Namespace) -> list[str]:
    md = [
        "## 2. Transitive closure: graph core and Ein vs rustworkx and networkx",
        "",
        f"Random digraphs with expected out-degree {args.out_degree} "
        "(`erdos_renyi_out_degree`, seeded with `closurebench.seeding.rng`; *general* may have "
        "cycles, *dag* orients an undirected ER graph of expected degree "
        f"{2 * args.out_degree} along a seeded random order). Strict closure (a node "
        "reaches itself only through a cycle), every result checked equal to the core's. "
        f"Median of {args.repeats} runs in this process for the core, "
        f"{max(1, args.repeats // 2 + 1)} for Ein and rustworkx; input structures built "
        "beforehand and not timed; networkx once, in a fresh process, capped at "
        f"{args.nx_cap:g} s and {args.nx_mem_gib:g} GiB.",
        "",
        "* **core**: `closurebench.graphs.tc` on a CSR adjacency (SCC condensation, bitset "
        "propagation, n × n bool matrix out); one thread.",
        "* **Ein program**: `ein.run('A = edges([[u,v],...], n)\\nT = tc(A)')`, parsing the "
        "edge-list literal included (float64 n × n result).",
        "* **rustworkx descendants**: `rustworkx.descendants(g, i)` for every node, each set "
        "written into an n × n bool matrix, plus `strongly_connected_components` for the "
        "diagonal; n Rust BFS calls driven from Python.",
        "* **rustworkx distance matrix**: `rustworkx.digraph_distance_matrix(g) > 0` (all-pairs "
        "BFS in Rust, parallel over rayon threads, i.e. both cores here) plus the SCC diagonal. "
        "rustworkx 0.18.1 exposes no `transitive_closure_dag` in Python (only the Rust "
        "`rustworkx-core` crate has it), so the DAG rows use the same two routes.",
        "* **networkx**: `nx.transitive_closure(G, reflexive=False)` on *general*, "
        "`nx.transitive_closure_dag(G)` on *dag* (its faster DAG-only variant); result is an "
        "`nx.DiGraph`, its edge count checked.",
        "",
    ]
    body = []
    for r in rows:
        nx_txt, _, _ = _nx_text(r, args.nx_cap)
        body.append(
            [
                f"{r['n']:,}",
                r["graph"],
                f"{r['edges']:,}",
                f"{r['pairs']:,}",
                ms(r["core_s"]),
                ms(r["ein_s"]),
                ms(r.get("rx_desc_s")) if r.get("rx_error") is None else NOT_INSTALLED,
                ms(r.get("rx_dist_s")) if r.get("rx_error") is None else NOT_INSTALLED,
                nx_txt,
            ]
        )
    md += table(
        [
            "n",
            "graph",
            "edges",
            "closure pairs",
            "core ms",
            "Ein program ms",
            "rustworkx descendants ms",
            "rustworkx distance matrix ms",
            "networkx s",
        ],
        body,
        "rlrrrrrrr",
    )
    md += ["", "Ratios (peer time ÷ ours; > 1 means ours is faster):", ""]
    body = []
    for r in rows:
        _, nx_s, lb = _nx_text(r, args.nx_cap)
        body.append(
            [
                f"{r['n']:,}",
                r["graph"],
                ratio(r["ein_s"], r["core_s"]),
                ratio(r.get("rx_desc_s"), r["core_s"]),
                ratio(r.get("rx_dist_s"), r["core_s"]),
                ratio(nx_s, r["core_s"], lb),
                ratio(r.get("rx_dist_s"), r["ein_s"]),
                ratio(nx_s, r["ein_s"], lb),
            ]
        )
    md += table(
        [
            "n",
            "graph",
            "Ein program ÷ core",
            "rx descendants ÷ core",
            "rx distance matrix ÷ core",
            "networkx ÷ core",
            "rx distance matrix ÷ Ein program",
            "networkx ÷ Ein program",
        ],
        body,
        "rlrrrrrr",
    )
    md.append("")
    return md


# --------------------------------------------------------------------------- 3. exact

Edges = list[tuple[int, int, int]]


def _cpsat_solve(model: Any, time_limit: float, workers: int) -> tuple[bool, int | None]:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.max_time_in_seconds = time_limit
    status = solver.solve(model)
    if status == cp_model.OPTIMAL:
        return True, round(solver.objective_value)
    if status == cp_model.FEASIBLE:
        return False, round(solver.objective_value)
    return False, None


def cpsat_tsp(w: np.ndarray, time_limit: float, workers: int) -> tuple[bool, int | None]:
    """CP-SAT: one Boolean per arc, ``AddCircuit``, minimise the tour length."""
    from ortools.sat.python import cp_model

    n = len(w)
    m = cp_model.CpModel()
    arcs, lits, coefs = [], [], []
    for i in range(n):
        for j in range(n):
            if i != j:
                lit = m.new_bool_var(f"a{i}_{j}")
                arcs.append((i, j, lit))
                lits.append(lit)
                coefs.append(int(w[i][j]))
    m.add_circuit(arcs)
    m.minimize(cp_model.LinearExpr.weighted_sum(lits, coefs))
    return _cpsat_solve(m, time_limit, workers)


def cpsat_cover(n: int, edges: Edges, time_limit: float, workers: int) -> tuple[bool, int | None]:
    """CP-SAT: x_u or x_v for every edge, minimise the number of chosen nodes."""
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    x = [m.new_bool_var(f"x{v}") for v in range(n)]
    for u, v, _ in edges:
        m.add_bool_or([x[u], x[v]])
    m.minimize(cp_model.LinearExpr.sum(x))
    return _cpsat_solve(m, time_limit, workers)


def _greedy_clique(n: int, adj: list[set[int]]) -> list[int]:
    """A clique grown greedily by degree (a lower bound and a symmetry anchor)."""
    order = sorted(range(n), key=lambda v: -len(adj[v]))
    clique: list[int] = []
    for v in order:
        if all(v in adj[u] for u in clique):
            clique.append(v)
    return clique


def cpsat_colouring(
    n: int, edges: Edges, time_limit: float, workers: int
) -> tuple[bool, int | None]:
    """CP-SAT: the symmetry-broken assignment model (as the HiGHS ILP of ``coloring.py``).

    ``x[v, c]``, ``y[c]`` for ``c < H`` (H = networkx's DSATUR greedy colouring); a greedy
    clique takes colours ``0..omega-1`` and comes first in the vertex order; the vertex at
    position p may only take colours ``<= p``; ``y[c] >= y[c+1]``; ``sum y >= omega``. The
    bounds are computed here with networkx and a greedy clique (no closurebench code).
    """
    import networkx as nx
    from ortools.sat.python import cp_model

    adj: list[set[int]] = [set() for _ in range(n)]
    for u, v, _ in edges:
        adj[u].add(v)
        adj[v].add(u)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((u, v) for u, v, _ in edges)
    h = max(nx.greedy_color(g, strategy="DSATUR").values()) + 1
    clique = _greedy_clique(n, adj)
    members = set(clique)
    order = clique + [v for v in range(n) if v not in members]
    pos = {v: p for p, v in enumerate(order)}
    m = cp_model.CpModel()
    y = [m.new_bool_var(f"y{c}") for c in range(h)]
    x = [[m.new_bool_var(f"x{v}_{c}") for c in range(min(h, pos[v] + 1))] for v in range(n)]
    for v in range(n):
        m.add_exactly_one(x[v])
        for c, lit in enumerate(x[v]):
            m.add_implication(lit, y[c])
    for c, v in enumerate(clique):
        m.add(x[v][c] == 1)
    for u, v, _ in edges:
        for c in range(min(len(x[u]), len(x[v]))):
            m.add_at_most_one([x[u][c], x[v][c]])
    for c in range(h - 1):
        m.add_implication(y[c + 1], y[c])
    m.add(cp_model.LinearExpr.sum(y) >= len(clique))
    m.minimize(cp_model.LinearExpr.sum(y))
    return _cpsat_solve(m, time_limit, workers)


def _ours(task: str, inst: Any, n: int, tl: float) -> tuple[bool, int | None]:
    from closurebench.graphs.exact import SolverTimeout, chromatic_number, tsp, vertex_cover

    try:
        if task == "TSP":
            return True, int(tsp(inst, time_limit=tl).cost)
        if task == "vertex cover":
            return True, int(vertex_cover(n, inst, time_limit=tl).size)
        return True, int(chromatic_number(n, inst, time_limit=tl).value)
    except SolverTimeout:
        return False, None


def _cpsat(task: str, inst: Any, n: int, tl: float, workers: int) -> tuple[bool, int | None]:
    if task == "TSP":
        return cpsat_tsp(inst, tl, workers)
    if task == "vertex cover":
        return cpsat_cover(n, inst, tl, workers)
    return cpsat_colouring(n, inst, tl, workers)


EXACT_CELLS: tuple[tuple[str, str, str, str], ...] = (
    # task, family label, er_graph density (or "tsp"), our method
    ("TSP", "grid 100 × 100, rounded Euclidean", "tsp", "HiGHS + DFJ cuts + rc fixing"),
    ("vertex cover", "ER p ~ U[0.1, 0.3]", "grit", "max-clique B&B on the complement"),
    ("colouring", "ER p = 0.3", "0.3", "DSATUR B&B + clique bound"),
    ("colouring", "ER p = 0.5", "0.5", "DSATUR B&B + clique bound"),
)


def part_exact(args: argparse.Namespace) -> dict[str, Any]:
    """Certified exact solvers vs OR-Tools CP-SAT on bench_exact.py's instance families."""
    ok = have("ortools")
    tl, workers = args.time_limit, args.cpsat_workers
    cells: list[dict[str, Any]] = []
    for n in args.exact_sizes:
        for task, family, density, method in EXACT_CELLS:
            cell: dict[str, Any] = {
                "task": task,
                "family": family,
                "n": n,
                "method": method,
                "instances": [],
            }
            for k in range(args.instances):
                inst: Any = grid_tsp(n, k) if density == "tsp" else er_graph(n, density, k)
                t_ours, (p_ours, v_ours) = timed(lambda i=inst, t=task, m=n: _ours(t, i, m, tl))
                rec: dict[str, Any] = {
                    "k": k,
                    "ours_s": t_ours if p_ours else tl,
                    "ours_proven": p_ours,
                    "ours_value": v_ours,
                }
                if ok:
                    t_cp, (p_cp, v_cp) = timed(
                        lambda i=inst, t=task, m=n: _cpsat(t, i, m, tl, workers)
                    )
                    rec.update(cpsat_s=t_cp if p_cp else tl, cpsat_proven=p_cp, cpsat_value=v_cp)
                    if p_ours and p_cp and v_ours != v_cp:
                        rec["mismatch"] = True
                cell["instances"].append(rec)
                print(
                    f"[exact] {task} {family} n={n} #{k}: ours {rec['ours_s']:.3f}s "
                    f"({v_ours}), cp-sat {rec.get('cpsat_s', float('nan')):.3f}s "
                    f"({rec.get('cpsat_value')}, proven={rec.get('cpsat_proven')})",
                    file=sys.stderr,
                    flush=True,
                )
            cells.append(cell)
    return {"cells": cells, "markdown": _exact_markdown(cells, args, ok)}


def _stats(insts: list[dict[str, Any]], side: str) -> tuple[float, float, int]:
    times = [i[f"{side}_s"] for i in insts]
    unproven = sum(1 for i in insts if not i[f"{side}_proven"])
    return statistics.median(times), max(times), unproven


def _exact_markdown(cells: list[dict[str, Any]], args: argparse.Namespace, ok: bool) -> list[str]:
    md = [
        "## 3. Exact solvers: closurebench.graphs.exact vs OR-Tools CP-SAT",
        "",
        f"{args.instances} instances per cell (the first of `bench_exact.py`'s, same seeds), "
        f"wall seconds median / max, time limit {args.time_limit:g} s for both sides, an "
        'unproven call counted as the limit ("k/N unproven"). CP-SAT: '
        f"{args.cpsat_workers} workers; TSP with `AddCircuit` over all arcs; vertex cover "
        "x_u ∨ x_v; colouring the symmetry-broken assignment model (H from networkx's DSATUR "
        "greedy, a greedy clique fixed to the first colours, position-limited colours, "
        "y_c ≥ y_c+1), model building included in its time. Ours: the default certified "
        "method. Instances alternate between the two solvers.",
        "",
    ]
    body = []
    mismatches = []
    for c in cells:
        insts = c["instances"]
        om, ox, ou = _stats(insts, "ours")
        ours_txt = f"{om:.3f} / {ox:.3f}" + (f", {ou}/{len(insts)} unproven" if ou else "")
        if ok:
            cm, cx, cu = _stats(insts, "cpsat")
            cp_txt = f"{cm:.3f} / {cx:.3f}" + (f", {cu}/{len(insts)} unproven" if cu else "")
            both = [i for i in insts if i["ours_proven"] and i["cpsat_proven"]]
            bad = [i for i in both if i.get("mismatch")]
            mismatches += [f"{c['task']} {c['family']} n={c['n']} #{i['k']}" for i in bad]
            agree = f"{len(both) - len(bad)}/{len(both)}"
            rat = ratio(cm, om, lower_bound=cu > 0)
        else:
            cp_txt, agree, rat = NOT_INSTALLED, "–", "–"
        body.append([c["task"], c["family"], c["n"], c["method"], ours_txt, cp_txt, rat, agree])
    md += table(
        [
            "task",
            "instances",
            "n",
            "our method",
            "ours s (median / max)",
            "CP-SAT s (median / max)",
            "CP-SAT ÷ ours (medians)",
            "optima agree (both proven)",
        ],
        body,
        "lllllllr",
    )
    md.append("")
    if mismatches:
        md.append("**MISMATCH** between the proven optima: " + ", ".join(mismatches))
    elif ok:
        md.append("Both sides found the same optimum on every instance where both proved it.")
    md.append("")
    return md


# --------------------------------------------------------------------------- 4. harness


def start_server() -> tuple[Any, str, Any]:
    """The loopback server in a child process: (process, base URL, request counter)."""
    ctx = mp.get_context("fork")
    counter = ctx.Value("q", 0)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    port = sock.getsockname()[1]
    proc = ctx.Process(target=_serve, args=(sock, counter), daemon=True)
    proc.start()
    sock.close()
    return proc, f"http://127.0.0.1:{port}/v1", counter


def _harness_ours(path: str, url: str, concurrency: int, conn: Any) -> None:
    """Child: closurebench's run_eval over the loopback server."""
    from closurebench.evaluate.providers import GenerationSettings
    from closurebench.evaluate.providers.openai_compat import OpenAICompatProvider
    from closurebench.evaluate.runner import RunOptions, run_eval
    from closurebench.generate.io import load_instances

    instances = load_instances(path)
    rss_ready = peak_rss_mib()
    settings = GenerationSettings(model="bench", max_tokens=64, timeout_s=60.0)
    opts = RunOptions(concurrency=concurrency, retries=0, progress=False, sync_interval_s=1.0)
    run_dir = Path(tempfile.mkdtemp(prefix="side_by_side_ours_"))

    async def go() -> Any:
        provider = OpenAICompatProvider(base_url=url, timeout_s=60.0)
        try:
            return await run_eval(instances, provider, "direct", settings, run_dir, opts)
        finally:
            await provider.aclose()

    try:
        wall, stats = timed(lambda: asyncio.run(go()))
        conn.send(
            {
                "wall_s": wall,
                "n": len(instances),
                "evaluated": stats.evaluated,
                "failures": stats.failures,
                "rss_ready_mib": rss_ready,
                "rss_peak_mib": peak_rss_mib(),
            }
        )
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
        conn.close()


def _harness_inspect(path: str, url: str, concurrency: int, conn: Any) -> None:
    """Child: inspect_ai's eval of the same questions over the loopback server."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import GenerateConfig, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate

    samples = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            samples.append(
                Sample(input=rec["question"], target=json.dumps(rec["answer"]), id=rec["id"])
            )
    task = Task(dataset=MemoryDataset(samples), solver=generate(), scorer=includes())
    config = GenerateConfig(max_connections=concurrency, max_retries=0, max_tokens=64, timeout=60)
    model = get_model("openai-api/bench/bench", base_url=url, api_key="bench", config=config)
    rss_ready = peak_rss_mib()
    log_dir = tempfile.mkdtemp(prefix="side_by_side_inspect_")
    try:
        wall, logs = timed(
            lambda: inspect_eval(
                task,
                model=model,
                log_dir=log_dir,
                display="none",
                max_samples=concurrency,
                log_level="warning",
            )
        )
        log = logs[0]
        conn.send(
            {
                "wall_s": wall,
                "n": len(samples),
                "status": str(log.status),
                "completed": log.results.completed_samples if log.results else 0,
                "error": str(log.error) if log.error else None,
                "rss_ready_mib": rss_ready,
                "rss_peak_mib": peak_rss_mib(),
                "log_bytes": sum(f.stat().st_size for f in Path(log_dir).iterdir()),
            }
        )
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
        conn.close()


def _in_child(target: Callable[..., None], *args: Any, timeout: float = 1800) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(*args, child))
    proc.start()
    child.close()
    try:
        if not parent.poll(timeout):
            return {"error": f"no result within {timeout:g} s"}
        return parent.recv()
    except EOFError:
        return {"error": f"child exited with code {proc.exitcode} before reporting"}
    finally:
        proc.join(10)
        if proc.is_alive():
            proc.kill()
            proc.join()


def _write_instances(n: int, path: Path) -> None:
    from closurebench.generate.closure import generate_split
    from closurebench.jsonl import canonical_json

    base = generate_split("heldout", seed=0, count=min(200, n))
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            r = base[k % len(base)]
            upd = {"id": f"{r.id}-sbs{k}", "question": f"{r.question}\n\n(ref sbs{k})"}
            fh.write(canonical_json(r.model_copy(update=upd).to_json()) + "\n")


def part_harness(args: argparse.Namespace) -> dict[str, Any]:
    """Requests/s and peak RSS: closurebench's harness vs inspect_ai, same loopback server."""
    n, conc = args.harness_n, args.concurrency
    tmp = Path(tempfile.mkdtemp(prefix="side_by_side_data_"))
    path = tmp / "instances.jsonl"
    _write_instances(n, path)
    sides: dict[str, list[dict[str, Any]]] = {"closurebench": [], "inspect_ai": []}
    inspect_ok = have("inspect_ai")
    proc, url, counter = start_server()
    try:
        for rep in range(args.harness_repeats):
            for name, target, ok in (
                ("closurebench", _harness_ours, True),
                ("inspect_ai", _harness_inspect, inspect_ok),
            ):
                if not ok:
                    continue
                before = counter.value
                print(f"[harness] {name} run {rep + 1}", file=sys.stderr, flush=True)
                res = _in_child(target, str(path), url, conc)
                res["requests"] = counter.value - before
                if "wall_s" in res:
                    res["req_per_s"] = res["requests"] / res["wall_s"]
                    res["instances_per_s"] = res["n"] / res["wall_s"]
                sides[name].append(res)
                print(f"[harness]   {res}", file=sys.stderr, flush=True)
    finally:
        proc.terminate()
        proc.join()
        shutil.rmtree(tmp, ignore_errors=True)
    return {"sides": sides, "markdown": _harness_markdown(sides, args, inspect_ok)}


def _side_summary(runs: list[dict[str, Any]]) -> dict[str, Any] | None:
    good = [r for r in runs if "req_per_s" in r]
    if not good:
        return None
    return {
        "req_per_s": statistics.median(r["req_per_s"] for r in good),
        "req_range": (min(r["req_per_s"] for r in good), max(r["req_per_s"] for r in good)),
        "rss_peak_mib": statistics.median(r["rss_peak_mib"] for r in good),
        "rss_ready_mib": statistics.median(r["rss_ready_mib"] for r in good),
        "requests": statistics.median(r["requests"] for r in good),
        "runs": len(good),
    }


def _harness_markdown(
    sides: dict[str, list[dict[str, Any]]], args: argparse.Namespace, inspect_ok: bool
) -> list[str]:
    md = [
        "## 4. Evaluation harness vs inspect_ai over one loopback server",
        "",
        f"{args.harness_n:,} instances (200 generated heldout records copied with unique ids and "
        f"questions), concurrency {args.concurrency} on both sides, one HTTP request per "
        "instance, the loopback server in its own process (requests counted there). Each run in "
        "a fresh interpreter; median of "
        f"{args.harness_repeats} run(s) per side, alternating. *closurebench*: `run_eval` in "
        "`direct` mode, the in-process `openai` provider (aiohttp transport), retries 0, fsync "
        "once a second, results + cache files written, scoring by the strict checker. "
        "*inspect_ai*: `eval(Task(MemoryDataset, generate(), includes()), model="
        "get_model('openai-api/bench/bench', base_url=..., api_key=...), max_connections="
        f"{args.concurrency}, max_samples={args.concurrency}, max_retries=0, display='none')`, "
        "its default `.eval` log written. Peak RSS is the child's `VmHWM` (its peak resident "
        "set); *ready* is the same before the run (imports and the instances loaded).",
        "",
    ]
    body = []
    for name in ("closurebench", "inspect_ai"):
        runs = sides[name]
        summ = _side_summary(runs)
        if name == "inspect_ai" and not inspect_ok:
            body.append([name, NOT_INSTALLED, "–", "–", "–", "–"])
            continue
        if summ is None:
            errs = "; ".join(str(r.get("error")) for r in runs) or "no run"
            body.append([name, f"failed: {errs}", "–", "–", "–", "–"])
            continue
        lo, hi = summ["req_range"]
        body.append(
            [
                name,
                f"{summ['req_per_s']:,.0f}",
                f"{lo:,.0f}–{hi:,.0f}",
                f"{summ['requests']:,.0f}",
                f"{summ['rss_ready_mib']:,.0f}",
                f"{summ['rss_peak_mib']:,.0f}",
            ]
        )
    md += table(
        [
            "harness",
            "requests/s (median)",
            "range",
            "requests per run",
            "RSS ready MiB",
            "peak RSS MiB",
        ],
        body,
        "lrrrrr",
    )
    ours, peer = _side_summary(sides["closurebench"]), _side_summary(sides["inspect_ai"])
    if ours and peer:
        md += [
            "",
            f"closurebench ÷ inspect_ai requests/s: {ratio(ours['req_per_s'], peer['req_per_s'])}; "
            f"inspect_ai ÷ closurebench peak RSS: "
            f"{ratio(peer['rss_peak_mib'], ours['rss_peak_mib'])}.",
        ]
    md.append("")
    return md


# --------------------------------------------------------------------------- summary


def verdict(ours: float | None, peer: float | None, lower_bound: bool = False) -> str:
    """Who wins from two costs (lower is better): ``ours 3.2× faster`` or ``peer 3.2× faster``.

    ``lower_bound`` marks ``peer`` as only a lower bound (a capped run).
    """
    if ours is None or peer is None or ours <= 0 or peer <= 0:
        return "–"
    if peer >= ours:
        return f"ours {ratio(peer, ours, lower_bound)} faster"
    return f"peer {ratio(ours, peer)} faster"


def summary_rows(results: dict[str, Any], args: argparse.Namespace) -> list[list[str]]:
    """One line per comparison: part, what, ours, peer, verdict."""
    out: list[list[str]] = []
    if "gen" in results:
        rows = results["gen"]["rows"]
        ours = rows[0]
        for r in rows[2:]:
            if "error" in r:
                what = f"items/s: ClosureBench heldout vs {r['name']}"
                out.append(["gen", what, f"{ours['items_per_s']:,.0f}", r["error"], "–"])
                continue
            out.append(
                [
                    "gen",
                    f"items/s: ClosureBench heldout (verified) vs {r['name']} (not verified)",
                    f"{ours['items_per_s']:,.0f}",
                    f"{r['items_per_s']:,.0f}",
                    verdict(1 / ours["items_per_s"], 1 / r["items_per_s"]),
                ]
            )
    if "closure" in results:
        for r in results["closure"]["rows"]:
            nx_txt, nx_s, lb = _nx_text(r, args.nx_cap)
            what = f"tc, n = {r['n']:,}, {r['graph']}"
            rx = [
                (r[k], name)
                for k, name in (("rx_desc_s", "descendants"), ("rx_dist_s", "distance matrix"))
                if r.get(k) is not None
            ]
            best = min(rx, default=None)
            peer = f"{ms(best[0])} ms ({best[1]})" if best else NOT_INSTALLED
            for ours_key, ours_name in (("core_s", "core"), ("ein_s", "Ein program")):
                out.append(
                    [
                        "closure",
                        f"{what}: {ours_name} vs best rustworkx",
                        f"{ms(r[ours_key])} ms",
                        peer,
                        verdict(r[ours_key], best[0]) if best else "–",
                    ]
                )
            for ours_key, ours_name in (("core_s", "core"), ("ein_s", "Ein program")):
                out.append(
                    [
                        "closure",
                        f"{what}: {ours_name} vs networkx",
                        f"{ms(r[ours_key])} ms",
                        f"{nx_txt} s" if nx_s is not None else nx_txt,
                        verdict(r[ours_key], nx_s, lb),
                    ]
                )
    if "exact" in results:
        for c in results["exact"]["cells"]:
            insts = c["instances"]
            om, _, ou = _stats(insts, "ours")
            where = f"{c['task']}, {c['family']}, n = {c['n']}"
            if "cpsat_s" not in insts[0]:
                ours_txt = f"{om:.3f}" + (f" ({ou}/{len(insts)} unproven)" if ou else "")
                out.append(["exact", f"{where}: median s vs CP-SAT", ours_txt, NOT_INSTALLED, "–"])
                continue
            cm, _, cu = _stats(insts, "cpsat")
            k = len(insts)
            out.append(
                [
                    "exact",
                    f"{where}: median s vs CP-SAT",
                    f"{om:.3f}" + (f" ({ou}/{k} unproven)" if ou else ""),
                    f"{cm:.3f}" + (f" ({cu}/{k} unproven)" if cu else ""),
                    verdict(om, cm, cu > 0),
                ]
            )
    if "harness" in results:
        sides = results["harness"]["sides"]
        ours, peer = _side_summary(sides["closurebench"]), _side_summary(sides["inspect_ai"])
        peer_txt = NOT_INSTALLED if not have("inspect_ai") else "failed"
        out.append(
            [
                "harness",
                f"requests/s vs inspect_ai, {args.harness_n:,} instances, "
                f"concurrency {args.concurrency}",
                f"{ours['req_per_s']:,.0f}" if ours else "failed",
                f"{peer['req_per_s']:,.0f}" if peer else peer_txt,
                verdict(1 / ours["req_per_s"], 1 / peer["req_per_s"]) if ours and peer else "–",
            ]
        )
        mem = "–"
        if ours and peer:
            a, b = ours["rss_peak_mib"], peer["rss_peak_mib"]
            mem = f"{'peer' if b >= a else 'ours'} uses {ratio(max(a, b), min(a, b))} the memory"
        out.append(
            [
                "harness",
                "peak RSS MiB of the whole process vs inspect_ai",
                f"{ours['rss_peak_mib']:,.0f}" if ours else "failed",
                f"{peer['rss_peak_mib']:,.0f}" if peer else peer_txt,
                mem,
            ]
        )
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the chosen parts, print and write the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--parts", default=",".join(PARTS), help="comma-separated subset of " + ",".join(PARTS)
    )
    ap.add_argument("--quick", action="store_true", help="small smoke version of every part")
    ap.add_argument("--out", default=None, help="output path prefix (.md and .json appended)")
    ap.add_argument("--gen-count", type=int, default=None, help="items per generator (1300)")
    ap.add_argument("--gen-repeats", type=int, default=None, help="runs per generator (3)")
    ap.add_argument("--closure-sizes", type=int, nargs="+", default=None, help="(1000 5000)")
    ap.add_argument("--out-degree", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=None, help="closure repeats (5)")
    ap.add_argument("--nx-cap", type=float, default=None, help="networkx seconds cap (120)")
    ap.add_argument("--nx-mem-gib", type=float, default=8.0, help="networkx address-space cap")
    ap.add_argument("--exact-sizes", type=int, nargs="+", default=None, help="(40 60)")
    ap.add_argument("--instances", type=int, default=None, help="instances per exact cell (5)")
    ap.add_argument("--time-limit", type=float, default=None, help="exact solver limit s (60)")
    ap.add_argument("--cpsat-workers", type=int, default=2)
    ap.add_argument("--harness-n", type=int, default=None, help="instances per run (2000)")
    ap.add_argument("--harness-repeats", type=int, default=None, help="runs per side (2)")
    ap.add_argument("--concurrency", type=int, default=64)
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        ap.error(f"unknown part(s) {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}")
    q = args.quick
    defaults = {
        "gen_count": (130, 1300),
        "gen_repeats": (1, 3),
        "closure_sizes": ([300], [1000, 5000]),
        "repeats": (2, 5),
        "nx_cap": (20.0, 120.0),
        "exact_sizes": ([20], [40, 60]),
        "instances": (2, 5),
        "time_limit": (10.0, 60.0),
        "harness_n": (200, 2000),
        "harness_repeats": (1, 2),
    }
    for key, (quick, full) in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, quick if q else full)
    out = args.out if args.out is not None else (None if q else str(HERE / "side_by_side"))

    started = time.perf_counter()
    load_start = load_average()
    when = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    runners = {
        "gen": part_gen,
        "closure": part_closure,
        "exact": part_exact,
        "harness": part_harness,
    }
    results: dict[str, Any] = {}
    part_s: dict[str, float] = {}
    for p in PARTS:
        if p in parts:
            t0 = time.perf_counter()
            results[p] = runners[p](args)
            part_s[p] = time.perf_counter() - t0
            print(f"[{p}] done in {part_s[p]:.0f} s", file=sys.stderr, flush=True)
    total = time.perf_counter() - started

    versions = {
        d: version(d)
        for d in (
            "closurebench",
            "numpy",
            "scipy",
            "networkx",
            "reasoning-gym",
            "rustworkx",
            "ortools",
            "inspect-ai",
            "openai",
        )
    }
    cmd = "python benchmarks/side_by_side.py " + " ".join(sys.argv[1:] if argv is None else argv)
    md = [
        "# Side by side with peer libraries (issue 14, part 3)",
        "",
        f"`uv run --group bench {cmd.strip()}`, "
        f"{when}, {os.cpu_count()} CPUs ({platform.machine()}), Python "
        f"{platform.python_version()}; load average {load_start} at the start, "
        f"{load_average()} at the end (the machine was shared). Total wall time "
        f"{total / 60:.1f} min ("
        + ", ".join(f"{p} {s:.0f} s" for p, s in part_s.items())
        + "). Every ratio compares numbers measured in this one run.",
        "",
        "Versions: " + ", ".join(f"{d} {v}" for d, v in versions.items()) + ".",
        "",
        "## Ratios",
        "",
    ]
    md += table(
        ["part", "comparison", "ours", "peer", "ratio (same run)"], summary_rows(results, args)
    )
    md.append("")
    for p in PARTS:
        if p in results:
            md += results[p]["markdown"]
    text = "\n".join(md).rstrip() + "\n"
    print(text)
    if out is not None:
        raw = {
            "meta": {
                "command": cmd.strip(),
                "when": when,
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "versions": versions,
                "load_start": load_start,
                "load_end": load_average(),
                "total_s": total,
                "part_s": part_s,
                "args": vars(args),
            },
            **{p: {k: v for k, v in r.items() if k != "markdown"} for p, r in results.items()},
        }
        Path(out + ".md").write_text(text, encoding="utf-8")
        Path(out + ".json").write_text(
            json.dumps(raw, indent=1, default=str) + "\n", encoding="utf-8"
        )
        print(f"wrote {out}.md and {out}.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
