"""The run directory's identity (``run.json``) and its lock.

A run directory belongs to one run: one dataset file, model, provider, mode, the mode's
scoring-relevant options (the Ein card, how a failed program counts, the agent's budget
and protocol reading) and scoring-relevant generation settings. :func:`run_identity` records them in
``RUN_DIR/run.json``, the dataset by the sha256 of the file given to ``closurebench
eval`` (its path is kept for the message only, so a moved file still resumes).
:func:`check_identity` compares a resumed run's ``run.json`` with the new call and
refuses any difference with a message that lists every field that differs, old and
new value, and the two ways out: the same options as before, or ``--force-new`` (start
over in the same folder) / another ``--out``. The request timeout is not part of the
identity (it does not change an answer), nor is the instance selection (``--limit``,
``--sample``...: a resumed run may grow or shrink; the summary covers the selected
instances). A folder that holds no results yet (a run that stopped at its first
request, e.g. on a wrong model name) takes the new run's identity with one notice.

``run.json`` also lists, under ``adaptations``, each parameter the server refused and
what the run sends instead (``{"parameter": "max_tokens", "action": "max_tokens renamed
to max_completion_tokens", "status": 400, "message": ...}``, see
:class:`~closurebench.evaluate.requests.Requester`); a resumed run applies them from its
first request (:func:`recorded_adaptations`). They are not part of the identity (the
same options resume the run), and ``--force-new`` clears them.

A ``run.json`` written before these checks (no ``format`` field) holds only ``mode``,
``settings`` and ``provider``: those are still compared; the dataset and the other new
fields cannot be verified, so the run is accepted with one warning line and
``run.json`` is rewritten with them, after which every check applies.

:class:`RunLock` takes an exclusive, non-blocking ``flock`` on ``RUN_DIR/.lock`` for
the whole run, so a second ``closurebench eval`` on the same folder refuses at once
(naming the process that holds it) instead of interleaving its results. The kernel
drops the lock when the process ends, however it ends, so a killed run never leaves a
stale lock behind; the (empty) lock file stays.

Example:
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with RunLock(d):
    ...     try:
    ...         RunLock(d).acquire()
    ...     except RunDirError as exc:
    ...         print(str(exc).split(";")[0])  # doctest: +ELLIPSIS
    another `closurebench eval` (pid ...) is running on .../.lock
    >>> old = {"format": 2, "dataset": {"sha256": "aa", "path": "a.jsonl"}, "model": "m",
    ...        "provider": "openai", "mode": "direct", "settings": {"temperature": 0.0}}
    >>> new = {**old, "dataset": {"sha256": "bb", "path": "b.jsonl"}, "model": "n"}
    >>> print(differences(old, new))
    dataset sha256 aa (a.jsonl) -> bb (b.jsonl); model 'm' -> 'n'
    >>> import shutil; shutil.rmtree(d)
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from closurebench.errors import ClosureBenchError

__all__ = [
    "LOCK_FILE",
    "RUN_FILE",
    "RUN_FORMAT",
    "RunDirError",
    "RunLock",
    "check_identity",
    "differences",
    "file_sha256",
    "record_adaptation",
    "record_run_info",
    "recorded_adaptations",
    "run_identity",
]

RUN_FILE = "run.json"
LOCK_FILE = ".lock"
#: Version of the ``run.json`` layout (absent in folders written before the checks).
RUN_FORMAT = 2
#: The identity fields, in message order; ``dataset`` compares its sha256 only.
_FIELDS = ("dataset", "model", "provider", "mode", "mode_options", "settings", "sample")
#: Settings that do not change an answer.
_NOT_SCORING = ("timeout_s",)


class RunDirError(ClosureBenchError, ValueError):
    """A run directory cannot be used for this run (locked, or another run's)."""


def file_sha256(path: str | Path) -> str:
    """The hex sha256 of a file's bytes (read in 1 MiB blocks).

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "x"
        >>> _ = p.write_bytes(b"abc")
        >>> file_sha256(p)[:16]
        'ba7816bf8f01cfea'
        >>> import shutil; shutil.rmtree(p.parent)
    """
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def run_identity(
    *,
    dataset: str | Path | None,
    dataset_sha256: str | None,
    model: str,
    provider: str,
    mode: str,
    settings: Mapping[str, Any],
    mode_options: Mapping[str, Any] | None = None,
    sample: int | None = None,
) -> dict[str, Any]:
    """The ``run.json`` object of a run.

    Args:
        dataset: The dataset file given to eval (None when the instances came from
            elsewhere, e.g. the Python API without ``dataset=``).
        dataset_sha256: Its sha256 (None with no file: not checked).
        model: The model name.
        provider: The provider name.
        mode: The mode name.
        settings: The generation settings (the timeout is dropped).
        mode_options: The mode's scoring-relevant options
            (:meth:`~closurebench.evaluate.modes.base.Mode.identity_options`).
        sample: Which of repeated samples this run is (``eval --samples K``: 1..K),
            recorded as ``sample``; None (not recorded) for a single run.

    Returns:
        The identity dict.

    Example:
        >>> run_identity(dataset=None, dataset_sha256=None, model="m", provider="p",
        ...              mode="direct", settings={"model": "m", "timeout_s": 5})["settings"]
        {'model': 'm'}
    """
    identity: dict[str, Any] = {
        "format": RUN_FORMAT,
        "dataset": ({"path": str(dataset), "sha256": dataset_sha256} if dataset_sha256 else None),
        "model": model,
        "provider": provider,
        "mode": mode,
        "mode_options": dict(mode_options or {}),
        "settings": {k: v for k, v in settings.items() if k not in _NOT_SCORING},
    }
    if sample is not None:
        identity["sample"] = sample
    return identity


def _show(key: str, value: Any) -> str:
    if key == "dataset":
        if not isinstance(value, Mapping):
            return "(none recorded)"
        return f"{value.get('sha256')} ({value.get('path')})"
    if key == "settings" and isinstance(value, Mapping):
        return json.dumps(dict(value), sort_keys=True)
    return repr(value)


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """The identity fields that differ, ``old -> new``, joined by ``;`` (empty if none).

    The dataset is compared by sha256, and only when both sides record one. For
    ``settings`` only the keys that differ are named.
    """
    parts = []
    for key in _FIELDS:
        if key not in old:
            continue  # an old run.json: that field was never recorded
        a, b = old.get(key), new.get(key)
        if key == "dataset":
            sha_a = a.get("sha256") if isinstance(a, Mapping) else None
            sha_b = b.get("sha256") if isinstance(b, Mapping) else None
            if sha_a and sha_b and sha_a != sha_b:
                parts.append(f"dataset sha256 {_show(key, a)} -> {_show(key, b)}")
        elif key == "settings" and isinstance(a, Mapping) and isinstance(b, Mapping):
            a = {k: v for k, v in a.items() if k not in _NOT_SCORING}
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            parts += [f"setting {k} {a.get(k)!r} -> {b.get(k)!r}" for k in keys]
        elif key == "mode_options" and isinstance(a, Mapping) and isinstance(b, Mapping):
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            parts += [f"mode option {k} {a.get(k)!r} -> {b.get(k)!r}" for k in keys]
        elif a != b:
            parts.append(f"{key} {_show(key, a)} -> {_show(key, b)}")
    return "; ".join(parts)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return obj if isinstance(obj, dict) else None


def _write(path: Path, identity: Mapping[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(identity, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def check_identity(
    out: Path,
    identity: Mapping[str, Any],
    *,
    has_results: bool,
    force_new: bool = False,
    notice: Callable[[str], None] | None = None,
) -> bool:
    """Check ``out/run.json`` against this run's identity, then record it.

    Args:
        out: The run directory (locked by the caller).
        identity: This run's :func:`run_identity`.
        has_results: Whether the folder already holds results (a ``run.json``-less
            folder with results is an old run: accepted with a warning).
        force_new: Do not refuse a different run: report that it starts over (the
            caller deletes the old files).
        notice: Receives one-line warnings (None: nowhere).

    Returns:
        True when the run must start over (``force_new`` and there was an earlier
        run), False to resume.

    Raises:
        RunDirError: when ``run.json`` records another dataset, model, provider, mode
            or settings (listing each difference) and ``force_new`` is False.
    """
    path = out / RUN_FILE
    old = _read(path) if path.exists() else None
    say = notice or (lambda message: None)
    if force_new:
        _write(path, identity)
        return old is not None or has_results
    if old is None:
        if path.exists():
            say(f"{path} is unreadable; recording this run's identity in it anew")
        elif has_results:
            say(
                f"{out} has results but no {RUN_FILE} (written by an older version?); "
                "cannot check it is the same run: resuming, and recording this one"
            )
        _write(path, identity)
        return False
    diff = differences(old, identity)
    if diff and not has_results:
        say(f"{out} holds no results yet: recording this run's options instead ({diff})")
        _write(path, identity)
        return False
    if diff:
        raise RunDirError(
            f"{out} holds another run ({diff}); resume it with the options it was "
            "started with, pass --force-new to delete its results and start over in "
            "this folder, or pass another --out"
        )
    if "format" not in old:
        missing = ", ".join(k for k in _FIELDS if k not in old)
        say(
            f"{path} was written by an older version and lacks {missing}: these cannot "
            "be checked for the results already there; recording them now"
        )
        _write(path, identity)
    else:
        upgraded = dict(old)
        if not old.get("dataset") and identity.get("dataset"):
            upgraded["dataset"] = identity["dataset"]
        if "mode_options" not in old:  # a run.json written before mode options counted
            upgraded["mode_options"] = identity.get("mode_options", {})
        if upgraded != old:
            _write(path, upgraded)
    return False


def recorded_adaptations(out: Path) -> list[dict[str, Any]]:
    """The settings changes ``out/run.json`` records (``[]`` when none or unreadable).

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp())
        >>> record_adaptation(d, {"parameter": "temperature", "action": "temperature dropped"})
        >>> [a["parameter"] for a in recorded_adaptations(d)]
        ['temperature']
        >>> import shutil; shutil.rmtree(d)
    """
    obj = _read(Path(out) / RUN_FILE)
    found = obj.get("adaptations") if obj is not None else None
    return [dict(a) for a in found if isinstance(a, dict)] if isinstance(found, list) else []


def record_adaptation(out: Path, entry: Mapping[str, Any]) -> None:
    """Append one settings change to ``out/run.json``'s ``adaptations`` (lock held).

    Args:
        out: The run directory.
        entry: ``{"parameter", "action", ...}`` (see
            :class:`~closurebench.evaluate.requests.Requester`).
    """
    path = Path(out) / RUN_FILE
    obj = _read(path) or {}
    obj["adaptations"] = [*recorded_adaptations(Path(out)), dict(entry)]
    _write(path, obj)


def record_run_info(out: Path, info: Mapping[str, Any]) -> None:
    """Record facts about how the run executes (e.g. its sandbox) in ``out/run.json``.

    Each key of ``info`` is written at the top level of ``run.json``, replacing an older
    value (the latest session's facts win). These keys are not part of the run's
    identity: a resume on a machine with another sandbox is not refused.

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp())
        >>> record_run_info(d, {"sandbox": {"isolation": "none"}})
        >>> json.loads((d / RUN_FILE).read_text())["sandbox"]
        {'isolation': 'none'}
        >>> import shutil; shutil.rmtree(d)
    """
    if not info:
        return
    path = Path(out) / RUN_FILE
    obj = _read(path) or {}
    obj.update({str(k): v for k, v in info.items()})
    _write(path, obj)


class RunLock:
    """An exclusive, non-blocking ``flock`` on ``RUN_DIR/.lock`` (a context manager).

    Attributes:
        path: The lock file.
    """

    def __init__(self, out: str | Path) -> None:
        """Name the lock of run directory ``out`` (nothing is locked yet).

        Args:
            out: The run directory (created on :meth:`acquire` if missing).
        """
        self.path = Path(out) / LOCK_FILE
        self._fh: IO[str] | None = None

    def acquire(self) -> None:
        """Take the lock, and write this process's pid into the lock file.

        Raises:
            RunDirError: when another process holds it (names its pid when known).
        """
        out = self.path.parent
        try:
            out.mkdir(parents=True, exist_ok=True)
            fh = self.path.open("a+", encoding="utf-8")
        except OSError as exc:
            why = "it is a file, not a folder" if out.is_file() else exc.strerror or str(exc)
            raise RunDirError(
                f"cannot use {out} as the run directory ({why}); pass --out a folder you "
                "can write to"
            ) from None
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            holder = fh.read().strip()
            fh.close()
            who = f"pid {holder}" if holder.isdigit() else "another process"
            raise RunDirError(
                f"another `closurebench eval` ({who}) is running on {self.path}; wait for "
                "it to finish (or stop it), or pass another --out"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        self._fh = fh

    def release(self) -> None:
        """Drop the lock (idempotent)."""
        fh, self._fh = self._fh, None
        if fh is not None:
            with contextlib.suppress(OSError):
                fh.seek(0)
                fh.truncate()
            fh.close()  # closing the descriptor drops the flock

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
