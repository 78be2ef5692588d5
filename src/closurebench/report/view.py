"""The transcript viewer: one self-contained HTML page to browse the results of runs.

``closurebench view RUN_DIR [RUN_DIR ...]`` writes ``view.html`` (into the first run
folder, or ``--out FILE``): a header per run (model, provider, mode, dataset, counts,
strict and lenient accuracy), filters (outcome with counts, run, mode, suite, split,
category, level, encoding, GRIT task / form / naming, the program's execution
outcome and error class, the agent's episode end, strict correct or not, and a text
search over the id, the question and the reply), and one collapsed entry per result.
An entry opens on the question (joined from the dataset by id: results do not hold it),
the extracted and the reference answer (and the alternative one where the instance has
it), the reply and its reasoning, usage, latency and requests, the error text, and what
the mode recorded in ``extra``: a program mode's program, its stdout and execution
details; an agent mode's trajectory turn by turn (model turns with their ``<graph>``
calls or function calls, tool results, the final answer), its tool calls and structure
recovery. Keys of ``extra`` the viewer does not know are shown as JSON, so nothing
recorded is hidden.

The page needs no network: CSS and a small vanilla script are inline, and the data is
one JSON block (``<script type="application/json">``, with ``<``, ``>`` and ``&``
written as ``\\u003c``, ``\\u003e``, ``\\u0026``). Entries are built from it by the
script, a page of 50 at a time, and an entry's details only when it is opened, so a
run of 10,000 results stays usable. Every text is set as text (``textContent``), never
as markup: a reply holding ``</script>`` or ``<img onerror=...>`` shows as those
characters. The filter state lives in the URL hash
(``#outcome=wrong&category=bfs_order&q=...&page=2&open=ID``; a filter's key repeats
for several values, ``open=*`` opens every entry of the page), so a view can be
linked. The same runs give the same page, byte for byte.

Results are read with the typed reader
(:func:`~closurebench.evaluate.records.iter_result_records`: the first record per id,
a torn last line skipped), and, when
``summary.json`` lists ``selected_ids``, only those (as ``closurebench report`` does).
Questions come from the dataset file ``run.json`` records, or from ``--data FILE``;
when neither can be read the page says so where the question would be.

Example:
    >>> embed_json({"reply": "</script><img src=x onerror=alert(1)>&"})
    '{"reply":"\\\\u003c/script\\\\u003e\\\\u003cimg src=x onerror=alert(1)\\\\u003e\\\\u0026"}'
"""

from __future__ import annotations

import html
import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from closurebench import __version__
from closurebench.errors import ClosureBenchError, DatasetFileError
from closurebench.jsonl import JsonFileError, read_json
from closurebench.report.aggregate import NAMING_ORDER, ReportError
from closurebench.report.run import run_model_and_mode
from closurebench.schema.results import ResultRecord
from closurebench.schema.summary import RunSummary

__all__ = [
    "FACETS",
    "OUTCOME_LABELS",
    "PAGE_SIZE",
    "ViewDataset",
    "ViewError",
    "ViewRun",
    "build_view",
    "embed_json",
    "facet_value",
    "load_view_runs",
    "render_view",
    "view_payload",
]

#: Entries per page of the list.
PAGE_SIZE = 50

#: Up to this many runs, the page opens with every run's header shown.
_OPEN_RUNS = 6

#: Outcome -> label, in display order (model outcomes, then ``error``).
OUTCOME_LABELS: dict[str, str] = {
    "strict_correct": "strict correct",
    "lenient_only": "lenient only",
    "wrong": "wrong",
    "format_error": "format error",
    "no_answer": "no answer",
    "error": "error",
}

#: The filters: key -> label, in display order (one without two distinct values is left out,
#: except ``outcome``).
FACETS: dict[str, str] = {
    "outcome": "outcome",
    "run": "run",
    "mode": "mode",
    "strict": "strict",
    "suite": "suite",
    "split": "split",
    "category": "category",
    "level": "level",
    "encoding": "encoding",
    "task": "task",
    "form": "form",
    "naming": "naming",
    "exec_outcome": "execution",
    "error_class": "error class",
    "agent_outcome": "episode end",
}

#: Facets read from a record's ``extra``.
_EXTRA_FACETS = ("exec_outcome", "error_class", "agent_outcome")

#: Fields of an instance shown as the reference, beside its question.
_REFERENCE_FIELDS = ("answer", "alt_answer", "solution")


class ViewError(ReportError):
    """A run folder or dataset cannot be shown (the message names the path and the fix)."""


@dataclass
class ViewRun:
    """One run folder, as the viewer shows it.

    Attributes:
        path: The run folder.
        label: ``model · mode`` (the folder name appended when two runs share it).
        info: ``run.json`` (empty when absent).
        summary: ``summary.json`` (None when absent).
        records: The results, typed, in file order (errors included).
        dataset: Index into the datasets of :func:`load_view_runs`, or None.
        notes: Things the reader should know (missing questions, a changed dataset, ...).
        question_note: What the page says where a question is unavailable.
    """

    path: Path
    label: str
    info: dict[str, Any]
    summary: RunSummary | None
    records: list[ResultRecord]
    dataset: int | None = None
    notes: list[str] = field(default_factory=list)
    question_note: str = ""

    @property
    def model(self) -> str:
        """The model name: ``run.json``'s, else the results' (as the report names it)."""
        found = self.info.get("model")
        return str(found) if found else self._identity[0]

    @property
    def mode(self) -> str:
        """The evaluation mode: ``run.json``'s, else the results' (``""``: nothing says)."""
        found = self.info.get("mode")
        return str(found) if found else self._identity[1]

    @property
    def _identity(self) -> tuple[str, str]:
        first = self.records[0] if self.records else None
        return run_model_and_mode(
            first.settings if first else None, first.mode if first else None,
            self.summary, self.path,
        )  # fmt: skip


@dataclass
class ViewDataset:
    """One dataset joined into the page.

    Attributes:
        path: The file (or files, comma-separated, for ``--data``).
        instances: ``id -> {question, answer, alt_answer?, solution?, view?}`` for the
            ids the runs hold.
    """

    path: str
    instances: dict[str, dict[str, Any]]


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats as None (JSON cannot hold them).

    Example:
        >>> _finite({"a": [1.5, float("nan")], "b": float("inf")})
        {'a': [1.5, None], 'b': None}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def embed_json(obj: Any) -> str:
    """Compact JSON safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` are written as JSON escapes, so no text of the data can close
    the script element or start markup; ``JSON.parse`` reads the same value back.
    Non-finite floats become null.

    Example:
        >>> embed_json({"a": "<b>&", "n": [1, 2.5]})
        '{"a":"\\\\u003cb\\\\u003e\\\\u0026","n":[1,2.5]}'
    """
    try:
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a non-finite float somewhere: the slow, cleaning path
        text = json.dumps(_finite(obj), ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _read_json(path: Path) -> dict[str, Any] | None:
    """The JSON object in ``path``, None when absent (or not an object).

    Raises:
        ViewError: The file is not JSON.
    """
    if not path.is_file():
        return None
    try:
        loaded = read_json(path)
    except JsonFileError as exc:
        raise ViewError(f"{exc}; was this folder written by `closurebench eval`?") from None
    return loaded if isinstance(loaded, dict) else None


def _read_summary(path: Path) -> RunSummary | None:
    """``summary.json`` through its typed definition, as the report reads it (None: absent).

    Raises:
        ViewError: The file is not JSON or not a ``summary.json`` record (names the field).
    """
    from closurebench.evaluate.records import read_summary

    try:
        return read_summary(path)
    except ClosureBenchError as exc:
        raise ViewError(str(exc)) from None


def _run_folders_below(path: Path) -> list[str]:
    """Sub-folders of ``path`` that hold a ``results.jsonl`` (for the error's hint)."""
    try:
        return sorted(str(p.parent) for p in path.glob("*/results.jsonl"))
    except OSError:
        return []


def _run_folder(path: Path) -> Path:
    """The run folder ``path`` names (a folder, or its ``results.jsonl``).

    Raises:
        ViewError: It does not exist, or holds no ``results.jsonl``.
    """
    if path.is_file() and path.name == "results.jsonl":
        return path.parent
    if not path.exists():
        raise ViewError(
            f"{path}: no such run folder; pass a folder written by `closurebench eval --out`"
        )
    if not path.is_dir():
        raise ViewError(
            f"{path}: not a run folder; pass the folder `closurebench eval --out` wrote "
            "(it holds results.jsonl)"
        )
    if not (path / "results.jsonl").is_file():
        below = _run_folders_below(path)
        hint = (
            f"it holds run folders: pass them instead, e.g. {' '.join(below[:3])}"
            if below
            else "pass a run folder written by `closurebench eval --out`"
        )
        raise ViewError(f"{path / 'results.jsonl'}: not found; {hint}")
    return path


def _read_records(folder: Path, summary: RunSummary | None) -> tuple[list[ResultRecord], int]:
    """The typed results of ``folder`` (the summary's selection only), and how many were left out.

    Raises:
        ViewError: A line is not a result record (names the file, line and field).
    """
    from closurebench.evaluate.records import iter_result_records

    listed = summary.selected_ids if summary is not None else None
    selection = set(listed) if listed is not None else None
    records: list[ResultRecord] = []
    outside = 0
    try:
        for rec in iter_result_records(folder / "results.jsonl"):
            if selection is not None and rec.id not in selection:
                outside += 1
                continue
            records.append(rec)
    except DatasetFileError as exc:
        raise ViewError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise ViewError(f"{folder / 'results.jsonl'}: not UTF-8 text ({exc.reason})") from None
    return records, outside


def _reference(instance: Any) -> dict[str, Any]:
    """The question and the reference fields of one instance (absent ones left out)."""
    out: dict[str, Any] = {"question": instance.question}
    for key in _REFERENCE_FIELDS:
        value = getattr(instance, key, None)
        if value is None or (key != "answer" and value == out.get("answer")):
            continue
        out[key] = value
    if getattr(instance, "view", None):
        out["view"] = instance.view
    return out


def _load_dataset(paths: Sequence[Path], wanted: set[str], fix: str) -> dict[str, dict[str, Any]]:
    """``id -> reference`` for the ``wanted`` ids found in the dataset files ``paths``.

    Raises:
        ViewError: A file is missing or holds a malformed record (``fix`` says what to do).
    """
    from closurebench.generate.io import iter_instances

    found: dict[str, dict[str, Any]] = {}
    for path in paths:
        if not path.exists():
            raise ViewError(f"{path}: no such dataset file; {fix}")
        try:
            for instance in iter_instances(path):
                if instance.id in wanted and instance.id not in found:
                    found[instance.id] = _reference(instance)
        except (ClosureBenchError, OSError, UnicodeDecodeError) as exc:
            raise ViewError(f"{path}: cannot read the dataset ({exc}); {fix}") from None
    return found


def _recorded_dataset(folder: Path, info: Mapping[str, Any]) -> Path | None:
    """The dataset file ``run.json`` names (relative paths tried from here, then the run)."""
    dataset = info.get("dataset")
    raw = dataset.get("path") if isinstance(dataset, dict) else None
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw)
    if not path.is_absolute() and not path.exists() and (folder / path).exists():
        return folder / path
    return path


def _labels(runs: Sequence[ViewRun]) -> None:
    """Give every run its ``model · mode`` label, the folder name appended to repeats."""
    base = [f"{r.model} · {r.mode}" if r.mode else r.model for r in runs]
    counts = Counter(base)
    for run, label in zip(runs, base, strict=True):
        run.label = f"{label} ({run.path.name})" if counts[label] > 1 else label


def load_view_runs(
    paths: Iterable[str | Path], data: Sequence[str | Path] = ()
) -> tuple[list[ViewRun], list[ViewDataset]]:
    """Read run folders and join their questions from the datasets.

    Args:
        paths: Run folders (or their ``results.jsonl`` files).
        data: Dataset files to take the questions from instead of those ``run.json``
            records (all runs look their ids up in all of them).

    Returns:
        The runs, and the datasets their ``dataset`` indices point into.

    Raises:
        ViewError: No path; a run folder is missing, holds no ``results.jsonl`` or a
            malformed line; a ``--data`` file, or the dataset a run records, exists but
            cannot be read.

    Example:
        >>> try:
        ...     load_view_runs(["/nonexistent/run"])
        ... except ViewError as exc:
        ...     print(exc)
        /nonexistent/run: no such run folder; pass a folder written by `closurebench eval --out`
    """
    from closurebench.evaluate.rundir import file_sha256

    folders = [_run_folder(Path(p)) for p in paths]
    if not folders:
        raise ViewError("no run folder given; pass one or more folders written by `eval --out`")
    runs: list[ViewRun] = []
    for folder in folders:
        info = _read_json(folder / "run.json") or {}
        summary = _read_summary(folder / "summary.json")
        records, outside = _read_records(folder, summary)
        run = ViewRun(folder, "", info, summary, records)
        if outside:
            run.notes.append(
                f"{outside} results outside the last command's selection (summary.json "
                "selected_ids) are not shown"
            )
        runs.append(run)
    _labels(runs)

    datasets: list[ViewDataset] = []
    given = [Path(p) for p in data]
    if given:
        wanted = {rec.id for run in runs for rec in run.records}
        found = _load_dataset(given, wanted, "pass the dataset file the run was made from")
        datasets.append(ViewDataset(", ".join(str(p) for p in given), found))
        for run in runs:
            run.dataset = 0
            run.question_note = f"this id is not in {datasets[0].path}"
    else:
        by_path: dict[Path, int] = {}
        for run in runs:
            path = _recorded_dataset(run.path, run.info)
            if path is None:
                run.question_note = (
                    f"the question is not available: {run.path}/run.json names no dataset; "
                    "pass --data FILE"
                )
                run.notes.append(run.question_note)
                continue
            if not path.is_file():
                run.question_note = (
                    f"the question is not available: the dataset {path} that run.json names is "
                    "gone; pass --data FILE"
                )
                run.notes.append(run.question_note)
                continue
            key = path.resolve()
            if key not in by_path:
                wanted = {
                    rec.id
                    for other in runs
                    if _recorded_dataset(other.path, other.info) == path
                    for rec in other.records
                }
                fix = "pass --data FILE (the dataset the run was made from)"
                by_path[key] = len(datasets)
                datasets.append(ViewDataset(str(path), _load_dataset([path], wanted, fix)))
            run.dataset = by_path[key]
            run.question_note = f"this id is not in {path}"
            recorded = (run.info.get("dataset") or {}).get("sha256")
            if isinstance(recorded, str) and recorded and file_sha256(path) != recorded:
                run.notes.append(
                    f"the dataset {path} changed since the run (its sha256 differs from "
                    "run.json's): questions and references may not be those the model saw"
                )
    for run in runs:
        if run.dataset is None:
            continue
        have = datasets[run.dataset].instances
        missing = sum(1 for rec in run.records if rec.id not in have)
        if missing:
            run.notes.append(
                f"{missing} of {len(run.records)} results have no instance in "
                f"{datasets[run.dataset].path}: their questions are not shown"
            )
    return runs, datasets


def facet_value(record: Mapping[str, Any], key: str) -> str | None:
    """A record's value for the filter ``key`` (:data:`FACETS`), as text; None when it has none.

    ``run`` is not read here (the caller knows the run).

    Example:
        >>> facet_value({"strict": True}, "strict"), facet_value({"level": 2}, "level")
        ('correct', '2')
        >>> facet_value({"extra": {"exec_outcome": "timeout"}}, "exec_outcome")
        'timeout'
        >>> facet_value({"category": None}, "category") is None
        True
    """
    if key == "strict":
        return "correct" if record.get("strict") else "not correct"
    if key in _EXTRA_FACETS:
        extra = record.get("extra")
        value = extra.get(key) if isinstance(extra, dict) else None
    else:
        value = record.get(key)
    if value is None or value == "" or isinstance(value, dict | list):
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _value_order(key: str, values: Iterable[str]) -> list[str]:
    """Values of one facet in display order.

    Example:
        >>> _value_order("outcome", ["wrong", "strict_correct", "odd"])
        ['strict_correct', 'wrong', 'odd']
        >>> _value_order("level", ["10", "2"]), _value_order("naming", ["mixed", "canonical"])
        (['2', '10'], ['canonical', 'mixed'])
    """
    order: dict[str, int] = {}
    if key == "outcome":
        order = {v: i for i, v in enumerate(OUTCOME_LABELS)}
    elif key == "naming":
        order = {v: i for i, v in enumerate(NAMING_ORDER)}
    elif key == "strict":
        order = {"correct": 0, "not correct": 1}

    def sort_key(value: str) -> tuple[int, float, str]:
        if value in order:
            return (0, order[value], "")
        try:
            return (1, float(value), value)
        except ValueError:
            return (2, 0.0, value)

    return sorted(set(values), key=sort_key)


def _record_json(rec: ResultRecord, default_settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """One result as the page holds it: its JSON, without nulls the page does not need."""
    out: dict[str, Any] = rec.to_json()
    for key in [k for k, v in out.items() if v is None]:
        del out[key]
    if default_settings is not None and out.get("settings") == default_settings:
        del out["settings"]
    return out


def _accuracy(records: Sequence[ResultRecord]) -> dict[str, Any]:
    """Counts and strict / lenient accuracy over the answered results."""
    answered = [r for r in records if r.outcome != "error"]
    return {
        "results": len(records),
        "answered": len(answered),
        "errors": len(records) - len(answered),
        "strict": sum(1 for r in answered if r.strict),
        "lenient": sum(1 for r in answered if r.lenient),
    }


def _default_settings(records: Sequence[ResultRecord]) -> dict[str, Any] | None:
    """The settings most records share (the first such, for a deterministic choice)."""
    if not records:
        return None
    keys = [json.dumps(r.settings, sort_keys=True) for r in records]
    best = Counter(keys).most_common(1)[0][0]
    return dict(records[keys.index(best)].settings)


def view_payload(runs: Sequence[ViewRun], datasets: Sequence[ViewDataset]) -> dict[str, Any]:
    """The data the page embeds: runs, datasets, facets and records (with facet indices).

    Each record is its result's JSON plus ``_run`` (the run's index) and ``_f`` (for each
    facet, the index of the record's value, -1 when it has none).
    """
    raw: list[tuple[int, dict[str, Any]]] = []
    run_info: list[dict[str, Any]] = []
    for index, run in enumerate(runs):
        settings = _default_settings(run.records)
        run_info.append(
            {
                "label": run.label,
                "path": str(run.path),
                "mode": run.mode,
                "settings": settings,
                "dataset": run.dataset,
                "question_note": run.question_note,
            }
        )
        raw.extend((index, _record_json(rec, settings)) for rec in run.records)

    def read(key: str, index: int, rec: dict[str, Any]) -> str | None:
        return str(index) if key == "run" else facet_value(rec, key)

    facets: list[dict[str, Any]] = []
    columns: list[list[str | None]] = []
    for key, label in FACETS.items():
        column = [read(key, i, r) for i, r in raw]
        present = [v for v in column if v is not None]
        if key != "outcome" and len(set(present)) < 2:
            continue
        if key == "run":
            values = [str(i) for i in range(len(runs)) if str(i) in set(present)]
            shown = [runs[int(v)].label for v in values]
        else:
            values = _value_order(key, present)
            shown = [OUTCOME_LABELS.get(v, v) if key == "outcome" else v for v in values]
        facets.append({"key": key, "label": label, "values": values, "shown": shown})
        columns.append(column)
    records: list[dict[str, Any]] = []
    positions = [{v: i for i, v in enumerate(facet["values"])} for facet in facets]
    for row, (index, rec) in enumerate(raw):
        f = [
            at.get(column[row], -1) if column[row] is not None else -1
            for at, column in zip(positions, columns, strict=True)
        ]
        records.append({**rec, "_run": index, "_f": f})
    return {
        "version": __version__,
        "page_size": PAGE_SIZE,
        "runs": run_info,
        "datasets": [{"path": d.path, "instances": d.instances} for d in datasets],
        "facets": facets,
        "records": records,
    }


def _pct(k: int, n: int) -> str:
    """``k/n`` as a percentage with its counts.

    Example:
        >>> _pct(1, 3), _pct(0, 0)
        ('33.3 % (1/3)', '— (0/0)')
    """
    return f"{100 * k / n:.1f} % ({k}/{n})" if n else f"— ({k}/{n})"


def _plural(n: int, word: str) -> str:
    """``n word`` with an ``s`` unless ``n`` is 1.

    Example:
        >>> _plural(1, "error"), _plural(0, "error")
        ('1 error', '0 errors')
    """
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _settings_line(settings: Mapping[str, Any]) -> str:
    """The set generation settings of a run, as ``key value`` pairs (model left out).

    Example:
        >>> _settings_line({"model": "m", "temperature": 0.0, "top_p": None, "max_tokens": 9})
        'temperature 0.0 · max_tokens 9'
    """
    return " · ".join(
        f"{k} {json.dumps(v) if isinstance(v, dict | list) else v}"
        for k, v in settings.items()
        if k != "model" and v is not None
    )


def _run_card(run: ViewRun, datasets: Sequence[ViewDataset]) -> str:
    """The header of one run (escaped HTML)."""
    e = html.escape
    acc = _accuracy(run.records)
    meta = [f"model <b>{e(run.model)}</b>"]
    meta.append(f"provider {e(str(run.info.get('provider') or '—'))}")
    meta.append(f"mode {e(run.mode or '—')}")
    sandbox = run.info.get("sandbox")
    if isinstance(sandbox, dict):
        meta.append(f"sandbox {e(str(sandbox.get('isolation') or '—'))}")
        if sandbox.get("unsafe"):
            meta.append('<b class="warn">no sandbox wall (unsafe)</b>')
    recorded = _recorded_dataset(run.path, run.info)
    dataset = datasets[run.dataset].path if run.dataset is not None else recorded
    rows: list[tuple[str, str]] = [
        ("dataset", f"<code>{e(str(dataset or '—'))}</code>"),
        ("folder", f"<code>{e(str(run.path))}</code>"),
    ]
    settings = run.info.get("settings")
    if isinstance(settings, dict) and _settings_line(settings):
        rows.append(("settings", e(_settings_line(settings))))
    counts = (
        f"{_plural(acc['results'], 'result')} · {acc['answered']} answered · "
        f"{_plural(acc['errors'], 'error')}"
    )
    selected = run.summary.counts.selected if run.summary is not None else None
    if selected is not None and selected > acc["results"]:
        counts += f" · {selected - acc['results']} of {selected} selected have no result"
    rows.append(("counts", e(counts)))
    accuracy = (
        f"strict <b>{e(_pct(acc['strict'], acc['answered']))}</b> · "
        f"lenient <b>{e(_pct(acc['lenient'], acc['answered']))}</b>"
    )
    rows.append(("accuracy", accuracy))
    outcomes = Counter(str(r.outcome) for r in run.records)
    chips = " ".join(
        f'<span class="pill o-{e(o)}">{e(OUTCOME_LABELS.get(o, o))} {outcomes[o]}</span>'
        for o in _value_order("outcome", outcomes)
    )
    rows.append(("outcomes", chips or "—"))
    notes = list(run.notes)
    if run.summary is not None and run.summary.aborted:
        notes.append(f"the run stopped early: {run.summary.aborted}")
    body = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
    notes_html = "".join(f'<p class="note">{e(n)}</p>' for n in notes)
    return (
        f'<section class="run"><h2>{e(run.label)}</h2>'
        f'<p class="meta">{" · ".join(meta)}</p><dl>{body}</dl>{notes_html}</section>'
    )


def render_view(runs: Sequence[ViewRun], datasets: Sequence[ViewDataset]) -> str:
    """The whole page (pure: the same runs give the same text).

    Example:
        >>> page = render_view([], [])
        >>> page.startswith("<!DOCTYPE html>"), "http://" in page or "https://" in page
        (True, False)
    """
    e = html.escape
    payload = view_payload(runs, datasets)
    total = len(payload["records"])
    title = "closurebench view" + (f" — {runs[0].label}" if len(runs) == 1 else "")
    cards = "".join(_run_card(run, datasets) for run in runs)
    sub = f"{_plural(total, 'result')} in {_plural(len(runs), 'run')}"
    # Many runs: their headers fold away (open them from the summary line).
    fold = " open" if len(runs) <= _OPEN_RUNS else ""
    runs_box = (
        f'<details class="runs-box"{fold}><summary>{e(_plural(len(runs), "run"))}</summary>'
        f'<div class="runs">{cards}</div></details>'
        if len(runs) > 1
        else f'<div class="runs">{cards}</div>'
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)}</title><style>{_CSS}</style></head>\n<body>\n"
        f'<header class="top"><h1>closurebench transcripts</h1>'
        f'<span class="sub">{e(sub)} · closurebench {e(__version__)}</span></header>\n'
        f"<main>\n{runs_box}\n"
        '<noscript><p class="note">The entries are built by this page\'s script: enable '
        "JavaScript to browse them.</p></noscript>\n"
        '<section id="filters" class="filters"></section>\n'
        '<div id="list" class="list"></div>\n<div id="pager-bottom" class="pager"></div>\n'
        "</main>\n"
        f'<script type="application/json" id="cb-data">{embed_json(payload)}</script>\n'
        f"<script>{_JS}</script>\n</body></html>\n"
    )


def build_view(
    run_dirs: Sequence[str | Path], out: str | Path | None = None, data: Sequence[str | Path] = ()
) -> Path:
    """Write the viewer page of ``run_dirs``.

    Args:
        run_dirs: Run folders (one page for all).
        out: The page to write (default: ``view.html`` in the first run folder).
        data: Dataset files to take questions from (default: those ``run.json`` records).

    Returns:
        The page's path.

    Raises:
        ViewError: See :func:`load_view_runs`.
        OSError: The page cannot be written.
    """
    runs, datasets = load_view_runs(run_dirs, data)
    path = Path(out) if out is not None else runs[0].path / "view.html"
    page = render_view(runs, datasets)
    path.write_text(page, encoding="utf-8")
    return path


_CSS = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--acc:#0969da}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;
font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
header.top{padding:12px 24px;border-bottom:1px solid var(--line);background:var(--soft);
display:flex;gap:16px;align-items:baseline;flex-wrap:wrap}
header.top h1{font-size:19px;margin:0}.sub{color:var(--muted)}
main{max-width:1280px;margin:0 auto;padding:8px 24px 48px}
details.runs-box>summary{cursor:pointer;color:var(--muted);font-size:13px;margin:10px 0 0}
.runs{display:grid;grid-template-columns:repeat(auto-fill,minmax(380px,1fr));gap:12px;
margin:12px 0}
.run{border:1px solid var(--line);border-radius:8px;padding:10px 14px}
.run h2{font-size:15px;margin:0 0 2px}
.run p.meta{margin:0 0 6px;color:var(--muted);font-size:13px}.run p.meta b{color:var(--fg)}
.run dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0;font-size:13px}
.run dt{color:var(--muted)}.run dd{margin:0;overflow-wrap:anywhere}
.run code{font-size:12px}
.note{background:#fff8c5;border:1px solid #e5d38a;border-radius:6px;padding:4px 8px;
margin:6px 0 0;font-size:13px}
.warn{color:#b35900}
.pill{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;color:#fff;
margin:1px 2px 1px 0;white-space:nowrap}
.o-strict_correct{background:#1a7f37}.o-lenient_only{background:#7d8f00}
.o-wrong{background:#cf222e}.o-format_error{background:#bc4c00}
.o-no_answer{background:#6e7781}.o-error{background:#8250df}
.filters{position:sticky;top:0;z-index:2;background:#fff;padding:10px 0 8px;
border-bottom:1px solid var(--line)}
.chips{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-bottom:8px}
.chips .lab,.sel span{color:var(--muted);font-size:12px}
.chip{border:1px solid var(--line);border-radius:14px;padding:2px 10px 2px 8px;background:#fff;
cursor:pointer;font:inherit;font-size:13px;display:inline-flex;gap:6px;align-items:center}
.chip .dot{width:9px;height:9px;border-radius:50%;display:inline-block}
.chip .n{color:var(--muted);font-size:12px}
.chip.on{border-color:var(--fg);background:var(--soft);font-weight:600}
.chip.zero{opacity:.45}
.row{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center}
.sel{display:inline-flex;gap:4px;align-items:center}
select{max-width:250px}
select,input[type=search],button.btn{font:inherit;font-size:13px;border:1px solid var(--line);
border-radius:6px;padding:3px 6px;background:#fff}
input[type=search]{min-width:260px}
button.btn{cursor:pointer}button.btn:disabled{opacity:.4;cursor:default}
.pager{display:flex;gap:8px;align-items:center;margin:10px 0;color:var(--muted);font-size:13px}
.pager .grow{flex:1}
.entry{border:1px solid var(--line);border-radius:8px;margin:6px 0;overflow:hidden}
.entry>.head{display:flex;gap:10px;align-items:center;width:100%;text-align:left;border:0;
background:#fff;padding:6px 10px;cursor:pointer;font:inherit}
.entry>.head:hover{background:var(--soft)}
.entry.open>.head{background:var(--soft);border-bottom:1px solid var(--line)}
.head .tw{color:var(--muted);width:10px;font-size:11px}
.head .badge{min-width:104px;text-align:center}
.head .id{font-size:13px;white-space:nowrap}
.head .meta{color:var(--muted);font-size:12px;white-space:nowrap;overflow:hidden;
text-overflow:ellipsis;min-width:0;flex:1 1 auto}
.head .ans{font-size:12px;color:var(--muted);white-space:nowrap;overflow:hidden;
text-overflow:ellipsis;max-width:40%;flex:0 1 auto}
.body{padding:6px 14px 14px}
.sec{margin:12px 0 0}
.sec>h3{font-size:11.5px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);
margin:0 0 4px;font-weight:600}
.sec>h3 .aside{text-transform:none;letter-spacing:0;font-weight:400}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);border:1px solid var(--line);
border-radius:6px;padding:7px 10px;margin:0;max-height:30em;overflow:auto;font-size:12.5px;
line-height:1.45}
pre.err{background:#ffebe9;border-color:#f5c2c0}
pre.code{background:#f6f8ff}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:10px}
.grid .sec{margin:0}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:3px 14px;
font-size:12.5px}
.facts>div{display:flex;gap:8px;align-items:baseline;min-width:0}
.facts>div.wide{grid-column:1/-1}
.facts .k{color:var(--muted);white-space:nowrap}
.facts .v{overflow-wrap:anywhere}
table.calls{border-collapse:collapse;font-size:12.5px}
table.calls th,table.calls td{border:1px solid var(--line);padding:2px 8px;text-align:left}
table.calls th{background:var(--soft);font-weight:600}
.turn{border-left:3px solid var(--line);padding:2px 0 4px 10px;margin:8px 0}
.turn.assistant{border-color:#0969da}.turn.tool{border-color:#8250df}
.turn>.th{font-size:12px;font-weight:600;margin-bottom:3px}
.turn.assistant>.th{color:#0969da}.turn.tool>.th{color:#8250df}
.turn .th .aside{font-weight:400;color:var(--muted)}
.seg{margin:3px 0}.seg>.sl{font-size:11px;color:var(--muted)}
.seg.think pre{background:#fff;color:#57606a;font-style:italic}
.seg.graph pre{background:#ddf4ff;border-color:#b6e3ff}
.seg.answer pre{background:#dafbe1;border-color:#aceebb}
details.raw>summary{cursor:pointer;color:var(--muted);font-size:12px}
.muted{color:var(--muted)}.empty{color:var(--muted);font-style:italic;padding:16px 0}
"""

_JS = r"""
(function () {
"use strict";
var DATA = JSON.parse(document.getElementById("cb-data").textContent);
var RUNS = DATA.runs, RECS = DATA.records, FACETS = DATA.facets, PAGE = DATA.page_size;
var OUTCOME = FACETS[0];
var LABELS = {};
OUTCOME.values.forEach(function (v, i) { LABELS[v] = OUTCOME.shown[i]; });
FACETS.forEach(function (f) {
  f.index = {};
  f.values.forEach(function (v, i) { f.index[v] = i; });
});
var state = {f: FACETS.map(function () { return null; }), q: "", page: 0, open: {}};
var hay = new Array(RECS.length);
var shown = [];
var lastHash = null;

function el(tag, cls, text) {
  var node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function add(parent) {
  for (var i = 1; i < arguments.length; i++) {
    var c = arguments[i];
    if (c === null || c === undefined) continue;
    parent.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return parent;
}
function oneLine(v) {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map(oneLine).join(", ") + "]";
  return "{" + Object.keys(v).map(function (k) {
    return JSON.stringify(k) + ": " + oneLine(v[k]);
  }).join(", ") + "}";
}
function jsonText(v, ind) {
  if (v === undefined) return "—";
  var one = oneLine(v);
  ind = ind || "";
  if (v === null || typeof v !== "object" || one.length + ind.length <= 80) return one;
  var inner = ind + "  ";
  if (Array.isArray(v)) {
    return "[\n" + v.map(function (x) { return inner + jsonText(x, inner); }).join(",\n") +
      "\n" + ind + "]";
  }
  return "{\n" + Object.keys(v).map(function (k) {
    return inner + JSON.stringify(k) + ": " + jsonText(v[k], inner);
  }).join(",\n") + "\n" + ind + "}";
}
function short(v, n) {
  var s = v === undefined ? "—" : (typeof v === "string" ? v : JSON.stringify(v));
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}
function pre(text, cls) { return el("pre", cls || "", text); }
function sec(title, body, aside) {
  var s = el("div", "sec"), h = el("h3", "", title);
  if (aside) add(h, " ", el("span", "aside", aside));
  return add(s, h, body);
}
function kv(rows) {
  var t = el("div", "facts");
  rows.forEach(function (r) {
    if (r[1] === undefined || r[1] === null || r[1] === "") return;
    var v = typeof r[1] === "object" ? oneLine(r[1]) : String(r[1]);
    var item = add(el("div", r[2] || ""), el("span", "k", r[0]), el("span", "v mono", v));
    t.appendChild(item);
  });
  return t;
}
function instanceOf(rec) {
  var run = RUNS[rec._run];
  if (run.dataset === null || run.dataset === undefined) return null;
  return DATA.datasets[run.dataset].instances[rec.id] || null;
}
function haystack(k) {
  if (hay[k] === undefined) {
    var r = RECS[k], inst = instanceOf(r);
    hay[k] = (r.id + "\n" + (inst ? inst.question : "") + "\n" + (r.response || "") + "\n" +
      (r.reasoning || "")).toLowerCase();
  }
  return hay[k];
}

/* ---- the URL hash ---- */
function readHash() {
  var p = new URLSearchParams(location.hash.replace(/^#/, ""));
  FACETS.forEach(function (f, i) {
    var picked = p.getAll(f.key).filter(function (v) { return v in f.index; });
    state.f[i] = picked.length ? picked.map(function (v) { return f.index[v]; }) : null;
  });
  state.q = p.get("q") || "";
  var page = parseInt(p.get("page") || "1", 10);
  state.page = isFinite(page) && page > 0 ? page - 1 : 0;
  state.open = {};
  p.getAll("open").forEach(function (id) { state.open[id] = true; });
}
function writeHash() {
  var p = new URLSearchParams();
  FACETS.forEach(function (f, i) {
    (state.f[i] || []).forEach(function (v) { p.append(f.key, f.values[v]); });
  });
  if (state.q) p.set("q", state.q);
  if (state.page) p.set("page", String(state.page + 1));
  Object.keys(state.open).forEach(function (id) { p.append("open", id); });
  var h = p.toString();
  lastHash = h;
  var url = location.href.replace(/#.*$/, "") + (h ? "#" + h : "");
  try { history.replaceState(null, "", url); } catch (err) { location.hash = h; }
}

/* ---- filtering ---- */
function apply() {
  var q = state.q.toLowerCase().trim();
  var nf = FACETS.length;
  var counts = FACETS.map(function (f) { return f.values.map(function () { return 0; }); });
  shown = [];
  for (var k = 0; k < RECS.length; k++) {
    if (q && haystack(k).indexOf(q) < 0) continue;
    var f = RECS[k]._f, fails = 0, failed = -1;
    for (var i = 0; i < nf; i++) {
      var pick = state.f[i];
      if (pick && pick.indexOf(f[i]) < 0) { fails++; failed = i; if (fails > 1) break; }
    }
    if (fails === 0) {
      shown.push(k);
      for (var j = 0; j < nf; j++) if (f[j] >= 0) counts[j][f[j]]++;
    } else if (fails === 1 && f[failed] >= 0) {
      counts[failed][f[failed]]++;
    }
  }
  var pages = Math.max(1, Math.ceil(shown.length / PAGE));
  if (state.page >= pages) state.page = pages - 1;
  updateCounts(counts);
  renderList();
  writeHash();
}

/* ---- the filter bar ---- */
var chipNodes = [], optionNodes = [], selectNodes = [], search, pagerTop, pagerBottom;
function buildFilters() {
  var box = document.getElementById("filters");
  var chips = add(el("div", "chips"), el("span", "lab", "outcome"));
  OUTCOME.values.forEach(function (v, i) {
    var b = el("button", "chip");
    b.type = "button";
    b.setAttribute("data-value", v);
    add(b, el("span", "dot o-" + v), el("span", "", OUTCOME.shown[i]), el("span", "n", "0"));
    b.addEventListener("click", function () {
      var cur = state.f[0] ? state.f[0].slice() : [];
      var at = cur.indexOf(i);
      if (at >= 0) cur.splice(at, 1); else cur.push(i);
      state.f[0] = cur.length ? cur : null;
      state.page = 0;
      apply();
    });
    chipNodes.push(b);
    chips.appendChild(b);
  });
  var row = el("div", "row");
  FACETS.forEach(function (f, i) {
    if (i === 0) { optionNodes.push([]); selectNodes.push(null); return; }
    var s = el("select");
    s.setAttribute("data-facet", f.key);
    var opts = [el("option", "", "all")];
    opts[0].value = "";
    f.values.forEach(function (v, j) {
      var o = el("option", "", f.shown[j]);
      o.value = String(j);
      opts.push(o);
    });
    opts.forEach(function (o) { s.appendChild(o); });
    s.addEventListener("change", function () {
      state.f[i] = s.value === "" ? null : [parseInt(s.value, 10)];
      state.page = 0;
      apply();
    });
    optionNodes.push(opts);
    selectNodes.push(s);
    row.appendChild(add(el("label", "sel"), el("span", "", f.label), s));
  });
  search = el("input");
  search.type = "search";
  search.placeholder = "search id, question, reply";
  var timer = null;
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { state.q = search.value; state.page = 0; apply(); }, 150);
  });
  var clear = el("button", "btn", "clear filters");
  clear.type = "button";
  clear.addEventListener("click", function () {
    state.f = FACETS.map(function () { return null; });
    state.q = ""; state.page = 0; state.open = {};
    apply();
  });
  add(row, search, clear);
  pagerTop = el("div", "pager");
  add(box, chips, row, pagerTop);
  pagerBottom = document.getElementById("pager-bottom");
}
function updateCounts(counts) {
  chipNodes.forEach(function (b, i) {
    var n = counts[0][i];
    b.querySelector(".n").textContent = String(n);
    b.classList.toggle("on", !!(state.f[0] && state.f[0].indexOf(i) >= 0));
    b.classList.toggle("zero", n === 0);
  });
  FACETS.forEach(function (f, i) {
    if (i === 0) return;
    var opts = optionNodes[i], total = 0;
    f.values.forEach(function (v, j) {
      total += counts[i][j];
      opts[j + 1].textContent = f.shown[j] + " (" + counts[i][j] + ")";
    });
    opts[0].textContent = "all (" + total + ")";
    selectNodes[i].value = state.f[i] ? String(state.f[i][0]) : "";
  });
  if (search.value !== state.q) search.value = state.q;
}

/* ---- the list ---- */
function pager(node) {
  node.textContent = "";
  var pages = Math.max(1, Math.ceil(shown.length / PAGE));
  var from = shown.length ? state.page * PAGE + 1 : 0;
  var to = Math.min(shown.length, (state.page + 1) * PAGE);
  var prev = el("button", "btn", "‹ previous"), next = el("button", "btn", "next ›");
  prev.type = next.type = "button";
  prev.disabled = state.page === 0;
  next.disabled = state.page >= pages - 1;
  prev.addEventListener("click", function () { state.page--; apply(); });
  next.addEventListener("click", function () { state.page++; apply(); });
  var openAll = el("button", "btn", "open all"), closeAll = el("button", "btn", "close all");
  openAll.type = closeAll.type = "button";
  openAll.addEventListener("click", function () { state.open = {"*": true}; apply(); });
  closeAll.addEventListener("click", function () { state.open = {}; apply(); });
  var status = el("span", "status",
    "showing " + from + "–" + to + " of " + shown.length +
    (shown.length !== RECS.length ? " (" + RECS.length + " in all)" : "") +
    " · page " + (state.page + 1) + " of " + pages);
  add(node, status, el("span", "grow"), openAll, closeAll, prev, next);
}
function renderList() {
  var list = document.getElementById("list");
  list.textContent = "";
  pager(pagerTop);
  pager(pagerBottom);
  if (!shown.length) {
    list.appendChild(el("div", "empty", "No result matches these filters."));
    return;
  }
  var all = !!state.open["*"];
  shown.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (k) {
    list.appendChild(entry(k, all || !!state.open[RECS[k].id]));
  });
}
function metaLine(rec) {
  var parts = [];
  if (RUNS.length > 1) parts.push(RUNS[rec._run].label);
  else if (rec.mode) parts.push(rec.mode);
  if (rec.category) parts.push(rec.category + (rec.level ? " · L" + rec.level : ""));
  if (rec.task) parts.push([rec.task, rec.form, rec.naming].filter(Boolean).join(" · "));
  if (rec.n !== undefined) parts.push("n=" + rec.n);
  return parts.join("  |  ");
}
function entry(k, open) {
  var rec = RECS[k], inst = instanceOf(rec);
  var box = el("div", "entry");
  box.setAttribute("data-id", rec.id);
  var head = el("button", "head");
  head.type = "button";
  var tw = el("span", "tw", "▸");
  var ref = inst ? short(inst.answer, 40) : "?";
  add(head, tw, el("span", "pill badge o-" + rec.outcome, LABELS[rec.outcome] || rec.outcome),
    el("span", "id mono", rec.id), el("span", "meta", metaLine(rec)),
    el("span", "ans mono", "answer " + short(rec.extracted, 40) + "  ·  reference " + ref));
  box.appendChild(head);
  var body = null;
  function toggle(show) {
    if (show && !body) { body = detail(rec); box.appendChild(body); }
    if (body) body.hidden = !show;
    box.classList.toggle("open", show);
    tw.textContent = show ? "▾" : "▸";
  }
  head.addEventListener("click", function () {
    var show = !box.classList.contains("open");
    toggle(show);
    if (show) state.open[rec.id] = true;
    else { delete state.open[rec.id]; delete state.open["*"]; }
    writeHash();
  });
  if (open) toggle(true);
  return box;
}

/* ---- one entry's details ---- */
var PROGRAM_KEYS = ["language", "program", "program_chars", "exec_outcome", "exec_detail",
  "exec_error", "exec_seconds", "stdout_head", "graph_read", "error_class", "isolation"];
var AGENT_KEYS = ["agent_outcome", "answer_form", "rounds", "budget_tokens", "tool_calls",
  "invalid_calls", "calls", "cut_after_stop", "structure", "s_inv", "trajectory"];
var SEGMENT = /<(think|graph|answer|result)>([\s\S]*?)(?:<\/\1>|$)/gi;
var SEG_LABEL = {think: "thinking", graph: "<graph> call", answer: "<answer>",
  result: "<result>"};

function pretty(text) {
  try { return jsonText(JSON.parse(text)); } catch (err) { return text; }
}
function segments(text) {
  var out = el("div"), last = 0, m;
  SEGMENT.lastIndex = 0;
  function plain(s) { if (s.trim()) out.appendChild(add(el("div", "seg"), pre(s.trim()))); }
  while ((m = SEGMENT.exec(text)) !== null) {
    plain(text.slice(last, m.index));
    var kind = m[1].toLowerCase();
    var body = kind === "graph" ? pretty(m[2].trim()) : m[2].trim();
    out.appendChild(add(el("div", "seg " + kind), el("div", "sl", SEG_LABEL[kind]), pre(body)));
    last = SEGMENT.lastIndex;
    if (m[0].length === 0) SEGMENT.lastIndex++;
  }
  plain(text.slice(last));
  if (!out.childNodes.length) out.appendChild(pre(text === "" ? "(empty)" : text));
  return out;
}
function table(rows) {
  var cols = [];
  rows.forEach(function (r) {
    Object.keys(r || {}).forEach(function (c) { if (cols.indexOf(c) < 0) cols.push(c); });
  });
  var t = el("table", "calls"), tr = el("tr");
  add(tr, el("th", "", "#"));
  cols.forEach(function (c) { tr.appendChild(el("th", "", c)); });
  t.appendChild(tr);
  rows.forEach(function (r, i) {
    var row = add(el("tr"), el("td", "", i + 1));
    cols.forEach(function (c) {
      var v = (r || {})[c];
      row.appendChild(el("td", "mono", v === undefined ? "" : typeof v === "object" ?
        JSON.stringify(v) : String(v)));
    });
    t.appendChild(row);
  });
  return t;
}
function agentSections(x, box) {
  add(box, sec("episode", kv([["episode end", x.agent_outcome], ["answer form", x.answer_form],
    ["rounds", x.rounds], ["tool calls", x.tool_calls], ["invalid calls", x.invalid_calls],
    ["episode tokens", x.budget_tokens], ["cut after stop", x.cut_after_stop],
    ["s_inv", x.s_inv]])));
  var steps = Array.isArray(x.trajectory) ? x.trajectory : [];
  var calls = Array.isArray(x.calls) ? x.calls : [];
  var tools = steps.filter(function (s) { return s && s.role === "tool"; }).length;
  var traj = el("div"), t = 0;
  steps.forEach(function (step, i) {
    step = step || {};
    var role = String(step.role || "?");
    var turn = el("div", "turn " + role);
    var title = role === "assistant" ? "model" : role === "tool" ? "tool result" : role;
    var th = el("div", "th", (i + 1) + " · " + title);
    if (role === "tool" && tools === calls.length && calls[t]) {
      var c = calls[t];
      add(th, " ", el("span", "aside", [c.problem_type, c.kind,
        c.seconds !== undefined ? c.seconds + " s" : null].filter(function (v) {
        return v !== null && v !== undefined; }).join(" · ")));
    }
    if (role === "tool") t++;
    turn.appendChild(th);
    var text = typeof step.text === "string" ? step.text : "";
    turn.appendChild(role === "assistant" ? segments(text) : pre(text === "" ? "(empty)" : text));
    (Array.isArray(step.tool_calls) ? step.tool_calls : []).forEach(function (call) {
      call = call || {};
      var name = "function call " + (call.name || "?") + (call.id ? " (" + call.id + ")" : "");
      var args = call.arguments;
      var seg = add(el("div", "seg graph"), el("div", "sl", name),
        pre(typeof args === "string" ? pretty(args) : jsonText(args)));
      turn.appendChild(seg);
      var restCall = {};
      Object.keys(call).forEach(function (k) {
        if (["name", "id", "arguments"].indexOf(k) < 0) restCall[k] = call[k];
      });
      if (Object.keys(restCall).length) turn.appendChild(pre(jsonText(restCall)));
    });
    var rest = {};
    Object.keys(step).forEach(function (k) {
      if (["role", "text", "tool_calls"].indexOf(k) < 0) rest[k] = step[k];
    });
    if (Object.keys(rest).length) turn.appendChild(pre(jsonText(rest)));
    traj.appendChild(turn);
  });
  if (!steps.length) traj.appendChild(el("div", "muted", "(no turns recorded)"));
  box.appendChild(sec("trajectory", traj, steps.length + " turns"));
  if (calls.length) box.appendChild(sec("tool calls", table(calls)));
  if (x.structure && typeof x.structure === "object") {
    var rows = Object.keys(x.structure).map(function (k) { return [k, x.structure[k]]; });
    box.appendChild(sec("structure recovery", kv(rows)));
  }
}
function programSections(x, box) {
  var lang = x.language || "program";
  var src = typeof x.program === "string" ? x.program : "";
  var cut = typeof x.program_chars === "number" && x.program_chars > src.length ?
    "first " + src.length + " of " + x.program_chars + " characters kept" :
    (typeof x.program_chars === "number" ? x.program_chars + " characters" : "");
  box.appendChild(sec("program · " + lang, pre(src === "" ? "(no program found in the reply)" : src,
    "code"), cut));
  box.appendChild(sec("execution", kv([["outcome", x.exec_outcome], ["failed", x.exec_error],
    ["seconds", x.exec_seconds], ["graph read", x.graph_read], ["error class", x.error_class],
    ["isolation", x.isolation]])));
  var out = typeof x.stdout_head === "string" ? x.stdout_head : "";
  box.appendChild(sec("stdout", pre(out === "" ? "(nothing printed)" : out)));
  if (x.exec_detail) box.appendChild(sec("detail · stderr", pre(x.exec_detail, "err")));
}
function detail(rec) {
  var run = RUNS[rec._run], inst = instanceOf(rec), x = rec.extra || {};
  var box = el("div", "body");
  box.appendChild(kv([["run", RUNS.length > 1 ? run.label : null, "wide"],
    ["outcome", LABELS[rec.outcome] || rec.outcome], ["strict", rec.strict],
    ["lenient", rec.lenient],
    ["lenient (directional)", rec.lenient_directional], ["reason", rec.reason, "wide"]]));
  if (inst) {
    box.appendChild(sec("question", pre(inst.question), inst.view ? "view " + inst.view : ""));
  } else {
    box.appendChild(sec("question", el("p", "note", run.question_note ||
      "the question is not available")));
  }
  var grid = el("div", "grid");
  grid.appendChild(sec("extracted answer", pre(jsonText(rec.extracted === undefined ? null :
    rec.extracted))));
  grid.appendChild(sec("reference answer", inst ? pre(jsonText(inst.answer)) :
    el("div", "muted", "not available")));
  if (inst && "alt_answer" in inst) grid.appendChild(sec("alternative answer",
    pre(jsonText(inst.alt_answer))));
  if (inst && "solution" in inst) grid.appendChild(sec("reference solution",
    pre(jsonText(inst.solution))));
  box.appendChild(grid);
  if (rec.error) box.appendChild(sec("error", pre(rec.error, "err")));
  if (rec.harness_deaths) box.appendChild(sec("harness deaths", kv([["count",
    rec.harness_deaths.count], ["gave up", rec.harness_deaths.gave_up]])));
  var known = [];
  var agent = Array.isArray(x.trajectory);
  var program = !agent && ("program" in x || "exec_outcome" in x);
  if (agent) { agentSections(x, box); known = AGENT_KEYS; }
  if (program) { programSections(x, box); known = PROGRAM_KEYS; }
  if (rec.reasoning) box.appendChild(sec("reasoning", pre(rec.reasoning)));
  var reply = pre(rec.response ? rec.response : "(empty)");
  var finish = rec.finish_reason ? "finish: " + rec.finish_reason : "";
  if (agent || (program && x.program)) {
    var what = agent ? "the whole episode as one text" : "the reply the program was taken from";
    var d = add(el("details", "raw"), el("summary", "", what), reply);
    box.appendChild(sec("reply", d, finish));
  } else {
    box.appendChild(sec("reply", reply, finish));
  }
  var u = rec.usage || {};
  box.appendChild(sec("usage", kv([["prompt tokens", u.prompt_tokens],
    ["completion tokens", u.completion_tokens], ["reasoning tokens", u.reasoning_tokens],
    ["latency (s)", rec.latency_s], ["requests", rec.requests],
    ["finish reason", rec.finish_reason]])));
  box.appendChild(sec("instance", kv([["mode", rec.mode], ["suite", rec.suite],
    ["split", rec.split], ["category", rec.category], ["level", rec.level], ["n", rec.n],
    ["density", rec.density], ["result type", rec.result_type], ["encoding", rec.encoding],
    ["task", rec.task], ["form", rec.form], ["naming", rec.naming], ["scenario", rec.scenario]])));
  var st = rec.settings || run.settings || {};
  box.appendChild(sec("settings", kv(Object.keys(st).map(function (k) { return [k, st[k]]; }))));
  var rest = {}, any = false;
  Object.keys(x).forEach(function (k) {
    if (known.indexOf(k) < 0) { rest[k] = x[k]; any = true; }
  });
  if (any) box.appendChild(sec("other recorded details (extra)", pre(jsonText(rest))));
  return box;
}

buildFilters();
readHash();
apply();
window.addEventListener("hashchange", function () {
  if (location.hash.replace(/^#/, "") === lastHash) return;
  readHash();
  apply();
});
})();
"""
