"""Seeded synthetic run directories for the report tests (independent of the runner).

``synthetic_records`` draws ClosureBench and GRIT result records with the runner's
field names (their JSON form, as the results file holds them); ``write_run`` writes
``results.jsonl`` and ``summary.json``; ``typed`` reads them as a loaded run holds them
(:class:`~closurebench.report.run.LoadedResult`), for the aggregation functions.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from closurebench.report.run import LoadedResult

CATEGORIES = {
    1: ["reachability", "count_reachable"],
    2: ["reach_then_count"],
    3: ["kinship_complex"],
}
TASKS = ["shortest_path", "tsp", "vertex_cover"]
NAMINGS = ["canonical", "random", "semantic", "mixed"]
FORMS = ["standard", "realistic"]


def record(outcome: str, **meta: Any) -> dict[str, Any]:
    """One result record with the runner's field layout."""
    strict = outcome == "strict_correct"
    lenient = outcome in ("strict_correct", "lenient_only")
    rec: dict[str, Any] = {
        "id": meta.pop("id", "x"),
        "outcome": outcome,
        "strict": strict,
        "lenient": lenient,
        "response": '{"answer": 1}',
        "usage": {
            "prompt_tokens": meta.pop("prompt_tokens", 100),
            "completion_tokens": meta.pop("completion_tokens", 10),
        },
        "latency_s": meta.pop("latency_s", 1.0),
        "settings": {"model": meta.pop("model", "m"), "temperature": 0.0},
        "mode": meta.pop("mode", "direct"),
        "error": None,
    }
    rec.update(meta)
    return rec


def typed(records: Iterable[dict[str, Any]]) -> list[LoadedResult]:
    """The records validated and loaded as :func:`~closurebench.report.aggregate.load_run`
    holds them (texts dropped; self-corrections not counted)."""
    return [LoadedResult.parse(r, f"record {i}") for i, r in enumerate(records)]


def _outcome(rng: random.Random, p: float) -> str:
    u = rng.random()
    if u < p:
        return "strict_correct" if rng.random() < 0.93 else "lenient_only"
    return rng.choices(["wrong", "format_error", "no_answer"], [0.85, 0.1, 0.05])[0]


def synthetic_records(model: str, mode: str, skill: float, seed: int) -> list[dict[str, Any]]:
    """Seeded ClosureBench (levels 1-3, n 4-10) and GRIT (3 tasks x 8 views) records."""
    rng = random.Random(seed)
    tokmul = 20 if mode == "cot" else 1
    out = []
    for i in range(240):
        level = 1 + i % 3
        n = 4 + (i // 3) % 7
        cat = CATEGORIES[level][i % len(CATEGORIES[level])]
        p = max(0.02, skill - 0.12 * (level - 1) - 0.02 * (n - 4))
        out.append(
            record(
                _outcome(rng, p), id=f"cb-{i}", model=model, mode=mode, suite="closure",
                category=cat, level=level, n=n, result_type="int",
                completion_tokens=int(tokmul * rng.randint(5, 30) * level),
                prompt_tokens=300 + 20 * n, latency_s=rng.uniform(0.2, 3.0),
            )
        )  # fmt: skip
    for g in range(12):
        task = TASKS[g % 3]
        for form in FORMS:
            for naming in NAMINGS:
                p = skill - (0.1 if form == "realistic" else 0) - (0.1 if naming == "mixed" else 0)
                out.append(
                    record(
                        _outcome(rng, p), id=f"g{g}-{form}-{naming}", model=model, mode=mode,
                        suite="grit", task=task, form=form, naming=naming, scenario="sc",
                        n=10 + g, completion_tokens=tokmul * rng.randint(10, 60),
                        latency_s=rng.uniform(0.5, 5.0),
                    )
                )  # fmt: skip
    return out


def write_run(root: Path, name: str, records: Sequence[dict[str, Any]]) -> Path:
    """Write a run directory with results.jsonl and summary.json; return its path."""
    d = root / name
    d.mkdir(parents=True)
    with (d / "results.jsonl").open("w") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
    (d / "summary.json").write_text(json.dumps({"n": len(records)}))
    return d
