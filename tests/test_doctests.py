"""Run the docstring examples of every module in the package and of the ``scripts/``."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import tempfile
from pathlib import Path

import pytest

import closurebench

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(closurebench.__path__, prefix="closurebench.")
    if not info.name.endswith("__main__")
)
#: The developer scripts, importable by name (the root conftest puts ``scripts/`` on the path).
SCRIPTS = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "scripts").glob("*.py"))


@pytest.mark.parametrize("name", MODULES + SCRIPTS)
def test_docstring_examples(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Examples that write files (tempfile.mkdtemp(), relative paths) write under tmp_path.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest failure(s) in {name}"
