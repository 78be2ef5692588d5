"""No module-level or global randomness anywhere in the package.

Every random choice must come from a seeded ``numpy.random.Generator`` (see
``closurebench.seeding``). This test scans the source for calls to the global
``random`` module functions and numpy's global random state, and checks at
runtime that importing every module draws nothing from them.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import random
from pathlib import Path

import numpy as np

import closurebench

SRC = Path(closurebench.__file__).parent
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"

# numpy.random attributes that construct explicit, seedable generators (allowed).
_NP_ALLOWED = {"Generator", "PCG64", "SeedSequence", "default_rng", "BitGenerator", "Philox"}
# random-module attributes that construct explicit instances (allowed).
_RANDOM_ALLOWED = {"Random"}


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in {"random", "numpy.random"}:
            for alias in node.names:
                allowed = _RANDOM_ALLOWED if node.module == "random" else _NP_ALLOWED
                if alias.name not in allowed:
                    bad.append(f"{path}:{node.lineno}: from {node.module} import {alias.name}")
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name is None:
                continue
            parts = name.split(".")
            if parts[0] == "random" and len(parts) == 2 and parts[1] not in _RANDOM_ALLOWED:
                bad.append(f"{path}:{node.lineno}: {name}()")
            if (
                len(parts) == 3
                and parts[0] in {"np", "numpy"}
                and parts[1] == "random"
                and parts[2] not in _NP_ALLOWED
            ):
                bad.append(f"{path}:{node.lineno}: {name}()")
            if name in {"np.random.default_rng", "numpy.random.default_rng"} and not (
                node.args or node.keywords
            ):
                bad.append(f"{path}:{node.lineno}: unseeded {name}()")
    return bad


def test_source_has_no_global_random_calls() -> None:
    files = sorted(SRC.rglob("*.py")) + (sorted(BENCH.rglob("*.py")) if BENCH.exists() else [])
    assert files
    bad = [v for f in files for v in _violations(f)]
    assert not bad, "global randomness found:\n" + "\n".join(bad)


def test_the_scanner_catches_violations(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text(
        "import random\nimport numpy as np\nfrom random import shuffle\n"
        "random.choice([1])\nnp.random.rand(3)\nnp.random.default_rng()\n"
        "np.random.default_rng(3)\nrandom.Random(1).random()\n"
    )
    found = _violations(sample)
    assert len(found) == 4, found


def test_importing_every_module_draws_no_global_randomness() -> None:
    py_state = random.getstate()
    np_state = np.random.get_state()
    for info in pkgutil.walk_packages(closurebench.__path__, prefix="closurebench."):
        importlib.import_module(info.name)
    assert random.getstate() == py_state
    after = np.random.get_state()
    assert after[0] == np_state[0] and np.array_equal(after[1], np_state[1])
    assert after[2:] == np_state[2:]
