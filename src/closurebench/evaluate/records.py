"""Result records, the append-only results file, and ``summary.json``.

``RUN_DIR/results.jsonl`` holds one result per line, appended and flushed as each
instance finishes (fsync group-committed, see :mod:`closurebench.evaluate.appendlog`).
:func:`load_results` reads it back for resume: a truncated or corrupt line (a run
killed mid-write) is dropped and the file rewritten without it, and a repeated id
keeps its first record, so every id appears exactly once.

Result fields: ``id``, ``outcome``, ``strict``, ``lenient``, ``extracted``,
``reason``, ``response``, ``reasoning``, ``usage`` {``prompt_tokens``,
``completion_tokens``}, ``latency_s``, ``finish_reason``, ``requests``,
``settings``, ``mode``, ``error``, ``extra``, plus the metadata fields of
:data:`META_FIELDS` copied from the instance (missing ones are null).

Example:
    >>> s = summarize([{"outcome": "strict_correct", "strict": True, "lenient": True,
    ...                 "usage": {"prompt_tokens": 10, "completion_tokens": 4},
    ...                 "latency_s": 1.0, "error": None}])
    >>> s["strict_accuracy"], s["outcomes"]["strict_correct"], s["tokens"]["completion_mean"]
    (1.0, 1, 4.0)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from closurebench.errors import ClosureBenchError
from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S, AppendLog

__all__ = [
    "META_FIELDS",
    "OUTCOMES",
    "ResultWriter",
    "ResultsFileError",
    "iter_results",
    "load_results",
    "make_result",
    "repair_results",
    "summarize",
    "write_summary",
]

#: The five mutually exclusive outcomes.
OUTCOMES = ("strict_correct", "lenient_only", "wrong", "format_error", "no_answer")

#: Instance fields copied into each result for reports.
META_FIELDS = (
    "suite",
    "category",
    "level",
    "n",
    "result_type",
    "task",
    "form",
    "naming",
    "scenario",
)


class ResultsFileError(ClosureBenchError, ValueError):
    """A run directory's results file cannot be used (names the file and the fix)."""


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


def make_result(
    record: dict[str, Any],
    *,
    mode: str,
    settings: dict[str, Any],
    score: Any = None,
    response: str = "",
    reasoning: str | None = None,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
    latency_s: float = 0.0,
    finish_reason: str | None = None,
    requests: int = 0,
    error: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Build one result record.

    Args:
        record: The dataset instance.
        mode: Mode name.
        settings: Generation settings as a dict.
        score: The score, or None when the request failed (outcome ``no_answer``).
        response: Final response text.
        reasoning: Separate reasoning text, if any.
        prompt_tokens: Prompt tokens used.
        completion_tokens: Completion tokens used.
        latency_s: Request seconds.
        finish_reason: Finish reason of the last request.
        requests: Number of model calls that produced the answer.
        error: Error message when the instance failed after all retries.
        extra: Mode-specific details.

    Returns:
        The result dict.
    """
    if score is None:
        outcome, strict, lenient, extracted, reason = "no_answer", False, False, None, error
    else:
        outcome = str(score.outcome)
        strict, lenient = bool(score.strict), bool(score.lenient)
        extracted = _jsonable(getattr(score, "extracted", None))
        reason = getattr(score, "reason", None)
    result: dict[str, Any] = {
        "id": record["id"],
        "outcome": outcome,
        "strict": strict,
        "lenient": lenient,
        "extracted": extracted,
        "reason": reason,
        "response": response,
        "reasoning": reasoning,
        "usage": {"prompt_tokens": int(prompt_tokens), "completion_tokens": int(completion_tokens)},
        "latency_s": round(float(latency_s), 6),
        "finish_reason": finish_reason,
        "requests": requests,
        "settings": settings,
        "mode": mode,
        "error": error,
        "extra": _jsonable(extra or {}),
    }
    for key in META_FIELDS:
        result[key] = record.get(key)
    return result


def _scan(path: Path) -> Iterator[tuple[bytes, dict[str, Any] | None]]:
    """Yield ``(raw line, result or None)`` for every line; None marks a line to drop.

    A line is dropped when it is not a JSON object with an ``id``, repeats an earlier
    id, or is the last line and lacks its newline (written only partly).
    """
    seen: set[str] = set()
    with path.open("rb") as fh:
        for line in fh:
            obj: Any = None
            if line.endswith(b"\n"):
                try:
                    obj = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    obj = None
            if isinstance(obj, dict) and "id" in obj and str(obj["id"]) not in seen:
                seen.add(str(obj["id"]))
                yield line, obj
            else:
                yield line, None


def iter_results(path: str | Path) -> Iterator[dict[str, Any]]:
    """Stream the valid results of a results file (first per id), without repairing it.

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file yields nothing).

    Yields:
        Result dicts, in file order.
    """
    p = Path(path)
    if not p.exists():
        return
    for _line, obj in _scan(p):
        if obj is not None:
            yield obj


def repair_results(
    path: str | Path, drop: Callable[[dict[str, Any]], bool] | None = None
) -> set[str]:
    """Rewrite a results file without damaged lines (and without ``drop``-ped results).

    Streams the file, so memory stays small for any run size; the file is replaced
    atomically, and only when something was removed.

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file means no results).
        drop: Also remove results for which this returns True (e.g. failed ones).

    Returns:
        The ids of the results kept.
    """
    p = Path(path)
    if not p.exists():
        return set()
    kept: set[str] = set()
    dirty = False
    for _line, obj in _scan(p):
        if obj is None or (drop is not None and drop(obj)):
            dirty = True
        else:
            kept.add(str(obj["id"]))
    if dirty:
        tmp = p.with_suffix(p.suffix + ".tmp")
        with tmp.open("wb") as out:
            for line, obj in _scan(p):
                if obj is not None and (drop is None or not drop(obj)):
                    out.write(line)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, p)
    return kept


def load_results(path: str | Path) -> list[dict[str, Any]]:
    """Read a results file for resume, repairing a truncated tail.

    Complete lines that parse as objects with an ``id`` are kept (first per id);
    anything else (a partial last line from a killed run, a corrupt line) is dropped
    and the file is rewritten atomically without it. For large runs prefer
    :func:`repair_results` and :func:`iter_results`, which stream.

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file means no results).

    Returns:
        The kept results, in file order.
    """
    repair_results(path)
    return list(iter_results(path))


class ResultWriter:
    """Append results to a JSONL file: one flushed line per instance, fsync grouped."""

    def __init__(
        self, path: str | Path, *, sync_interval_s: float = DEFAULT_SYNC_INTERVAL_S
    ) -> None:
        """Open ``path`` for appending.

        Args:
            path: The results file.
            sync_interval_s: Seconds between fsyncs (0: every line).
        """
        self.path = Path(path)
        self._log = AppendLog(self.path, sync_interval_s=sync_interval_s)

    def write(self, result: dict[str, Any]) -> None:
        """Append one result and flush it to the operating system.

        Args:
            result: A result record.
        """
        self._log.append(json.dumps(result, ensure_ascii=False))

    def close(self) -> None:
        """fsync and close the file."""
        self._log.close()


def _p90(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(0.9 * len(ordered)))
    return ordered[rank - 1]


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(results: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Aggregate results into the ``summary.json`` dict (one streaming pass).

    Accuracies are over all results (a failed request counts as ``no_answer``).
    ``tokens.completion_mean`` is generated tokens per answer; ``per_correct_*`` divide
    all generated tokens by the number of (strict or lenient) correct answers, the
    paper's cost-efficiency measure (Table 5). Latency statistics cover answered
    instances (no ``error``).

    Args:
        results: Result records (any iterable; consumed once).

    Returns:
        The summary dict.
    """
    total = strict = lenient = errors = 0
    outcomes = dict.fromkeys(OUTCOMES, 0)
    prompt_total = completion_total = 0.0
    latencies: list[float] = []
    suites: set[str] = set()
    first: dict[str, Any] | None = None
    for r in results:
        if first is None:
            first = {"mode": r.get("mode"), "settings": r.get("settings")}
        total += 1
        strict += bool(r.get("strict"))
        lenient += bool(r.get("lenient"))
        outcome = str(r.get("outcome"))
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        usage = r.get("usage") or {}
        completion_total += float(usage.get("completion_tokens") or 0)
        prompt_total += float(usage.get("prompt_tokens") or 0)
        if r.get("error"):
            errors += 1
        else:
            latencies.append(float(r.get("latency_s") or 0.0))
        if r.get("suite") is not None:
            suites.add(str(r.get("suite")))
    first = first or {}
    return {
        "counts": {"total": total, "answered": total - errors, "errors": errors},
        "strict_accuracy": strict / total if total else None,
        "lenient_accuracy": lenient / total if total else None,
        "strict_correct": strict,
        "lenient_correct": lenient,
        "outcomes": outcomes,
        "tokens": {
            "prompt_total": int(prompt_total),
            "completion_total": int(completion_total),
            "prompt_mean": prompt_total / total if total else None,
            "completion_mean": completion_total / total if total else None,
            "per_correct_strict": completion_total / strict if strict else None,
            "per_correct_lenient": completion_total / lenient if lenient else None,
        },
        "latency_s": {"mean": _mean(latencies), "p90": _p90(latencies)},
        "mode": first.get("mode"),
        "settings": first.get("settings"),
        "suites": sorted(suites),
    }


def write_summary(path: str | Path, summary: dict[str, Any]) -> Path:
    """Write ``summary.json`` atomically (sorted keys, indented).

    Args:
        path: Destination file.
        summary: The summary dict.

    Returns:
        The path written.
    """
    p = Path(path)
    tmp = p.with_suffix(p.suffix + ".tmp")
    tmp.write_text(json.dumps(summary, sort_keys=True, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, p)
    return p
