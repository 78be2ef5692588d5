"""Training recipes: the validated settings every ``closurebench train`` command reads.

A recipe is a TOML or JSON file (or a named preset) read into a pydantic model whose
unknown keys are errors, so a misspelt knob fails before any model is loaded. The shared
parts live here: the model to start from (:class:`ModelSettings`: a hub id or a local
directory, loaded by :func:`load_model`), the LoRA adapter (:class:`LoraSettings`), the
optimiser and schedule (:class:`OptimSettings`), and where checkpoints and metrics go
(:class:`OutputSettings`). The SFT and GRPO recipes extend :class:`RecipeBase` with their
own sections; :func:`load_recipe` reads either.

The papers' settings are presets (:data:`PRESETS`):

* ``closurebench-sft`` — ClosureBench §3.4: LoRA r 16, α 32, dropout 0.05, learning rate
  2e-4, batch 4, 3 epochs.
* ``grain-sft`` — GRAIN Table 7: full fine-tuning (``lora = false``), global batch 8 (4 ×
  gradient accumulation 2), 3 epochs, learning rate 7e-6, cosine, warm-up 0.1, context
  15,000 tokens.
* ``grain-grpo`` and ``grain-arpo`` — GRAIN Table 9: actor learning rate 1e-6, batch 16,
  mini-batch 4, 2 epochs, KL 0.0, 8 rollouts per prompt, prompts up to 24,000 and responses
  up to 12,000 tokens; ARPO's beam size 2, branch probability 0.5, entropy weight 0.2, 2
  initial rollouts (the GRPO preset is the paper's ablation without them).

A file may start from a preset (``preset = "closurebench-sft"``) and override any key.

Example:
    >>> r = preset("closurebench-sft")
    >>> r.lora.r, r.lora.alpha, r.optim.learning_rate, r.optim.epochs
    (16, 32, 0.0002, 3.0)
    >>> try:
    ...     RecipeBase.model_validate({"model": {"name": "m"}, "lora": {"rank": 8}})
    ... except Exception as exc:
    ...     print(type(exc).__name__)
    ValidationError
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from closurebench.errors import ConfigError

__all__ = [
    "PRESETS",
    "LoraSettings",
    "ModelSettings",
    "OptimSettings",
    "OutputSettings",
    "RecipeBase",
    "check_resume",
    "load_model",
    "load_recipe",
    "preset",
    "recipe_error",
    "write_recipe",
]


class _Strict(BaseModel):
    """A recipe section: unknown keys are errors, values are validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelSettings(_Strict):
    """The model to start from.

    Attributes:
        name: A Hugging Face hub id or a local directory (``save_pretrained`` output, or
            an adapter directory holding ``adapter_config.json``).
        tokenizer: Where the tokenizer is, when not beside the model.
        dtype: ``float32`` (CPU), ``bfloat16`` or ``float16``.
        revision: Hub revision (ignored for local directories).
    """

    name: str = Field(min_length=1)
    tokenizer: str | None = None
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    revision: str | None = None


class LoraSettings(_Strict):
    """The LoRA adapter (PEFT), ClosureBench §3.4's by default.

    Attributes:
        r: Rank.
        alpha: Scaling numerator (``lora_alpha``).
        dropout: Dropout on the adapter's input.
        target_modules: Modules to adapt (``"all-linear"`` or a list of names).
    """

    r: int = Field(16, ge=1)
    alpha: int = Field(32, ge=1)
    dropout: float = Field(0.05, ge=0.0, lt=1.0)
    target_modules: str | list[str] = "all-linear"


class OptimSettings(_Strict):
    """Optimiser, schedule and batch.

    Attributes:
        learning_rate: Peak learning rate.
        batch_size: Examples per device per step.
        gradient_accumulation: Steps accumulated per optimiser update.
        epochs: Passes over the data (ignored when ``max_steps`` is set).
        max_steps: Stop after this many optimiser steps (None: run the epochs).
        scheduler: Learning-rate schedule (a transformers ``lr_scheduler_type``).
        warmup_ratio: Share of the steps spent warming up.
        seed: Seed of the trainer (data order, dropout, sampling).
    """

    learning_rate: float = Field(2e-4, gt=0)
    batch_size: int = Field(4, ge=1)
    gradient_accumulation: int = Field(1, ge=1)
    epochs: float = Field(3, gt=0)
    max_steps: int | None = Field(None, ge=1)
    scheduler: str = "linear"
    warmup_ratio: float = Field(0.0, ge=0.0, lt=1.0)
    seed: int = 42


class OutputSettings(_Strict):
    """Where checkpoints and metrics go.

    Attributes:
        dir: Output directory (checkpoints ``checkpoint-<step>``, the final model or
            adapter, ``metrics.jsonl`` and the recipe as run).
        save_steps: Save a checkpoint every this many steps (None: at each epoch end).
        logging_steps: Log metrics every this many steps.
        report_to: Trackers besides the JSONL log: ``tensorboard``, ``wandb`` (none by
            default: nothing leaves the machine unless asked).
    """

    dir: str = "runs/train"
    save_steps: int | None = Field(None, ge=1)
    logging_steps: int = Field(1, ge=1)
    report_to: list[Literal["tensorboard", "wandb"]] = Field(default_factory=list)


class RecipeBase(_Strict):
    """What every training recipe holds.

    Attributes:
        preset: The preset this recipe started from (informative).
        model: :class:`ModelSettings`.
        lora: :class:`LoraSettings`, or ``False`` for full fine-tuning.
        optim: :class:`OptimSettings`.
        output: :class:`OutputSettings`.
    """

    preset: str | None = None
    model: ModelSettings
    lora: LoraSettings | Literal[False] = Field(default_factory=LoraSettings)
    optim: OptimSettings = Field(default_factory=OptimSettings)
    output: OutputSettings = Field(default_factory=OutputSettings)

    @field_validator("lora", mode="before")
    @classmethod
    def _lora_flag(cls, value: Any) -> Any:
        if value is True:
            return {}
        return value


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


#: The papers' settings, as recipe fragments (section -> key -> value); see the module
#: docstring. ``kind`` says which recipe a preset is for.
PRESETS: dict[str, dict[str, Any]] = {
    "closurebench-sft": {
        "kind": "sft",
        "lora": {"r": 16, "alpha": 32, "dropout": 0.05},
        "optim": {"learning_rate": 2e-4, "batch_size": 4, "epochs": 3},
    },
    "grain-sft": {
        "kind": "sft",
        "lora": False,
        "optim": {
            "learning_rate": 7e-6,
            "batch_size": 4,
            "gradient_accumulation": 2,
            "epochs": 3,
            "scheduler": "cosine",
            "warmup_ratio": 0.1,
        },
        "sft": {"max_length": 15000},
    },
    "grain-grpo": {
        "kind": "grpo",
        "lora": False,
        "optim": {"learning_rate": 1e-6, "batch_size": 16, "epochs": 2},
        "grpo": {
            "num_generations": 8,
            "mini_batch_size": 4,
            "beta": 0.0,
            "max_prompt_length": 24000,
            "max_completion_length": 12000,
            "algorithm": "grpo",
        },
    },
}
#: ARPO: the GRPO preset plus Table 9's search and exploration knobs.
PRESETS["grain-arpo"] = _merge(
    PRESETS["grain-grpo"],
    {
        "grpo": {
            "algorithm": "arpo",
            "arpo": {
                "initial_rollouts": 2,
                "beam_size": 2,
                "branch_probability": 0.5,
                "entropy_weight": 0.2,
            },
        }
    },
)


def recipe_error(exc: ValidationError, where: str) -> ConfigError:
    """One readable error for a recipe that does not validate: every bad key, and the fix.

    Example:
        >>> try:
        ...     RecipeBase.model_validate({"model": {"name": "m"}, "optim": {"lr": 1}})
        ... except ValidationError as exc:
        ...     print(recipe_error(exc, "r.toml"))
        r.toml: optim.lr: unknown key (Extra inputs are not permitted); fix or remove it
    """
    parts = []
    errors = exc.errors()
    for err in errors:
        # A union field (``lora``: a table or false) reports each alternative: keep the
        # table's errors, named by the field's path, not the alternative's class.
        path = [str(x) for x in err["loc"]]
        if any(x.startswith("literal[") for x in path) and len(errors) > 1:
            continue
        path = [x for x in path if not (x[:1].isupper() or x.startswith("literal["))]
        loc = ".".join(path) or "(top)"
        if err["type"] == "extra_forbidden":
            parts.append(f"{loc}: unknown key ({err['msg']}); fix or remove it")
        else:
            parts.append(f"{loc}: {err['msg']} (got {err.get('input')!r})")
    return ConfigError(f"{where}: " + "; ".join(parts))


def _fragment(name: str, kind: str) -> dict[str, Any]:
    if name not in PRESETS:
        raise ConfigError(f"preset {name!r} is unknown; choose one of {', '.join(PRESETS)}")
    frag = dict(PRESETS[name])
    if frag.pop("kind") != kind:
        fits = [k for k, v in PRESETS.items() if v["kind"] == kind]
        raise ConfigError(
            f"preset {name!r} is not a {kind} recipe; for {kind} choose one of {', '.join(fits)}"
        )
    return frag


def preset(name: str, model: str = "model", kind: str = "sft", cls: type[Any] = RecipeBase) -> Any:
    """The preset ``name`` as a recipe of ``cls`` (starting from ``model``).

    Raises:
        ConfigError: for an unknown preset or one of another kind.
    """
    data = _merge(_fragment(name, kind), {"preset": name, "model": {"name": model}})
    if cls is RecipeBase:  # the base has no sft/grpo section
        data = {k: v for k, v in data.items() if k in RecipeBase.model_fields}
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise recipe_error(exc, f"preset {name}") from None


def load_recipe(
    path: str | Path | None,
    cls: type[Any],
    kind: str,
    *,
    preset_name: str | None = None,
    overrides: dict[str, Any] | None = None,
) -> Any:
    """Read a recipe file (TOML or JSON), on top of its preset, with ``overrides`` last.

    Args:
        path: The file (None: the preset alone).
        cls: The recipe model to validate into.
        kind: ``"sft"`` or ``"grpo"`` (which presets fit).
        preset_name: A preset to start from when the file names none.
        overrides: Section -> key -> value, applied last (the CLI's options).

    Raises:
        ConfigError: an unreadable file, an unknown preset or key, a bad value.
    """
    data: dict[str, Any] = {}
    where = "recipe"
    if path is not None:
        p = Path(path)
        where = str(p)
        if not p.is_file():
            raise ConfigError(f"{p}: no such recipe file; pass a .toml or .json recipe")
        try:
            text = p.read_text(encoding="utf-8")
            data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise ConfigError(f"{p}: not a readable TOML/JSON recipe ({exc})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{p}: a recipe is a table of sections, not {type(data).__name__}")
    name = data.get("preset", preset_name)
    if name is not None:
        data = _merge(_fragment(str(name), kind), {**data, "preset": name})
    data = _merge(data, overrides or {})
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise recipe_error(exc, where) from None


#: What ``closurebench train`` imports (the ``train`` extra).
TRAIN_PACKAGES = ("torch", "transformers", "trl", "peft", "datasets", "accelerate")


def require_extra(packages: tuple[str, ...] = TRAIN_PACKAGES) -> None:
    """Check that the ``train`` extra is installed, before any work starts.

    Raises:
        ConfigError: one line naming the missing packages and the install command.
    """
    import importlib.util

    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    if missing:
        raise ConfigError(
            f"training needs the `train` extra ({', '.join(missing)} not installed); run "
            "`uv sync --extra train`"
        )


def load_model(settings: ModelSettings) -> tuple[Any, Any]:
    """Load the causal LM and its tokenizer (needs the ``train`` extra).

    The evaluation harness's loader
    (:func:`~closurebench.evaluate.providers.transformers_local.load_causal_lm`): a local
    directory is loaded from disk, an adapter directory loads its base model with the
    adapter attached, anything else is a hub id read through the Hugging Face cache
    (``HF_HUB_OFFLINE=1`` is respected: a model missing from the cache is an error, never
    a download).

    Raises:
        ConfigError: one line naming what is missing (the extra, the directory, the
            model in an offline cache) and the fix.
    """
    from closurebench.evaluate.providers.base import ProviderError
    from closurebench.evaluate.providers.transformers_local import load_causal_lm

    try:
        return load_causal_lm(
            settings.name,
            dtype=settings.dtype,
            tokenizer=settings.tokenizer,
            revision=settings.revision,
        )
    except ProviderError as exc:
        raise ConfigError(str(exc)) from None


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


#: Keys a resumed run may change (how long it runs, how it reports).
RESUMABLE_CHANGES = frozenset(
    {"optim.max_steps", "optim.epochs", "output.logging_steps", "output.report_to"}
)


def write_recipe(recipe: RecipeBase) -> Path:
    """Write ``recipe`` as run to ``OUT/recipe.json`` (what ``--resume`` compares with)."""
    out = Path(recipe.output.dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "recipe.json"
    path.write_text(
        json.dumps(recipe.model_dump(mode="json"), indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    return path


def check_resume(recipe: RecipeBase, resume: bool) -> str | None:
    """The checkpoint to resume from (None: a fresh run); checks the output folder.

    A fresh run refuses a folder that holds checkpoints (it would mix two runs); a resumed
    run needs a checkpoint and the recipe the run started with (``OUT/recipe.json``),
    except for :data:`RESUMABLE_CHANGES`.

    Raises:
        ConfigError: ``resume`` without a checkpoint or with another recipe than the
            run's; a fresh run into a folder that holds checkpoints.
    """
    from transformers.trainer_utils import get_last_checkpoint

    out = Path(recipe.output.dir)
    last = get_last_checkpoint(str(out)) if out.is_dir() else None
    if not resume:
        if last is not None:
            raise ConfigError(
                f"{out} holds checkpoints of an earlier run ({Path(last).name}); pass "
                "--resume to continue it, or choose another --out"
            )
        return None
    if last is None:
        raise ConfigError(f"--resume: {out} holds no checkpoint; run without --resume")
    saved_path = out / "recipe.json"
    if saved_path.is_file():
        saved = _flat(json.loads(saved_path.read_text(encoding="utf-8")))
        now = _flat(recipe.model_dump(mode="json"))
        diff = sorted(
            k
            for k in set(saved) | set(now)
            if k not in RESUMABLE_CHANGES and saved.get(k) != now.get(k)
        )
        if diff:
            raise ConfigError(
                f"--resume: the run in {out} was started with another recipe (it differs in "
                f"{', '.join(diff)}); resume with its recipe ({saved_path}) or start a new run "
                "elsewhere"
            )
    return str(last)


def lora_config(recipe: RecipeBase) -> Any:
    """The PEFT ``LoraConfig`` of ``recipe.lora`` (None for full fine-tuning)."""
    if recipe.lora is False:
        return None
    from peft import LoraConfig

    lo = recipe.lora
    return LoraConfig(
        r=lo.r,
        lora_alpha=lo.alpha,
        lora_dropout=lo.dropout,
        target_modules=lo.target_modules,
        task_type="CAUSAL_LM",
    )


def read_training_file(path: str | Path, kind: Literal["sft", "grpo"]) -> list[dict[str, Any]]:
    """The records of a ``closurebench export sft|grpo`` file, validated, as JSON dicts.

    Args:
        path: A JSONL file, or a ``--format hf`` folder (needs ``datasets``).
        kind: ``sft`` or ``grpo``.

    Raises:
        DatasetFileError: a missing file, or a line that is not a record of ``kind``.
    """
    import importlib

    from closurebench.errors import DatasetFileError
    from closurebench.jsonl import iter_objects
    from closurebench.schema.training import parse_training

    name = kind.upper()
    p = Path(path)
    if p.is_dir():
        try:
            datasets = importlib.import_module("datasets")
        except ImportError:
            raise DatasetFileError(
                f"{p} is a folder; reading a Hugging Face dataset needs the `datasets` package"
            ) from None
        objs = [(i + 1, dict(row)) for i, row in enumerate(datasets.load_from_disk(str(p)))]
    elif p.is_file():
        objs = list(iter_objects(p, what=f"{name} file"))
    else:
        target = " --target answer" if kind == "sft" else ""
        raise DatasetFileError(
            f"{p}: no such file; write one with `closurebench export {kind} DATA.jsonl"
            f"{target} --out {p}`"
        )
    rows = [parse_training(obj, kind, f"{p}:{line}").to_json() for line, obj in objs]
    if not rows:
        raise DatasetFileError(f"{p} holds no {name} records; export some first")
    return rows


def recipe_source(
    recipe: Path | None, preset: str | None, model: str | None, out: Path | None, resume: bool
) -> Path | None:
    """The recipe file a ``closurebench train`` command reads (its options' rule).

    ``--recipe`` when given; for ``--resume`` without ``--recipe`` / ``--preset`` /
    ``--model``, the run's own ``OUT/recipe.json``; else None (a preset alone).

    Raises:
        ConfigError: ``--resume`` without ``--out``; no model anywhere.
    """
    source = recipe
    if resume and recipe is None and preset is None and model is None:
        if out is None:
            raise ConfigError("--resume needs --out (the run's folder) or the run's --recipe")
        source = out / "recipe.json"
    if source is None and model is None:
        raise ConfigError(
            "no model: pass --model (a hub id or a local directory) or a --recipe naming one"
        )
    return source
