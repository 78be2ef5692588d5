"""Merge shards (:mod:`closurebench.generate.shard`) into the split the unsharded run writes.

:func:`merge_shards` reads each shard file and its manifest and refuses, with one line
naming the file, what is wrong and the fix:

* a file that is missing, has no manifest beside it, or whose manifest has no ``shard``
  entry (it is not a shard);
* a shard whose bytes do not match its manifest (record count or sha256: cut or edited);
* a shard of another run: another suite, closurebench version, seed, split or argument,
  another number of shards, or a version other than the one installed (the manifest is
  recomputed by this version's code);
* the same shard twice, a shard whose range is not its index's block (no overlap), and a
  missing shard (no gap);
* an existing output, unless ``overwrite`` (``closurebench merge`` refuses it as
  ``generate`` does; every refusal is a :class:`~closurebench.errors.DatasetFileError`
  or :class:`~closurebench.errors.ConfigError`, exit 1).

It then writes the shards' bytes in index order, which are the unsharded run's bytes, and
the manifest the unsharded run writes: the suite's own manifest function applied to the
merged records (counts, modal shares, densities) with the run's arguments; for GRIT the
``resamples`` are the sums of the shards' (each graph is counted in the one shard that
holds it). The manifests hold nothing run-specific (no time stamps, no paths), so with the
split's own file name (the default: ``--out`` a folder) the merged manifest is
byte-identical too; the schema file is written beside them as ``generate`` does.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from closurebench.generate.closure import ClosureConfig, write_split
    >>> from closurebench.generate.shard import Shard
    >>> d = Path(tempfile.mkdtemp())
    >>> config = ClosureConfig(count=4, categories=("reachability",))
    >>> whole, _, _ = write_split(config, d / "whole")
    >>> parts = [write_split(config, d / "parts", shard=Shard(i, 2))[0] for i in (1, 2)]
    >>> merged = merge_shards(parts, d / "merged")
    >>> merged.path.name, merged.path.read_bytes() == whole.read_bytes()
    ('closure-heldout.jsonl', True)
    >>> merge_shards(parts[:1], d / "again")
    Traceback (most recent call last):
    ...
    closurebench.errors.DatasetFileError: shard 2/2 is missing (expected closure-heldout.shard-2-of-2.jsonl): generate it with the same command plus --shard 2/2, then pass all 2 shards
    >>> import shutil; shutil.rmtree(d)
"""  # noqa: E501

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from closurebench import __version__
from closurebench.errors import ConfigError, DatasetFileError
from closurebench.generate import closure, grit
from closurebench.generate.io import load_instances, manifest_name, write_dataset
from closurebench.generate.shard import Shard
from closurebench.schema import ClosureInstance, GritInstance

__all__ = [
    "MergePlan",
    "Merged",
    "ShardFile",
    "check_shards",
    "exists_line",
    "merge_shards",
    "read_shard",
    "write_merged",
]

#: Manifest fields every shard of one run shares, in the order a difference is named.
_RUN_FIELDS = ("suite", "version", "seed")

#: ``shard`` entry fields every shard of one run shares.
_SHARD_FIELDS = ("of", "unit", "total", "file")


@dataclass(frozen=True)
class ShardFile:
    """One shard, checked against its manifest.

    Attributes:
        path: The shard's JSONL file.
        manifest: Its manifest.
        entry: The manifest's ``shard`` entry (index, of, unit, start, stop, total, file).
        data: The file's bytes.
    """

    path: Path
    manifest: dict[str, Any]
    entry: dict[str, Any]
    data: bytes

    @property
    def shard(self) -> Shard:
        """Which shard it is."""
        return Shard(int(self.entry["index"]), int(self.entry["of"]))


@dataclass(frozen=True)
class Merged:
    """What :func:`merge_shards` wrote.

    Attributes:
        path: The merged JSONL file.
        manifest_path: Its manifest.
        records: Records written.
        shards: Shards merged.
    """

    path: Path
    manifest_path: Path
    records: int
    shards: int


def read_shard(path: str | Path) -> ShardFile:
    """Read a shard file and its manifest; check the file against the manifest.

    Raises:
        DatasetFileError: the file is missing, has no manifest (or one without a ``shard``
            entry), or does not match it (record count or sha256).
    """
    p = Path(path)
    if not p.is_file():
        what = "is a folder, not a shard file" if p.is_dir() else "does not exist"
        raise DatasetFileError(
            f"shard {str(p)!r} {what}; pass the .jsonl files `closurebench generate ... "
            "--shard i/N` wrote"
        )
    man_path = p.with_name(manifest_name(p.name))
    if not man_path.is_file():
        raise DatasetFileError(
            f"shard {str(p)!r} has no manifest beside it (expected {man_path.name}); merge "
            "takes the files `closurebench generate ... --shard i/N` writes, each with its "
            "manifest: regenerate this shard"
        )
    try:
        man = json.loads(man_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetFileError(
            f"manifest {str(man_path)!r} is not valid JSON ({exc}); regenerate the shard"
        ) from None
    entry = man.get("shard") if isinstance(man, dict) else None
    if not isinstance(entry, dict):
        raise DatasetFileError(
            f"{str(p)!r} is not a shard: its manifest has no 'shard' entry (a whole split "
            "needs no merge); pass the files `closurebench generate ... --shard i/N` wrote"
        )
    listed = man.get("files", {}).get(p.name)
    if not isinstance(listed, dict):
        raise DatasetFileError(
            f"shard {str(p)!r}: its manifest {man_path.name} does not list {p.name} (was it "
            "renamed?); keep the name `generate --shard` gave it, or regenerate it"
        )
    data = p.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    lines = data.count(b"\n")
    want_n, want_sha = listed.get("records"), listed.get("sha256")
    if want_n != lines or want_sha != digest:
        raise DatasetFileError(
            f"shard {str(p)!r} does not match its manifest ({want_n} records, sha256 "
            f"{str(want_sha)[:12]}; the file holds {lines}, sha256 {digest[:12]}): it was cut "
            f"or edited since `closurebench generate --shard {entry.get('index')}/"
            f"{entry.get('of')}` wrote it; regenerate that shard"
        )
    return ShardFile(p, man, entry, data)


def _difference(a: ShardFile, b: ShardFile) -> str | None:
    """What ``b`` records differently from ``a`` (one phrase), or ``None``."""
    for key in _RUN_FIELDS:
        if a.manifest.get(key) != b.manifest.get(key):
            return f"{key} {b.manifest.get(key)!r} where the first has {a.manifest.get(key)!r}"
    args_a, args_b = a.manifest.get("arguments", {}), b.manifest.get("arguments", {})
    for key in sorted(set(args_a) | set(args_b), key=lambda k: (k != "split", k)):
        if args_a.get(key) != args_b.get(key):
            return f"{key} {args_b.get(key)!r} where the first has {args_a.get(key)!r}"
    for key in _SHARD_FIELDS:
        if a.entry.get(key) != b.entry.get(key):
            name = {"of": "shard count", "total": "total", "unit": "unit", "file": "split file"}
            return f"{name[key]} {b.entry.get(key)!r} where the first has {a.entry.get(key)!r}"
    return None


def _check_cover(shards: Sequence[ShardFile]) -> list[ShardFile]:
    """The shards in index order, once each, each its block; refuse a duplicate or a gap."""
    by_index: dict[int, ShardFile] = {}
    for s in shards:
        try:
            shard = s.shard
            start, stop = shard.range(int(s.entry["total"]))
        except (ConfigError, KeyError, TypeError, ValueError) as exc:
            raise DatasetFileError(
                f"shard {str(s.path)!r}: its manifest's shard entry is invalid ({exc}); "
                "regenerate it"
            ) from None
        if shard.index in by_index:
            raise DatasetFileError(
                f"shard {shard} is given twice ({str(by_index[shard.index].path)!r} and "
                f"{str(s.path)!r}); pass each shard once"
            )
        if (s.entry.get("start"), s.entry.get("stop")) != (start, stop):
            raise DatasetFileError(
                f"shard {str(s.path)!r}: its range {s.entry.get('start')}..{s.entry.get('stop')}"
                f" is not shard {shard}'s block of {s.entry['total']} {s.entry.get('unit')} "
                f"({start}..{stop}); regenerate it"
            )
        by_index[shard.index] = s
    count = shards[0].shard.count
    missing = [i for i in range(1, count + 1) if i not in by_index]
    if missing:
        file = str(shards[0].entry["file"])
        names = ", ".join(Shard(i, count).file_name(file) for i in missing)
        which = ", ".join(f"{i}/{count}" for i in missing)
        plural = "s" if len(missing) > 1 else ""
        verb = "are" if len(missing) > 1 else "is"
        raise DatasetFileError(
            f"shard{plural} {which} {verb} missing (expected {names}): generate "
            f"{'them' if plural else 'it'} with the same command plus --shard "
            f"{missing[0]}/{count}{' etc.' if plural else ''}, then pass all {count} shards"
        )
    return [by_index[i] for i in range(1, count + 1)]


def _target(out: Path, file: str) -> Path:
    """The merged file: ``out`` if it names a ``.jsonl`` file, else ``out/<the split's file>``.

    Example:
        >>> str(_target(Path("data"), "grit-test.jsonl")), str(_target(Path("a.jsonl"), "x"))
        ('data/grit-test.jsonl', 'a.jsonl')
    """
    if out.suffix == ".jsonl" and not out.is_dir():
        return out
    return out / file


def _manifest(
    shards: Sequence[ShardFile], records: list[Any], sha256: str, name: str
) -> dict[str, Any]:
    """The manifest the unsharded run writes, from the merged records (and GRIT's resamples)."""
    first = shards[0]
    suite, arguments = first.manifest.get("suite"), first.manifest.get("arguments", {})
    if suite == "closure":
        config = closure.ClosureConfig.from_arguments(arguments)
        rebuilt = config.arguments()
        man = closure.manifest(config, records, sha256, name)
    elif suite == "grit":
        gconfig = grit.GritConfig.from_arguments(arguments)
        rebuilt = gconfig.arguments()
        # Each graph's resampling is counted in the one shard that holds it: they add up.
        sums: dict[str, int] = {}
        for s in shards:
            for key, value in (s.manifest.get("resamples") or {}).items():
                sums[key] = sums.get(key, 0) + int(value)
        man = grit.manifest(gconfig, records, sha256, name, resamples=sums)
    else:
        raise DatasetFileError(
            f"shard {str(first.path)!r}: its manifest's suite {suite!r} is not closure or grit; "
            "regenerate it"
        )
    if rebuilt != arguments:
        raise DatasetFileError(
            f"shard {str(first.path)!r}: its manifest's arguments do not rebuild the run "
            f"({arguments} vs {rebuilt}); regenerate the shards with this closurebench"
        )
    return man


@dataclass(frozen=True)
class MergePlan:
    """Shards checked to be all of one run, and where their merge goes.

    Attributes:
        shards: The shards, in index order.
        target: The merged file to write.
    """

    shards: tuple[ShardFile, ...]
    target: Path


def check_shards(paths: Sequence[str | Path], out: str | Path) -> MergePlan:
    """Check ``paths`` are all the shards of one run; resolve the merged file.

    Args:
        paths: The shard files (any order; each once).
        out: The merged file (a path ending in ``.jsonl``), or else a folder (created when
            written) to write it into under the split's own name (``closure-heldout.jsonl``).

    Raises:
        DatasetFileError: a shard is missing, repeated, foreign, or does not match its
            manifest (see the module docstring).
        ConfigError: no shard given, or the merged file would be one of the shards.
    """
    if not paths:
        raise ConfigError("no shard given; pass the shard files, e.g. DIR/*.shard-*-of-4.jsonl")
    shards = [read_shard(p) for p in paths]
    first = shards[0]
    for s in shards[1:]:
        diff = _difference(first, s)
        if diff is not None:
            raise DatasetFileError(
                f"shard {str(s.path)!r} is not of the same run as {str(first.path)!r}: {diff}; "
                "merge the shards of one run (same suite, version, seed, split and arguments)"
            )
    version = first.manifest.get("version")
    if version != __version__:
        raise DatasetFileError(
            f"the shards ({str(first.path)!r}, ...) were written by closurebench {version}, "
            f"this is {__version__}: merge them with {version}, or regenerate them"
        )
    ordered = _check_cover(shards)
    target = _target(Path(out), str(first.entry["file"]))
    if target.resolve() in {s.path.resolve() for s in shards}:
        raise ConfigError(f"--out {str(target)!r} is one of the shards; choose another path")
    return MergePlan(tuple(ordered), target)


def write_merged(plan: MergePlan) -> Merged:
    """Write the checked shards' bytes in order, the unsharded manifest and the schema.

    The target is replaced if it exists (:func:`merge_shards` refuses that without
    ``overwrite``).
    """
    records: list[ClosureInstance | GritInstance] = []
    for s in plan.shards:
        records.extend(load_instances(s.path))
    data = b"".join(s.data for s in plan.shards)
    man = _manifest(plan.shards, records, hashlib.sha256(data).hexdigest(), plan.target.name)
    suite = str(plan.shards[0].manifest["suite"])
    path, man_path = write_dataset(plan.target, data, man, suite)
    return Merged(path, man_path, len(records), len(plan.shards))


def merge_shards(
    paths: Sequence[str | Path], out: str | Path, *, overwrite: bool = False
) -> Merged:
    """Check ``paths`` are all the shards of one run and write the whole split to ``out``.

    Args:
        paths: The shard files (any order; each once).
        out: The merged file (a path ending in ``.jsonl``), or else a folder (created if
            needed) to write it into under the split's own name (``closure-heldout.jsonl``);
            its manifest and schema go beside it.
        overwrite: Replace an existing output file (refused otherwise).

    Returns:
        What was written.

    Raises:
        DatasetFileError: a shard is missing, repeated, foreign, or does not match its
            manifest (see the module docstring).
        ConfigError: no shard given, or the output exists (without ``overwrite``) or is
            one of the shards.
    """
    plan = check_shards(paths, out)
    if plan.target.exists() and not overwrite:
        raise ConfigError(exists_line(plan.target))
    return write_merged(plan)


def exists_line(target: Path) -> str:
    """The refusal of an existing output (the words ``generate`` uses).

    Example:
        >>> exists_line(Path("d/closure-heldout.jsonl"))
        'd/closure-heldout.jsonl exists; pass --overwrite to replace it (and its manifest), or choose another --out'
    """  # noqa: E501
    return (
        f"{target} exists; pass --overwrite to replace it (and its manifest), or choose "
        "another --out"
    )
