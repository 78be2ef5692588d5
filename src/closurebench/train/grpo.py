"""``closurebench train grpo``: GRPO / ARPO with the gated reward on TRL (GRAIN §4.3-4.4).

The recipe (:class:`GrpoRecipe`: the shared sections of
:class:`~closurebench.train.recipe.RecipeBase` plus ``[grpo]``, :class:`GrpoSettings`)
is validated before anything heavy is imported: an unknown key or a bad value is one
:class:`~closurebench.errors.ConfigError` naming every bad key. The presets
``grain-grpo`` and ``grain-arpo`` are GRAIN Table 9 (the GRPO one is the paper's
ablation without ARPO's partial rollouts).

What a run does:

1. reads a ``closurebench export grpo`` file (JSONL, or a ``--format hf`` folder); every
   row is validated as a :class:`~closurebench.schema.GrpoRecord`;
2. loads the model (:func:`~closurebench.train.recipe.load_model`: a hub id or a local
   directory) and wraps it in a PEFT LoRA adapter (``[lora]``) or trains it fully
   (``lora = false``); drops rows whose prompt exceeds ``max_prompt_length`` tokens;
3. lays out the rows as the curriculum says (:func:`plan_schedule`): each stage keeps the
   rows whose graph has ``n_min <= n <= n_max`` (optionally only
   ``graphs_per_task_and_size`` graphs per task and size, all their views), shuffled
   per pass, for ``max_steps`` optimiser steps or ``epochs`` passes; stages follow one
   another in one TRL run, so checkpoints and ``--resume`` cover the whole curriculum.
   Without stages: one stage of every row for ``optim.epochs`` / ``optim.max_steps``;
4. trains with TRL's ``GRPOTrainer`` and the gated reward (:class:`TrainingReward`:
   GRAIN Eq. 3, ``rho_err`` for an invalid completion, else ``r_ans + lambda_inv *
   s_inv``; its parts logged as ``closurebench/valid``, ``closurebench/r_ans``,
   ``closurebench/s_inv``), in one of two ``mode`` s:

   * ``prompt`` — single-turn: the row's ``prompt`` as exported (``direct``, ``cot``,
     a program mode, or ``agent``'s first turn), scored in the row's own ``mode``;
   * ``tools`` — agentic RL through TRL's ``environment_factory``
     (:mod:`closurebench.train.environment`): every rollout gets a fresh naming view of
     the row's graph, the graph tool's functions as native tools, TRL's tool-call loop
     runs the model's calls against them, and the completion (assistant turns with
     ``tool_calls``, tool turns) is scored in ``agent-tools`` against the view the
     environment drew (its names, its answer);

   ``algorithm = "arpo"`` replaces TRL's sampler with ARPO's entropy-triggered partial
   rollouts (:mod:`closurebench.train.arpo`, TRL's ``rollout_func``);
5. writes ``OUT/recipe.json`` (the recipe as run), ``OUT/metrics.jsonl`` (every log
   event, :class:`~closurebench.train.callbacks.JsonlMetrics`, with the curriculum
   stage), ``OUT/checkpoint-<step>/`` (every ``output.save_steps`` steps, and at the end
   of each stage) and ``OUT/final/`` (the model or adapter, with its tokenizer).

Batch sizes follow Table 9's meaning: ``optim.batch_size`` prompts per rollout batch
(each with ``num_generations`` completions), split into ``batch_size /
mini_batch_size`` optimiser steps of ``mini_batch_size`` prompts (TRL's
``steps_per_generation``); ``optim.gradient_accumulation`` splits each step further.
``optim.epochs`` / ``max_steps`` count passes and optimiser steps.

Example:
    >>> r = load_grpo_recipe(None, preset_name="grain-arpo", overrides={"model": {"name": "m"}})
    >>> r.grpo.algorithm, r.grpo.num_generations, r.grpo.arpo.beam_size, r.grpo.lambda_inv
    ('arpo', 8, 2, 1.0)
    >>> r.optim.learning_rate, r.grpo.mini_batch_size, r.lora
    (1e-06, 4, False)
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from closurebench.errors import ConfigError
from closurebench.seeding import derive_seed
from closurebench.train.arpo import ArpoSettings
from closurebench.train.recipe import (
    RecipeBase,
    _Strict,
    check_resume,
    load_recipe,
    lora_config,
    read_training_file,
    require_extra,
    write_recipe,
)

__all__ = [
    "ArpoSettings",
    "CurriculumStage",
    "GrpoRecipe",
    "GrpoSettings",
    "Schedule",
    "TrainingReward",
    "build_trainer",
    "load_grpo_recipe",
    "plan_schedule",
    "read_rows",
    "train_grpo",
]

#: The mode a ``tools`` completion is scored in (assistant turns with ``tool_calls``).
TOOLS_MODE = "agent-tools"


class CurriculumStage(_Strict):
    """One stage of the size curriculum (GRAIN App. B.3: n 4-14, then 10-40).

    Attributes:
        n_min: Smallest graph (nodes) of the stage's rows.
        n_max: Largest graph.
        max_steps: Optimiser steps of the stage (rounded up to whole rollout batches).
        epochs: Passes over the stage's rows, when ``max_steps`` is not set (default 1).
        graphs_per_task_and_size: Keep only this many base graphs per task (ClosureBench:
            category) and size, every view of each (the paper's phase 2: 2).
        name: A label for the logs (default ``stage-<i>``).
    """

    n_min: int = Field(1, ge=1)
    n_max: int = Field(10_000, ge=1)
    max_steps: int | None = Field(None, ge=1)
    epochs: float | None = Field(None, gt=0)
    graphs_per_task_and_size: int | None = Field(None, ge=1)
    name: str | None = None

    @model_validator(mode="after")
    def _range(self) -> CurriculumStage:
        if self.n_min > self.n_max:
            raise ValueError(f"n_min={self.n_min} is above n_max={self.n_max}")
        if self.max_steps is not None and self.epochs is not None:
            raise ValueError("give a stage max_steps or epochs, not both")
        return self


class GrpoSettings(_Strict):
    """The ``[grpo]`` section.

    Attributes:
        algorithm: ``grpo`` (TRL's sampler) or ``arpo`` (ARPO's partial rollouts).
        mode: ``prompt`` (single-turn: the exported prompt as is) or ``tools`` (agentic
            RL in the graph-tool environment, with naming perturbations).
        num_generations: Completions per prompt (the GRPO group, Table 9's 8).
        mini_batch_size: Prompts per optimiser step (None: ``optim.batch_size``).
        beta: KL coefficient (Table 9: 0.0).
        max_prompt_length: Rows whose exported prompt is longer (tokens, chat template
            applied, tool schemas not counted) are dropped before training (TRL has no
            prompt limit of its own).
        max_completion_length: Tokens per completion (tool results included).
        temperature: Sampling temperature.
        lambda_inv: Weight of ``s_inv`` in the gated reward (GRAIN: 1.0).
        rho_err: Reward of an invalid completion (-1.0).
        strict_protocol: Agent completions: accept only ``<answer>`` tags as the final
            answer (the paper's gate).
        lenient: Count Algorithm 1's lenient matches as correct.
        curriculum: The stages (:class:`CurriculumStage`), in order (empty: one stage).
        perturb: ``tools`` mode: draw a fresh naming view per group (False: the row's own
            view; Table 5's "w/o diverse naming").
        tools: ``tools`` mode: the functions offered (None: ``graph_tool`` and every
            typed function, :func:`closurebench.train.environment.tool_names`).
        max_tool_calls: ``tools`` mode: tool rounds per episode (TRL's
            ``max_tool_calling_iterations``; the agent modes' 6 calls less the answer).
        use_vllm: Generate with vLLM (TRL's ``use_vllm``; off by default; not with ARPO).
        vllm_mode: ``colocate`` or ``server`` (TRL's ``vllm_mode``).
        arpo: :class:`ArpoSettings` (read when ``algorithm = "arpo"``).
    """

    algorithm: Literal["grpo", "arpo"] = "grpo"
    mode: Literal["prompt", "tools"] = "prompt"
    num_generations: int = Field(8, ge=2)
    mini_batch_size: int | None = Field(None, ge=1)
    beta: float = Field(0.0, ge=0.0)
    max_prompt_length: int | None = Field(None, ge=1)
    max_completion_length: int = Field(1024, ge=1)
    temperature: float = Field(1.0, gt=0.0)
    lambda_inv: float = 1.0
    rho_err: float = -1.0
    strict_protocol: bool = True
    lenient: bool = False
    curriculum: list[CurriculumStage] = Field(default_factory=list)
    perturb: bool = True
    tools: list[str] | None = None
    max_tool_calls: int = Field(5, ge=1)
    use_vllm: bool = False
    vllm_mode: Literal["colocate", "server"] = "colocate"
    arpo: ArpoSettings = Field(default_factory=ArpoSettings)

    @model_validator(mode="after")
    def _coherent(self) -> GrpoSettings:
        if self.algorithm == "arpo" and self.use_vllm:
            raise ValueError(
                "ARPO's partial rollouts run on the model's generate: set use_vllm = false"
            )
        if self.tools is not None:
            from closurebench.train.environment import tool_names

            unknown = sorted(set(self.tools) - set(tool_names()))
            if unknown or not self.tools:
                raise ValueError(
                    f"tools {unknown or '[]'} are not offered; choose from {tool_names()}"
                )
        return self


class GrpoRecipe(RecipeBase):
    """A GRPO / ARPO recipe: the shared sections plus ``[grpo]``."""

    grpo: GrpoSettings = Field(default_factory=GrpoSettings)

    @model_validator(mode="after")
    def _batches(self) -> GrpoRecipe:
        b = self.optim.batch_size
        mini = self.grpo.mini_batch_size or b
        if b % mini:
            raise ValueError(
                f"optim.batch_size={b} prompts per rollout batch is not a multiple of "
                f"grpo.mini_batch_size={mini}"
            )
        per_step = mini * self.grpo.num_generations
        if per_step % self.optim.gradient_accumulation:
            raise ValueError(
                f"grpo.mini_batch_size x num_generations = {per_step} completions per step "
                f"do not split into optim.gradient_accumulation="
                f"{self.optim.gradient_accumulation} parts"
            )
        return self

    @property
    def mini_batch(self) -> int:
        """Prompts per optimiser step."""
        return self.grpo.mini_batch_size or self.optim.batch_size


def load_grpo_recipe(
    path: str | Path | None,
    *,
    preset_name: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> GrpoRecipe:
    """Read and validate a GRPO recipe (file, preset, then ``overrides``); nothing heavy.

    Raises:
        ConfigError: an unreadable file, an unknown preset or key, a bad value.
    """
    recipe: GrpoRecipe = load_recipe(
        path, GrpoRecipe, "grpo", preset_name=preset_name, overrides=dict(overrides or {})
    )
    return recipe


# ----------------------------------------------------------------------------- data


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``closurebench export grpo`` file (JSONL or a ``--format hf`` folder).

    Raises:
        DatasetFileError: a missing file, or a line that is not a GRPO record.
    """
    return read_training_file(path, "grpo")


@dataclass(frozen=True)
class Schedule:
    """The rows in training order, and where each curriculum stage starts and ends.

    Attributes:
        rows: The prompts in the order TRL reads them (a row recurs once per pass).
        stages: Per stage: ``{"name", "n_min", "n_max", "rows", "prompts", "steps",
            "first_step", "last_step"}``.
        steps: Optimiser steps of the whole run.
    """

    rows: list[dict[str, Any]]
    stages: list[dict[str, Any]]
    steps: int

    def stage_at(self, step: int) -> str:
        """The name of the stage optimiser step ``step`` (1-based) belongs to."""
        for s in self.stages:
            if step <= s["last_step"]:
                return str(s["name"])
        return str(self.stages[-1]["name"])


def _graph_key(row: Mapping[str, Any]) -> str:
    return str(row.get("graph_id") or row["id"])


def _sample_graphs(rows: list[dict[str, Any]], per: int, seed: int) -> list[dict[str, Any]]:
    """Rows of ``per`` base graphs per (task or category, n), every view of each."""
    from closurebench.seeding import rng

    graphs: dict[tuple[str, int], list[str]] = {}
    for r in rows:
        key = (str(r.get("task") or r.get("category")), int(r["n"]))
        g = _graph_key(r)
        if g not in graphs.setdefault(key, []):
            graphs[key].append(g)
    keep: set[str] = set()
    for key in sorted(graphs):
        ids = sorted(graphs[key])
        pick = rng(derive_seed(seed, "graphs", key[0], key[1])).permutation(len(ids))
        keep.update(ids[i] for i in pick[:per])
    return [r for r in rows if _graph_key(r) in keep]


def plan_schedule(rows: Sequence[dict[str, Any]], recipe: GrpoRecipe) -> Schedule:
    """Lay the rows out for training: the curriculum's stages, each shuffled per pass.

    Raises:
        ConfigError: a stage that keeps no row.
    """
    from closurebench.seeding import rng

    seed = recipe.optim.seed
    batch, mini = recipe.optim.batch_size, recipe.mini_batch
    stages = list(recipe.grpo.curriculum) or [
        CurriculumStage(
            max_steps=recipe.optim.max_steps,
            epochs=None if recipe.optim.max_steps else recipe.optim.epochs,
            name="all",
        )
    ]
    ordered: list[dict[str, Any]] = []
    info: list[dict[str, Any]] = []
    step = 0
    for i, st in enumerate(stages):
        name = st.name or f"stage-{i + 1}"
        kept = [dict(r) for r in rows if st.n_min <= int(r["n"]) <= st.n_max]
        if st.graphs_per_task_and_size is not None:
            kept = _sample_graphs(kept, st.graphs_per_task_and_size, derive_seed(seed, name))
        if not kept:
            ns = sorted({int(r["n"]) for r in rows})
            raise ConfigError(
                f"curriculum stage {name!r} (n {st.n_min}-{st.n_max}) keeps no row; the data's "
                f"sizes are {ns[0]}-{ns[-1]}: widen the stage or export other sizes"
            )
        if st.max_steps is not None:
            prompts = math.ceil(st.max_steps * mini / batch) * batch
        else:
            prompts = max(math.ceil((st.epochs or 1.0) * len(kept) / batch), 1) * batch
        seq: list[dict[str, Any]] = []
        p = 0
        while len(seq) < prompts:
            order = rng(derive_seed(seed, "curriculum", name, p)).permutation(len(kept))
            seq += [kept[j] for j in order]
            p += 1
        seq = seq[:prompts]
        steps = prompts // mini
        info.append(
            {
                "name": name,
                "n_min": st.n_min,
                "n_max": st.n_max,
                "rows": len(kept),
                "prompts": prompts,
                "steps": steps,
                "first_step": step + 1,
                "last_step": step + steps,
            }
        )
        ordered += seq
        step += steps
    total = step
    if recipe.optim.max_steps is not None and recipe.optim.max_steps < total:
        total = recipe.optim.max_steps
        ordered = ordered[: math.ceil(total * mini / batch) * batch]
    return Schedule(ordered, info, total)


# ----------------------------------------------------------------------------- reward


class TrainingReward:
    """The gated reward over a training batch (TRL's reward signature; picklable).

    Each completion is scored by :class:`~closurebench.train.rewards.GatedReward` in its
    row's ``mode`` column (``prompt`` mode), or in ``agent-tools`` (``tools`` mode,
    ``mode="agent-tools"`` here) against the view its environment drew: when TRL passes
    ``environments``, completion ``i`` is scored with ``environments[i].ground_truth``
    (the perturbed record: its names, aliases and answer) instead of the row's.

    Args:
        lambda_inv: Weight of ``s_inv``.
        rho_err: Reward of an invalid completion.
        mode: Score every completion in this mode (None: each row's ``mode``).
        strict_protocol: See :class:`~closurebench.train.rewards.GatedReward`.
        lenient: Count lenient matches as correct.

    Example:
        >>> from closurebench.generate.grit import GritConfig, generate_records
        >>> from closurebench.jsonl import canonical_json
        >>> rec = generate_records(GritConfig(split="test", seed=0, count=1, n_max=10))[0][0]
        >>> r = TrainingReward()
        >>> r(completions=[f"<answer>{rec.answer}</answer>"], ground_truth=[canonical_json(
        ...     rec.to_json())], mode=["agent"])
        [1.0]
    """

    __name__ = "closurebench_gated"

    def __init__(
        self,
        lambda_inv: float = 1.0,
        rho_err: float = -1.0,
        *,
        mode: str | None = None,
        strict_protocol: bool = True,
        lenient: bool = False,
    ) -> None:
        self.lambda_inv = lambda_inv
        self.rho_err = rho_err
        self.mode = mode
        self.strict_protocol = strict_protocol
        self.lenient = lenient
        self._rewards: dict[str, Any] = {}

    def reward(self, mode: str) -> Any:
        """The :class:`~closurebench.train.rewards.GatedReward` of ``mode`` (made once)."""
        from closurebench.train.rewards import GatedReward

        if mode not in self._rewards:
            self._rewards[mode] = GatedReward(
                mode,
                lambda_inv=self.lambda_inv,
                rho_err=self.rho_err,
                strict_protocol=self.strict_protocol,
                lenient=self.lenient,
            )
        return self._rewards[mode]

    def truths(self, ground_truth: Sequence[str], environments: Sequence[Any] | None) -> list[str]:
        """The record each completion is scored against: its environment's view, if any."""
        out = list(ground_truth)
        if environments is not None:
            for i, env in enumerate(environments):
                view = getattr(env, "ground_truth", None)
                if isinstance(view, str):
                    out[i] = view
        return out

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Any] | None = None,
        *,
        ground_truth: Sequence[str] | None = None,
        mode: Sequence[str] | None = None,
        environments: Sequence[Any] | None = None,
        completion_turns: Sequence[Any] | None = None,
        log_metric: Any = None,
        log_extra: Any = None,
        **columns: Any,
    ) -> list[float]:
        """One gated reward per completion (see the class docstring).

        ``completion_turns`` (ARPO in ``tools`` mode, whose sampler runs the tool loop
        itself): each completion's turns (assistant turns with ``tool_calls``, ``tool``
        turns), scored in place of TRL's one-message parse of the whole sequence.

        Raises:
            ConfigError: without completions and the ground_truth column.
        """
        del prompts, completion_ids, columns
        if completions is None or ground_truth is None:
            raise ConfigError(
                "the gated reward needs completions and the ground_truth column; train on a "
                "file written by `closurebench export grpo`"
            )
        if completion_turns is not None:
            completions = completion_turns
        truths = self.truths(ground_truth, environments)
        modes = [self.mode] * len(truths) if self.mode else list(mode or [])
        if len(modes) != len(truths):
            raise ConfigError(
                "the gated reward needs the mode column (one per completion); train on a file "
                "written by `closurebench export grpo`"
            )
        parts: list[Any] = [None] * len(truths)
        for m in dict.fromkeys(modes):
            idx = [i for i, x in enumerate(modes) if x == m]
            got = self.reward(m).parts([completions[i] for i in idx], [truths[i] for i in idx])
            for i, p in zip(idx, got, strict=True):
                parts[i] = p
        first = self.reward(modes[0]) if modes else None
        if first is not None:
            first.log(parts, log_metric, log_extra)
        return [p.gated(self.lambda_inv, self.rho_err) for p in parts]


# ----------------------------------------------------------------------------- trainer


def _tools_prompt(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ``tools`` mode prompt: the agent-tools system turn and an empty user turn.

    The environment's ``reset`` returns the drawn view's question, which TRL appends to
    the (empty) last user turn.
    """
    from closurebench.evaluate.modes import get_mode
    from closurebench.schema.training import instance_from_ground_truth

    record = instance_from_ground_truth(row["ground_truth"])
    system = get_mode(TOOLS_MODE).system(record)
    return [{"role": "system", "content": system}, {"role": "user", "content": ""}]


def _prompt_tokens(tokenizer: Any, row: Mapping[str, Any]) -> int:
    messages = [dict(m) for m in row["prompt"]]
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    if isinstance(ids, Mapping):
        ids = ids["input_ids"]
    return len(ids)


def _fit_prompts(rows: list[dict[str, Any]], tokenizer: Any, limit: int | None) -> list[dict]:
    if limit is None:
        return rows
    kept = [r for r in rows if _prompt_tokens(tokenizer, r) <= limit]
    if not kept:
        raise ConfigError(
            f"every prompt is longer than grpo.max_prompt_length={limit} tokens; raise it"
        )
    return kept


def _check_tool_template(tokenizer: Any, name: str) -> None:
    from trl.chat_template_utils import add_response_schema, supports_tool_calling

    if not supports_tool_calling(tokenizer):
        raise ConfigError(
            f"model {name!r}: its chat template cannot render tool calls, which grpo.mode = "
            "'tools' needs (TRL's tool loop); use a model with a tool-calling template "
            "(Qwen2.5/3, Llama 3.1+) or mode = 'prompt'"
        )
    has = getattr(tokenizer, "response_template", None) or getattr(
        tokenizer, "response_schema", None
    )
    if not has:
        try:
            add_response_schema(tokenizer)
        except ValueError:
            raise ConfigError(
                f"model {name!r}: TRL cannot parse tool calls out of its replies (no response "
                "template for its chat template); set tokenizer.response_template or use a "
                "model TRL knows (Qwen2.5/3, Llama 3.1+)"
            ) from None


def _grpo_config(recipe: GrpoRecipe, out: Path, steps: int, progress: bool) -> Any:
    from trl import GRPOConfig

    g, o, opt = recipe.grpo, recipe.output, recipe.optim
    mini = recipe.mini_batch
    ga = opt.gradient_accumulation
    kwargs: dict[str, Any] = {
        "output_dir": str(out),
        "learning_rate": opt.learning_rate,
        "per_device_train_batch_size": mini * g.num_generations // ga,
        "gradient_accumulation_steps": ga,
        "steps_per_generation": (opt.batch_size // mini) * ga,
        "num_generations": g.num_generations,
        "num_train_epochs": 1,
        "max_steps": steps,
        "lr_scheduler_type": opt.scheduler,
        "seed": opt.seed,
        "data_seed": opt.seed,
        "beta": g.beta,
        "temperature": g.temperature,
        "max_completion_length": g.max_completion_length,
        "max_tool_calling_iterations": g.max_tool_calls,
        "shuffle_dataset": False,  # the schedule is the order
        "logging_steps": o.logging_steps,
        "report_to": list(o.report_to) or "none",
        "save_strategy": "steps" if o.save_steps else "no",
        "disable_tqdm": not progress,
        "use_vllm": g.use_vllm,
        "vllm_mode": g.vllm_mode,
        "bf16": recipe.model.dtype == "bfloat16",
        "fp16": recipe.model.dtype == "float16",
        "remove_unused_columns": False,
    }
    if o.save_steps:
        kwargs["save_steps"] = o.save_steps
    if opt.warmup_ratio:
        kwargs["warmup_steps"] = opt.warmup_ratio  # a float below 1 is a ratio
    return GRPOConfig(**kwargs)


def _callbacks(schedule: Schedule, out: Path) -> list[Any]:
    from transformers import TrainerCallback

    from closurebench.train.callbacks import jsonl_metrics

    ends = {s["last_step"] for s in schedule.stages}

    class _Stages(TrainerCallback):
        """Names the curriculum stage in each log event; saves at each stage's end."""

        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None, **kw: Any) -> None:
            if logs is not None:
                logs["curriculum_stage"] = schedule.stage_at(max(state.global_step, 1))

        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            if state.global_step in ends or state.global_step >= schedule.steps:
                control.should_save = True

    return [_Stages(), jsonl_metrics(out / "metrics.jsonl")]


def build_trainer(
    recipe: GrpoRecipe,
    rows: Sequence[dict[str, Any]],
    *,
    reward: Any = None,
    progress: bool = True,
    model: Any = None,
    tokenizer: Any = None,
) -> tuple[Any, Schedule]:
    """The TRL ``GRPOTrainer`` of ``recipe`` over ``rows``, and its schedule.

    Args:
        recipe: The validated recipe (``output.dir`` is where everything goes).
        rows: GRPO records as JSON dicts (:func:`read_rows`).
        reward: The reward function (default: a :class:`TrainingReward` of the recipe).
        progress: Show TRL's progress bar.
        model: A loaded model (default: ``load_model(recipe.model)``).
        tokenizer: Its tokenizer (with ``model``).

    Returns:
        ``(trainer, schedule)``; the trainer's environment factory (``tools`` mode) is
        ``trainer.environment_factories[None]``, the ARPO sampler
        ``trainer.rollout_func``.

    Raises:
        ConfigError: the model cannot be loaded, its template cannot call tools (``tools``
            mode), or no row fits.
    """
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOTrainer

    from closurebench.train.recipe import load_model

    g = recipe.grpo
    out = Path(recipe.output.dir)
    if model is None:
        model, tokenizer = load_model(recipe.model)
    if tokenizer is None:
        raise ConfigError("build_trainer: pass the tokenizer with the model")
    tokenizer.padding_side = "left"
    rows = [dict(r) for r in rows]
    rows = _fit_prompts(rows, tokenizer, g.max_prompt_length)
    env_factory = None
    if g.mode == "tools":
        _check_tool_template(tokenizer, recipe.model.name)
        from closurebench.train.environment import environment_factory

        rows = [{**r, "prompt": _tools_prompt(r)} for r in rows]
        env_factory = environment_factory(
            derive_seed(recipe.optim.seed, "views"),
            g.num_generations,
            tools=g.tools,
            perturb=g.perturb,
        )
    schedule = plan_schedule(rows, recipe)
    if reward is None:
        reward = TrainingReward(
            g.lambda_inv,
            g.rho_err,
            mode=TOOLS_MODE if g.mode == "tools" else None,
            strict_protocol=g.strict_protocol,
            lenient=g.lenient,
        )
    rollout = None
    if g.algorithm == "arpo":
        from closurebench.train.arpo import ArpoRollout

        rollout = ArpoRollout(g.arpo, seed=derive_seed(recipe.optim.seed, "arpo"))
    peft_config = lora_config(recipe)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[reward],
        args=_grpo_config(recipe, out, schedule.steps, progress),
        train_dataset=importlib.import_module("datasets").Dataset.from_list(schedule.rows),
        processing_class=tokenizer,
        peft_config=peft_config,
        rollout_func=rollout,
        environment_factory=env_factory,
        callbacks=_callbacks(schedule, out),
    )
    return trainer, schedule


def train_grpo(
    recipe: GrpoRecipe,
    data: str | Path,
    *,
    resume: bool = False,
    progress: bool = True,
    echo: Any = None,
) -> Path:
    """Run ``recipe`` on the GRPO file ``data``; return the final model's folder.

    Raises:
        ConfigError / DatasetFileError: bad data, recipe, output folder or model.
    """
    say = echo or (lambda _msg: None)
    out = Path(recipe.output.dir)
    require_extra()
    rows = read_rows(data)
    checkpoint = check_resume(recipe, resume)
    out.mkdir(parents=True, exist_ok=True)
    trainer, schedule = build_trainer(recipe, rows, progress=progress)
    write_recipe(recipe)
    for s in schedule.stages:
        say(
            f"stage {s['name']}: n {s['n_min']}-{s['n_max']}, {s['rows']} rows, "
            f"{s['prompts']} prompts, steps {s['first_step']}-{s['last_step']}"
        )
    trainer.train(resume_from_checkpoint=checkpoint)
    final = out / "final"
    trainer.save_model(str(final))
    trainer.processing_class.save_pretrained(str(final))
    say(f"wrote {final}")
    return final
