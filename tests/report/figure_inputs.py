"""Inputs that used to break the report's figures (issue 26, item 3).

* :func:`crowded_runs`: many runs (16 by default) with long labels, one instance per
  (run, level, n) cell of ClosureBench, token means and accuracies close together, and
  GRIT results in every naming scheme and form: 16 series share one colour cycle, point
  labels collide, legends are long, accuracy vs n jumps 0 <-> 100.
* :func:`thin_run`: one run with a single instance per n and level.
* :func:`crowded_probe`: a memorisation probe with many checkpoints, long labels and
  steps close together at the start (tick labels collide).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from report_fixtures import record, typed

from closurebench.report.aggregate import Run
from closurebench.report.memorisation import gap_interval, interval
from closurebench.schema.memorisation import (
    CheckpointScores,
    GapName,
    GapScores,
    MemorisationProbe,
    ProbeSetFile,
    ProbeSetName,
    SeedScore,
    SetScores,
)

MODELS = (
    "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    "Qwen/Qwen2.5-72B-Instruct",
    "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
    "mistralai/Mistral-Large-Instruct-2411",
    "google/gemma-2-27b-it",
    "microsoft/Phi-3.5-MoE-instruct",
    "allenai/OLMo-2-1124-13B-Instruct",
    "NousResearch/Hermes-3-Llama-3.1-405B",
)
MODES = ("direct", "cot")
NAMINGS = ("canonical", "random", "semantic", "mixed")
FORMS = ("standard", "realistic")


def _record(rng: random.Random, p: float, tokens: int, **meta: Any) -> dict[str, Any]:
    return record("strict_correct" if rng.random() < p else "wrong",
                  completion_tokens=tokens, prompt_tokens=300, **meta)  # fmt: skip


def run_records(
    index: int,
    model: str = "m",
    mode: str = "direct",
    n_values: range = range(4, 25),
    per_cell: int = 1,
) -> list[dict[str, Any]]:
    """Seeded records of one run: ``per_cell`` instances per level 1-3 and n, plus GRIT."""
    rng = random.Random(1000 + index)
    skill = 0.45 + 0.02 * index
    tokens = 120 + 3 * index if index % 4 else 900 + 40 * index  # most close together
    out = []
    for level in (1, 2, 3):
        for n in n_values:
            for k in range(per_cell):
                p = max(0.05, skill - 0.1 * (level - 1) - 0.01 * (n - 4))
                out.append(
                    _record(
                        rng, p, tokens + rng.randint(-2, 2), id=f"cb-{level}-{n}-{k}",
                        model=model, mode=mode, suite="closure", level=level, n=n,
                        category="reachability",
                    )
                )  # fmt: skip
    for g in range(3):
        for form in FORMS:
            for naming in NAMINGS:
                p = skill - (0.1 if form == "realistic" else 0.0)
                out.append(
                    _record(
                        rng, p, tokens, id=f"g{g}-{form}-{naming}", model=model,
                        mode=mode, suite="grit",
                        task="shortest_path", form=form, naming=naming, n=12,
                    )
                )  # fmt: skip
    return out


def crowded_runs(count: int = 16) -> list[Run]:
    """``count`` runs with long ``model · mode`` labels (see the module docstring)."""
    runs = []
    for i in range(count):
        model, mode = MODELS[i % len(MODELS)], MODES[(i // len(MODELS)) % len(MODES)]
        label = f"{model} · {mode}" if i < 2 * len(MODELS) else f"{model} · {mode} #{i}"
        recs = run_records(i, model if i < 2 * len(MODELS) else f"{model}-{i}", mode)
        runs.append(Run(Path(f"runs/{i}"), label, model, mode, typed(recs)))
    return runs


def thin_run() -> Run:
    """One run, one instance per (level, n) cell, n = 4..24."""
    recs = run_records(3, "thin-model")
    return Run(Path("runs/thin"), "thin-model · direct", "thin-model", "direct", typed(recs))


def _set_scores(name: ProbeSetName, k: int, n: int, seeds: int) -> SetScores:
    iv = interval(k, n)
    per_seed = [
        SeedScore(
            seed=None if name == "seen" else 42 + s,
            answered=n // seeds,
            errors=0,
            strict_correct=k // seeds,
            lenient_correct=k // seeds,
            strict=iv.value,
            lenient=iv.value,
            run=f"{name}/{s}",
        )
        for s in range(1 if name == "seen" else seeds)
    ]
    return SetScores(
        set=name,
        answered=n,
        errors=0,
        strict=iv,
        lenient=iv,
        per_seed=per_seed,
    )


def _gap(name: GapName, k1: int, n1: int, k2: int, n2: int) -> GapScores:
    g = gap_interval(k1, n1, k2, n2)
    return GapScores(name=name, strict=g, lenient=g, per_seed=[])


def crowded_probe(steps: tuple[int, ...] = (2, 4, 6, 50, 100, 150, 200, 400)) -> MemorisationProbe:
    """A ClosureBench probe: the base model and one checkpoint per step (long labels)."""
    checkpoints = []
    n = 16
    for i, step in enumerate((0, *steps)):
        seen = min(n, 2 + 2 * i)
        fresh = min(n, 2 + i // 2)
        reworded = min(n, 3 + i)
        label = "base" if i == 0 else f"sft-lora-r16-answer-supervision-checkpoint-{step}"
        checkpoints.append(
            CheckpointScores(
                label=label, model=label, base=i == 0, step=None if i == 0 else step,
                epoch=None, run_dir=f"ckpt{i}", complete=True,
                sets=[_set_scores("seen", seen, n, 1), _set_scores("fresh", fresh, 2 * n, 2),
                      _set_scores("reworded", reworded, 2 * n, 2)],
                gaps=[_gap("seen-fresh", seen, n, fresh, 2 * n),
                      _gap("seen-reworded", seen, n, reworded, 2 * n)],
            )
        )  # fmt: skip
    file = ProbeSetFile(
        set="seen", seed=None, file="closure-train.jsonl", sha256="0" * 64, records=n,
        derived_seed=None,
    )  # fmt: skip
    return MemorisationProbe(
        version="0", suite="closure", mode="direct", provider="scripted", seeds=[42, 43],
        confidence=0.95, seen=file, sets=[], reworded_note=None, checkpoints=checkpoints,
    )  # fmt: skip


def probe_without_steps(count: int = 9) -> MemorisationProbe:
    """:func:`crowded_probe` with neither steps nor epochs: x is the checkpoint's position."""
    probe = crowded_probe(tuple(range(1, count)))
    cps = [c.model_copy(update={"step": None}) for c in probe.checkpoints]
    return probe.model_copy(update={"checkpoints": cps})
