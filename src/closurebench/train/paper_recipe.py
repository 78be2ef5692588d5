"""A paper's whole training recipe in one command: ``closurebench train recipe grain``.

GRAIN (§4.3-4.4, App. B, Tables 7 and 9) trains in two stages on GRIT Train:

1. **Data**: the GRIT ``train`` split (2,160 base graphs of 4-40 nodes, each in its 8
   surface views; or a file the user gives), exported twice: SFT records of the
   tool-use target (``agent-tools``: the model calls the graph tool, reads its result,
   answers) and GRPO prompts.
2. **SFT** (``grain-sft``, Table 7): full fine-tuning, learning rate 7e-6, cosine with
   10 % warm-up, global batch 8, 3 epochs, context 15,000 tokens; the loss on the
   model's own tokens (tool results masked).
3. **RL** from the SFT checkpoint (``grain-arpo``, Table 9; ``--algorithm grpo`` is the
   ablation without ARPO's partial rollouts) in the graph-tool environment, every group
   on a fresh naming view of its graph (the naming perturbation), with the two-phase
   curriculum of App. B.3: phase 1 stabilises the format on graphs of 4-14 nodes (one
   pass), phase 2 runs on 10-40 nodes with two base graphs per task and size (Table 9's
   2 epochs).

:func:`grain_plan` builds and validates every recipe before anything heavy runs;
:func:`describe` is the ``--dry-run`` text (the plan, the optimiser steps where the
data is at hand, and a memory estimate); :func:`run_plan` runs it.

Example:
    >>> plan = grain_plan("Qwen/Qwen2.5-7B-Instruct", "/tmp/grain")
    >>> plan.sft.preset, plan.rl.preset, plan.rl.grpo.mode, plan.rl.grpo.perturb
    ('grain-sft', 'grain-arpo', 'tools', True)
    >>> [(s.name, s.n_min, s.n_max, s.graphs_per_task_and_size) for s in plan.rl.grpo.curriculum]
    [('phase-1', 4, 14, None), ('phase-2', 10, 40, 2)]
    >>> memory_estimate(7_615_616_512, lora=False)["training_gib"]
    85.1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError
from closurebench.train.grpo import GrpoRecipe, load_grpo_recipe
from closurebench.train.recipe import _merge
from closurebench.train.sft import SftRecipe, load_sft_recipe

__all__ = ["RECIPES", "GrainPlan", "describe", "grain_plan", "memory_estimate", "run_plan"]

#: The recipes ``closurebench train recipe`` knows, by name.
RECIPES = ("grain",)

#: Bytes a trained parameter costs: weights and gradients in bf16 (2 + 2) and AdamW's two
#: moments in fp32 (4 + 4).
_BYTES_PER_TRAINED = 12
#: Bytes a frozen parameter costs (bf16 weights).
_BYTES_PER_FROZEN = 2


@dataclass(frozen=True)
class GrainPlan:
    """What ``closurebench train recipe grain`` will do.

    Attributes:
        model: The starting model (hub id or folder).
        out: Everything goes under it: ``data/``, ``sft/``, ``rl/``.
        data: A GRIT file to train on (None: generate the train split).
        count: Base graphs to generate (None: the split's 2,160).
        seed: The split's master seed.
        sft: The validated SFT recipe.
        rl: The validated RL recipe (its model is the SFT run's ``final/``).
    """

    model: str
    out: Path
    data: Path | None
    count: int | None
    seed: int
    sft: SftRecipe
    rl: GrpoRecipe

    @property
    def sft_file(self) -> Path:
        return self.out / "data" / "sft.jsonl"

    @property
    def grpo_file(self) -> Path:
        return self.out / "data" / "grpo.jsonl"


def grain_plan(
    model: str,
    out: str | Path,
    *,
    data: str | Path | None = None,
    count: int | None = None,
    seed: int = 0,
    algorithm: str = "arpo",
    sft_max_steps: int | None = None,
    rl_max_steps: int | None = None,
    dtype: str = "bfloat16",
    sft_overrides: dict[str, Any] | None = None,
    rl_overrides: dict[str, Any] | None = None,
) -> GrainPlan:
    """GRAIN's two stages as validated recipes (see the module docstring).

    Args:
        model: The model to start from.
        out: The run's folder.
        data: A GRIT dataset file to use instead of generating the train split.
        count: Base graphs of the generated split (default: all 2,160).
        seed: The generated split's seed.
        algorithm: ``arpo`` (the paper) or ``grpo`` (its ablation).
        sft_max_steps: Cut SFT short (a smoke run); None: the preset's 3 epochs.
        rl_max_steps: Cut each curriculum phase short; None: the phases' passes.
        dtype: The weights' dtype.
        sft_overrides: Recipe keys laid over the SFT recipe (section -> key -> value).
        rl_overrides: Recipe keys laid over the RL recipe.

    Raises:
        ConfigError: a bad value (one line naming it).
    """
    if algorithm not in ("arpo", "grpo"):
        raise ConfigError(f"--algorithm {algorithm!r}: choose arpo (the paper) or grpo")
    if data is not None and count is not None:
        raise ConfigError(
            "--data and --count contradict each other; --count sizes a generated split"
        )
    root = Path(out)
    optim: dict[str, Any] = {} if sft_max_steps is None else {"max_steps": sft_max_steps}
    sft = load_sft_recipe(
        None,
        preset_name="grain-sft",
        overrides=_merge(
            {
                "model": {"name": model, "dtype": dtype},
                "output": {"dir": str(root / "sft")},
                **({"optim": optim} if optim else {}),
            },
            sft_overrides or {},
        ),
    )
    phase = {"max_steps": rl_max_steps} if rl_max_steps is not None else {}
    rl = load_grpo_recipe(
        None,
        preset_name=f"grain-{algorithm}",
        overrides=_merge(
            {
            "model": {"name": str(root / "sft" / "final"), "dtype": dtype},
            "output": {"dir": str(root / "rl")},
            "grpo": {
                "mode": "tools",
                "perturb": True,
                "curriculum": [
                    {"name": "phase-1", "n_min": 4, "n_max": 14, **(phase or {"epochs": 1})},
                    {
                        "name": "phase-2", "n_min": 10, "n_max": 40,
                        "graphs_per_task_and_size": 2, **(phase or {"epochs": 2}),
                    },
                ],
            },
        },
            rl_overrides or {},
        ),
    )  # fmt: skip
    return GrainPlan(model, root, Path(data) if data else None, count, seed, sft, rl)


def memory_estimate(params: int, *, lora: bool) -> dict[str, float]:
    """Accelerator memory of full fine-tuning (or LoRA) a model of ``params`` parameters.

    Weights, gradients and AdamW's moments only (bf16 weights and gradients, fp32
    moments: 12 bytes a trained parameter; a frozen one 2): activations, the generation
    KV cache of RL and the CUDA context come on top, and grow with the context length.

    Example:
        >>> memory_estimate(494_032_768, lora=False)
        {'params_billion': 0.49, 'training_gib': 5.5}
    """
    trained = params // 100 if lora else params  # LoRA r 16 trains ~1 % of the weights
    total = trained * _BYTES_PER_TRAINED + (params - trained) * _BYTES_PER_FROZEN
    return {"params_billion": round(params / 1e9, 2), "training_gib": round(total / 2**30, 1)}


def count_parameters(model: str) -> int | None:
    """The model's parameter count from its config alone (no weights loaded); None when
    the config cannot be read (not local, not cached, offline) or the extra is missing."""
    try:
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM

        config = AutoConfig.from_pretrained(model, local_files_only=True)
        with torch.device("meta"):
            skeleton = AutoModelForCausalLM.from_config(config)
        return int(sum(p.numel() for p in skeleton.parameters()))
    except Exception:
        return None


def _rl_steps(plan: GrainPlan) -> list[str]:
    if not plan.grpo_file.is_file():
        return ["  RL steps: counted once the GRPO file exists (run without --dry-run)"]
    from closurebench.train.grpo import plan_schedule, read_rows

    schedule = plan_schedule(read_rows(plan.grpo_file), plan.rl)
    return [f"  RL steps: {schedule.steps} optimiser steps over {len(schedule.rows)} rows"]


def describe(plan: GrainPlan, params: int | None = None) -> list[str]:
    """The ``--dry-run`` text: what runs, with which settings, and what memory it needs."""
    s, r = plan.sft, plan.rl
    source = (
        f"the given file {plan.data}"
        if plan.data
        else f"the GRIT train split, seed {plan.seed}, "
        f"{plan.count if plan.count is not None else 2160} base graphs x 8 views, n 4-40"
    )
    lines = [
        f"recipe grain: {plan.model} -> {plan.out}",
        f"1. data: {source}",
        f"   -> {plan.sft_file} (SFT, agent-tools) and {plan.grpo_file} (GRPO prompts)",
        f"2. SFT ({s.preset}, GRAIN Table 7): {'LoRA' if s.lora else 'full fine-tuning'}, "
        f"lr {s.optim.learning_rate:g}, {s.optim.scheduler}, warm-up {s.optim.warmup_ratio:g}, "
        f"batch {s.optim.batch_size} x {s.optim.gradient_accumulation}, "
        + (f"{s.optim.max_steps} steps" if s.optim.max_steps else f"{s.optim.epochs:g} epochs")
        + f", max length {s.sft.max_length}, loss on {s.sft.loss} tokens -> {s.output.dir}",
        f"3. RL ({r.preset}, GRAIN Table 9): {r.grpo.algorithm}, {r.grpo.mode} mode, "
        f"naming perturbation {'on' if r.grpo.perturb else 'off'}, lr {r.optim.learning_rate:g}, "
        f"batch {r.optim.batch_size}, mini-batch {r.mini_batch}, KL {r.grpo.beta:g}, "
        f"{r.grpo.num_generations} rollouts, prompt <= {r.grpo.max_prompt_length}, "
        f"response <= {r.grpo.max_completion_length} tokens, from {r.model.name}",
    ]
    if r.grpo.algorithm == "arpo":
        a = r.grpo.arpo
        lines.append(
            f"   ARPO: {a.initial_rollouts} initial rollouts, beam {a.beam_size}, branch "
            f"probability {a.branch_probability:g}, entropy weight {a.entropy_weight:g}"
        )
    for stage in r.grpo.curriculum:
        length = (
            f"{stage.max_steps} steps"
            if stage.max_steps
            else f"{stage.epochs or 1:g} pass" + ("" if (stage.epochs or 1) == 1 else "es")
        )
        per = (
            f", {stage.graphs_per_task_and_size} graphs per task and size"
            if stage.graphs_per_task_and_size
            else ""
        )
        lines.append(f"   {stage.name}: n {stage.n_min}-{stage.n_max}{per}, {length}")
    lines += _rl_steps(plan)
    if params is None:
        lines.append(
            "memory: unknown (the model's config is not readable here: not a folder, not "
            "in the Hub cache, or the train extra is missing)"
        )
    else:
        full = memory_estimate(params, lora=False)
        context = (r.grpo.max_prompt_length or 0) + r.grpo.max_completion_length
        lines.append(
            f"memory: {full['params_billion']} B parameters; full fine-tuning needs about "
            f"{full['training_gib']} GiB for weights, gradients and AdamW moments (SFT and "
            "RL alike), plus activations at up to "
            f"{s.sft.max_length} (SFT) / {context} (RL) tokens and RL's generation KV cache"
        )
    return lines


def run_plan(
    plan: GrainPlan,
    *,
    progress: bool = True,
    echo: Callable[[str], None] | None = None,
) -> Path:
    """Generate and export the data, run SFT, then RL; the final RL model's folder.

    Raises:
        ConfigError / DatasetFileError: as the steps' own commands.
    """
    from closurebench.generate.io import load_instances
    from closurebench.jsonl import canonical_json
    from closurebench.schema import GritInstance
    from closurebench.train.export import grpo_records, sft_records
    from closurebench.train.grpo import train_grpo
    from closurebench.train.sft import train_sft

    say = echo or (lambda _line: None)
    data_dir = plan.out / "data"
    data_dir.mkdir(parents=True, exist_ok=True)
    if plan.data is not None:
        source = plan.data
    else:
        from closurebench.generate.grit import GritConfig, write_split

        split = data_dir / "grit"
        existing = sorted(split.glob("*.jsonl")) if split.is_dir() else []
        if existing:
            source = existing[0]
            say(f"data: {source} (already generated)")
        else:
            say("data: generating the GRIT train split (NP-hard answers certified)")
            source, *_ = write_split(
                GritConfig(split="train", seed=plan.seed, count=plan.count), split
            )
    records = load_instances(source)
    if not records or not all(isinstance(r, GritInstance) for r in records):
        raise ConfigError(f"--data {source}: the GRAIN recipe trains on a GRIT file")
    for path, rows in (
        (plan.sft_file, sft_records(records, "agent-tools")),
        (plan.grpo_file, grpo_records(records)),
    ):
        path.write_text("".join(canonical_json(r.to_json()) + "\n" for r in rows), "utf-8")
    say(f"data: {len(records)} instances -> {plan.sft_file.name}, {plan.grpo_file.name}")
    final_sft = Path(plan.sft.output.dir) / "final"
    if (final_sft / "config.json").is_file() or (final_sft / "adapter_config.json").is_file():
        say(f"sft: {final_sft} exists; kept")
    else:
        train_sft(plan.sft, plan.sft_file, progress=progress, echo=say)
    return train_grpo(plan.rl, plan.grpo_file, progress=progress, echo=say)
