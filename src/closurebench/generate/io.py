"""Dataset files, shared by every suite: canonical JSONL, manifest, JSON Schema, typed loading.

A split is written as one JSONL file (one canonical JSON object per line, see
:func:`closurebench.jsonl.canonical_json`) plus ``manifest.json`` holding its sha256 and,
beside them, the JSON Schema of its records (``<suite>-instance.schema.json``, what
``closurebench schema <suite>`` prints). The same records always give the same bytes, in
any process.

Loading validates every line against the typed record
(:class:`~closurebench.schema.ClosureInstance` / :class:`~closurebench.schema.GritInstance`)
and names the file, line and field of the first problem.

Example:
    >>> import os, tempfile
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> recs = generate_records(ClosureConfig(count=1, categories=("reachability",)))
    >>> d = tempfile.mkdtemp()
    >>> path, _ = write_jsonl(d, "x.jsonl", recs, lambda sha, name: {"sha256": sha})
    >>> [type(r).__name__ for r in load_instances(path)], sorted(os.listdir(d))
    (['ClosureInstance'], ['closure-instance.schema.json', 'manifest.json', 'x.jsonl'])
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from closurebench.errors import DatasetFileError
from closurebench.jsonl import canonical_json, clean, iter_objects, write_lines
from closurebench.schema import ClosureInstance, GritInstance, instance_schema, parse_instance

__all__ = [
    "DatasetFileError",
    "canonical_json",
    "clean",
    "iter_instances",
    "load_instances",
    "schema_file_name",
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
    """Write ``out/name`` (canonical JSONL), ``out/manifest.json`` and the records' schema.

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
    man_path = out / "manifest.json"
    man_path.write_text(
        json.dumps(man, sort_keys=True, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    for suite in sorted({str(r.suite) for r in records}):
        write_schema(out, suite)
    return path, man_path


def iter_instances(path: str | Path) -> Iterator[AnyInstance]:
    """Yield the typed records of a JSONL dataset file, validating each line.

    Raises:
        DatasetFileError: if the file is missing, a line is not a JSON object, or a record
            does not fit its schema (naming the file, the line and the field).
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetFileError(
            f"dataset file {str(p)!r} does not exist; generate one with "
            "`closurebench generate closure --split heldout --out DIR`"
        )
    for lineno, obj in iter_objects(p, what="dataset file"):
        yield parse_instance(obj, f"{p}:{lineno}")


def load_instances(path: str | Path) -> list[AnyInstance]:
    """All typed records of a JSONL dataset file (see :func:`iter_instances`)."""
    return list(iter_instances(path))
