"""``closurebench export hf``: loads with ``datasets``, every field round-trips, the card parses."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.generate import hf
from closurebench.generate.io import load_instances, write_jsonl
from closurebench.schema import ClosureInstance, GritInstance, parse_instance
from closurebench.tasks.closure import CLOSURE_TASKS

runner = CliRunner()

#: Tests that need the `hf` extra; the rest run in a core install too.
needs_datasets = pytest.mark.skipif(
    importlib.util.find_spec("datasets") is None, reason="needs the `hf` extra (datasets)"
)

if importlib.util.find_spec("datasets") is not None:
    import datasets


def _export(*args: str) -> Any:
    return runner.invoke(app, ["export", "hf", *args])


def _exact(record: Any) -> str:
    """The record as JSON text with its exact types (``1`` and ``1.0`` differ)."""
    return json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False)


@pytest.fixture(scope="module")
def both(
    closure_data: tuple[Path, list[Any]],
    grit_data: tuple[Path, list[Any]],
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """One export of both suites' files."""
    out = tmp_path_factory.mktemp("hf") / "both"
    res = _export(str(closure_data[0]), str(grit_data[0]), "--out", str(out))
    assert res.exit_code == 0, res.output
    n = len(CLOSURE_TASKS)  # closure_data: one instance of every category
    assert f"wrote {n + 48} records (closure heldout {n}, grit test 48)" in res.output
    return out


@needs_datasets
def test_columns_follow_the_schema_field_for_field() -> None:
    for suite, model in (("closure", ClosureInstance), ("grit", GritInstance)):
        assert [c.field for c in hf.COLUMNS[suite]] == list(model.model_fields), suite
        assert set(hf.features(suite)) == {c.name for c in hf.COLUMNS[suite]}


@needs_datasets
def test_both_suites_load_and_every_record_field_round_trips(
    both: Path,
    closure_data: tuple[Path, list[Any]],
    grit_data: tuple[Path, list[Any]],
    tmp_path: Path,
) -> None:
    for (path, _), suite, split in (
        (closure_data, "closure", "heldout"),
        (grit_data, "grit", "test"),
    ):
        original = load_instances(path)
        loaded = datasets.load_dataset(str(both), suite, cache_dir=str(tmp_path))
        assert list(loaded) == [split]
        ds = loaded[split]
        assert ds.features == hf.features(suite)  # explicit, not inferred
        back = [hf.from_row(row) for row in ds]
        assert back == original
        assert [_exact(r) for r in back] == [_exact(r) for r in original]
        # the typed columns are what the record holds, not text
        assert ds[0]["graph"]["edges"] == [list(e) for e in original[0].graph.edges]
    default = datasets.load_dataset(str(both), cache_dir=str(tmp_path))
    assert list(default) == ["heldout"]  # the first suite is the default config


@needs_datasets
def test_the_json_columns_hold_every_answer_type(both: Path, tmp_path: Path) -> None:
    ds = datasets.load_dataset(str(both), "closure", split="heldout", cache_dir=str(tmp_path))
    kinds = {type(json.loads(a)).__name__ for a in ds["answer_json"]}
    assert kinds >= {"bool", "int", "float", "list", "dict", "str"}
    assert any(g is not None for g in ds["graph2"]) and any(g is None for g in ds["graph2"])
    assert "null" in ds["alt_answer_json"]


@needs_datasets
def test_unusual_records_round_trip(
    closure_data: tuple[Path, list[Any]], grit_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    """Values the generator rarely writes: a pre-0.2.0 record without ``answer_hints``,
    one program only, a float answer, the largest seeds, GRIT aliases and certificates."""
    base = closure_data[1][0].to_json()
    old = {k: v for k, v in base.items() if k != "answer_hints"} | {"version": "0.1.0"}
    one_program = base | {
        "id": "x-1",
        "programs": {"python": "print(1)"},
        "structural_seed": 2**64 - 1,
        "surface_seed": 0,
    }
    floaty = base | {"id": "x-2", "result_type": "float", "answer": 2.5, "answer_ids": 2.5}
    closure = [parse_instance(r) for r in (old, one_program, floaty)]
    grit = [r for r in grit_data[1] if r.aliases][:1] + [
        r for r in grit_data[1] if r.certificate is not None
    ][:1]
    assert len(grit) == 2
    assert "answer_hints" not in closure[0].to_json()
    for record in closure + grit:
        assert hf.from_row(hf.to_row(record)) == record
    data = tmp_path / "data"
    write_jsonl(data, "c.jsonl", closure, lambda sha, name: {"sha": sha})
    write_jsonl(data, "g.jsonl", grit, lambda sha, name: {"sha": sha})
    out = tmp_path / "out"
    res = _export(str(data / "c.jsonl"), str(data / "g.jsonl"), "--out", str(out))
    assert res.exit_code == 0, res.output
    for suite, split, records in (("closure", "heldout", closure), ("grit", "test", grit)):
        ds = datasets.load_dataset(str(out), suite, split=split, cache_dir=str(tmp_path / "c"))
        back = [hf.from_row(row) for row in ds]
        assert [_exact(r) for r in back] == [_exact(r) for r in records]


@needs_datasets
def test_the_card_yaml_header_parses(both: Path) -> None:
    from huggingface_hub import DatasetCard

    card = DatasetCard.load(both / "README.md")  # the Hub's own parser
    meta = card.data.to_dict()
    assert meta["license"] == "cc-by-4.0"
    assert meta["task_categories"] == ["question-answering", "text-generation"]
    configs = {c["config_name"]: c for c in meta["configs"]}
    assert list(configs) == ["closure", "grit"] and configs["closure"]["default"] is True
    for name, config in configs.items():
        for entry in config["data_files"]:
            assert (both / entry["path"]).is_file(), entry
        info = next(i for i in meta["dataset_info"] if i["config_name"] == name)
        assert datasets.Features._from_yaml_list(info["features"]) == hf.features(name)
    text = card.text
    assert "GRAIN: Bridging Name and Narrative Shifts in Real-World Graph Reasoning" in " ".join(
        text.split()
    )
    assert "ClosureBench: A Constructive Benchmark for Compositional Graph Reasoning" in text
    assert "## How every answer is verified" in text and "**GRIT.**" in text
    assert "push_to_hub" in text and "upload_folder" in text
    assert "shared/" not in card.content and "spec/" not in card.content


@needs_datasets
def test_the_same_input_gives_the_same_bytes(
    closure_data: tuple[Path, list[Any]], grit_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    outs = [tmp_path / f"out-{i}" for i in (1, 2)]
    for out in outs:
        res = _export(str(closure_data[0]), str(grit_data[0]), "--out", str(out))
        assert res.exit_code == 0, res.output

    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
        }

    first = files(outs[0])
    assert sorted(first) == [
        "README.md",
        "closure/heldout-00000-of-00001.parquet",
        "grit/test-00000-of-00001.parquet",
    ]
    assert first == files(outs[1])
    for name in first:
        if name.endswith(".parquet"):  # no timestamp anywhere: the schema and features only
            meta = pq.read_metadata(outs[0] / name)
            assert set(meta.metadata) == {b"ARROW:schema", b"huggingface"}


@needs_datasets
def test_an_earlier_export_is_replaced_and_other_folders_refused(
    closure_data: tuple[Path, list[Any]], grit_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    assert _export(str(grit_data[0]), "--out", str(out)).exit_code == 0
    assert _export(str(closure_data[0]), "--out", str(out)).exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "closure"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folder left
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me", encoding="utf-8")
    res = _export(str(closure_data[0]), "--out", str(foreign))
    assert res.exit_code == 1 and "holds other files" in res.output
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


@needs_datasets
@pytest.mark.parametrize(
    ("case", "match"),
    [
        ("twice", "appears twice in the closure heldout split"),
        ("missing", "does not exist"),
        ("no-datasets", "install the `hf` extra"),
    ],
)
def test_bad_input_is_one_line_exit_1(
    closure_data: tuple[Path, list[Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    match: str,
) -> None:
    data = str(closure_data[0])
    args = {
        "twice": [data, data],
        "missing": [str(tmp_path / "nope.jsonl")],
        "no-datasets": [data],
    }[case]
    if case == "no-datasets":
        monkeypatch.setattr(hf, "hf_available", lambda: False)
    out = tmp_path / "out"
    res = _export(*args, "--out", str(out))
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0], res.output
    assert not out.exists()


_CORE = """
import sys
sys.modules["datasets"] = None  # as in an install without the extras
sys.modules["pyarrow"] = None
from closurebench.cli import main
sys.argv = ["closurebench", "export", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("command", ["hf", "lm-eval"])
def test_a_core_install_runs_the_cli_and_names_the_extra(
    closure_data: tuple[Path, list[Any]], tmp_path: Path, command: str
) -> None:
    out = tmp_path / "out"
    args = [str(closure_data[0]), "--out", str(out)]
    run = subprocess.run(
        [sys.executable, "-c", _CORE, command, *args], capture_output=True, text=True, check=False
    )
    assert run.returncode == 1, run.stdout + run.stderr
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    extra = "hf" if command == "hf" else "lm-eval"
    assert len(lines) == 1 and f"install the `{extra}` extra" in lines[0], lines
    assert not out.exists()
