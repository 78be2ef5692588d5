"""Pure lower layers never import upper ones (effects stay at the edge)."""

from __future__ import annotations

import ast
from pathlib import Path

import closurebench

SRC = Path(closurebench.__file__).parent

# layer -> packages it must not import
FORBIDDEN = {
    "graphs": {"ein", "tasks", "surface", "generate", "evaluate", "report", "train", "cli"},
    "ein": {"tasks", "surface", "generate", "evaluate", "report", "train", "cli"},
    "seeding.py": {"graphs", "ein", "tasks", "surface", "generate", "evaluate", "cli"},
    "errors.py": {"graphs", "ein", "tasks", "surface", "generate", "evaluate", "cli", "seeding"},
}


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_lower_layers_do_not_import_upper_layers() -> None:
    bad = []
    for layer, banned in FORBIDDEN.items():
        target = SRC / layer
        files = [target] if target.is_file() else sorted(target.rglob("*.py"))
        for f in files:
            for mod in _imports(f):
                parts = mod.split(".")
                if parts[0] == "closurebench" and len(parts) > 1 and parts[1] in banned:
                    bad.append(f"{f.relative_to(SRC)} imports {mod}")
    assert not bad, "\n".join(bad)
