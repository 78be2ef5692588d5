"""A loaded run (:class:`Run`), its results (:class:`LoadedResult`) and the error a run
folder that cannot be read raises.

Every run source builds :class:`Run` objects: run folders
(:func:`closurebench.report.aggregate.load_run`) and inspect logs
(:mod:`closurebench.report.inspect_log`); both import this module, never each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import Field

from closurebench.errors import ClosureBenchError
from closurebench.schema.results import ResultRecord, parse_result
from closurebench.schema.summary import RunSummary

__all__ = ["PROGRAM_TEXTS", "LoadedResult", "ReportError", "Run", "run_model_and_mode"]

#: The texts of a program mode's ``extra`` that no table reads (dropped when loading).
PROGRAM_TEXTS = frozenset({"program", "stdout_head"})


class ReportError(ClosureBenchError, ValueError):
    """A run directory is missing or malformed (the message names the path)."""


class LoadedResult(ResultRecord):
    """A result as a report holds it: the validated record, texts dropped, one count kept.

    The tables read outcomes, usage, latency and metadata, never the texts: a loaded
    result has an empty ``response``, no ``reasoning`` and no program texts in ``extra``
    (:data:`PROGRAM_TEXTS`), which keeps reports of long chain-of-thought runs small in
    memory. The one figure read from the texts is kept.

    Attributes:
        self_corrections: Chain-of-thought self-correction markers in the response and
            the reasoning (:func:`closurebench.report.aggregate.count_self_corrections`);
            None when the source did not count them.

    Example:
        >>> line = {"id": "a", "outcome": "wrong", "mode": "cot", "response": "Wait, 4."}
        >>> r = LoadedResult.parse(line, "results.jsonl:1", self_corrections=1)
        >>> r.response, r.self_corrections, r.outcome.value
        ('', 1, 'wrong')
    """

    self_corrections: int | None = Field(default=None, ge=0)

    @classmethod
    def parse(
        cls, obj: Mapping[str, Any], where: str, self_corrections: int | None = None
    ) -> LoadedResult:
        """A results-file object validated (once) as it is held: texts dropped.

        A text of the wrong type is kept, for validation to name it.

        Raises:
            DatasetFileError: naming ``where`` and the bad field.
        """
        form = dict(obj)
        if all(
            x is None or isinstance(x, str) for x in (obj.get("response"), obj.get("reasoning"))
        ):
            form["response"], form["reasoning"] = "", None
        extra = obj.get("extra")
        if isinstance(extra, dict):
            form["extra"] = {k: v for k, v in extra.items() if k not in PROGRAM_TEXTS}
        form["self_corrections"] = self_corrections
        return parse_result(form, where, cls)


@dataclass
class Run:
    """One loaded run directory.

    Attributes:
        path: The run directory.
        label: Display label (``model · mode``, made unique across the runs of a report).
        model: ``settings.model`` of the records (or the summary), else the directory name.
        mode: Prompting mode (``direct``, ``cot``, ...) or ``""``.
        records: The model results in file order (:class:`LoadedResult`: validated,
            without the response texts); results that ended in error are not among them.
        summary: The parsed ``summary.json``, or ``None`` when absent.
        errors: Results that ended in error (no model response), left out of
            ``records``.
        error_examples: Up to three distinct error messages.
        harness_gave_up: Of ``records``, those recorded as wrong because the harness
            died while handling their reply (``harness_deaths.gave_up``).
        sandbox: How a program mode ran the model's programs (``run.json``'s
            ``sandbox``: the level, ``wall`` and ``unsafe``), or ``None`` for other modes.
        identity: The run's ``run.json`` (dataset, model, provider, mode, options,
            settings), or ``None`` when the folder has none.
    """

    path: Path
    label: str
    model: str
    mode: str
    records: list[LoadedResult]
    summary: RunSummary | None = field(default=None)
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)
    harness_gave_up: int = 0
    sandbox: dict[str, Any] | None = None
    identity: dict[str, Any] | None = None

    @property
    def sample(self) -> int | None:
        """Which of repeated samples the run is (``eval --samples K``: 1..K), else None.

        Example:
            >>> Run(Path("."), "m", "m", "", [], identity={"sample": 2}).sample
            2
            >>> Run(Path("."), "m", "m", "", []).sample is None
            True
        """
        value = (self.identity or {}).get("sample")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def unsafe(self) -> bool:
        """The run executed model programs without a sandbox wall (``--unsafe-no-sandbox``).

        Example:
            >>> unsafe = {"isolation": "none", "unsafe": True}
            >>> Run(Path("."), "m", "m", "", [], sandbox=unsafe).unsafe
            True
        """
        return bool((self.sandbox or {}).get("unsafe"))

    @property
    def incomplete(self) -> str | None:
        """Why the run is incomplete, or None when every selected instance has a result.

        Example:
            >>> Run(Path("."), "m", "m", "", [], errors=2).incomplete
            '2 instances ended in error (no model response)'
            >>> stopped = RunSummary(complete=False, aborted="x")
            >>> Run(Path("."), "m", "m", "", [], stopped).incomplete
            'the run stopped early: x'
            >>> done = RunSummary.model_validate({"complete": True, "counts": {"selected": 1}})
            >>> one = [LoadedResult(id="a", outcome="wrong", mode="direct")]
            >>> Run(Path("."), "m", "m", "", one, done).incomplete is None
            True
        """
        summary = self.summary
        parts = []
        if self.errors:
            parts.append(f"{self.errors} instances ended in error (no model response)")
        if summary is not None and summary.aborted:
            parts.append(f"the run stopped early: {summary.aborted}")
        selected = summary.counts.selected if summary is not None else None
        done = len(self.records) + self.errors
        if selected is not None and selected > done:
            parts.append(f"{selected - done} of {selected} selected instances have no result")
        # ``complete`` is checked only where the summary says so (an older one may not).
        said = summary is not None and "complete" in summary.model_fields_set
        if not parts and said and summary is not None and not summary.complete:
            parts.append("its summary.json says it is incomplete")
        return "; ".join(parts) or None


def run_model_and_mode(
    settings: Mapping[str, Any] | None,
    mode: str | None,
    summary: RunSummary | None,
    folder: Path,
) -> tuple[str, str]:
    """A run's model and mode, as every run source names them.

    The run's results say (``settings.model`` and ``mode`` of the first one); a folder
    without results falls back on its ``summary.json``, then on the folder's name and
    ``""``.

    Args:
        settings: The first result's generation settings (None: no result).
        mode: The first result's mode (None: no result).
        summary: The run's ``summary.json`` (None when absent).
        folder: The run folder.

    Returns:
        ``(model, mode)``.

    Example:
        >>> run_model_and_mode({"model": "m"}, "cot", None, Path("runs/x"))
        ('m', 'cot')
        >>> s = RunSummary(mode="direct", settings={"model": "q"})
        >>> run_model_and_mode(None, None, s, Path("runs/x"))
        ('q', 'direct')
        >>> run_model_and_mode(None, None, None, Path("runs/x"))
        ('x', '')
    """
    found = settings.get("model") if settings else None
    if not found and summary is not None and summary.settings:
        found = summary.settings.get("model")
    the_mode = mode or (summary.mode if summary is not None else None) or ""
    return str(found or folder.resolve().name), str(the_mode)
