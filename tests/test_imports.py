"""Light entry points: what importing them loads (a deterministic stand-in for import time).

Reward functions run in training workers and the CLI should start at once, so the
heavy libraries load only where they are used. ``benchmarks/bench_imports.py`` measures
the seconds; this test checks the cause, without a clock.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy", "networkx", "matplotlib", "lark", "pydantic", "openai", "torch", "rich")

_PROBE = (
    "import json, sys, importlib; importlib.import_module({m!r}); "
    "print(json.dumps(sorted({{n.split('.')[0] for n in sys.modules}})))"
)


def _loaded(module: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(m=module)],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(out.stdout))


@pytest.mark.parametrize(
    ("module", "allowed"),
    [
        ("closurebench", set()),
        ("closurebench.schema.enums", set()),
        ("closurebench.scoring", set()),
        ("closurebench.dataset", set()),
        ("closurebench.cli", {"rich"}),  # typer's help screens render with rich
    ],
)
def test_entry_points_do_not_load_heavy_libraries(module: str, allowed: set[str]) -> None:
    heavy = (_loaded(module) & set(HEAVY)) - allowed
    assert not heavy, f"import {module} loads {sorted(heavy)}; import them where they are used"


def test_the_probe_sees_a_heavy_import() -> None:
    assert "scipy" in _loaded("closurebench.graphs.closure")
