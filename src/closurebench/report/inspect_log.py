"""Read an inspect_ai log of ``closurebench/closure`` or ``closurebench/grit`` as report runs.

``closurebench report LOG.eval`` (or a ``.json`` log) turns each scored sample into the
result record the harness would have written — outcome, strict, lenient, the extracted
answer, usage, latency and the instance's grouping fields, validated through
:class:`~closurebench.schema.ResultRecord` — so every table and figure of the report
comes out of an inspect run. A sample that ended in error counts as an error result
(out of every accuracy), as in the harness. A log with several epochs gives one run per
epoch, numbered as repeated samples, so the report adds its pass@k table.

Needs the ``inspect`` extra (``inspect_ai`` reads the log).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from closurebench.report.run import LoadedResult, ReportError, Run
from closurebench.schema import META_FIELDS, Outcome

__all__ = ["INSPECT_SUFFIXES", "is_inspect_log", "runs_from_inspect_log"]

#: File suffixes of inspect logs.
INSPECT_SUFFIXES = (".eval", ".json")


def is_inspect_log(path: Path) -> bool:
    """Whether ``path`` names an inspect log file (not a run folder or results file).

    Example:
        >>> is_inspect_log(Path("logs/x.eval")), is_inspect_log(Path("run/results.jsonl"))
        (True, False)
    """
    return path.suffix in INSPECT_SUFFIXES and path.name != "summary.json"


def _record(sample: Any, model: str) -> dict[str, Any]:
    """One scored sample as a result record's JSON (validated)."""
    meta = dict(sample.metadata or {})
    score = next(iter((sample.scores or {}).values()), None)
    usage = sample.output.usage if sample.output is not None else None
    base: dict[str, Any] = {
        "id": str(sample.id),
        "settings": {"model": model},
        "usage": {
            "prompt_tokens": usage.input_tokens if usage else 0,
            "completion_tokens": usage.output_tokens if usage else 0,
            "reasoning_tokens": usage.reasoning_tokens if usage else None,
        },
        "latency_s": float(sample.total_time or 0.0),
        **{k: meta[k] for k in META_FIELDS if k in meta},
    }
    if sample.error is not None or score is None or not isinstance(score.value, dict):
        message = sample.error.message if sample.error is not None else "the sample was not scored"
        return {**base, "mode": str((score.metadata or {}).get("mode", "")) if score else "",
                "outcome": Outcome.ERROR, "error": message}  # fmt: skip
    info = score.metadata or {}
    try:
        extracted = json.loads(score.answer) if score.answer is not None else None
    except json.JSONDecodeError:
        extracted = score.answer
    return {
        **base,
        "mode": str(info.get("mode") or ""),
        "outcome": info.get("outcome"),
        "strict": bool(score.value.get("strict")),
        "lenient": bool(score.value.get("lenient")),
        "lenient_directional": info.get("lenient_directional"),
        "extracted": extracted,
        "reason": score.explanation,
        "response": sample.output.completion if sample.output is not None else "",
        "requests": int(info.get("requests") or 0),
    }


def runs_from_inspect_log(path: str | Path) -> list[Run]:
    """The report runs of one inspect log: one per epoch.

    Raises:
        ReportError: The log cannot be read, is not a closurebench task's, or holds no
            sample; or ``inspect_ai`` is not installed.
    """
    p = Path(path)
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ReportError(
            f"{p}: reading an inspect log needs inspect_ai; install the extra: "
            "pip install 'closurebench[inspect]'"
        ) from None
    try:
        log = read_eval_log(str(p))
    except Exception as exc:  # inspect raises many types for a bad file
        raise ReportError(f"{p}: not a readable inspect log ({exc})") from None
    if not log.eval.task.split("/")[-1].startswith("closurebench_") and "closurebench" not in (
        log.eval.task_registry_name or log.eval.task
    ):
        raise ReportError(
            f"{p}: a log of task {log.eval.task!r}, not closurebench/closure or closurebench/grit"
        )
    if not log.samples:
        raise ReportError(f"{p}: the log holds no samples (was it written with --no-log-samples?)")
    model = log.eval.model
    mode = str((log.eval.task_args or {}).get("mode") or "direct")
    epochs = sorted({s.epoch for s in log.samples})
    runs = []
    for epoch in epochs:
        records: list[LoadedResult] = []
        errors = 0
        examples: list[str] = []
        for i, sample in enumerate(s for s in log.samples if s.epoch == epoch):
            # Texts dropped as a run folder's; self-corrections not counted (None).
            rec = LoadedResult.parse(_record(sample, model), f"{p}: sample {i + 1}")
            if rec.is_error:
                errors += 1
                if len(examples) < 3 and rec.error not in examples:
                    examples.append(str(rec.error))
            else:
                records.append(rec)
        identity: dict[str, Any] = {
            "model": model,
            "provider": "inspect",
            "mode": mode,
            "dataset": log.eval.dataset.name,
            "task": log.eval.task,
        }
        if len(epochs) > 1:
            identity["sample"] = epoch
        label = f"{model} · {mode}" + (f" (epoch {epoch})" if len(epochs) > 1 else "")
        runs.append(Run(p, label, model, mode, records, None, errors, examples, 0, None, identity))
    return runs
