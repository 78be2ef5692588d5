"""``closurebench generate closure --conventions implicit``: the paper's wording, generated.

An implicit split holds the explicit split's instances exactly (ids, structures, labels,
surfaces, answers, alt answers) but for the query sentence of the ambiguous
categories; generation certifies every implicit question through the reader; the
manifest records the choice, and a default split keeps its bytes (no ``conventions``
key in its manifest).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from closurebench import generate_split
from closurebench.cli import app
from closurebench.errors import ConfigError
from closurebench.generate.closure import ClosureConfig, generate_records, manifest
from closurebench.generate.io import load_instances
from closurebench.generate.reword import reword_records
from closurebench.schema import ClosureInstance
from closurebench.surface.closure import read_closure, read_wording
from closurebench.tasks.closure import CLOSURE_TASKS

runner = CliRunner()

AMBIGUOUS = tuple(name for name, t in CLOSURE_TASKS.items() if t.ambiguity is not None)
#: Two instances of every category.
COUNT = 2 * len(CLOSURE_TASKS)
ARGS = ["--split", "heldout", "--seed", "5", "--count", str(COUNT), "--encodings", "nl,json,matrix"]


def _generate(out: Path, *extra: str) -> tuple[list[dict], dict]:
    res = runner.invoke(app, ["generate", "closure", *ARGS, "--out", str(out), *extra])
    assert res.exit_code == 0, res.output
    lines = (out / "closure-heldout.jsonl").read_text(encoding="utf-8").splitlines()
    man = json.loads((out / "closure-heldout.manifest.json").read_text(encoding="utf-8"))
    return [json.loads(line) for line in lines], man


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[dict], dict]]:
    root = tmp_path_factory.mktemp("conventions")
    return {
        "explicit": _generate(root / "explicit"),
        "implicit": _generate(root / "implicit", "--conventions", "implicit"),
    }


def test_implicit_split_differs_only_in_the_ambiguous_queries(
    both: dict[str, tuple[list[dict], dict]],
) -> None:
    explicit, _ = both["explicit"]
    implicit, _ = both["implicit"]
    assert len(explicit) == len(implicit) == COUNT
    changed = 0
    for e, i in zip(explicit, implicit, strict=True):
        differing = sorted(k for k in e if e[k] != i.get(k))
        assert set(e) == set(i), e["id"]
        if e["category"] in AMBIGUOUS:
            assert differing == ["question"], (e["id"], differing)
            *body_e, query_e = e["question"].split("\n\n")
            *body_i, query_i = i["question"].split("\n\n")
            assert body_e == body_i
            assert len(query_i) < len(query_e)
            assert i["alt_answer"] is not None and i["alt_answer"] == e["alt_answer"]
            changed += 1
        else:
            assert differing == [], (e["id"], differing)
    assert changed == 2 * len(AMBIGUOUS)


def test_every_implicit_question_reads_back_implicitly(
    both: dict[str, tuple[list[dict], dict]],
) -> None:
    implicit, _ = both["implicit"]
    for rec in implicit:
        category = rec["category"]
        want = "implicit" if category in AMBIGUOUS else "explicit"
        assert read_wording(rec["question"], category) == want, rec["id"]
        s = read_closure(rec["question"], category)
        assert dict(s.anchors) == rec["anchors"], rec["id"]
        assert [list(e) for e in s.graph.edges] == rec["graph"]["edges"], rec["id"]


def test_the_manifest_records_implicit_and_default_output_has_no_key(
    both: dict[str, tuple[list[dict], dict]],
) -> None:
    _, man_e = both["explicit"]
    _, man_i = both["implicit"]
    assert man_i["arguments"]["conventions"] == "implicit"
    assert "conventions" not in man_e["arguments"]  # default manifests keep their bytes
    rest = {k: v for k, v in man_i["arguments"].items() if k != "conventions"}
    assert rest == man_e["arguments"]
    # the config default is explicit, and an explicit config writes the same manifest
    assert ClosureConfig().conventions == "explicit"
    recs = generate_records(ClosureConfig(count=2, categories=("negative_reach",)))
    same = generate_records(
        ClosureConfig(count=2, categories=("negative_reach",), conventions="explicit")
    )
    assert [r.question for r in recs] == [r.question for r in same]
    assert manifest(ClosureConfig(count=2), recs, "x", "f") == manifest(
        ClosureConfig(count=2, conventions="explicit"), recs, "x", "f"
    )


def test_python_api_generates_implicit(tmp_path: Path) -> None:
    records = generate_split(
        "train", seed=2, count=12, categories=AMBIGUOUS, conventions="implicit", out=tmp_path
    )
    assert len(records) == 12
    assert all(read_wording(r.question, r.category) == "implicit" for r in records)
    loaded = load_instances(tmp_path / "closure-train.jsonl")
    assert [r.question for r in loaded] == [r.question for r in records]


def test_reword_keeps_the_implicit_wording(both: dict[str, tuple[list[dict], dict]]) -> None:
    implicit, _ = both["implicit"]
    old = [ClosureInstance.model_validate(r) for r in implicit[: len(CLOSURE_TASKS)]]
    new = reword_records(old, surface_seed=3)
    for a, b in zip(old, new, strict=True):
        assert a.question != b.question
        assert read_wording(b.question, b.category) == read_wording(a.question, a.category)


def test_a_bad_value_is_a_clear_error(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["generate", "closure", "--out", str(tmp_path), "--conventions", "paper"]
    )
    assert res.exit_code == 1
    assert "--conventions 'paper' is unknown; choose one of explicit, implicit" in res.output
    assert not list(tmp_path.iterdir())
    with pytest.raises(ConfigError, match="conventions 'loose' is unknown; choose one of"):
        ClosureConfig(conventions="loose")
