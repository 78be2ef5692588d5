"""The viewer page in headless Chromium: its script builds the entries, filters and escapes.

Skipped where ``/usr/bin/chromium`` is absent (CI). Each check loads the page with
``--dump-dom`` after its script ran, with a URL hash that sets the filters (``open=*``
opens every entry of the page).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from screenshot import CHROMIUM, chromium_command, measure_command
from view_helpers import Runs, shared_runs, viewer

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed")

View = Callable[..., tuple[Path, str]]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every mode's run, made once per session."""
    return shared_runs(tmp_path_factory)


@pytest.fixture
def view(tmp_path: Path) -> View:
    """``closurebench view`` through the CLI: ``view(run_dir, ...) -> (path, page)``."""
    return viewer(tmp_path)


MODES = ("direct", "cot", "program-python", "program-ein", "agent", "agent-tools")


def _dom(page: Path, fragment: str, profile: Path) -> str:
    """The DOM of ``page#fragment`` once its script ran."""
    cmd = measure_command(page, profile)
    cmd[-1] = f"{cmd[-1]}#{fragment}"
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0 and "</html>" in out.stdout, out.stderr[-2000:]
    return out.stdout


def _entries(dom: str) -> list[str]:
    return re.findall(r'<div class="entry[^"]*" data-id="([^"]+)"', dom)


def test_every_mode_renders_its_entries(runs: Runs, view: View, tmp_path: Path) -> None:
    page, _ = view(*(runs.dirs[m] for m in MODES))
    dom = _dom(page, "open=*", tmp_path / "profile")
    total = sum(len(runs.records(m)) for m in MODES)
    assert len(_entries(dom)) == total
    assert dom.count('class="entry open"') == total
    assert f"showing 1–{total} of {total}" in dom
    strict = sum(1 for m in MODES for r in runs.records(m) if r.outcome == "strict_correct")
    chip = re.search(r'data-value="strict_correct">.*?<span class="n">(\d+)</span>', dom)
    assert chip and int(chip.group(1)) == strict
    for mode in ("program-python", "program-ein"):
        for rec in runs.records(mode):
            assert str(rec.extra["stdout_head"]).strip().splitlines()[0] in dom
    assert "program · python" in dom and "program · ein" in dom
    # agents: turns, the <graph> call, tool results, the function call, structure recovery
    tool_calls = [r.extra["tool_calls"] for m in ("agent", "agent-tools") for r in runs.records(m)]
    counts = [n for n in tool_calls if isinstance(n, int)]
    assert len(counts) == len(tool_calls)
    assert dom.count('class="turn tool"') == sum(counts)
    assert "&lt;graph&gt; call" in dom and "function call graph_tool" in dom
    assert "Shortest path algorithm" in dom and "structure recovery" in dom
    # the question and both answers of an entry
    rec = runs.records("direct")[0]
    question = runs.instances("direct")[rec.id].question.splitlines()[0]
    assert question.replace("&", "&amp;") in dom
    assert "extracted answer" in dom and "reference answer" in dom


def test_the_hash_filters(runs: Runs, view: View, tmp_path: Path) -> None:
    page, _ = view(runs.dirs["direct"], runs.dirs["evil"])
    dom = _dom(page, "outcome=format_error&outcome=error", tmp_path / "profile")
    want = [str(r.id) for r in runs.records("evil") if r.outcome in ("format_error", "error")]
    want += [str(r.id) for r in runs.records("direct") if r.outcome in ("format_error", "error")]
    assert sorted(_entries(dom)) == sorted(want)
    assert '<button class="chip on" type="button" data-value="error">' in dom
    dom = _dom(page, "q=" + runs.records("evil")[0].id, tmp_path / "profile")
    assert len(_entries(dom)) == 2  # the same id in both runs


def test_model_markup_stays_text(runs: Runs, view: View, tmp_path: Path) -> None:
    page, _ = view(runs.dirs["evil"], runs.dirs["handmade"], "--data", runs.closure)
    dom = _dom(page, "open=*", tmp_path / "profile")
    assert "<title>closurebench view</title>" in dom  # no injected script ran
    title = re.search(r"<title>.*?</title>", dom)
    assert title and "pwned" not in title.group(0)
    assert "<img" not in dom and "<b>bold" not in dom
    assert "&lt;/script&gt;&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom
    assert "&lt;img src=x onerror=" in dom
    # what only the typed records hold: reasoning, harness deaths, an unknown extra key
    assert "First I count… then I recount." in dom and "harness deaths" in dom
    assert "other recorded details (extra)" in dom and "custom_probe" in dom
    assert "this id is not in" in dom  # the result whose id the dataset lacks


def test_a_screenshot(runs: Runs, view: View, tmp_path: Path) -> None:
    page, _ = view(runs.dirs["agent"])
    png = tmp_path / "shot.png"
    cmd = chromium_command(page, png, tmp_path / "profile", window_size=(1280, 1600))
    cmd[-1] += "#open=*"
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
