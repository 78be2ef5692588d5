"""Hugging Face datasets export: typed parquet, one config per suite, and a dataset card.

``closurebench export hf DATA.jsonl... --out DIR`` writes::

    DIR/README.md                                  the dataset card (YAML header + text)
    DIR/closure/<split>-00000-of-00001.parquet     one file per ClosureBench split
    DIR/grit/<split>-00000-of-00001.parquet        one file per GRIT split

``datasets.load_dataset(DIR, "closure")`` (or ``"grit"``) loads a suite with one
``datasets`` split per instance split; ``load_dataset(DIR)`` loads the default config
(the first suite present, ClosureBench before GRIT). The file layout is the one
``Dataset.push_to_hub(..., config_name=suite)`` writes, so a later push of a config
replaces these files rather than adding beside them.

Columns (:data:`COLUMNS`): one per record field, in the schema's field order, typed by
:func:`features` (explicit :class:`datasets.Features`; the same types are stored in every
file's Arrow schema and in the card's ``dataset_info``). Three conventions keep every
column one Arrow type:

* **JSON text** — a field whose JSON type varies from record to record (``answer`` is a
  boolean, a number, a list or an object; the ``JsonValue`` fields) is the column
  ``<field>_json``: compact JSON text, never missing, ``json.loads`` gives the value back
  (``"null"`` is the JSON null). ClosureBench: ``answer_json``, ``answer_ids_json``,
  ``alt_answer_json``; GRIT: ``answer_json``, ``solution_json``, ``certificate_json``,
  ``params_json``.
* **key/value lists** — a mapping with fixed value type and open keys (``anchors``,
  ``aliases``) is a list of ``{"key": string, "value": int64}`` in the record's order.
* **absent as null** — ``programs`` is a struct ``{ein, python}`` whose missing program is
  null; ``answer_hints`` is null only for a record written before 0.2.0 that lacks the
  field. Everything else is typed as the schema types it (seeds ``uint64``, counts and
  node ids ``int64``, ``density`` ``float64``, graphs as structs with edge lists of
  fixed length 2 or 3, ``graph2`` a nullable struct).

:func:`from_row` rebuilds the typed record from a row, validated by the schema, equal to
the record that was written (:func:`to_row` inverts it exactly). Output is deterministic:
the same records give byte-identical parquet (pyarrow writes no timestamp; the footer's
``created_by`` names the pyarrow version) and card.

The codec needs nothing beyond closurebench; writing and :func:`features` need the
``datasets`` package (the ``hf`` extra), imported only when called.

Example:
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> rec = generate_records(ClosureConfig(count=1, categories=("reachability",)))[0]
    >>> row = to_row(rec)
    >>> row["answer_json"] in ("true", "false"), row["anchors"][0]["key"]
    (True, 'X')
    >>> from_row(row) == rec
    True
    >>> split_file("closure", "heldout")
    'closure/heldout-00000-of-00001.parquet'
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from closurebench.errors import ConfigError, DatasetFileError
from closurebench.schema import ClosureInstance, GritInstance, Suite, parse_instance

__all__ = [
    "COLUMNS",
    "HF_HINT",
    "MARKER",
    "Column",
    "HfExport",
    "SplitFile",
    "dataset_card",
    "features",
    "from_row",
    "hf_available",
    "json_text",
    "require_datasets",
    "split_file",
    "swap_in_folder",
    "to_row",
    "write_hf_dataset",
]

AnyInstance = ClosureInstance | GritInstance

#: The one line a missing ``datasets`` package gives.
HF_HINT = (
    "closurebench export hf needs the `datasets` package, which is not installed: install "
    "the `hf` extra (`pip install 'closurebench[hf]'`, or `uv sync --extra hf`) or "
    "`pip install datasets`"
)

#: The comment that opens the card's YAML header: an export folder is recognised by it
#: (an earlier export is replaced; any other non-empty folder is refused).
MARKER = "# written by `closurebench export hf`"

#: Suffix of the JSON-text columns.
JSON_SUFFIX = "_json"

Kind = Literal["plain", "json", "map", "sparse", "optional"]


@dataclass(frozen=True)
class Column:
    """One column of the export: the record field it holds and how.

    Attributes:
        field: The record field (``docs/formats.md``).
        kind: ``plain`` (the value as is, typed), ``json`` (JSON text, column
            ``<field>_json``), ``map`` (a list of ``{key, value}``), ``sparse`` (a struct
            whose missing keys are null) or ``optional`` (null when the record lacks the
            field).
        dtype: The feature, in a small notation :func:`features` reads: a ``datasets``
            dtype (``"string"``), ``"list:<dtype>"``, ``"map:<dtype>"``, ``"edges:<k>"``
            (lists of ``k`` int64), or a struct name (``"closure_graph"``,
            ``"grit_graph"``, ``"programs"``, ``"grit_seed"``).
    """

    field: str
    kind: Kind
    dtype: str

    @property
    def name(self) -> str:
        """The column's name: the field's, with :data:`JSON_SUFFIX` for JSON text."""
        return self.field + JSON_SUFFIX if self.kind == "json" else self.field


def _c(field: str, dtype: str, kind: Kind = "plain") -> Column:
    return Column(field, kind, dtype)


#: The columns of each suite, in the schema's field order (a test keeps them in step).
COLUMNS: dict[str, tuple[Column, ...]] = {
    "closure": (
        _c("id", "string"),
        _c("split", "string"),
        _c("n", "int64"),
        _c("question", "string"),
        _c("answer", "string", "json"),
        _c("version", "string"),
        _c("suite", "string"),
        _c("category", "string"),
        _c("level", "int64"),
        _c("result_type", "string"),
        _c("density", "float64"),
        _c("structural_seed", "uint64"),
        _c("surface_seed", "uint64"),
        _c("label_pool", "string"),
        _c("labels", "list:string"),
        _c("domain", "string"),
        _c("style", "string"),
        _c("encoding", "string"),
        _c("answer_ids", "string", "json"),
        _c("alt_answer", "string", "json"),
        _c("ambiguity", "string"),
        _c("graph", "closure_graph"),
        _c("graph2", "closure_graph"),
        _c("anchors", "map:int64", "map"),
        _c("programs", "programs", "sparse"),
        _c("answer_hints", "bool", "optional"),
    ),
    "grit": (
        _c("id", "string"),
        _c("split", "string"),
        _c("n", "int64"),
        _c("question", "string"),
        _c("answer", "string", "json"),
        _c("version", "string"),
        _c("suite", "string"),
        _c("task", "string"),
        _c("graph_id", "string"),
        _c("view", "string"),
        _c("form", "string"),
        _c("naming", "string"),
        _c("scenario", "string"),
        _c("solution", "string", "json"),
        _c("certificate", "string", "json"),
        _c("graph", "grit_graph"),
        _c("names", "list:string"),
        _c("aliases", "map:int64", "map"),
        _c("params", "string", "json"),
        _c("seed", "grit_seed"),
    ),
}

#: The keys of the ``programs`` struct.
PROGRAM_KEYS: tuple[str, ...] = ("ein", "python")

#: The splits of each suite, in the order the card and the configs list them.
SPLIT_ORDER: dict[str, tuple[str, ...]] = {
    "closure": get_args(ClosureInstance.model_fields["split"].annotation),
    "grit": get_args(GritInstance.model_fields["split"].annotation),
}


def hf_available() -> bool:
    """Whether the ``datasets`` package is importable."""
    return importlib.util.find_spec("datasets") is not None


def require_datasets(hint: str = HF_HINT) -> Any:
    """The ``datasets`` module (typed as ``Any``: an optional extra).

    Raises:
        ConfigError: ``hint``, when the package is not installed.
    """
    if not hf_available():
        raise ConfigError(hint)
    return importlib.import_module("datasets")


def json_text(value: Any) -> str:
    """Compact JSON text of ``value``, keys in their order, exact (what ``*_json`` holds).

    Example:
        >>> json_text({"b": [1, 2.5], "a": None}), json_text(True)
        ('{"b":[1,2.5],"a":null}', 'true')
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _suite(record: AnyInstance) -> str:
    return Suite(record.suite).value


def to_row(record: AnyInstance) -> dict[str, Any]:
    """The export row of ``record`` (see the module docstring for the conventions).

    Args:
        record: A typed instance of either suite.

    Returns:
        ``column -> value``, in :data:`COLUMNS` order.
    """
    obj = record.to_json()
    row: dict[str, Any] = {}
    for col in COLUMNS[_suite(record)]:
        value: Any = obj.get(col.field)
        if col.kind == "json":
            row[col.name] = json_text(value)
        elif col.kind == "map":
            row[col.name] = [{"key": k, "value": v} for k, v in value.items()]
        elif col.kind == "sparse":
            row[col.name] = {k: value.get(k) for k in PROGRAM_KEYS}
        else:
            row[col.name] = value
    return row


def from_row(row: Mapping[str, Any], where: str = "row") -> AnyInstance:
    """Rebuild the typed record from an export row, validated by the schema.

    Args:
        row: One row (``dataset[i]``), as :func:`to_row` wrote it.
        where: Where it came from, for the message.

    Raises:
        DatasetFileError: the row is not an export row of either suite, or what it holds
            is not a valid instance (names ``where`` and the field).
    """
    suite = row.get("suite")
    if suite not in COLUMNS:
        raise DatasetFileError(
            f"{where}: column 'suite' is {suite!r}; expected 'closure' or 'grit' (is this a "
            "`closurebench export hf` dataset?)"
        )
    obj: dict[str, Any] = {}
    for col in COLUMNS[str(suite)]:
        if col.name not in row:
            raise DatasetFileError(
                f"{where}: column {col.name!r} is missing; re-export the dataset with "
                "`closurebench export hf`"
            )
        value = row[col.name]
        if col.kind == "json":
            try:
                obj[col.field] = json.loads(value)
            except (TypeError, ValueError):
                raise DatasetFileError(
                    f"{where}: column {col.name!r} is not JSON text (got {str(value)[:60]!r})"
                ) from None
        elif col.kind == "map":
            obj[col.field] = {e["key"]: e["value"] for e in value or ()}
        elif col.kind == "sparse":
            obj[col.field] = {k: v for k, v in (value or {}).items() if v is not None}
        elif col.kind == "optional":
            if value is not None:
                obj[col.field] = value
        else:
            obj[col.field] = value
    return parse_instance(obj, where)


# --------------------------------------------------------------------------- features


def _feature(datasets: Any, dtype: str) -> Any:
    """The ``datasets`` feature of a :attr:`Column.dtype`."""
    value, lst = datasets.Value, datasets.List
    if dtype.startswith("list:"):
        return lst(value(dtype.removeprefix("list:")))
    if dtype.startswith("map:"):
        return lst({"key": value("string"), "value": value(dtype.removeprefix("map:"))})
    if dtype.startswith("edges:"):
        return lst(lst(value("int64"), length=int(dtype.removeprefix("edges:"))))
    structs: dict[str, dict[str, str]] = {
        "closure_graph": {"directed": "bool", "n": "int64", "edges": "edges:2"},
        "grit_graph": {"directed": "bool", "weighted": "bool", "n": "int64", "edges": "edges:3"},
        "programs": dict.fromkeys(PROGRAM_KEYS, "string"),
        "grit_seed": {"structure": "uint64", "surface": "uint64"},
    }
    if dtype in structs:
        return {k: _feature(datasets, v) for k, v in structs[dtype].items()}
    return value(dtype)


def features(suite: str) -> Any:
    """The explicit :class:`datasets.Features` of one suite's export (needs ``datasets``).

    Raises:
        ConfigError: ``datasets`` is not installed; an unknown suite.
    """
    if suite not in COLUMNS:
        raise ConfigError(f"unknown suite {suite!r}; choose one of: {', '.join(COLUMNS)}")
    datasets = require_datasets()
    return datasets.Features({c.name: _feature(datasets, c.dtype) for c in COLUMNS[suite]})


def _type_text(dtype: str) -> str:
    """How the card names a column's type."""
    if dtype.startswith("list:"):
        return f"list of {dtype.removeprefix('list:')}"
    if dtype.startswith("map:"):
        return f"list of {{key: string, value: {dtype.removeprefix('map:')}}}"
    return {
        "closure_graph": "struct {directed: bool, n: int64, edges: list of [int64 × 2]}",
        "grit_graph": "struct {directed, weighted: bool, n: int64, edges: list of [int64 × 3]}",
        "programs": "struct {ein: string, python: string}",
        "grit_seed": "struct {structure: uint64, surface: uint64}",
    }.get(dtype, dtype)


# --------------------------------------------------------------------------- writing


def split_file(suite: str, split: str) -> str:
    """The parquet file of a split, relative to the export folder (push_to_hub's layout)."""
    return f"{suite}/{split}-00000-of-00001.parquet"


@dataclass(frozen=True)
class SplitFile:
    """One written split.

    Attributes:
        suite: ``closure`` or ``grit``.
        split: The instance split (the ``datasets`` split name).
        rows: How many records it holds.
        path: Its parquet file, relative to the export folder.
        num_bytes: The Arrow table's size in memory (the card's ``num_bytes``).
        file_bytes: The parquet file's size.
    """

    suite: str
    split: str
    rows: int
    path: str
    num_bytes: int
    file_bytes: int


@dataclass(frozen=True)
class HfExport:
    """What :func:`write_hf_dataset` wrote.

    Attributes:
        out: The export folder.
        splits: The written splits, in card order.
    """

    out: Path
    splits: tuple[SplitFile, ...]

    @property
    def rows(self) -> int:
        """Records written in all."""
        return sum(s.rows for s in self.splits)


def _group(records: Iterable[AnyInstance]) -> dict[tuple[str, str], list[AnyInstance]]:
    """Records by ``(suite, split)`` in card order, each in input order; refuses a repeated id."""
    groups: dict[tuple[str, str], list[AnyInstance]] = {}
    seen: dict[tuple[str, str], set[str]] = {}
    for record in records:
        key = (_suite(record), str(record.split))
        ids = seen.setdefault(key, set())
        if record.id in ids:
            raise DatasetFileError(
                f"id {record.id!r} appears twice in the {key[0]} {key[1]} split; pass each "
                "dataset file once (ids must be unique within a split)"
            )
        ids.add(record.id)
        groups.setdefault(key, []).append(record)
    order = {(s, sp): (i, j) for i, s in enumerate(COLUMNS) for j, sp in enumerate(SPLIT_ORDER[s])}
    return {k: groups[k] for k in sorted(groups, key=lambda k: order.get(k, (9, 9)))}


def swap_in_folder(
    out: Path, owned: Callable[[Path], bool], build: Callable[[Path], None], what: str
) -> None:
    """Build a folder beside ``out``, then put it in ``out``'s place.

    ``out`` may be missing, an empty folder, or a folder an earlier export wrote
    (``owned(out)``): that one is replaced whole. Nothing is left half-written: the new
    folder is built under a temporary name in ``out``'s parent and renamed into place.

    Args:
        out: The folder to write.
        owned: Whether an existing, non-empty ``out`` is an earlier export of this kind.
        build: Writes the folder's contents into the path it is given.
        what: The command, for the message (``closurebench export hf``).

    Raises:
        ConfigError: ``out`` is a file, or a non-empty folder that is no earlier export.
    """
    out = out.absolute()
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {str(out)!r} is a file; {what} writes a folder: pass a folder")
    if out.is_dir() and any(out.iterdir()) and not owned(out):
        raise ConfigError(
            f"--out {str(out)!r} holds other files; pass a new or empty folder ({what} "
            "replaces only a folder it wrote before)"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        build(tmp)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            out.rename(old / "x")
            tmp.rename(out)
            shutil.rmtree(old)
        else:
            tmp.rename(out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)


def _owned(out: Path) -> bool:
    card = out / "README.md"
    try:
        return card.read_text(encoding="utf-8").startswith(f"---\n{MARKER}")
    except OSError:
        return False


def _write_table(suite: str, records: Sequence[AnyInstance], path: Path) -> int:
    """Write one split's parquet file; returns the Arrow table's ``nbytes``."""
    pa = importlib.import_module("pyarrow")
    pq = importlib.import_module("pyarrow.parquet")
    schema = features(suite).arrow_schema  # carries the features as "huggingface" metadata
    rows = [to_row(r) for r in records]
    try:
        table = pa.Table.from_pylist(rows, schema=schema)
    except (OverflowError, pa.ArrowException) as exc:
        raise DatasetFileError(
            f"a {suite} record does not fit the export's column types ({exc}); seeds must "
            "lie in 0 .. 2**64-1 and other integers in int64"
        ) from None
    path.parent.mkdir(parents=True, exist_ok=True)
    # explicit writer options: the bytes depend on the table and the pyarrow version only
    pq.write_table(
        table,
        str(path),
        compression="snappy",
        use_dictionary=True,
        write_statistics=True,
        row_group_size=1000,
        version="2.6",
    )
    return int(table.nbytes)


def write_hf_dataset(records: Sequence[AnyInstance], out: str | Path) -> HfExport:
    """Write ``records`` as a Hugging Face dataset folder (parquet per split + card).

    Args:
        records: Typed instances of one or both suites, in order.
        out: The folder (missing, empty, or an earlier export, which is replaced).

    Returns:
        What was written.

    Raises:
        ConfigError: ``datasets`` is not installed; no records; ``out`` is a file or a
            folder holding other files.
        DatasetFileError: an id repeats within a split; a value does not fit its column.
    """
    require_datasets()
    path = Path(out)
    if not records:
        raise ConfigError("no records to export; pass a dataset file that holds some")
    groups = _group(records)
    written: list[SplitFile] = []

    def build(tmp: Path) -> None:
        for (suite, split), recs in groups.items():
            rel = split_file(suite, split)
            nbytes = _write_table(suite, recs, tmp / rel)
            size = (tmp / rel).stat().st_size
            written.append(SplitFile(suite, split, len(recs), rel, nbytes, size))
        card = dataset_card(written, records)
        (tmp / "README.md").write_text(card, encoding="utf-8")

    swap_in_folder(path, _owned, build, "closurebench export hf")
    return HfExport(path, tuple(written))


# --------------------------------------------------------------------------- the card

CLOSUREBENCH_BIBTEX = """\
@misc{goria2026closurebench,
  title         = {ClosureBench: A Constructive Benchmark for Compositional Graph Reasoning},
  author        = {Goria, Stefano},
  year          = {2026},
  eprint        = {2608.18242},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2608.18242}
}"""

GRAIN_BIBTEX = """\
@misc{grain,
  title = {{GRAIN}: Bridging Name and Narrative Shifts in Real-World Graph Reasoning
           through Invariance-Rewarded Agentic {RL}},
  note  = {Introduces the GRIT benchmark}
}"""

_PRETTY = {"closure": "ClosureBench", "grit": "GRIT"}


def _size_category(rows: int) -> str:
    """The Hub's ``size_categories`` tag for ``rows`` records.

    Example:
        >>> _size_category(26), _size_category(2760), _size_category(10**5)
        ('n<1K', '1K<n<10K', '100K<n<1M')
    """
    for limit, tag in ((10**3, "n<1K"), (10**4, "1K<n<10K"), (10**5, "10K<n<100K")):
        if rows < limit:
            return tag
    return "100K<n<1M" if rows < 10**6 else "1M<n<10M"


def _card_yaml(splits: Sequence[SplitFile]) -> str:
    """The card's YAML header (between the ``---`` lines; :data:`MARKER` first)."""
    datasets = require_datasets()
    info_module = importlib.import_module("datasets.info")
    yaml = importlib.import_module("yaml")
    suites = list(dict.fromkeys(s.suite for s in splits))
    configs = []
    infos = []
    for i, suite in enumerate(suites):
        mine = [s for s in splits if s.suite == suite]
        config: dict[str, Any] = {
            "config_name": suite,
            "data_files": [{"split": s.split, "path": s.path} for s in mine],
        }
        if i == 0:
            config["default"] = True
        configs.append(config)
        # the features in the Hub's YAML notation, as `datasets` writes a card itself
        infos_dict = info_module.DatasetInfosDict(
            {suite: datasets.DatasetInfo(features=features(suite))}
        )
        card_data: dict[str, Any] = {}
        infos_dict.to_dataset_card_data(card_data)
        entry: dict[str, Any] = {
            "config_name": suite,
            "features": card_data["dataset_info"]["features"],
        }
        entry["splits"] = [
            {"name": s.split, "num_bytes": s.num_bytes, "num_examples": s.rows} for s in mine
        ]
        entry["download_size"] = sum(s.file_bytes for s in mine)
        entry["dataset_size"] = sum(s.num_bytes for s in mine)
        infos.append(entry)
    meta = {
        "license": "cc-by-4.0",
        "language": ["en"],
        "pretty_name": " and ".join(_PRETTY[s] for s in suites),
        "size_categories": [_size_category(sum(s.rows for s in splits))],
        "task_categories": ["question-answering", "text-generation"],
        "tags": ["graph-reasoning", "reasoning", "benchmark", "synthetic", "closurebench"]
        + (["grit"] if "grit" in suites else []),
        "configs": configs,
        "dataset_info": infos,
    }
    body = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100)
    return f"{MARKER}\n{body}"


def _field_doc(suite: str, field: str) -> str:
    model = ClosureInstance if suite == "closure" else GritInstance
    text = model.model_fields[field].description or ""
    return " ".join(text.split()).replace("``", "`").replace("|", "\\|")


def _columns_table(suite: str) -> list[str]:
    lines = ["| column | type | holds |", "|---|---|---|"]
    for col in COLUMNS[suite]:
        dtype = "string (JSON text)" if col.kind == "json" else _type_text(col.dtype)
        doc = _field_doc(suite, col.field)
        if col.kind == "optional":
            doc += " Null here when absent."
        if col.kind == "sparse":
            doc += " A missing program is null."
        lines.append(f"| `{col.name}` | {dtype} | {doc} |")
    return lines


_VERIFIED = {
    "closure": (
        "**ClosureBench.** Every reference answer is computed, not labelled: the category's "
        "logic runs as a program over the graph. Generation computes each answer three ways "
        "— the exact solver, the Ein tensor-logic program and an independent Python + "
        "NetworkX program (both programs are in `programs`) — and fails loudly unless they "
        "agree; the question is then read back by an independent reader, which must recover "
        "the graph and the query from the text alone. A reply is scored by extracting its "
        'JSON `{"answer": ...}` object and comparing the value with `answer` by its '
        "`result_type` (strict), and, for the categories with an `ambiguity` class, also "
        "under the paper's lenient rule (Algorithm 1: class `count` accepts a count one "
        "away from `answer`, class `set` a set that differs from it by the query's source "
        "node alone: the two source-inclusion conventions; `alt_answer` is the answer "
        "under the other convention). Floats match within 0.01."
    ),
    "grit": (
        "**GRIT.** Each base graph is solved exactly and the answer checked by a second, "
        "independent method; the NP-hard tasks (TSP, vertex cover, colouring) carry a "
        '`certificate` `{"method", "bound", "gap": 0}` proving that `solution` is optimal. '
        "Each of the graph's 8 views (2 forms × 4 naming schemes) is certified by an "
        "independent reader before it is written. A reply's `<answer>` (or `\\boxed{}` / "
        "JSON) is mapped back to node ids through `names` and `aliases`, and judged by the "
        "task: a value is compared with the optimal cost / size / colour count; a path, "
        "tour, cover or colouring is checked for validity *and* optimality by exact "
        "checkers, so any optimal solution counts, not only the stored one; a BFS order "
        "must be the stated one; a centrality answer must name the node."
    ),
}


def dataset_card(splits: Sequence[SplitFile], records: Sequence[AnyInstance]) -> str:
    """The dataset card (``README.md``): YAML header, then what the data is and how to use it.

    Args:
        splits: The written splits, in card order.
        records: The exported records (for the versions that generated them).

    Returns:
        The card's text (deterministic in its arguments).
    """
    from closurebench.tasks.closure import CLOSURE_TASKS

    suites = list(dict.fromkeys(s.suite for s in splits))
    versions = sorted({str(r.version) for r in records})
    title = " and ".join(_PRETTY[s] for s in suites)
    lines = ["---", _card_yaml(splits).rstrip("\n"), "---", "", f"# {title}", ""]
    lines += [
        "Constructive graph-reasoning benchmarks for language models, exported by "
        f"closurebench (instances generated by version {', '.join(versions)}). ClosureBench asks "
        f"{len(CLOSURE_TASKS)} categories of graph-relational questions (reachability, degree, set "
        "operations, connectivity, aggregation) at three compositional levels; GRIT asks "
        "six classic graph tasks (shortest path, TSP, vertex cover, colouring, BFS order, "
        "centrality) of one base graph in 8 views: graph-theory or real-world wording, "
        "under four naming schemes. Every instance is synthetic and machine-generated.",
        "",
        "| config | split | rows | file |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{s.suite}` | `{s.split}` | {s.rows} | `{s.path}` |" for s in splits]
    lines += [
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
    ]
    lines += [f'{s} = load_dataset("PATH_OR_REPO_ID", "{s}")' for s in suites]
    lines += [
        "```",
        "",
        "Each config is one suite; its splits are the instance splits. To score replies with "
        "the benchmark's own scorer, rebuild the typed record of a row (`pip install "
        "closurebench`):",
        "",
        "```python",
        "from closurebench.generate.hf import from_row",
        "from closurebench.evaluate.modes import get_mode, score_text",
        "",
        f"record = from_row({suites[0]}[{splits[0].split!r}][0])  # validated, exact",
        'messages = get_mode("direct").messages(record)  # what `closurebench eval` sends',
        "score = score_text(record, reply_text)          # .strict, .lenient, .outcome",
        "```",
        "",
        "or evaluate with `closurebench eval` on the original JSONL files, or with "
        "lm-evaluation-harness (`closurebench export lm-eval`).",
        "",
        "## Columns",
        "",
        "One column per record field, in the record's order "
        "(the `closurebench schema closure|grit` JSON Schemas). Arrow needs one type per "
        "column, so:",
        "",
        "- a field whose JSON type varies between records (`answer` may be a boolean, a "
        "number, a list or an object) is the column `<field>_json`: compact JSON text, "
        'never null; `json.loads` gives the value back (`"null"` is JSON null);',
        "- a mapping with open keys (`anchors`, `aliases`) is a list of `{key, value}` in "
        "the record's order;",
        "- everything else keeps its type (seeds `uint64`, graphs as structs with edge "
        "lists of fixed length).",
        "",
    ]
    for suite in suites:
        lines += [f"### `{suite}` ({_PRETTY[suite]})", "", *_columns_table(suite), ""]
    lines += ["## How every answer is verified", ""]
    for suite in suites:
        lines += [_VERIFIED[suite], ""]
    lines += [
        "## Uploading to the Hub",
        "",
        "The folder is ready to upload as it is; the card and files stay byte for byte:",
        "",
        "```python",
        "from huggingface_hub import HfApi",
        "",
        'HfApi().upload_folder(repo_id="ORG/NAME", folder_path="DIR", repo_type="dataset")',
        "```",
        "",
        "(the `hf upload ORG/NAME DIR --repo-type dataset` command does the same). `datasets` "
        'can push one config at a time too: `load_dataset("DIR", "closure")'
        '.push_to_hub("ORG/NAME", config_name="closure")` writes the same file layout (and '
        "rewrites the card's `dataset_info`).",
        "",
        "## Licence",
        "",
        "The data is released under CC BY 4.0 (`cc-by-4.0`); the closurebench code that "
        "generates, scores and exports it under the MIT licence.",
        "",
        "## Citation",
        "",
        "ClosureBench is introduced in *ClosureBench: A Constructive Benchmark for "
        "Compositional Graph Reasoning*, GRIT in *GRAIN: Bridging Name and Narrative Shifts "
        "in Real-World Graph Reasoning through Invariance-Rewarded Agentic RL*. Please cite "
        "the papers of the suites you use:",
        "",
        "```bibtex",
        CLOSUREBENCH_BIBTEX,
        "",
        GRAIN_BIBTEX,
        "```",
        "",
    ]
    return "\n".join(lines)
