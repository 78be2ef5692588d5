"""Fixtures for the evaluation-harness tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_openai_server import FakeOpenAIServer, fake_openai_server


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A running fake OpenAI-compatible server; script it with ``fake_openai.script(...)``."""
    yield from fake_openai_server()
