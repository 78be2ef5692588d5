"""The layers: every subpackage has a rank, imports only downwards, and no two import each other.

Lowest first (``closurebench/structures/__init__.py`` states the same order)::

    errors → seeding, jsonl, idlepool → schema → graphs → ein → structures, sandbox → tasks
    → surface, tools → scoring → generate → dataset, evaluate → report, train
    → cli, generator

Pure layers (``graphs`` .. ``scoring``) do no I/O; effects live at the edge. ``sandbox``
(rank 5: errors, seeding and ein below it) is the exception: it runs processes. ``tools``
(rank 7, the GRAIN graph tool) sits beside ``surface``: ``scoring`` reads the graphs it
parses without importing it (a protocol), ``evaluate`` calls it.
Every import counts, including imports inside functions (lazy ones).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import closurebench

SRC = Path(closurebench.__file__).parent

#: Rank of every top-level module or subpackage of closurebench.
RANKS: dict[str, int] = {
    "errors": 0,
    "seeding": 1,
    "jsonl": 1,
    "idlepool": 1,
    "schema": 2,
    "graphs": 3,
    "ein": 4,
    "structures": 5,
    "sandbox": 5,
    "tasks": 6,
    "surface": 7,
    "tools": 7,
    "scoring": 8,
    "generate": 9,
    "dataset": 10,
    "evaluate": 10,
    "report": 11,
    "train": 11,
    "cli": 12,
    "generator": 12,
    "__main__": 12,
    "__init__": 12,
}


def _unit(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path) -> set[str]:
    """The closurebench units ``path`` imports (absolute or relative, anywhere in the file)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                names = [_unit(path)]  # a relative import stays inside its unit
            elif node.module:
                names = [node.module]
                if node.module == "closurebench":
                    names = [f"closurebench.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "closurebench" and len(parts) > 1:
                out.add(parts[1])
            elif parts[0] != "closurebench" and node.__class__ is ast.ImportFrom and node.level:
                out.add(name)
    return out


def _graph() -> dict[str, dict[str, list[str]]]:
    """unit -> imported unit -> the files that import it."""
    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(SRC.rglob("*.py")):
        unit = _unit(path)
        for dep in _imports(path):
            if dep != unit:
                edges[unit][dep].append(str(path.relative_to(SRC)))
    return edges


def test_every_subpackage_and_module_has_a_rank() -> None:
    units = {_unit(p) for p in SRC.rglob("*.py")}
    missing = sorted(units - set(RANKS))
    assert not missing, f"give these a rank in RANKS (and the docstring): {missing}"


def test_imports_only_go_down() -> None:
    bad = [
        f"{files[0]} ({unit}, rank {RANKS[unit]}) imports {dep} (rank {RANKS.get(dep)})"
        for unit, deps in _graph().items()
        for dep, files in deps.items()
        if dep in RANKS and unit in RANKS and RANKS[dep] > RANKS[unit]
    ]
    assert not bad, "\n".join(bad)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (unit -> units it imports), or ``None``."""
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack, node, nxt]
            if nxt not in state and (cycle := visit(nxt, [*stack, node])):
                return cycle
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start, [])):
            return cycle
    return None


def test_no_import_cycle_between_units() -> None:
    cycle = find_cycle({u: set(d) for u, d in _graph().items()})
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_graph() -> dict[str, set[str]]:
    """module -> the closurebench modules it imports (anywhere in the file).

    ``from a.b import c`` imports ``a.b.c`` when that is a module, else ``a.b``. An
    import of the module's own package (or a package above it) is left out: a package's
    ``__init__`` is its public face, run before any of its modules.
    """
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                targets = [f"{base}.{a.name}" for a in node.names] or [base]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                dep = resolve(target)
                if dep and dep != name and not name.startswith(dep + "."):
                    found.add(dep)
        graph[name] = found
    return graph


def test_no_import_cycle_between_modules() -> None:
    """No two modules import each other, directly or around a loop, lazily or not."""
    cycle = find_cycle(_module_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_module_graph_sees_lazy_imports() -> None:
    graph = _module_graph()
    # lazy (inside a function): the CLI's eval command imports the report builder
    assert "closurebench.report.aggregate" in graph["closurebench.cli.eval"]
    assert "closurebench.report.table" in graph["closurebench.report.grain"]
    assert "closurebench.report.tables" not in graph["closurebench.report.grain"]


def test_the_cycle_check_catches_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


#: Rank of the lower units inside ``evaluate`` (a subpackage or module of it); a ranked
#: unit imports only ranked units below it. The providers know nothing of modes or of
#: the reference models (``evaluate/reference`` sits above the modes and the chance
#: baselines it answers with); the chance baselines ask the mode for its answer form.
#: The units above (cache, requests, runner, ...) are not ranked.
EVALUATE_RANKS: dict[str, int] = {
    "appendlog": 0,
    "options": 1,
    "providers": 2,
    "program": 2,
    "modes": 3,
    "chance": 4,
    "reference": 5,
}


def _evaluate_graph() -> dict[str, dict[str, list[str]]]:
    """evaluate unit -> the evaluate units it imports -> the files that do."""
    root = SRC / "evaluate"

    def unit(path: Path) -> str:
        rel = path.relative_to(root)
        return rel.parts[0] if len(rel.parts) > 1 else rel.stem

    edges: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
                if node.module == "closurebench.evaluate":
                    names = [f"closurebench.evaluate.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                parts = name.split(".")
                inside = parts[:2] == ["closurebench", "evaluate"] and len(parts) > 2
                if inside and parts[2] != unit(path):
                    edges[unit(path)][parts[2]].append(str(path.relative_to(SRC)))
    return edges


def test_evaluate_internals_import_only_down() -> None:
    units = {p.stem for p in (SRC / "evaluate").iterdir() if p.suffix == ".py" or p.is_dir()}
    assert set(EVALUATE_RANKS) <= units, sorted(set(EVALUATE_RANKS) - units)
    bad = [
        f"{files[0]} (evaluate.{unit}, rank {EVALUATE_RANKS[unit]}) imports evaluate.{dep} "
        f"(rank {EVALUATE_RANKS.get(dep, 'none: above every ranked unit')})"
        for unit, deps in _evaluate_graph().items()
        if unit in EVALUATE_RANKS
        for dep, files in deps.items()
        if EVALUATE_RANKS.get(dep, 99) >= EVALUATE_RANKS[unit]
    ]
    assert not bad, "\n".join(bad)
