"""lm-evaluation-harness tasks over the benchmarks, prompted and scored by closurebench.

``closurebench export lm-eval --out DIR [DATA.jsonl...]`` writes a task folder for
`lm-evaluation-harness <https://github.com/EleutherAI/lm-evaluation-harness>`_ (0.4)::

    DIR/utils.py                          the hooks lm-eval calls (they import closurebench)
    DIR/_closurebench_template_yaml       what every task shares (prompt, decoding, metrics)
    DIR/closurebench.yaml                 group: every task below
    DIR/closurebench_<suite>.yaml         group: one suite (closure, grit), all its splits
    DIR/closurebench_<suite>_<split>.yaml group: one split, its categories / tasks
    DIR/closurebench_<suite>_<split>_<stratum>.yaml   one task per category / GRIT task
    DIR/data/                             the instances: a ``closurebench export hf`` folder
    DIR/README.md                         what is here and how to run it

then ``lm_eval --model local-chat-completions --model_args base_url=...,model=M
--apply_chat_template --tasks closurebench_closure --include_path DIR`` evaluates a
model. The data lies beside the YAMLs (``DIR/data``, parquet with a dataset card), and
the tasks find it relative to ``utils.py`` (lm-eval's ``custom_dataset`` hook), so the
folder can move. Without DATA files the export generates the default evaluation splits
(ClosureBench ``heldout`` and GRIT ``test``, seed 0: what ``closurebench generate`` writes
by default).

Nothing about a prompt or a score is written into the folder: ``utils.py`` rebuilds each
row's typed record (:func:`closurebench.generate.hf.from_row`) and calls the evaluation
mode's own :meth:`~closurebench.evaluate.modes.Mode.messages` (the system prompt, via the
task's ``description``, and the user turn, ``doc_to_text``) and
:meth:`~closurebench.evaluate.modes.Mode.score` (``process_results``: ``strict`` and
``lenient``, 1.0 or 0.0 per instance, aggregated as the mean over instances, groups
weighted by size). With ``--apply_chat_template`` a chat model receives exactly the
messages ``closurebench eval --mode direct`` sends, and its reply is read and scored by
the same code. Decoding is the harness's: greedy, no stop sequence, at most
:data:`~closurebench.evaluate.providers.base.DEFAULT_MAX_TOKENS` tokens.

The modes are the single-request ones without a sandbox (:data:`LM_EVAL_MODES`:
``direct``, ``cot``); tasks of a mode other than ``direct`` carry it in their names
(``closurebench_cot_closure``), so two exports can be included side by side.

Example:
    >>> task_name("closure", "heldout", "reachability")
    'closurebench_closure_heldout_reachability'
    >>> task_name("grit", "test", mode="cot")
    'closurebench_cot_grit_test'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from closurebench.errors import ConfigError
from closurebench.generate.hf import (
    HfExport,
    from_row,
    require_datasets,
    swap_in_folder,
    write_hf_dataset,
)
from closurebench.schema import ClosureInstance, GritInstance, Suite

if TYPE_CHECKING:
    from closurebench.evaluate.modes.base import Mode

__all__ = [
    "LM_EVAL_HINT",
    "LM_EVAL_MODES",
    "LmEvalExport",
    "default_records",
    "doc_to_target",
    "doc_to_text",
    "load_docs",
    "process_results",
    "task_name",
    "write_lm_eval_tasks",
]

AnyInstance = ClosureInstance | GritInstance

#: The modes a task can run: one request, the reply scored as it is.
LM_EVAL_MODES: tuple[str, ...] = ("direct", "cot")

#: The one line a missing ``datasets`` package gives (the folder's data is parquet).
LM_EVAL_HINT = (
    "closurebench export lm-eval needs the `datasets` package, which is not installed: "
    "install the `lm-eval` extra (`pip install 'closurebench[lm-eval]'`, or `uv sync "
    "--extra lm-eval`) or `pip install datasets`"
)

#: The first line of ``utils.py``: an export folder is recognised by it.
MARKER = '"""lm-evaluation-harness hooks, written by `closurebench export lm-eval`.'

#: The column that carries each row's system prompt to the task's ``description``.
SYSTEM_COLUMN = "cb_system"

#: The template file (no ``.yaml`` suffix, so lm-eval does not register it as a task).
TEMPLATE = "_closurebench_template_yaml"


def task_name(
    suite: str, split: str | None = None, stratum: str | None = None, *, mode: str = "direct"
) -> str:
    """The lm-eval name of a task (all three parts) or group (fewer).

    ``closurebench[_<mode>]_<suite>[_<split>[_<stratum>]]``; ``direct`` is left out.
    """
    parts = ["closurebench"] + ([] if mode == "direct" else [mode.replace("-", "_")])
    parts += [p for p in (suite, split, stratum) if p]
    return "_".join(parts)


def _top_name(mode: str) -> str:
    return "closurebench" if mode == "direct" else f"closurebench_{mode.replace('-', '_')}"


def _stratum(record: AnyInstance) -> str:
    return str(record.stratum)


@cache
def _mode(name: str) -> Mode:
    from closurebench.evaluate.modes import get_mode

    if name not in LM_EVAL_MODES:
        raise ConfigError(
            f"--mode {name!r} cannot run as an lm-eval task; choose one of: "
            f"{', '.join(LM_EVAL_MODES)} (single-request modes whose reply is scored as it is)"
        )
    return get_mode(name)


# --------------------------------------------------------------------------- runtime hooks


def load_docs(
    data_dir: str | Path,
    mode: str,
    /,
    suite: str,
    split: str,
    stratum: str | None = None,
    **_ignored: Any,
) -> Any:
    """The docs of one task: ``{split: datasets.Dataset}`` (lm-eval's ``custom_dataset``).

    Loads the suite's config of the export in ``data_dir`` with ``datasets.load_dataset``,
    keeps the rows of ``stratum`` (category or GRIT task; all when None) and adds the
    column :data:`SYSTEM_COLUMN`: the mode's system prompt for the row, which the task's
    ``description`` sends as the system message.

    Args:
        data_dir: The ``closurebench export hf`` folder (``DIR/data``).
        mode: The evaluation mode (:data:`LM_EVAL_MODES`).
        suite: ``closure`` or ``grit``.
        split: The instance split.
        stratum: A category (ClosureBench) or task (GRIT), or None for all.
        **_ignored: What else lm-eval passes (its ``metadata``, model arguments).

    Returns:
        A ``datasets.DatasetDict`` with the one split.
    """
    datasets = require_datasets(LM_EVAL_HINT)
    mode_obj = _mode(mode)
    ds = datasets.load_dataset(str(data_dir), suite, split=split)
    key = "category" if suite == Suite.CLOSURE else "task"
    if stratum is not None:
        ds = ds.filter(lambda row: row[key] == stratum, keep_in_memory=True)
    systems = [mode_obj.messages(from_row(row))[0]["content"] for row in ds]
    ds = ds.add_column(SYSTEM_COLUMN, systems)
    return datasets.DatasetDict({split: ds})


def _record(doc: Mapping[str, Any]) -> AnyInstance:
    return from_row(doc, where=f"lm-eval doc {doc.get('id')!r}")


def doc_to_text(doc: Mapping[str, Any], mode: str) -> str:
    """The user turn of ``doc``: the mode's own last message (the question)."""
    return str(_mode(mode).messages(_record(doc))[-1]["content"])


def doc_to_target(doc: Mapping[str, Any], mode: str) -> str:
    """The reference reply in the form the mode asks for (few-shot turns, logs)."""
    from closurebench.evaluate.chance import chance_reply

    record = _record(doc)
    return chance_reply(record, record.answer, mode)


def process_results(doc: Mapping[str, Any], results: Sequence[str], mode: str) -> dict[str, float]:
    """Score the model's reply with the mode's scorer: ``{"strict", "lenient"}`` as 1.0 / 0.0.

    Args:
        doc: The row.
        results: lm-eval's filtered generations for it (the first is the reply).
        mode: The evaluation mode.
    """
    from closurebench.evaluate.providers.base import Completion

    text = str(results[0]) if results else ""
    completion = Completion(
        text=text,
        reasoning=None,
        prompt_tokens=None,
        completion_tokens=None,
        latency_s=0.0,
        finish_reason=None,
    )
    score = _mode(mode).score(_record(doc), completion)
    return {"strict": float(score.strict), "lenient": float(score.lenient)}


# --------------------------------------------------------------------------- the folder

_UTILS = '''{marker}

Generated for closurebench {version}; mode `{mode}`. Every hook defers to closurebench,
so lm-eval prompts and scores exactly as `closurebench eval --mode {mode}` does: install
closurebench in the environment lm-eval runs in (`pip install 'closurebench[lm-eval]'`).
The data is the `closurebench export hf` folder `data/` beside this file.
"""

from pathlib import Path

from closurebench.evaluate import lm_eval_tasks as _cb

MODE = {mode!r}
DATA = Path(__file__).resolve().parent / "data"


def load_docs(**kwargs):
    """lm-eval's custom_dataset: the task's rows (dataset_kwargs: suite, split, stratum)."""
    return _cb.load_docs(DATA, MODE, **kwargs)


def doc_to_text(doc):
    """The user turn: the question, as the mode sends it."""
    return _cb.doc_to_text(doc, MODE)


def doc_to_target(doc):
    """The reference reply in the mode's answer form."""
    return _cb.doc_to_target(doc, MODE)


def process_results(doc, results):
    """closurebench's scorer on the reply: strict and lenient, 1.0 or 0.0."""
    return _cb.process_results(doc, results, MODE)
'''


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _template(mode: str, version: str) -> str:
    from closurebench.evaluate.providers.base import DEFAULT_MAX_TOKENS

    description = _q("{{" + SYSTEM_COLUMN + "}}")  # a Jinja template lm-eval renders per doc
    return f"""\
# written by `closurebench export lm-eval` (closurebench {version}, mode {mode})
# What every closurebench task shares; each task YAML includes this file.
output_type: generate_until
custom_dataset: !function utils.load_docs
doc_to_text: !function utils.doc_to_text
doc_to_target: !function utils.doc_to_target
# the mode's system prompt: utils.load_docs puts it in this column of every row
description: {description}
process_results: !function utils.process_results
generation_kwargs:
  until: []
  do_sample: false
  temperature: 0.0
  max_gen_toks: {DEFAULT_MAX_TOKENS}
metric_list:
  - metric: strict
    aggregation: mean
    higher_is_better: true
  - metric: lenient
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
  closurebench: {_q(version)}
  closurebench_mode: {mode}
"""


def _task_yaml(mode: str, suite: str, split: str, stratum: str) -> str:
    return f"""\
include: {TEMPLATE}
task: {task_name(suite, split, stratum, mode=mode)}
task_alias: {_q(stratum)}
test_split: {_q(split)}
dataset_kwargs:
  suite: {suite}
  split: {_q(split)}
  stratum: {_q(stratum)}
"""


def _group_yaml(name: str, alias: str, members: Sequence[str]) -> str:
    tasks = "".join(f"  - {m}\n" for m in members)
    return f"""\
group: {name}
group_alias: {_q(alias)}
task:
{tasks}aggregate_metric_list:
  - metric: strict
    aggregation: mean
    weight_by_size: true
  - metric: lenient
    aggregation: mean
    weight_by_size: true
metadata:
  version: 1.0
"""


@dataclass(frozen=True)
class LmEvalExport:
    """What :func:`write_lm_eval_tasks` wrote.

    Attributes:
        out: The task folder (``--include_path``).
        mode: The evaluation mode of its tasks.
        tasks: The task names, in file order.
        groups: The group names, top group first.
        data: The data export in ``out/data``.
    """

    out: Path
    mode: str
    tasks: tuple[str, ...]
    groups: tuple[str, ...]
    data: HfExport


def _owned(out: Path) -> bool:
    try:
        return (out / "utils.py").read_text(encoding="utf-8").startswith(MARKER)
    except OSError:
        return False


def _readme(mode: str, version: str, tasks: Mapping[str, Sequence[str]], top: str) -> str:
    lines = [
        "# closurebench tasks for lm-evaluation-harness",
        "",
        f"Written by `closurebench export lm-eval` (closurebench {version}, mode `{mode}`). "
        "The prompts and the scoring are closurebench's own: `utils.py` imports "
        "closurebench, so install it where lm-eval runs (`pip install "
        "'closurebench[lm-eval]'`).",
        "",
        "```bash",
        "lm_eval --model local-chat-completions \\",
        "    --model_args base_url=http://127.0.0.1:8000/v1/chat/completions,model=MODEL \\",
        f"    --apply_chat_template --tasks {top} --include_path THIS_FOLDER",
        "```",
        "",
        "`--apply_chat_template` sends the mode's system prompt as the system message and "
        "the question as the user message, exactly as `closurebench eval` does (without a "
        "chat template lm-eval joins the two into one text). Metrics: `strict` and "
        "`lenient` (the benchmark's two scorings), the mean over instances; groups weight "
        "their members by size. The data is `data/`, a `closurebench export hf` folder.",
        "",
        "| group | tasks |",
        "|---|---|",
    ]
    lines += [f"| `{g}` | {', '.join(f'`{t}`' for t in ts)} |" for g, ts in tasks.items()]
    return "\n".join(lines) + "\n"


def write_lm_eval_tasks(
    records: Sequence[AnyInstance], out: str | Path, *, mode: str = "direct"
) -> LmEvalExport:
    """Write the lm-eval task folder for ``records`` (see the module docstring).

    Args:
        records: Typed instances of one or both suites.
        out: The folder (missing, empty, or an earlier export, which is replaced).
        mode: The evaluation mode whose prompts and scorer the tasks use.

    Returns:
        What was written.

    Raises:
        ConfigError: an unknown or unsupported mode; ``datasets`` not installed; no
            records; ``out`` is a file or a folder holding other files.
        DatasetFileError: as :func:`~closurebench.generate.hf.write_hf_dataset`.
    """
    from closurebench import __version__

    mode_obj = _mode(mode)
    require_datasets(LM_EVAL_HINT)
    if not records:
        raise ConfigError("no records to export; pass a dataset file that holds some")
    mode_obj.check_instances(records)
    path = Path(out)
    version = str(__version__)
    top = _top_name(mode)
    # suite -> split -> strata, in first-seen order (records come in file order)
    layout: dict[str, dict[str, list[str]]] = {}
    for suite in ("closure", "grit"):
        for record in records:
            if Suite(record.suite).value == suite:
                strata = layout.setdefault(suite, {}).setdefault(str(record.split), [])
                if _stratum(record) not in strata:
                    strata.append(_stratum(record))
    files: dict[str, str] = {"utils.py": _UTILS.format(marker=MARKER, version=version, mode=mode)}
    files[TEMPLATE] = _template(mode, version)
    tasks: list[str] = []
    groups: dict[str, list[str]] = {top: []}
    for suite, splits in layout.items():
        suite_group = task_name(suite, mode=mode)
        groups[top].append(suite_group)
        groups[suite_group] = []
        for split, strata in splits.items():
            split_group = task_name(suite, split, mode=mode)
            groups[suite_group].append(split_group)
            groups[split_group] = []
            for stratum in sorted(strata):
                name = task_name(suite, split, stratum, mode=mode)
                files[f"{name}.yaml"] = _task_yaml(mode, suite, split, stratum)
                groups[split_group].append(name)
                tasks.append(name)
    aliases = {top: top}
    for suite, splits in layout.items():
        aliases[task_name(suite, mode=mode)] = suite
        for split in splits:
            aliases[task_name(suite, split, mode=mode)] = f"{suite} {split}"
    for group, members in groups.items():
        files[f"{group}.yaml"] = _group_yaml(group, aliases[group], members)
    files["README.md"] = _readme(mode, version, groups, task_name(next(iter(layout)), mode=mode))
    written: list[HfExport] = []

    def build(tmp: Path) -> None:
        written.append(write_hf_dataset(records, tmp / "data"))
        for name, text in files.items():
            (tmp / name).write_text(text, encoding="utf-8")

    swap_in_folder(path, _owned, build, "closurebench export lm-eval")
    data = written[0]
    return LmEvalExport(
        path, mode, tuple(tasks), tuple(groups), HfExport(path / "data", data.splits)
    )


def default_records(progress: Callable[[str], None] | None = None) -> list[AnyInstance]:
    """The default evaluation splits: ClosureBench ``heldout`` and GRIT ``test``, seed 0.

    What ``closurebench generate closure`` and ``closurebench generate grit`` write with
    their defaults (GRIT's exact solves take some seconds; a solver past its time limit
    resamples a graph, as the generator's manifest would record).
    """
    from closurebench.generate.closure import ClosureConfig
    from closurebench.generate.closure import generate_records as closure_records
    from closurebench.generate.grit import GritConfig
    from closurebench.generate.grit import generate_records as grit_records

    if progress is not None:
        progress("generating ClosureBench heldout (seed 0)")
    records: list[AnyInstance] = list(closure_records(ClosureConfig(split="heldout", seed=0)))
    if progress is not None:
        progress("generating GRIT test (seed 0)")
    grit, _ = grit_records(GritConfig(split="test", seed=0))
    return records + list(grit)
