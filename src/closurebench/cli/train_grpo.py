"""``closurebench train grpo``: GRPO / ARPO with the gated reward (GRAIN §4.3-4.4).

::

    closurebench train grpo --data GRPO.jsonl [--recipe R.toml] [--preset grain-grpo|grain-arpo]
        [--model M] [--out DIR] [--algorithm grpo|arpo] [--mode prompt|tools]
        [--max-steps N] [--resume] [--no-progress]

``--data`` is a ``closurebench export grpo`` file (JSONL or a ``--format hf`` folder).
The recipe is a TOML / JSON file (:class:`~closurebench.train.grpo.GrpoRecipe`; it may
start from a preset with ``preset = "grain-arpo"``) or a preset alone; the options
override it (``--model`` the model, ``--out`` the output folder, ``--algorithm``,
``--mode`` and ``--max-steps`` the ``[grpo]`` / ``[optim]`` keys). It is validated before
any model is loaded: a misspelt key is one line naming it (exit 1).

``--resume`` continues the run in ``--out`` from its last checkpoint, with the recipe it
was started with (``OUT/recipe.json`` when no ``--recipe`` / ``--preset`` / ``--model`` is
given; a different recipe is refused, except for ``--max-steps``). Without ``--resume``,
an output folder holding checkpoints is refused.

Writes ``OUT/recipe.json``, ``OUT/metrics.jsonl``, ``OUT/checkpoint-<step>/`` and
``OUT/final/`` (see :mod:`closurebench.train.grpo`). Needs the ``train`` extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["grpo_cmd"]


def grpo_cmd(
    data: Annotated[
        Path, typer.Option("--data", help="A `closurebench export grpo` file (or hf folder).")
    ],
    recipe: Annotated[
        Path | None, typer.Option("--recipe", help="Recipe file (.toml or .json).")
    ] = None,
    preset: Annotated[
        str | None,
        typer.Option("--preset", help="Start from a preset: grain-grpo or grain-arpo."),
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Hub id or local directory of the model.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Output folder (default: output.dir).")
    ] = None,
    algorithm: Annotated[
        str | None, typer.Option("--algorithm", help="grpo or arpo (grpo.algorithm).")
    ] = None,
    mode: Annotated[
        str | None,
        typer.Option("--mode", help="prompt (single-turn) or tools (graph-tool environment)."),
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
    """GRPO / ARPO on TRL with the gated reward, single-turn or in the tool environment."""
    from closurebench.train.grpo import load_grpo_recipe, train_grpo
    from closurebench.train.recipe import recipe_source

    overrides: dict[str, Any] = {}
    if model is not None:
        overrides["model"] = {"name": model}
    if out is not None:
        overrides["output"] = {"dir": str(out)}
    grpo: dict[str, Any] = {}
    if algorithm is not None:
        grpo["algorithm"] = algorithm
    if mode is not None:
        grpo["mode"] = mode
    if grpo:
        overrides["grpo"] = grpo
    if max_steps is not None:
        overrides["optim"] = {"max_steps": max_steps}
    source = recipe_source(recipe, preset, model, out, resume)
    the_recipe = load_grpo_recipe(source, preset_name=preset, overrides=overrides)
    train_grpo(the_recipe, data, resume=resume, progress=progress, echo=typer.echo)
