"""Fixtures of the memorisation-probe tests: a small seen file and a scripted model's script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memorisation_helpers import CATEGORIES, WRONG

import closurebench
from closurebench.schema import ClosureInstance


@pytest.fixture(scope="session")
def seen_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An 8-instance ClosureBench train file (2 per category of :data:`CATEGORIES`)."""
    out = tmp_path_factory.mktemp("seen")
    closurebench.generate_split("train", seed=0, count=8, categories=list(CATEGORIES), out=out)
    return out / "closure-train.jsonl"


@pytest.fixture(scope="session")
def seen_records(seen_file: Path) -> list[ClosureInstance]:
    """The typed records of :func:`seen_file`."""
    records = closurebench.load_instances(seen_file)
    assert all(isinstance(r, ClosureInstance) for r in records)
    return [r for r in records if isinstance(r, ClosureInstance)]


@pytest.fixture
def script_file(tmp_path: Path, seen_records: list[ClosureInstance]) -> Path:
    """A ``--script`` file for ``--provider scripted`` that memorised the seen file.

    The key ``"?"`` (in every question) answers the questions it did not memorise; a
    seen question, the longer key, wins for its own prompt.
    """
    script = {r.question: json.dumps({"answer": r.answer}) for r in seen_records}
    script["?"] = WRONG
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script), encoding="utf-8")
    return path
