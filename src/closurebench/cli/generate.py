"""``closurebench generate`` subcommands: write benchmark splits as canonical JSONL.

* ``closurebench generate closure --split heldout --seed 0 --out DIR [--count K]
  [--categories a,b] [--levels 1,2] [--n-min N] [--n-max N] [--density-min R]
  [--density-max R] [--encodings nl,json,matrix] [--answer-hints]
  [--conventions explicit|implicit] [--workers W]`` writes
  ``DIR/closure-<split>.jsonl`` and ``DIR/closure-<split>.manifest.json``. Questions end
  with a per-category answer form only with ``--answer-hints`` (the paper gives none);
  ``--conventions implicit`` drops the source-inclusion statement ("not counting A
  itself") from the 12 ambiguous categories' questions, as the paper words them (answers
  unchanged); the manifest records both choices, the modal answer share per category and
  the splits whose structures this one avoids (train avoids heldout's, finetune both).

* ``closurebench generate grit --split test --seed 0 --out DIR [--count K] [--tasks a,b]
  [--n-min N] [--n-max N] [--time-limit S] [--layout paper|even] [--regime app-h|app-a]
  [--workers W]`` writes ``DIR/grit-<split>.jsonl`` and ``DIR/grit-<split>.manifest.json``
  (counts, sha256, the regime, the layout and graphs per task, the time limit and the
  resamples it caused). ``test``, ``large`` and ``ood`` are drawn in the ``app-h`` regime
  (so only size, or scenarios and identifiers, change between them), ``train`` in
  ``app-a``. The default
  ``--layout paper`` gives ``test`` the paper's 2,760 questions (45 vertex-cover graphs,
  60 of every other task); ``--layout even`` gives every task 60 (2,880). ``--count K``
  is the total of base graphs, apportioned over the tasks in the layout's proportions.

Both take ``--shard i/N`` (1-based: ``1/4`` .. ``4/4``): write only the ``i``-th of ``N``
contiguous blocks of the split (ClosureBench: of its planned structures, GRIT: of its base
graphs), exactly the records the unsharded run writes there, to
``<stem>.shard-<i>-of-<N>.jsonl`` with its own manifest (the block's counts and sha256,
the whole split's arguments, and a ``shard`` entry with the range); ``closurebench merge
SHARDS... --out DIR`` checks them and writes the unsharded run's file and manifest, byte
for byte (:mod:`closurebench.generate.shard`).

Both take ``--backend ray [--shards N] [--ray-address ADDR]``: the split is cut into ``N``
shards (default: the cluster's CPUs), each generated as one Ray task, and merged as
``closurebench merge`` merges them: the same bytes and manifest as a local run
(:mod:`closurebench.generate.ray_backend`; needs the ``ray`` extra).

Both show a progress bar on stderr (on a terminal) with the elapsed time; GRIT's also
names what the current graph is doing (attempt, solving, cross-checking, timeouts so far),
since one large NP-hard graph can take minutes.

Bad arguments (unknown split or task, bad range, a ``--shard`` that is not ``i/N`` with
``1 <= i <= N``, or more shards than the split has units) print one line naming the value
and the valid choices; so does a generation failure (e.g. a solver disagreement). Both
exit with code 1 (2 is for a command line that does not parse). No tracebacks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console, RenderableType
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from closurebench.errors import ConfigError
from closurebench.generate import closure as closure_gen
from closurebench.generate.grit import LAYOUTS, REGIMES, SPLITS, GritConfig, write_split
from closurebench.generate.grit import split_file_name as grit_split_file_name
from closurebench.generate.shard import Shard
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import check_wording
from closurebench.tasks.grit.base import DEFAULT_TIME_LIMIT

app = typer.Typer(help="Generate benchmark splits as canonical JSONL.", no_args_is_help=True)


def _shard_help(unit: str, stem: str) -> str:
    """The help of ``--shard`` for a suite whose split is cut into ``unit``."""
    return (
        f"Write only shard I of N (1-based: 1/4 .. 4/4), a contiguous block of the split's "
        f"{unit}, to {stem}.shard-I-of-N.jsonl with its own manifest: exactly the records "
        "the unsharded run writes there. `closurebench merge` joins all N into the "
        "unsharded run's file and manifest, byte for byte."
    )


_BACKEND = typer.Option(
    "--backend",
    help="Where the split is generated: local (this process, --workers) or ray (one Ray "
    "task per shard, merged into the same bytes; needs the 'ray' extra).",
)
_SHARDS = typer.Option(
    "--shards",
    min=1,
    help="--backend ray: shards (Ray tasks) to cut the split into (default: the cluster's "
    "CPUs, at most one per unit); the output does not depend on it.",
)
_RAY_ADDRESS = typer.Option(
    "--ray-address",
    help="--backend ray: an existing cluster (auto, HOST:6379, ray://HOST:10001; `ray start "
    "--head` prints it); default: a local cluster on this machine.",
)


def _on_ray(
    backend: str,
    shard: str | None,
    shards: int | None,
    address: str | None,
    config: closure_gen.ClosureConfig | GritConfig,
    out: Path,
    overwrite: bool,
) -> bool:
    """Generate ``config`` on Ray when ``--backend ray`` (True: done); refuse misused flags.

    Bad combinations (``--shard`` with ``--backend ray``, ``--shards`` or ``--ray-address``
    without it, Ray not installed) raise :class:`ConfigError`.
    """
    from closurebench.generate.ray_backend import check_backend, generate_with_ray

    check_backend(backend, address)
    if backend != "ray":
        if shards is not None:
            raise ConfigError(
                "--shards applies to --backend ray; to write one shard here, pass --shard I/N"
            )
        return False
    if shard is not None:
        raise ConfigError(
            f"--shard {shard} writes one shard in this process, --backend ray writes them "
            "all (and merges them): drop one of the two"
        )
    made = generate_with_ray(config, out, shards=shards, address=address, overwrite=overwrite)
    merged = made.merged
    typer.echo(
        f"wrote {merged.records} records to {merged.path} from {merged.shards} shard(s) "
        "generated as Ray tasks"
    )
    timeouts = int((made.manifest.get("resamples") or {}).get("timeouts") or 0)
    if timeouts:
        typer.echo(
            f"{timeouts} draw(s) were resampled after a solver passed --time-limit "
            "(recorded in the manifest; a slower machine may resample differently)"
        )
    typer.echo(f"manifest: {merged.manifest_path}")
    return True


@app.callback()
def _group() -> None:
    """Generate benchmark splits as canonical JSONL."""


@app.command("grit")
def grit_cmd(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    split: Annotated[str, typer.Option(help=f"Split: one of {', '.join(SPLITS)}.")] = "test",
    seed: Annotated[int, typer.Option(help="Master seed.")] = 0,
    count: Annotated[
        int | None,
        typer.Option(
            help="Number of base graphs (8 questions each; default: the split's in --layout), "
            "apportioned over the tasks in the layout's proportions."
        ),
    ] = None,
    tasks: Annotated[
        str | None, typer.Option(help="Comma-separated subset of tasks (default: all six).")
    ] = None,
    n_min: Annotated[int | None, typer.Option("--n-min", help="Smallest n.")] = None,
    n_max: Annotated[int | None, typer.Option("--n-max", help="Largest n.")] = None,
    time_limit: Annotated[
        float,
        typer.Option(
            "--time-limit",
            help="Seconds an exact solve (or its cross-check) may take before the graph is "
            "resampled; the manifest records the limit and the resamples it caused.",
        ),
    ] = DEFAULT_TIME_LIMIT,
    regime: Annotated[
        str | None,
        typer.Option(
            "--regime",
            help=f"Structural draw: one of {', '.join(REGIMES)}. app-h: p 0.28-0.44, "
            "undirected shortest-path graphs (the paper's measured test graphs; default for "
            "test, large, ood); app-a: p 0.1-0.3, half directed (the paper's stated range; "
            "default for train, and large before 0.3).",
        ),
    ] = None,
    density_min: Annotated[
        float | None,
        typer.Option(
            "--density-min",
            help="Smallest Erdős–Rényi p (default: the regime's; app-h 0.28, app-a 0.1).",
        ),
    ] = None,
    density_max: Annotated[
        float | None,
        typer.Option("--density-max", help="Largest p (default: the regime's; 0.44, 0.3)."),
    ] = None,
    directed_share: Annotated[
        float | None,
        typer.Option(
            "--directed-share",
            help="Share of shortest-path graphs drawn directed (default: the regime's; "
            "app-h 0, app-a 0.5).",
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="Worker processes (output unchanged).")] = 1,
    layout: Annotated[
        str,
        typer.Option(
            help=f"Graphs per task: one of {', '.join(LAYOUTS)}. paper: as in the paper (test: "
            "45 vertex-cover graphs, 60 of every other task, 2,760 questions); even: the same "
            "for every task (test: 60 each, 2,880)."
        ),
    ] = "paper",
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="Replace a split already in --out (refused without it)."),
    ] = False,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="I/N",
            help=_shard_help("base graphs (8 records each)", "grit-<split>"),
        ),
    ] = None,
    backend: Annotated[str, _BACKEND] = "local",
    shards: Annotated[int | None, _SHARDS] = None,
    ray_address: Annotated[str | None, _RAY_ADDRESS] = None,
) -> None:
    """Generate a GRIT split: 8 certified views per graph, exact answers, manifest."""
    task_list = None
    if tasks is not None:
        task_list = tuple(t.strip() for t in tasks.split(",") if t.strip())
    config = GritConfig(
        split=split,
        seed=seed,
        count=count,
        tasks=task_list,
        n_min=n_min,
        n_max=n_max,
        time_limit=time_limit,
        regime=regime,
        density_min=density_min,
        density_max=density_max,
        directed_share=directed_share,
        workers=workers,
        layout=layout,
    )
    if _on_ray(backend, shard, shards, ray_address, config, out, overwrite):
        return
    part = _parse_shard(shard, config.graphs, "graphs")
    whole = grit_split_file_name(config)
    _refuse_existing(out, whole if part is None else part.file_name(whole), overwrite)
    start, stop = (0, config.graphs) if part is None else part.range(config.graphs)
    path, man, results = _write_with_progress(
        f"grit {config.split}" + ("" if part is None else f" shard {part}"),
        stop - start,
        lambda advance, status: write_split(config, out, advance, status, part),
    )
    graphs = stop - start
    typer.echo(f"wrote {graphs * 8} records from {graphs} graphs to {path}")
    timeouts = sum(r.timeouts for r in results)
    if timeouts:
        typer.echo(
            f"{timeouts} draw(s) of {sum(r.timeouts > 0 for r in results)} graph(s) were "
            f"resampled after a solver passed --time-limit {config.time_limit:g} s "
            "(recorded in the manifest; a slower machine may resample differently)"
        )
    typer.echo(f"manifest: {man}")
    _merge_hint(part, out, whole, (start, stop), "graphs", config.graphs)


T = TypeVar("T")


class _StatusProgress(Progress):
    """A progress bar with one status line under it (what the current item is doing)."""

    status: str = ""

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        if self.status:
            yield Text(f"  {self.status}", style="dim", no_wrap=True, overflow="ellipsis")

    def set_status(self, text: str) -> None:
        """Show ``text`` under the bar (replacing the previous status)."""
        self.status = text
        self.refresh()


def _write_with_progress(
    label: str,
    total: int,
    write: Callable[[Callable[[Any], None], Callable[[str], None]], tuple[Path, Path, T]],
) -> tuple[Path, Path, T]:
    """Run ``write(advance, status)`` under a transient progress bar.

    ``advance`` moves the bar one item; ``status`` replaces the line under it (what the
    current item is doing). The bar shows the elapsed time from the start, so a slow first
    item is visible. A failure propagates to the CLI's handler (one line, exit 1 for a
    closurebench error, 5 for an OS error).
    """
    with _StatusProgress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        job = bar.add_task(label, total=total)
        # A failure reaches the CLI's one handler: one line, an exit code per kind.
        return write(lambda _item: bar.advance(job), bar.set_status)


def _refuse_existing(out: Path, name: str, overwrite: bool) -> None:
    """Refuse (:class:`ConfigError`) when ``out/name`` exists without ``--overwrite``."""
    target = out / name
    if target.exists() and not overwrite:
        raise ConfigError(
            f"{target} exists; pass --overwrite to replace it (and its manifest), or "
            "choose another --out"
        )


def _parse_shard(text: str | None, total: int, unit: str) -> Shard | None:
    """The ``--shard`` value (``None`` when not given); :class:`ConfigError` on a bad one.

    ``total`` is how many ``unit`` the split has: a shard count above it is refused (a
    shard would be empty).
    """
    if text is None:
        return None
    shard = Shard.parse(text)
    shard.range(total, unit)
    return shard


def _merge_hint(
    shard: Shard | None, out: Path, whole: str, span: tuple[int, int], unit: str, total: int
) -> None:
    """After writing a shard: its block, and the command that merges all of them."""
    if shard is None:
        return
    stem = Path(whole).stem
    typer.echo(
        f"shard {shard}: {unit} {span[0]}..{span[1] - 1} of {total}; when all {shard.count} "
        f"are written: closurebench merge {out / f'{stem}.shard-*-of-{shard.count}.jsonl'} "
        f"--out {out}"
    )


def _split_list(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(v.strip() for v in value.split(",") if v.strip())


@app.command("closure")
def closure_cmd(
    out: Annotated[Path, typer.Option("--out", help="Output directory.")],
    split: Annotated[
        str, typer.Option(help=f"Split: one of {', '.join(closure_gen.SPLITS)}.")
    ] = "heldout",
    seed: Annotated[int, typer.Option(help="Master seed.")] = 0,
    count: Annotated[
        int | None, typer.Option(help="Instances in total (default: the split's size).")
    ] = None,
    categories: Annotated[
        str | None,
        typer.Option(help=f"Comma-separated categories (default: all {len(CLOSURE_TASKS)})."),
    ] = None,
    levels: Annotated[str | None, typer.Option(help="Comma-separated levels, e.g. 1,3.")] = None,
    n_min: Annotated[int, typer.Option("--n-min", help="Smallest n (>= 4).")] = 4,
    n_max: Annotated[
        int | None, typer.Option("--n-max", help="Largest n (default 10; sweep: 20).")
    ] = None,
    density_min: Annotated[float, typer.Option("--density-min", help="Smallest ρ.")] = 0.1,
    density_max: Annotated[float, typer.Option("--density-max", help="Largest ρ.")] = 0.5,
    encodings: Annotated[
        str, typer.Option(help="Comma-separated encodings drawn from: nl, json, matrix.")
    ] = "nl",
    answer_hints: Annotated[
        bool,
        typer.Option(
            "--answer-hints",
            help="End each question with its answer form (e.g. Answer with a JSON object "
            '{"answer": <number>}.). Off by default, as in the paper; recorded.',
        ),
    ] = False,
    workers: Annotated[int, typer.Option(help="Worker processes (output unchanged).")] = 1,
    subset: Annotated[
        str | None,
        typer.Option(
            help="A named subset of the split: encoding-study (200 structures, level-uniform, "
            "each in nl, json and matrix; --count sets the structures)."
        ),
    ] = None,
    conventions: Annotated[
        str,
        typer.Option(
            "--conventions",
            help="How the 12 ambiguous categories' questions treat the source node: "
            "explicit (default) says it in words ('not counting A itself'); implicit "
            "leaves it unsaid, as the paper does. Answers unchanged; recorded in the manifest.",
        ),
    ] = "explicit",
    overwrite: Annotated[
        bool,
        typer.Option("--overwrite", help="Replace a split already in --out (refused without it)."),
    ] = False,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="I/N",
            help=_shard_help("structures (its instances)", "closure-<split>"),
        ),
    ] = None,
    backend: Annotated[str, _BACKEND] = "local",
    shards: Annotated[int | None, _SHARDS] = None,
    ray_address: Annotated[str | None, _RAY_ADDRESS] = None,
) -> None:
    """Generate a ClosureBench split: triple-verified answers, certified questions, manifest.

    --split sweep is the paper's size sweep (n 4-20); --subset encoding-study
    the encoding study's subset (Table 7).
    """
    try:
        level_list = tuple(int(v) for v in _split_list(levels) or ()) or None
    except ValueError:
        raise ConfigError(f"--levels {levels!r} must be comma-separated integers 1-3") from None
    check_wording(conventions, "--conventions")
    config = closure_gen.ClosureConfig(
        split=split,
        seed=seed,
        count=count,
        categories=_split_list(categories),
        levels=level_list,
        n_min=n_min,
        n_max=n_max,
        density_min=density_min,
        density_max=density_max,
        encodings=_split_list(encodings) or (),
        answer_hints=answer_hints,
        workers=workers,
        subset=subset,
        conventions=conventions,
    )
    if _on_ray(backend, shard, shards, ray_address, config, out, overwrite):
        return
    structures = config.structures()
    part = _parse_shard(shard, structures, "structures")
    whole = closure_gen.split_file_name(config)
    _refuse_existing(out, whole if part is None else part.file_name(whole), overwrite)
    start, stop = (0, structures) if part is None else part.range(structures)
    total = (stop - start) * len(config.encodings_per_structure())
    path, man, _ = _write_with_progress(
        f"closure {config.split}" + ("" if part is None else f" shard {part}"),
        total,
        lambda advance, _status: closure_gen.write_split(config, out, advance, part),
    )
    typer.echo(f"wrote {total} records to {path}")
    typer.echo(f"manifest: {man}")
    _merge_hint(part, out, whole, (start, stop), "structures", structures)
