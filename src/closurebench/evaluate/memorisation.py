"""The memorisation probe (ClosureBench §4.5, Table 6, Figure 2): the sets and their runs.

A model fine-tuned on a training file may have learnt the task, or the file. The probe
tells them apart by evaluating the model — the base model, then each checkpoint — on
three sets:

* **seen**: the training file itself;
* **fresh**: new instances of the same distribution — per category (GRIT: per task) as
  many as the seen file has (``fresh_count`` spreads another total in proportion), with
  the seen file's split, node-count range, density range, encodings, answer hints and
  query wording — from new structural and surface seeds: the generator's own
  (:func:`~closurebench.generate.closure.generate_records`,
  :func:`~closurebench.generate.grit.generate_records`) under the master seed
  ``derive_seed(seed, "memorisation", "fresh")``, dropping any instance whose structure
  or question the seen file holds;
* **reworded**: the seen structures asked again in new words
  (:func:`~closurebench.generate.reword.reword_records` with the surface seed
  ``derive_seed(seed, "memorisation", "reworded")``): same graphs, anchors and answers,
  new labels, frame, style and edge order. GRIT: each view in its own form and naming
  scheme with new names and wording
  (:func:`~closurebench.generate.reword.reword_grit_records`), ids kept; the standard
  form with canonical names reads the same under every surface and is left out.

Fresh records take ``fresh<seed>-`` before their ids (the generator numbers a split
from 0, so they would otherwise carry seen ids).

``seen − fresh`` is what the model memorised (wording and structure); ``seen −
reworded`` what it memorised of the wording alone. Each probe seed (default 42, 137,
256) draws its own fresh and re-worded sets; the seen file is one set for all of them,
evaluated once per checkpoint (greedy decoding would repeat it word for word).

Everything goes under one folder ``OUT`` (:class:`ProbeLayout`)::

    OUT/sets/seed-<s>/fresh.jsonl       (+ fresh.manifest.json, the instance schema)
    OUT/sets/seed-<s>/reworded.jsonl    (+ reworded.manifest.json)
    OUT/runs/<label>/seen/              a run folder of the harness (results.jsonl ...)
    OUT/runs/<label>/fresh-<s>/
    OUT/runs/<label>/reworded-<s>/

Every run is the harness's own (:func:`~closurebench.evaluate.runner.run_eval`), so an
interrupted probe resumes where it stopped: finished results are kept, the request
cache answers what was asked before, and a set file whose manifest records the same
seen file, seed and size is read back rather than generated again. The scores, tables
and Figure 2 are computed from the run folders by :mod:`closurebench.report.memorisation`.

Example:
    >>> checkpoint_label_info("checkpoint-1200")
    ('checkpoint-1200', 1200)
    >>> checkpoint_label_info("final")
    ('final', None)
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from closurebench import __version__
from closurebench.errors import ConfigError
from closurebench.evaluate.modes import AnyInstance, Mode
from closurebench.evaluate.options import RunOptions, RunStats
from closurebench.evaluate.providers.base import GenerationSettings, Provider
from closurebench.evaluate.runner import run_eval
from closurebench.generate.io import load_instances, manifest_name, write_jsonl
from closurebench.schema import ClosureInstance, GritInstance
from closurebench.schema.memorisation import ProbeSetName
from closurebench.seeding import derive_seed

__all__ = [
    "DEFAULT_SEEDS",
    "GRIT_REWORD_NOTE",
    "Checkpoint",
    "ProbeLayout",
    "ProbeSet",
    "SetRun",
    "build_sets",
    "checkpoint_label_info",
    "fresh_records",
    "read_checkpoint",
    "resolve_checkpoints",
    "reworded_records",
    "run_probe",
    "set_seed",
]

#: The probe seeds when none are given.
DEFAULT_SEEDS: tuple[int, ...] = (42, 137, 256)

#: What a GRIT probe's re-worded set leaves out (and why a file of only those has none).
GRIT_REWORD_NOTE = (
    "a GRIT re-worded set keeps each view's form and naming scheme with new names and "
    "wording; the standard form with canonical names reads the same under every surface, "
    "so those views are not in it, and the seen - re-worded gap compares the seen file's "
    "same views"
)

#: Files that make a folder a loadable model: a full model or a LoRA adapter.
_MODEL_CONFIGS = ("config.json", "adapter_config.json")
#: Weight files of a ``save_pretrained`` folder.
_WEIGHTS = ("*.safetensors", "*.bin", "*.safetensors.index.json", "*.pt")

#: Fresh draws beyond what is needed (instances whose structure the seen file holds are
#: dropped), and how many times the draw is widened before giving up.
_MARGIN = 4
_WIDEN = 6

_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


# ----------------------------------------------------------------- checkpoints


@dataclass(frozen=True)
class Checkpoint:
    """One model the probe evaluates.

    Attributes:
        label: Display label and run-folder name: ``base`` for the base model, else the
            checkpoint's folder name (with its parent's when two share it).
        model: What the provider is given as the model.
        base: Whether this is the base model.
        step: Training step (``checkpoint-<step>``, or ``trainer_state.json``).
        epoch: Training epoch (``trainer_state.json``), when known.
    """

    label: str
    model: str
    base: bool = False
    step: int | None = None
    epoch: float | None = None


def checkpoint_label_info(name: str) -> tuple[str, int | None]:
    """A checkpoint folder's label and the step its name states (transformers' form).

    Example:
        >>> checkpoint_label_info("checkpoint-50"), checkpoint_label_info("epoch-1")
        (('checkpoint-50', 50), ('epoch-1', None))
    """
    m = _CHECKPOINT.match(name)
    return name, int(m.group(1)) if m else None


def _trainer_state(folder: Path) -> tuple[int | None, float | None]:
    """``(global_step, epoch)`` of ``folder/trainer_state.json`` (Nones when absent)."""
    path = folder / "trainer_state.json"
    if not path.is_file():
        return None, None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(
            f"checkpoint {str(folder)!r}: unreadable trainer_state.json ({exc})"
        ) from None
    if not isinstance(state, dict):
        raise ConfigError(f"checkpoint {str(folder)!r}: trainer_state.json is not an object")
    step, epoch = state.get("global_step"), state.get("epoch")
    ok_step = isinstance(step, int) and not isinstance(step, bool)
    ok_epoch = isinstance(epoch, int | float) and not isinstance(epoch, bool)
    return (step if ok_step else None), (float(epoch) if ok_epoch and epoch is not None else None)


def _check_loadable(folder: Path, given: str) -> None:
    """Refuse, in one line, a folder a local provider cannot load as a model."""
    if not folder.exists():
        raise ConfigError(f"--checkpoints {given}: no such folder")
    if not folder.is_dir():
        raise ConfigError(f"--checkpoints {given}: a file, not a model or adapter folder")
    if not any((folder / name).is_file() for name in _MODEL_CONFIGS):
        raise ConfigError(
            f"--checkpoints {given}: holds neither config.json (a model) nor "
            "adapter_config.json (a LoRA adapter); pass a save_pretrained folder"
        )
    if not any(any(folder.glob(pattern)) for pattern in _WEIGHTS):
        raise ConfigError(
            f"--checkpoints {given}: holds no weights (*.safetensors or *.bin); "
            "the checkpoint was not saved completely"
        )


def read_checkpoint(given: str, *, local: bool) -> Checkpoint:
    """The :class:`Checkpoint` of one ``--checkpoints`` value.

    A folder is labelled by its name; a ``checkpoint-<step>`` name gives the step, and
    its ``trainer_state.json`` (when present) the epoch (and the step, for other names).
    A value that is no folder is a model name a server knows (``local`` False only).

    Args:
        given: The value as passed.
        local: Whether the provider loads models from disk (``transformers``): the
            folder must then exist and hold a model or an adapter with weights.

    Raises:
        ConfigError: one line naming the missing folder or file.
    """
    folder = Path(given).expanduser()
    if local:
        _check_loadable(folder, given)
    elif not folder.is_dir():
        if given.startswith((".", "/", "~")):
            raise ConfigError(f"--checkpoints {given}: no such folder")
        return Checkpoint(label=given, model=given)
    label, step = checkpoint_label_info(folder.resolve().name)
    state_step, epoch = _trainer_state(folder)
    return Checkpoint(label=label, model=given, step=step or state_step, epoch=epoch)


def resolve_checkpoints(model: str, checkpoints: Sequence[str], *, local: bool) -> list[Checkpoint]:
    """The base model, then every checkpoint in the given order, with unique labels.

    Two checkpoints with the same folder name are labelled ``parent/name``.

    Raises:
        ConfigError: for a checkpoint that cannot be used (see :func:`read_checkpoint`)
            or two that cannot be told apart.

    Example:
        >>> [c.label for c in resolve_checkpoints("m", ["srv-a", "srv-b"], local=False)]
        ['base', 'srv-a', 'srv-b']
    """
    out = [Checkpoint(label="base", model=model, base=True)]
    read = [read_checkpoint(c, local=local) for c in checkpoints]
    names = Counter(c.label for c in read)
    for given, ckpt in zip(checkpoints, read, strict=True):
        if names[ckpt.label] > 1 and Path(given).is_dir():
            ckpt = replace(ckpt, label=f"{Path(given).resolve().parent.name}/{ckpt.label}")
        out.append(ckpt)
    labels = Counter(c.label for c in out)
    twice = sorted(label for label, k in labels.items() if k > 1)
    if twice:
        raise ConfigError(
            f"--checkpoints: {twice[0]!r} is given twice (or names the base model's label); "
            "pass each checkpoint once"
        )
    return out


# ----------------------------------------------------------------------- sets


def set_seed(seed: int, name: ProbeSetName) -> int:
    """The generator seed of set ``name`` of probe seed ``seed``.

    Example:
        >>> set_seed(42, "fresh") == set_seed(42, "fresh") != set_seed(42, "reworded")
        True
    """
    return derive_seed(seed, "memorisation", name)


@dataclass(frozen=True)
class ProbeSet:
    """One dataset the probe evaluates.

    Attributes:
        name: ``seen``, ``fresh`` or ``reworded``.
        seed: The probe seed (None for ``seen``).
        path: The JSONL file.
        records: Its typed records, in file order.
        derived_seed: The generator seed (None for ``seen``).
    """

    name: ProbeSetName
    seed: int | None
    path: Path
    records: tuple[AnyInstance, ...]
    derived_seed: int | None = None

    @property
    def key(self) -> str:
        """``seen``, or ``<name>-<seed>`` (the run folder's name)."""
        return self.name if self.seed is None else f"{self.name}-{self.seed}"

    def sha256(self) -> str:
        """SHA-256 of the file's bytes."""
        return hashlib.sha256(self.path.read_bytes()).hexdigest()


def _one_suite(seen: Sequence[AnyInstance], where: str) -> str:
    if not seen:
        raise ConfigError(f"--seen {where}: the file holds no instance")
    suites = sorted({str(r.suite) for r in seen})
    if len(suites) > 1:
        raise ConfigError(f"--seen {where}: mixes suites ({', '.join(suites)}); pass one suite")
    return suites[0]


def _apportion(total: int, weights: dict[str, int]) -> dict[str, int]:
    from closurebench.generate.grit import apportion

    return apportion(total, weights)


def _wording(records: Sequence[ClosureInstance]) -> str:
    """``implicit`` when a seen question of the category leaves its convention unsaid."""
    from closurebench.surface.closure import ReadError, read_wording

    for r in records:
        try:
            if read_wording(r.question, r.category) == "implicit":
                return "implicit"
        except ReadError:
            continue
    return "explicit"


def _closure_fresh(seen: Sequence[ClosureInstance], seed: int, total: int) -> list[ClosureInstance]:
    from closurebench.generate.closure import SPLITS, ClosureConfig, generate_records
    from closurebench.surface.closure import ENCODINGS

    by: dict[str, list[ClosureInstance]] = {}
    for r in seen:
        by.setdefault(r.category, []).append(r)
    want = _apportion(total, {c: len(rs) for c, rs in by.items()})
    keys = {r.structure_key for r in seen}
    taken = {r.question for r in seen}
    master = set_seed(seed, "fresh")
    fresh: dict[str, list[ClosureInstance]] = {}
    for category, rs in by.items():
        need = want[category]
        if not need:
            continue
        hints = {r.answer_hints for r in rs}
        if len(hints) > 1:
            raise ConfigError(
                f"--seen: {category} questions mix answer hints on and off; the fresh set "
                "cannot match them (generate the file in one run)"
            )
        split = Counter(r.split for r in rs).most_common(1)[0][0]
        base = ClosureConfig(
            split=split if split in SPLITS else "train",
            seed=master,
            count=need,
            categories=(category,),
            n_min=max(4, min(r.n for r in rs)),
            n_max=max(4, max(r.n for r in rs)),
            density_min=min(r.density for r in rs),
            density_max=max(r.density for r in rs),
            encodings=tuple(e for e in ENCODINGS if e in {str(r.encoding) for r in rs}),
            answer_hints=hints.pop(),
            conventions=_wording(rs),
        )
        count = need + _MARGIN
        for _ in range(_WIDEN):
            made = generate_records(replace(base, count=count))
            kept = [r for r in made if r.structure_key not in keys and r.question not in taken][
                :need
            ]
            if len(kept) == need:
                break
            count *= 2
        else:
            raise ConfigError(
                f"--seen: no {need} fresh {category} instances outside the seen file in "
                f"n {base.n_min}..{base.n_max}; the seen file covers the range (lower "
                "--fresh-count)"
            )
        taken.update(r.question for r in kept)
        fresh[category] = kept
    # The seen file's order: its i-th instance of a category is matched by the i-th.
    out: list[ClosureInstance] = []
    used = Counter[str]()
    for r in seen:
        got = fresh.get(r.category, [])
        if used[r.category] < len(got):
            out.append(got[used[r.category]])
            used[r.category] += 1
    for category, got in fresh.items():
        out.extend(got[used[category] :])
    return out


def _grit_fresh(seen: Sequence[GritInstance], seed: int, total: int) -> list[GritInstance]:
    from closurebench.generate.grit import SPLITS, GritConfig, generate_records

    by: dict[str, list[GritInstance]] = {}
    for r in seen:
        by.setdefault(r.task, []).append(r)
    want = _apportion(total, {t: len(rs) for t, rs in by.items()})
    keys = {r.structure_key for r in seen}
    master = set_seed(seed, "fresh")
    per_task: dict[str, list[list[GritInstance]]] = {}
    for task, rs in by.items():
        need = want[task]
        if not need:
            continue
        views = {r.view for r in rs}
        graphs = -(-need // len(views))
        split = Counter(r.split for r in rs).most_common(1)[0][0]
        base = GritConfig(
            split=split if split in SPLITS else "train",
            seed=master,
            count=graphs,
            tasks=(task,),
            n_min=min(r.n for r in rs),
            n_max=max(r.n for r in rs),
        )
        count = graphs + 1
        for _ in range(_WIDEN):
            made, _results = generate_records(replace(base, count=count))
            kept: dict[str, list[GritInstance]] = {}
            for r in made:
                if r.structure_key not in keys and r.view in views:
                    kept.setdefault(r.graph_id, []).append(r)
            if len(kept) >= graphs:
                break
            count *= 2
        else:
            raise ConfigError(
                f"--seen: no {graphs} fresh {task} graphs outside the seen file in n "
                f"{base.n_min}..{base.n_max}; lower --fresh-count"
            )
        chosen = list(kept.values())[:graphs]
        flat = [r for views_of in chosen for r in views_of][:need]
        per_task[task] = [flat[i : i + len(views)] for i in range(0, len(flat), len(views))]
    out: list[GritInstance] = []
    for k in range(max((len(v) for v in per_task.values()), default=0)):
        for graphs_of in per_task.values():
            if k < len(graphs_of):
                out.extend(graphs_of[k])
    return out


def fresh_records(
    seen: Sequence[AnyInstance], seed: int, count: int | None = None
) -> list[AnyInstance]:
    """The fresh set of probe seed ``seed`` for the seen records (see the module docstring).

    Args:
        seen: The seen file's records (one suite).
        seed: The probe seed.
        count: Instances to draw (default: as many as ``seen``), spread over the seen
            file's categories or tasks in proportion.

    Raises:
        ConfigError: for an empty or mixed seen file, a bad count, or a distribution the
            seen file exhausts.
    """
    suite = _one_suite(seen, "file")
    total = len(seen) if count is None else count
    if isinstance(total, bool) or total < 1:
        raise ConfigError(f"--fresh-count {count!r} must be at least 1")
    drawn: list[AnyInstance] = list(
        _closure_fresh([r for r in seen if isinstance(r, ClosureInstance)], seed, total)
        if suite == "closure"
        else _grit_fresh([r for r in seen if isinstance(r, GritInstance)], seed, total)
    )
    return _fresh_ids(drawn, seed, {r.id for r in seen})


def _fresh_ids(drawn: list[AnyInstance], seed: int, seen_ids: set[str]) -> list[AnyInstance]:
    """The generator numbers a split's records from 0, so a fresh record would carry a seen
    record's id: each gets ``fresh<seed>-`` before its id (GRIT: its graph id too)."""
    out: list[AnyInstance] = []
    for r in drawn:
        data = r.to_json()
        data["id"] = f"fresh{seed}-{r.id}"
        if isinstance(r, GritInstance):
            data["graph_id"] = f"fresh{seed}-{r.graph_id}"
        new = type(r).model_validate(data)
        if new.id in seen_ids:  # only a seen file of fresh records could hold it
            raise ConfigError(
                f"--seen holds {new.id!r}, the id a fresh record takes; probe the original "
                "training file, not a probe set"
            )
        out.append(new)
    return out


def reworded_records(seen: Sequence[AnyInstance], seed: int) -> list[AnyInstance] | None:
    """The re-worded set of probe seed ``seed`` (None: no seen record has other words).

    ClosureBench: every record re-worded. GRIT: every record in its own form and naming
    scheme with new names and wording; the views that read the same under any surface
    (the standard form with canonical names) are not in it (:data:`GRIT_REWORD_NOTE`).

    Raises:
        VerificationError: when a seen record's answer does not follow from its structure.
    """
    from closurebench.generate.reword import reword_grit_records, reword_records

    surface = set_seed(seed, "reworded")
    if _one_suite(seen, "file") == "closure":
        return list(reword_records(seen, surface))
    grit, _skipped = reword_grit_records([r for r in seen if isinstance(r, GritInstance)], surface)
    return list(grit) or None


def _set_identity(
    name: ProbeSetName, seed: int, seen_sha: str, count: int | None
) -> dict[str, Any]:
    return {
        "set": name,
        "seed": seed,
        "derived_seed": set_seed(seed, name),
        "seen_sha256": seen_sha,
        "fresh_count": count if name == "fresh" else None,
        # 2: fresh ids prefixed, GRIT re-worded sets (a set drawn by the rule before is
        # drawn again, not read back)
        "rule": 2,
    }


def _reuse(path: Path, identity: dict[str, Any]) -> list[AnyInstance] | None:
    """The records of a set file written for ``identity`` earlier (None: make it anew)."""
    man = path.parent / manifest_name(path.name)
    if not (path.is_file() and man.is_file()):
        return None
    try:
        data = json.loads(man.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    entry = (data.get("files") or {}).get(path.name) or {}
    if data.get("memorisation") != identity:
        return None
    if entry.get("sha256") != hashlib.sha256(path.read_bytes()).hexdigest():
        return None
    return load_instances(path)


def _write_set(
    path: Path, records: Sequence[AnyInstance], identity: dict[str, Any], seen_name: str
) -> None:
    def manifest(sha: str, name: str) -> dict[str, Any]:
        return {
            "suite": str(records[0].suite),
            "version": __version__,
            "memorisation": identity,
            "seen_file": seen_name,
            "files": {name: {"sha256": sha, "records": len(records)}},
            "records": len(records),
        }

    write_jsonl(path.parent, path.name, records, manifest)


@dataclass(frozen=True)
class ProbeLayout:
    """Where a probe's files go under its folder ``out`` (see the module docstring)."""

    out: Path

    def set_file(self, name: ProbeSetName, seed: int) -> Path:
        """``OUT/sets/seed-<seed>/<name>.jsonl``."""
        return self.out / "sets" / f"seed-{seed}" / f"{name}.jsonl"

    def checkpoint_dir(self, checkpoint: Checkpoint) -> Path:
        """``OUT/runs/<label>``."""
        return self.out / "runs" / checkpoint.label

    def run_dir(self, checkpoint: Checkpoint, probe_set: ProbeSet) -> Path:
        """``OUT/runs/<label>/<set key>``."""
        return self.checkpoint_dir(checkpoint) / probe_set.key


def build_sets(
    seen_path: str | Path,
    seeds: Sequence[int],
    out: str | Path,
    *,
    fresh_count: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[ProbeSet, list[ProbeSet]]:
    """Load the seen file and make (or read back) every seed's fresh and re-worded sets.

    Args:
        seen_path: The training file (a dataset file of ``closurebench generate``).
        seeds: The probe seeds (distinct).
        out: The probe folder.
        fresh_count: Instances per fresh set (default: as many as the seen file).
        progress: Told one line per set made or read back.

    Returns:
        ``(seen, generated)``: the seen set, and for each seed its fresh set then its
        re-worded set (none for GRIT).

    Raises:
        DatasetFileError: for a missing or invalid seen file.
        ConfigError: for no seeds, a repeated seed, or a seen file the probe cannot use.
    """
    if not seeds:
        raise ConfigError("--seeds: give at least one seed")
    repeated = sorted(s for s, k in Counter(seeds).items() if k > 1)
    if repeated:
        raise ConfigError(f"--seeds: {repeated[0]} is given twice; give each seed once")
    path = Path(seen_path)
    records = load_instances(path)
    _one_suite(records, str(path))
    names: tuple[ProbeSetName, ...] = ("fresh", "reworded")
    seen = ProbeSet("seen", None, path, tuple(records))
    seen_sha = seen.sha256()
    layout = ProbeLayout(Path(out))
    made: list[ProbeSet] = []
    for seed in seeds:
        for name in names:
            identity = _set_identity(name, seed, seen_sha, fresh_count)
            file = layout.set_file(name, seed)
            got = _reuse(file, identity)
            if got is None:
                if progress is not None:
                    progress(f"seed {seed}: drawing the {name} set")
                new = (
                    fresh_records(records, seed, fresh_count)
                    if name == "fresh"
                    else reworded_records(records, seed)
                )
                if new is None:
                    continue
                _write_set(file, new, identity, path.name)
                got = list(new)
            elif progress is not None:
                progress(f"seed {seed}: {name} set read back from {file}")
            made.append(ProbeSet(name, seed, file, tuple(got), identity["derived_seed"]))
    return seen, made


# ----------------------------------------------------------------------- runs


@dataclass(frozen=True)
class SetRun:
    """One evaluation of the probe: a checkpoint on a set.

    Attributes:
        checkpoint: The model.
        probe_set: The set.
        run_dir: Its run folder.
        stats: What the harness did (None until it ran).
    """

    checkpoint: Checkpoint
    probe_set: ProbeSet
    run_dir: Path
    stats: RunStats | None = None


async def run_probe(
    checkpoints: Sequence[Checkpoint],
    sets: Sequence[ProbeSet],
    out: str | Path,
    *,
    provider_for: Callable[[Checkpoint], Provider],
    mode_for: Callable[[], Mode],
    settings: GenerationSettings,
    options: RunOptions | None = None,
    before: Callable[[SetRun, int, int], None] | None = None,
    after: Callable[[SetRun, int, int], None] | None = None,
) -> list[SetRun]:
    """Evaluate every checkpoint on every set through the harness (resumable).

    One provider per checkpoint (a local model loads once for all its sets), closed
    after its sets. Each evaluation is :func:`~closurebench.evaluate.runner.run_eval`
    into ``OUT/runs/<label>/<set>``, with ``settings`` whose model is the checkpoint's.

    Args:
        checkpoints: The models, in order (:func:`resolve_checkpoints`).
        sets: The sets, in order (the seen set first).
        out: The probe folder.
        provider_for: Builds the provider of a checkpoint.
        mode_for: Makes the configured evaluation mode (a fresh one per run).
        settings: Generation settings (the model is replaced per checkpoint).
        options: The harness options.
        before: Called before each evaluation with ``(run, number, total)``.
        after: Called after each evaluation (with its stats) likewise.

    Returns:
        Every evaluation, with its stats.

    Raises:
        RunAborted: when a run stopped early (a fatal provider error, such as a
            checkpoint that cannot be loaded, or the circuit breaker).
        RunDirError: when a run folder holds a run of other settings.
    """
    layout = ProbeLayout(Path(out))
    total = len(checkpoints) * len(sets)
    done: list[SetRun] = []
    number = 0
    for checkpoint in checkpoints:
        provider = provider_for(checkpoint)
        try:
            for probe_set in sets:
                number += 1
                run = SetRun(checkpoint, probe_set, layout.run_dir(checkpoint, probe_set))
                if before is not None:
                    before(run, number, total)
                stats = await run_eval(
                    probe_set.records,
                    provider,
                    mode_for(),
                    replace(settings, model=checkpoint.model),
                    run.run_dir,
                    options,
                    dataset=probe_set.path,
                )
                run = replace(run, stats=stats)
                if after is not None:
                    after(run, number, total)
                done.append(run)
        finally:
            await provider.aclose()
    return done
