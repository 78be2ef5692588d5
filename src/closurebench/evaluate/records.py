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
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from closurebench.errors import ClosureBenchError
from closurebench.evaluate.appendlog import DEFAULT_SYNC_INTERVAL_S, AppendLog

__all__ = [
    "META_FIELDS",
    "OUTCOMES",
    "ResultWriter",
    "ResultsFileError",
    "load_results",
    "make_result",
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


def load_results(path: str | Path) -> list[dict[str, Any]]:
    """Read a results file for resume, repairing a truncated tail.

    Complete lines that parse as objects with an ``id`` are kept (first per id);
    anything else (a partial last line from a killed run, a corrupt line) is dropped
    and the file is rewritten atomically without it.

    Args:
        path: ``RUN_DIR/results.jsonl`` (a missing file means no results).

    Returns:
        The kept results, in file order.
    """
    p = Path(path)
    if not p.exists():
        return []
    raw = p.read_bytes()
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    dirty = False
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        dirty = True  # last line has no newline: written only partly
        lines.pop()
    for line in lines:
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            dirty = True
            continue
        if not isinstance(obj, dict) or "id" not in obj or str(obj["id"]) in seen:
            dirty = True
            continue
        seen.add(str(obj["id"]))
        kept.append(obj)
    if dirty:
        tmp = p.with_suffix(p.suffix + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for obj in kept:
                fh.write(json.dumps(obj, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    return kept


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
    """Aggregate results into the ``summary.json`` dict.

    Accuracies are over all results (a failed request counts as ``no_answer``).
    ``tokens.completion_mean`` is generated tokens per answer; ``per_correct_*`` divide
    all generated tokens by the number of (strict or lenient) correct answers, the
    paper's cost-efficiency measure (Table 5). Latency statistics cover answered
    instances (no ``error``).

    Args:
        results: Result records.

    Returns:
        The summary dict.
    """
    rows = list(results)
    total = len(rows)
    strict = sum(1 for r in rows if r.get("strict"))
    lenient = sum(1 for r in rows if r.get("lenient"))
    outcomes = dict.fromkeys(OUTCOMES, 0)
    for r in rows:
        outcomes[str(r.get("outcome"))] = outcomes.get(str(r.get("outcome")), 0) + 1
    errors = sum(1 for r in rows if r.get("error"))
    completion = [float((r.get("usage") or {}).get("completion_tokens") or 0) for r in rows]
    prompt = [float((r.get("usage") or {}).get("prompt_tokens") or 0) for r in rows]
    latencies = [float(r.get("latency_s") or 0.0) for r in rows if not r.get("error")]
    total_completion = sum(completion)
    first = rows[0] if rows else {}
    return {
        "counts": {"total": total, "answered": total - errors, "errors": errors},
        "strict_accuracy": strict / total if total else None,
        "lenient_accuracy": lenient / total if total else None,
        "strict_correct": strict,
        "lenient_correct": lenient,
        "outcomes": outcomes,
        "tokens": {
            "prompt_total": int(sum(prompt)),
            "completion_total": int(total_completion),
            "prompt_mean": _mean(prompt),
            "completion_mean": _mean(completion),
            "per_correct_strict": total_completion / strict if strict else None,
            "per_correct_lenient": total_completion / lenient if lenient else None,
        },
        "latency_s": {"mean": _mean(latencies), "p90": _p90(latencies)},
        "mode": first.get("mode"),
        "settings": first.get("settings"),
        "suites": sorted({str(r.get("suite")) for r in rows if r.get("suite") is not None}),
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
