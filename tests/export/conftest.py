"""Fixtures of the export tests: one small dataset file per suite, made once per module.

* ClosureBench: one ``heldout`` instance of every category (``CLOSURE_TASKS``);
* GRIT: 6 ``test`` graphs (one per task, n 10-12) in all 8 views each, 48 instances.

The wall fixture skips where bubblewrap does not work, unless
``CLOSUREBENCH_REQUIRE_WALL=1`` (CI) turns the skip into a failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from closurebench.generate.closure import ClosureConfig, generate_records
from closurebench.generate.grit import GritConfig
from closurebench.generate.grit import generate_records as grit_records
from closurebench.generate.io import write_jsonl
from closurebench.tasks.closure import CLOSURE_TASKS


@pytest.fixture(scope="session")
def closure_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """A ClosureBench file with one instance of each category, and its records."""
    records = generate_records(ClosureConfig(split="heldout", seed=0, count=len(CLOSURE_TASKS)))
    out = tmp_path_factory.mktemp("closure-data")
    path, _ = write_jsonl(out, "closure-heldout.jsonl", records, lambda sha, name: {"sha": sha})
    return path, records


@pytest.fixture(scope="session")
def grit_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """A GRIT file with one graph per task in its 8 views, and its records."""
    records, _ = grit_records(GritConfig(split="test", seed=4, count=6, n_max=12))
    out = tmp_path_factory.mktemp("grit-data")
    path, _ = write_jsonl(out, "grit-test.jsonl", records, lambda sha, name: {"sha": sha})
    return path, records


@pytest.fixture(params=["closure", "grit"])
def suite_data(
    request: pytest.FixtureRequest,
    closure_data: tuple[Path, list[Any]],
    grit_data: tuple[Path, list[Any]],
) -> tuple[Path, list[Any]]:
    """Each suite's file and records in turn."""
    return closure_data if request.param == "closure" else grit_data
