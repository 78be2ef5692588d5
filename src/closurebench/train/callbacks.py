"""Trainer callbacks shared by the recipes (needs the ``train`` extra: transformers).

:class:`JsonlMetrics` appends every log event of a transformers/TRL trainer to a JSONL file
(one object per event: ``step``, ``epoch`` and the logged values), flushed at once, so a
run that crashes keeps every metric logged before it and a resumed run appends to the same
file. Non-finite floats are written as null (JSON has no NaN).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

__all__ = ["JsonlMetrics", "jsonl_metrics"]


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, int | float | str | bool) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


class JsonlMetrics:
    """Append each ``on_log`` event to ``path`` as one JSON line (main process only).

    A plain object with the callback's ``on_log`` (importing this module needs no
    transformers); :func:`jsonl_metrics` gives it as a ``TrainerCallback``, which is
    what a trainer takes.

    Args:
        path: The JSONL file (its folder is created).

    Example:
        >>> import tempfile, types
        >>> d = tempfile.mkdtemp()
        >>> cb = JsonlMetrics(d + "/m.jsonl")
        >>> state = types.SimpleNamespace(global_step=2, epoch=0.5)
        >>> cb.on_log(None, state, None, logs={"loss": 1.25, "grad_norm": float("nan")})
        >>> open(d + "/m.jsonl").read()
        '{"epoch": 0.5, "grad_norm": null, "loss": 1.25, "step": 2}\\n'
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def on_log(
        self,
        args: Any,
        state: Any,
        control: Any,
        logs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Write one line: the step, the epoch and the logged values."""
        if not logs or not getattr(state, "is_world_process_zero", True):
            return
        row = {"step": state.global_step, "epoch": _plain(state.epoch)}
        row.update({k: _plain(v) for k, v in logs.items()})
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
            fh.flush()


def jsonl_metrics(path: str | Path) -> Any:
    """A transformers ``TrainerCallback`` that is a :class:`JsonlMetrics` of ``path``.

    Needs the ``train`` extra (transformers).
    """
    from transformers import TrainerCallback

    class _JsonlMetricsCallback(JsonlMetrics, TrainerCallback):
        pass

    return _JsonlMetricsCallback(path)
