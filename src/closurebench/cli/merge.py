"""``closurebench merge SHARDS... --out FILE|DIR``: join a split's shards into the whole split.

The shards are the files ``closurebench generate closure|grit ... --shard i/N`` writes
(``closure-heldout.shard-1-of-4.jsonl`` .. ``-4-of-4``, each with its manifest). Every
shard is checked against its manifest (record count, sha256), and all of them against each
other (one suite, version, seed, split and set of arguments; each of the ``N`` once, no gap,
no overlap); then the shards' records are written in order, with the manifest and schema
the unsharded run writes: the same bytes as one ``generate`` without ``--shard``
(:mod:`closurebench.generate.merge`). ``--out`` is the merged ``.jsonl`` file, or a folder
to write it into under the split's own name (then the manifest is byte-identical too).

A refusal (a missing, repeated, foreign, cut or edited shard) prints one line naming the
file, what is wrong and the fix, and exits 1; an existing output without ``--overwrite``
is refused the way ``generate`` refuses an existing split (one line, exit 1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from closurebench.errors import ConfigError
from closurebench.generate.merge import check_shards, exists_line, write_merged


def merge_cmd(
    shards: Annotated[
        list[Path],
        typer.Argument(
            help="The shard files (any order), e.g. DIR/closure-heldout.shard-*-of-4.jsonl.",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            help="The merged file (a path ending in .jsonl), or a folder to write it into "
            "under the split's own name (closure-heldout.jsonl); its manifest and schema go "
            "beside it.",
        ),
    ],
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="Replace an existing merged file (and its manifest)."),
    ] = False,
) -> None:
    """Merge the shards of one `generate --shard i/N` run into the unsharded run's bytes."""
    plan = check_shards(shards, out)
    if plan.target.exists() and not overwrite:
        raise ConfigError(exists_line(plan.target))  # as `generate` refuses an existing split
    merged = write_merged(plan)
    typer.echo(f"merged {merged.shards} shards ({merged.records} records) into {merged.path}")
    typer.echo(f"manifest: {merged.manifest_path}")
