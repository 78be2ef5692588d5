"""No module-level or global randomness anywhere in the package.

Every random choice must come from a seeded ``numpy.random.Generator`` (see
``closurebench.seeding``). This test scans the source for calls to the global
``random`` module functions and numpy's global random state, and checks at
runtime that importing every module draws nothing from them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import closurebench

SRC = Path(closurebench.__file__).parent
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"

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
    files = sorted(SRC.rglob("*.py")) + sorted(SCRIPTS.rglob("*.py"))
    files += sorted(BENCH.rglob("*.py")) if BENCH.exists() else []
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


_IMPORT_CHECK = """
import ast, importlib, pathlib, pkgutil, random, sys
import numpy as np
import closurebench
src = pathlib.Path(closurebench.__file__).parent
# Third-party and stdlib modules may draw from the global state when first imported
# (rich does); import them first so that only closurebench's own code is measured.
# Only the imports an import of the package runs: those outside function bodies (the
# lazy ones inside functions, torch, trl, ray, ..., are not run by importing closurebench;
# one that is would be measured with it, which can only make this check stricter).
def module_level(tree):
    todo = list(ast.iter_child_nodes(tree))
    while todo:
        node = todo.pop()
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield node
            todo.extend(ast.iter_child_nodes(node))
for f in src.rglob("*.py"):
    for node in module_level(ast.parse(f.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if not name.startswith("closurebench"):
                try:
                    importlib.import_module(name)
                except ImportError:
                    pass
py_state = random.getstate()
np_state = np.random.get_state()
for info in pkgutil.walk_packages(closurebench.__path__, prefix="closurebench."):
    importlib.import_module(info.name)
    after = np.random.get_state()
    if random.getstate() != py_state or not (
        after[0] == np_state[0] and (after[1] == np_state[1]).all() and after[2:] == np_state[2:]
    ):
        print("DREW", info.name)
        sys.exit(1)
print("OK")
"""


def test_importing_every_module_draws_no_global_randomness() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _IMPORT_CHECK], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0 and out.stdout.strip() == "OK", out.stdout + out.stderr
