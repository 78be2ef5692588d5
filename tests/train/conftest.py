"""Fixtures for tests of the optional ``train`` extra (torch, transformers).

These tests skip when the extra is not installed, except where the environment
variable ``CLOSUREBENCH_REQUIRE_TRAIN=1`` is set (``.ci/run`` sets it after installing
the extra): there a missing extra fails the run instead of skipping silently.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator

import pytest

# The loopback OpenAI-compatible server lives with the harness tests.
_EVALUATE_TESTS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "evaluate")
if _EVALUATE_TESTS not in sys.path:
    sys.path.insert(0, _EVALUATE_TESTS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test in this folder ``train``; skip or fail them without the extra."""
    here = os.path.dirname(__file__)
    mine = [item for item in items if str(item.fspath).startswith(here)]
    if not mine:
        return
    missing = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
    for item in mine:
        item.add_marker(pytest.mark.train)
    if not missing:
        return
    if os.environ.get("CLOSUREBENCH_REQUIRE_TRAIN") == "1":
        raise pytest.UsageError(
            f"CLOSUREBENCH_REQUIRE_TRAIN=1 but the train extra is missing ({', '.join(missing)}); "
            "install it (see .ci/run) or unset the variable"
        )
    skip = pytest.mark.skip(reason=f"train extra not installed ({', '.join(missing)})")
    for item in mine:
        item.add_marker(skip)


@pytest.fixture(scope="module")
def one_torch_thread_module() -> Iterator[None]:
    """Run torch on one thread for a module (restored after it), its fixtures included.

    The modules that build a tiny model ask for it with
    ``pytestmark = pytest.mark.usefixtures("one_torch_thread_module")``; the others
    (the tool-schema tests) never import torch.

    The models here are tiny: a pool of threads per op costs more CPU than it saves
    (its threads spin between the many small ops; on a shared 2-core machine that was
    most of these tests' CPU time).
    """
    if importlib.util.find_spec("torch") is None:
        yield
        return
    from tiny_model import one_torch_thread

    with one_torch_thread():
        yield


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every train test is offline: a hub id is looked up in the cache only."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
