"""``closurebench train sft``: supervised fine-tuning on TRL, LoRA or full (the train extra).

::

    closurebench train sft --data SFT.jsonl [--recipe R.toml] [--preset closurebench-sft|grain-sft]
        [--model M] [--out DIR] [--epochs E] [--max-steps N] [--resume] [--no-progress]

``--data`` is a ``closurebench export sft`` file (JSONL or a ``--format hf`` folder), of
any target. The recipe is a TOML / JSON file (:class:`~closurebench.train.sft.SftRecipe`;
it may start from a preset with ``preset = "grain-sft"``) or a preset alone (default
``closurebench-sft``: ClosureBench §3.4); the options override it. It is validated before
any model is loaded: a misspelt key is one line naming it (exit 1).

``--resume`` continues the run in ``--out`` from its last checkpoint, with the recipe it
was started with (``OUT/recipe.json`` when no ``--recipe`` / ``--preset`` / ``--model`` is
given; a different recipe is refused, except for ``--epochs`` / ``--max-steps``). Without
``--resume``, an output folder holding checkpoints is refused.

Writes ``OUT/recipe.json``, ``OUT/metrics.jsonl``, ``OUT/checkpoint-<step>/`` and
``OUT/final/`` (see :mod:`closurebench.train.sft`); evaluate the result with
``closurebench eval DATA --provider transformers --model OUT/final``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["sft_cmd"]


def sft_cmd(
    data: Annotated[
        Path, typer.Option("--data", help="A `closurebench export sft` file (or hf folder).")
    ],
    recipe: Annotated[
        Path | None, typer.Option("--recipe", help="Recipe file (.toml or .json).")
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option("--preset", help="Preset: closurebench-sft (default) or grain-sft."),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Hub id or local directory of the model.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Output folder (default: output.dir).")
    ] = None,
    epochs: Annotated[
        float | None, typer.Option("--epochs", min=0.001, help="Passes over the data.")
    ] = None,
    max_steps: Annotated[
        int | None, typer.Option("--max-steps", min=1, help="Stop after N optimiser steps.")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue the run in --out from its last checkpoint.")
    ] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show TRL's progress bar.")
    ] = True,
) -> None:
    """Supervised fine-tuning (LoRA by default) on exported SFT records."""
    from closurebench.train.recipe import recipe_source
    from closurebench.train.sft import load_sft_recipe, train_sft

    overrides: dict[str, Any] = {}
    if model is not None:
        overrides["model"] = {"name": model}
    if out is not None:
        overrides["output"] = {"dir": str(out)}
    optim: dict[str, Any] = {}
    if epochs is not None:
        optim["epochs"] = epochs
    if max_steps is not None:
        optim["max_steps"] = max_steps
    if optim:
        overrides["optim"] = optim
    source = recipe_source(recipe, preset, model, out, resume)
    the_recipe = load_sft_recipe(source, preset_name=preset, overrides=overrides)
    train_sft(the_recipe, data, resume=resume, progress=progress, echo=typer.echo)
