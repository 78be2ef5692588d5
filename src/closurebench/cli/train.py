"""``closurebench train sft|grpo|recipe``: LoRA / full fine-tuning on TRL (the ``train`` extra).

Each subcommand lives in its own module (:mod:`closurebench.cli.train_sft`,
:mod:`closurebench.cli.train_grpo`) and is registered here; recipes are read and
validated by :mod:`closurebench.train.recipe` before anything heavy is imported.
"""

from __future__ import annotations

import typer

from closurebench.cli.train_grpo import grpo_cmd
from closurebench.cli.train_recipe import recipe_cmd
from closurebench.cli.train_sft import sft_cmd

__all__ = ["app"]

app = typer.Typer(
    help="Train on closurebench data with TRL: SFT, GRPO and ARPO (needs the train extra).",
    no_args_is_help=True,
)


@app.callback()
def _group() -> None:
    """Train on closurebench data with TRL: SFT, GRPO and ARPO (needs the train extra)."""


app.command("sft")(sft_cmd)
app.command("grpo")(grpo_cmd)
app.command("recipe")(recipe_cmd)
