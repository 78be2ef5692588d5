"""``closurebench train recipe grain``: a paper's whole training recipe in one command.

::

    closurebench train recipe grain --model M --out DIR [--data GRIT.jsonl | --count N]
        [--seed 0] [--algorithm arpo|grpo] [--sft-max-steps N] [--rl-max-steps N]
        [--dtype bfloat16] [--dry-run] [--no-progress]

GRAIN's recipe (:mod:`closurebench.train.paper_recipe`): the GRIT train split (generated
under ``DIR/data/grit/`` unless ``--data`` names a GRIT file), exported as tool-use SFT
records and GRPO prompts; SFT with GRAIN Table 7's settings into ``DIR/sft/``; then ARPO
(Table 9) from the SFT model in the graph-tool environment with the naming perturbation
and App. B.3's two-phase curriculum into ``DIR/rl/``. ``--dry-run`` prints the plan and
its memory estimate and runs nothing. Needs the ``train`` extra (except ``--dry-run``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["recipe_cmd"]


def recipe_cmd(
    name: Annotated[str, typer.Argument(help="The recipe: grain (GRAIN's SFT then ARPO).")],
    model: Annotated[str, typer.Option("--model", help="Hub id or folder of the base model.")],
    out: Annotated[Path, typer.Option("--out", help="The run's folder (data, sft, rl).")],
    data: Annotated[
        Path | None, typer.Option("--data", help="A GRIT dataset file (default: generate).")
    ] = None,
    count: Annotated[
        int | None,
        typer.Option("--count", min=1, help="Base graphs to generate (default: the 2,160)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the generated split.")] = 0,
    algorithm: Annotated[
        str, typer.Option("--algorithm", help="arpo (the paper) or grpo (its ablation).")
    ] = "arpo",
    sft_max_steps: Annotated[
        int | None, typer.Option("--sft-max-steps", min=1, help="Cut SFT to N steps.")
    ] = None,
    rl_max_steps: Annotated[
        int | None,
        typer.Option("--rl-max-steps", min=1, help="Cut each curriculum phase to N steps."),
    ] = None,
    dtype: Annotated[
        str, typer.Option("--dtype", help="Weights' dtype: bfloat16, float16 or float32.")
    ] = "bfloat16",
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan and its memory; run nothing.")
    ] = False,
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show TRL's progress bars.")
    ] = True,
) -> None:
    """Run a paper's training recipe end to end (data, SFT, RL), or print its plan."""
    from closurebench.errors import ConfigError
    from closurebench.train.paper_recipe import (
        RECIPES,
        count_parameters,
        describe,
        grain_plan,
        run_plan,
    )

    if name not in RECIPES:
        raise ConfigError(f"recipe {name!r} is unknown; choose one of {', '.join(RECIPES)}")
    plan = grain_plan(
        model, out, data=data, count=count, seed=seed, algorithm=algorithm,
        sft_max_steps=sft_max_steps, rl_max_steps=rl_max_steps, dtype=dtype,
    )  # fmt: skip
    if dry_run:
        for line in describe(plan, count_parameters(model)):
            typer.echo(line)
        return
    from closurebench.train.recipe import require_extra

    require_extra()
    final = run_plan(plan, progress=progress, echo=typer.echo)
    typer.echo(f"recipe {name}: done; the trained model is {final}")
