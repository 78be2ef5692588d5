"""The one JSONL reader and writer: canonical lines, and one policy for damaged lines.

Every JSONL file of the project — generated datasets, ``results.jsonl``, the completion
cache — is read through :func:`scan` and written through :func:`canonical_json` /
:func:`write_lines`; a one-document JSON file (``summary.json``, ``run.json``) is read
through :func:`read_json`. The damaged-line policy lives here, once:

* a **torn last line** (the file does not end with a newline: a writer was killed mid-line)
  is a partial write, never data. Readers skip it (``torn="skip"``) or report it
  (``torn="error"``); :func:`repair` truncates it off;
* any **other** line that is not one JSON object is corruption. A dataset (written
  atomically, so it cannot tear) treats it as an error naming the file and line; an
  append-only log (results, cache) drops it when repairing, since the run re-creates it.

Example:
    >>> canonical_json({"b": 1.0, "a": [0.1, (2, 3)], "c": None})
    '{"a":[0.1,[2,3]],"b":1,"c":null}'
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.jsonl"
    >>> _ = p.write_bytes(b'{"id": 1}\\nnot json\\n{"id": 3}\\n{"id": 4')
    >>> [(line.lineno, line.obj) for line in scan(p)]
    [(1, {'id': 1}), (2, None), (3, {'id': 3}), (4, None)]
    >>> [line.torn for line in scan(p)][-1]
    True
    >>> import shutil; shutil.rmtree(p.parent)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from closurebench.errors import ClosureBenchError, ConfigError, DatasetFileError

__all__ = [
    "JsonFileError",
    "Line",
    "canonical_json",
    "clean",
    "iter_objects",
    "read_json",
    "repair",
    "scan",
    "write_lines",
]


class JsonFileError(ClosureBenchError, ValueError):
    """A JSON file is not JSON, or not UTF-8 text (the message names the file)."""


def read_json(path: str | Path) -> Any:
    """The JSON document in the file ``path``.

    Raises:
        FileNotFoundError: the file is absent (callers that allow it check first).
        JsonFileError: the file is not UTF-8 text or not JSON.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
        >>> _ = p.write_text('{"a": 1')
        >>> try:
        ...     read_json(p)
        ... except JsonFileError as exc:
        ...     print(str(exc).split(": ", 1)[1])
        malformed JSON (Expecting ',' delimiter)
        >>> import shutil; shutil.rmtree(p.parent)
    """
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise JsonFileError(f"{p}: malformed JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise JsonFileError(f"{p}: not UTF-8 text ({exc.reason})") from None


def clean(value: Any) -> Any:
    """JSON-ready copy: ints as ints, floats rounded to 9 significant digits, tuples as lists.

    Typed records (anything with ``to_json()``) are serialised through it.

    Raises:
        ConfigError: for non-finite floats or values JSON cannot hold.

    Example:
        >>> clean({"a": (1.0, 2.5), "b": 1/3})
        {'a': [1, 2.5], 'b': 0.333333333}
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
    if hasattr(value, "to_json"):  # a typed record (closurebench.schema)
        return clean(value.to_json())
    raise ConfigError(f"cannot serialise {value!r} of type {type(value).__name__}")


def canonical_json(record: Any) -> str:
    """One canonical JSONL line (sorted keys, compact, UTF-8, no trailing newline)."""
    return json.dumps(clean(record), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Line:
    """One physical line of a JSONL file.

    Attributes:
        lineno: 1-based line number.
        raw: The bytes of the line, newline included when present.
        obj: The parsed JSON object, or ``None`` when the line is not one JSON object
            (or is torn).
        torn: The last line, without its newline: a partial write.
        error: Why ``obj`` is ``None`` (empty for a good line or a blank one).
    """

    lineno: int
    raw: bytes
    obj: dict[str, Any] | None
    torn: bool = False
    error: str = ""

    @property
    def blank(self) -> bool:
        """The line holds only whitespace."""
        return not self.raw.strip()


def scan(path: str | Path) -> Iterator[Line]:
    """Every line of ``path`` (streamed), parsed, with the torn-line policy applied.

    A missing file yields nothing. Blank lines are yielded with ``obj=None`` and no error.
    """
    p = Path(path)
    if not p.exists():
        return
    offset = 0
    with p.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            start, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n"):
                yield Line(lineno, raw, None, torn=True, error="torn last line (no newline)")
                continue
            if not raw.strip():
                yield Line(lineno, raw, None)
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield Line(lineno, raw, None, error=_not_utf8(exc, start))
                continue
            try:
                obj = json.loads(text.removeprefix("\ufeff") if lineno == 1 else text)
            except json.JSONDecodeError as exc:
                error = f"not valid JSON ({exc.msg} at column {exc.colno})"
                yield Line(lineno, raw, None, error=error)
                continue
            if not isinstance(obj, dict):
                yield Line(lineno, raw, None, error=f"a JSON {type(obj).__name__}, not an object")
                continue
            yield Line(lineno, raw, obj)


def _not_utf8(exc: UnicodeDecodeError, line_start: int) -> str:
    """Where a line stops being UTF-8: the bad byte, its file offset and its line column.

    Example:
        >>> try:
        ...     b'{"q": "caf\\xe9"}'.decode("utf-8")
        ... except UnicodeDecodeError as exc:
        ...     print(_not_utf8(exc, 100))
        not UTF-8: byte 0xe9 at byte offset 110 of the file (column 11 of the line)
    """
    bad = exc.object[exc.start : exc.start + 1].hex()
    return (
        f"not UTF-8: byte 0x{bad} at byte offset {line_start + exc.start} of the file "
        f"(column {exc.start + 1} of the line)"
    )


def iter_objects(
    path: str | Path, *, what: str = "file", strict: bool = True
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for the good lines of ``path`` (blank lines skipped).

    Args:
        path: The JSONL file; it must exist.
        what: What the file is, for messages (``"dataset file"``, ``"results file"``).
        strict: Raise on a corrupt or torn line (datasets); else skip it (logs).

    Raises:
        DatasetFileError: the file is missing, or (``strict``) a line is damaged.
    """
    p = Path(path)
    if not p.is_file():
        raise DatasetFileError(f"{what} {str(p)!r} does not exist")
    for line in scan(p):
        if line.obj is not None:
            yield line.lineno, line.obj
        elif line.error and strict:
            raise DatasetFileError(
                f"{p}:{line.lineno}: {line.error}; each line must be one UTF-8 JSON "
                f"object (regenerate the {what}, or fix or delete that line)"
            )


def write_lines(path: str | Path, lines: Iterable[str]) -> bytes:
    """Write ``lines`` (each without newline) atomically to ``path``; returns the bytes."""
    p = Path(path)
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, p)
    return data


def repair(path: str | Path, keep: Any = None) -> int:
    """Rewrite an append-only log without damaged lines (and lines ``keep`` rejects).

    Streams the file; replaces it atomically, and only when something is removed.

    Args:
        path: The log file (a missing file is left missing).
        keep: Optional ``Line -> bool``; a good line is kept only when it returns True.

    Returns:
        The number of lines removed.
    """
    p = Path(path)
    if not p.exists():
        return 0

    def wanted(line: Line) -> bool:
        return line.obj is not None and (keep is None or bool(keep(line)))

    removed = sum(not wanted(line) and not line.blank for line in scan(p))
    blanks = sum(line.blank for line in scan(p))
    if removed == 0 and blanks == 0:
        return 0
    tmp = p.with_name(p.name + ".tmp")
    with tmp.open("wb") as out:
        for line in scan(p):
            if wanted(line):
                out.write(line.raw)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, p)
    return removed
