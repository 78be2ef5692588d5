"""Dataset files, shared by every suite: canonical JSONL, manifest, JSON Schema, typed loading.

A split is written as one JSONL file (one canonical JSON object per line, see
:func:`closurebench.jsonl.canonical_json`) plus its manifest ``<stem>.manifest.json``
(``closure-heldout.jsonl`` → ``closure-heldout.manifest.json``) holding its sha256, counts
and arguments, and, beside them, the JSON Schema of its records
(``<suite>-instance.schema.json``, what ``closurebench schema <suite>`` prints). Each split
has its own manifest, so several splits can share one folder; folders written before 0.1.x
hold one ``manifest.json`` in the same format, which :func:`read_manifest` still reads. The
same records always give the same bytes, in any process.

Loading validates every line against the typed record
(:class:`~closurebench.schema.ClosureInstance` / :class:`~closurebench.schema.GritInstance`),
refuses an id that an earlier line already used, and names the file, line and field of the
first problem.

Example:
    >>> import os, tempfile
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> recs = generate_records(ClosureConfig(count=1, categories=("reachability",)))
    >>> d = tempfile.mkdtemp()
    >>> path, man = write_jsonl(d, "x.jsonl", recs, lambda sha, name: {"sha256": sha})
    >>> [type(r).__name__ for r in load_instances(path)], sorted(os.listdir(d))
    (['ClosureInstance'], ['closure-instance.schema.json', 'x.jsonl', 'x.manifest.json'])
    >>> read_manifest(path) == json.loads(man.read_text())
    True
    >>> import shutil; shutil.rmtree(d)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, overload

from closurebench.errors import ConfigError, DatasetFileError
from closurebench.jsonl import canonical_json, clean, iter_objects, write_lines
from closurebench.schema import ClosureInstance, GritInstance, instance_schema, parse_instance

__all__ = [
    "DatasetFileError",
    "canonical_json",
    "check_manifest",
    "clean",
    "iter_instances",
    "load_instances",
    "manifest_name",
    "read_manifest",
    "schema_file_name",
    "write_dataset",
    "write_jsonl",
    "write_schema",
]

AnyInstance = ClosureInstance | GritInstance


def schema_file_name(suite: str) -> str:
    """The file name of a suite's instance schema beside a dataset.

    Example:
        >>> schema_file_name("grit")
        'grit-instance.schema.json'
    """
    return f"{suite}-instance.schema.json"


def manifest_name(file_name: str) -> str:
    """The manifest's file name for a dataset file: ``<stem>.manifest.json``.

    Example:
        >>> manifest_name("grit-test.jsonl")
        'grit-test.manifest.json'
    """
    return f"{Path(file_name).stem}.manifest.json"


def read_manifest(dataset: str | Path) -> dict[str, Any]:
    """The manifest of a dataset file: ``<stem>.manifest.json`` beside it.

    Falls back to an older folder's single ``manifest.json`` when that one describes this
    file (its ``files`` names it).

    Raises:
        DatasetFileError: no manifest describes ``dataset``, or it is not JSON.
    """
    p = Path(dataset)
    candidates = [p.with_name(manifest_name(p.name)), p.with_name("manifest.json")]
    for path in candidates:
        if not path.is_file():
            continue
        try:
            man = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DatasetFileError(
                f"manifest {str(path)!r} is not valid JSON ({exc}); regenerate the split"
            ) from None
        if path.name != "manifest.json" or p.name in man.get("files", {}):
            return dict(man)
    raise DatasetFileError(
        f"no manifest for {str(p)!r}: expected {str(candidates[0])!r} (or a manifest.json "
        "naming the file); regenerate the split with `closurebench generate`"
    )


def write_schema(out: str | Path, suite: str) -> Path:
    """Write the JSON Schema of ``suite``'s records into directory ``out``."""
    path = Path(out) / schema_file_name(suite)
    path.write_text(
        json.dumps(instance_schema(suite), sort_keys=True, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    return path


def write_jsonl(
    out: str | Path,
    name: str,
    records: Sequence[AnyInstance],
    manifest: Callable[[str, str], dict[str, Any]],
) -> tuple[Path, Path]:
    """Write ``out/name`` (canonical JSONL), its manifest and the records' schema.

    The manifest goes to ``out/<stem>.manifest.json`` (:func:`manifest_name`), so splits
    written to one folder keep one manifest each.

    Args:
        out: Output directory (created if needed).
        name: File name of the JSONL file.
        records: The typed records, in order (all of one suite).
        manifest: Called with ``(sha256, name)``; returns the manifest dict.

    Returns:
        The JSONL path and the manifest path.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    data = write_lines(path, (canonical_json(r.to_json()) for r in records))
    man = manifest(hashlib.sha256(data).hexdigest(), name)
    man_path = out / manifest_name(name)
    man_path.write_text(
        json.dumps(man, sort_keys=True, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    for suite in sorted({str(r.suite) for r in records}):
        write_schema(out, suite)
    return path, man_path


def write_dataset(
    path: str | Path, data: bytes, manifest: dict[str, Any], suite: str
) -> tuple[Path, Path]:
    """Write dataset bytes already in canonical JSONL, their manifest and the schema.

    What :func:`write_jsonl` writes, from the bytes (``merge`` joins shards' bytes this
    way): ``path`` (atomically), ``<stem>.manifest.json`` and ``suite``'s schema beside it.

    Returns:
        The dataset path and the manifest path.
    """
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, p)
    man_path = p.with_name(manifest_name(p.name))
    man_path.write_text(
        json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    write_schema(p.parent, suite)
    return p, man_path


def iter_instances(path: str | Path) -> Iterator[AnyInstance]:
    """Yield the typed records of a JSONL dataset file, validating each line.

    Raises:
        DatasetFileError: if the file is missing, a line is not UTF-8 or not a JSON object,
            a record does not fit its schema (naming the file, the line and the field), or
            an id repeats an earlier line's (naming both lines).
    """
    p = Path(path)
    if p.is_dir():
        inside = sorted(x.name for x in p.glob("*.jsonl"))
        hint = (
            f"pass one of the files inside it: {', '.join(inside[:4])}"
            if inside
            else "pass a dataset file (.jsonl) written by `closurebench generate`"
        )
        raise DatasetFileError(f"{str(p)!r} is a folder, not a dataset file; {hint}")
    if not p.is_file():
        raise DatasetFileError(
            f"dataset file {str(p)!r} does not exist; generate one with "
            "`closurebench generate closure --split heldout --out DIR`"
        )
    seen: dict[str, int] = {}
    for lineno, obj in iter_objects(p, what="dataset file"):
        if obj.keys() >= _RESULT_KEYS:
            raise DatasetFileError(
                f"{p}:{lineno}: this is a results file (a run's results.jsonl), not a dataset "
                "file; pass the dataset the run was made from, or `closurebench report "
                "RUN_DIR` to read the results"
            )
        record = parse_instance(obj, f"{p}:{lineno}")
        first = seen.setdefault(record.id, lineno)
        if first != lineno:
            raise DatasetFileError(
                f"{p}:{lineno}: field 'id': {record.id!r} is already the id of line {first}; "
                "ids must be unique within a file (regenerate it, or remove one of the lines)"
            )
        yield record


#: Keys every result record has and no instance record does (a results file passed as data).
_RESULT_KEYS = frozenset({"outcome", "response", "settings"})


@overload
def load_instances(path: str | Path, suite: Literal["closure"]) -> list[ClosureInstance]: ...
@overload
def load_instances(path: str | Path, suite: Literal["grit"]) -> list[GritInstance]: ...
@overload
def load_instances(path: str | Path, suite: None = None) -> list[AnyInstance]: ...


def load_instances(path: str | Path, suite: str | None = None) -> list[Any]:
    """All typed records of a JSONL dataset file (see :func:`iter_instances`).

    Args:
        path: The dataset file.
        suite: ``closure`` or ``grit`` to require that suite's records (the result is
            then typed as that suite's instances); None takes either.

    Raises:
        DatasetFileError: as :func:`iter_instances`; for a file without records; for a
            record of another suite than ``suite`` (naming its line).
        ConfigError: ``suite`` is not ``closure``, ``grit`` or None.

    Example:
        >>> import os, tempfile
        >>> import closurebench
        >>> out = tempfile.mkdtemp()
        >>> _ = closurebench.generate_split("heldout", seed=1, count=2, out=out)
        >>> path = os.path.join(out, "closure-heldout.jsonl")
        >>> [type(r).__name__ for r in load_instances(path, suite="closure")]
        ['ClosureInstance', 'ClosureInstance']
        >>> try:
        ...     load_instances(path, suite="grit")
        ... except DatasetFileError as exc:
        ...     print(exc)  # doctest: +ELLIPSIS
        /...: record '...': a closure record where grit records are expected; pass a grit ...
    """
    if suite not in (None, "closure", "grit"):
        raise ConfigError(f"suite {suite!r} is not 'closure', 'grit' or None")
    records: list[AnyInstance] = []
    for record in iter_instances(path):
        found = record.suite.value
        if suite is not None and found != suite:
            raise DatasetFileError(
                f"{path}: record {record.id!r}: a {found} record where {suite} records are "
                f"expected; pass a {suite} dataset (`closurebench generate {suite}`), or "
                "load the file without suite="
            )
        records.append(record)
    if not records:
        raise DatasetFileError(
            f"dataset file {str(path)!r} holds no records; generate one with "
            "`closurebench generate closure --split heldout --out DIR`"
        )
    return records


def check_manifest(path: str | Path, records: int) -> str | None:
    """Check a dataset file against the manifest beside it, when there is one.

    ``generate`` records each file's record count and sha256 in its manifest; a file cut
    (``head -n 40``), appended to or edited since no longer matches, and evaluating it
    would report numbers for a split that is not the one the manifest describes.

    Args:
        path: The dataset file.
        records: How many records were read from it.

    Returns:
        None when the manifest matches; a one-line note when no manifest describes the
        file (its contents cannot be checked).

    Raises:
        DatasetFileError: the file does not match its manifest (count or sha256), naming
            both and the fixes.
    """
    p = Path(path)
    try:
        manifest = read_manifest(p)
    except DatasetFileError:
        return f"note: no manifest beside {p.name}: its records are not checked against one"
    entry = manifest.get("files", {}).get(p.name)
    if not isinstance(entry, dict):
        return f"note: the manifest beside {p.name} does not list it: its records are not checked"
    digest = hashlib.sha256(p.read_bytes()).hexdigest()
    want_n, want_sha = entry.get("records"), entry.get("sha256")
    if want_n == records and want_sha == digest:
        return None
    raise DatasetFileError(
        f"dataset file {str(p)!r} does not match its manifest ({want_n} records, sha256 "
        f"{str(want_sha)[:12]}; the file holds {records}, sha256 {digest[:12]}): it was cut "
        "or edited since `closurebench generate` wrote it. Regenerate it; to evaluate part "
        "of a split use --sample / --limit / --categories; for a file you edited on "
        f"purpose, delete {manifest_name(p.name)}"
    )
