"""Canonical JSONL and manifest files, shared by every suite.

A split is written as one JSONL file (one canonical JSON object per line: sorted
keys, compact separators, UTF-8, integral floats as ints, other floats with 9
significant digits) plus ``manifest.json`` holding its sha256. The same records
always give the same bytes, in any process.

Example:
    >>> canonical_json({"b": 1.0, "a": [0.1, (2, 3)], "c": None})
    '{"a":[0.1,[2,3]],"b":1,"c":null}'
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from closurebench.errors import ClosureBenchError, ConfigError

__all__ = [
    "DatasetFileError",
    "canonical_json",
    "clean",
    "iter_instances",
    "load_instances",
    "write_jsonl",
]


class DatasetFileError(ClosureBenchError, ValueError):
    """A dataset file is missing or malformed (names the file, the line and the fix)."""


def clean(value: Any) -> Any:
    """JSON-ready copy: ints as ints, floats rounded to 9 significant digits, tuples as lists.

    Raises:
        ConfigError: for non-finite floats or values JSON cannot hold.
    """
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ConfigError(f"cannot serialise non-finite number {value!r}")
        if value.is_integer():
            return int(value)
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "item"):  # numpy scalar
        return clean(value.item())
    raise ConfigError(f"cannot serialise {value!r} of type {type(value).__name__}")


def canonical_json(record: dict[str, Any]) -> str:
    """One canonical JSONL line (sorted keys, compact, UTF-8, no trailing newline)."""
    return json.dumps(clean(record), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def write_jsonl(
    out: str | Path,
    name: str,
    records: Sequence[dict[str, Any]],
    manifest: Callable[[str, str], dict[str, Any]],
) -> tuple[Path, Path]:
    """Write ``out/name`` (canonical JSONL) and ``out/manifest.json``.

    Args:
        out: Output directory (created if needed).
        name: File name of the JSONL file.
        records: The records, in order.
        manifest: Called with ``(sha256, name)``; returns the manifest dict.

    Returns:
        The JSONL path and the manifest path.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    data = "".join(canonical_json(r) + "\n" for r in records).encode("utf-8")
    path = out / name
    path.write_bytes(data)
    man = manifest(hashlib.sha256(data).hexdigest(), name)
    man_path = out / "manifest.json"
    man_path.write_text(
        json.dumps(man, sort_keys=True, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return path, man_path


def iter_instances(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the records of a JSONL dataset file, one dict per non-empty line.

    Raises:
        DatasetFileError: if the file is missing or a line is not a JSON object.
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetFileError(
            f"dataset file {str(p)!r} does not exist; generate one with "
            "`closurebench generate closure --split heldout --out DIR`"
        )
    with p.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetFileError(
                    f"{p}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno}); "
                    "each line must be one JSON object"
                ) from None
            if not isinstance(obj, dict):
                raise DatasetFileError(
                    f"{p}:{lineno}: expected a JSON object, got {type(obj).__name__}"
                )
            yield obj


def load_instances(path: str | Path) -> list[dict[str, Any]]:
    """All records of a JSONL dataset file (see :func:`iter_instances`)."""
    return list(iter_instances(path))
