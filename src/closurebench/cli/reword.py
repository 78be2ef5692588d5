"""``closurebench reword FILE --surface-seed S --out FILE2``: same structures, new surface.

Every record keeps its id, structure (graph, anchors, structural seed), encoding and
answer ids; labels, frame, style and edge order are drawn again from ``S``; answers are
recomputed three ways and must match, and each new question is read back
(:mod:`closurebench.generate.reword`). Evaluate both files with the same model to
separate surface sensitivity from structural difficulty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from closurebench.cli.generate import _write_with_progress


def reword_cmd(
    file: Annotated[Path, typer.Argument(help="A ClosureBench JSONL file.")],
    surface_seed: Annotated[
        int, typer.Option("--surface-seed", help="Seed of the new surface (labels, frame...).")
    ],
    out: Annotated[Path, typer.Option("--out", help="The re-worded JSONL file to write.")],
) -> None:
    """Re-word a ClosureBench file: same graphs, anchors and answers; new labels and wording."""
    from closurebench.generate.reword import reword_file

    total = sum(1 for line in file.open(encoding="utf-8") if line.strip()) if file.exists() else 0
    path, man, records = _write_with_progress(
        f"reword {file.name}",
        total,
        lambda advance, _status: reword_file(file, surface_seed, out, advance),
    )
    typer.echo(f"wrote {len(records)} re-worded records to {path}")
    typer.echo(f"manifest: {man}")
