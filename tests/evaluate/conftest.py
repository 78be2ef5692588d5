"""Fixtures for the evaluation-harness tests (the eval app itself is in ``eval_cli``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, fake_openai_server

import closurebench


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A running fake OpenAI-compatible server; script it with ``fake_openai.script(...)``."""
    yield from fake_openai_server()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """A 30-instance heldout split, generated once per session, and its records."""
    out = tmp_path_factory.getbasetemp() / "closure-heldout-30"
    if not (out / "closure-heldout.jsonl").exists():
        closurebench.generate_split("heldout", seed=0, count=30, out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)
