"""A full report with every figure kind, rendered in headless Chromium at 1,400 px.

The page must not get wider than the window (wide tables scroll in their own box) and
the screenshot must have the window's width. Skipped where Chromium is not installed
(CI).
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from figure_inputs import crowded_probe, crowded_runs
from report_fixtures import write_run
from screenshot import CHROMIUM, PageSize, measure, screenshot

from closurebench.report import build_report
from closurebench.report.memorisation import write_probe

WIDTH = 1400


def _chromium() -> str:
    found = shutil.which("chromium")
    if found:
        return found
    if Path(CHROMIUM).exists():
        return CHROMIUM
    pytest.skip("chromium not installed")


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def report_html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of 6 crowded runs (long labels, 21 graph sizes) and a memorisation probe."""
    root = tmp_path_factory.mktemp("chromium-report")
    runs = crowded_runs(6)
    dirs = [
        write_run(
            root / "runs",
            f"run{i}",
            [x.model_dump(mode="json", exclude={"self_corrections"}) for x in r.records],
        )
        for i, r in enumerate(runs)
    ]
    write_probe(root / "probe", crowded_probe())
    _, html = build_report(dirs, root / "out", probes=[("answer", root / "probe")])
    names = sorted(p.stem for p in (root / "out" / "figures").iterdir())
    assert names == ["accuracy_by_level", "accuracy_vs_n", "accuracy_vs_tokens",
                     "grit_naming_form", "memorisation-answer"]  # fmt: skip
    return html


def test_the_page_is_no_wider_than_the_window(report_html: Path) -> None:
    chromium = _chromium()
    size = measure(report_html, chromium, width=WIDTH)
    assert size.scroll_width is not None and size.client_width is not None, size
    assert size.inner_width == WIDTH
    assert size.overflows is False, size
    assert size.scroll_width <= WIDTH
    assert size.height is not None and size.height > 3000  # figures and tables loaded


def test_the_screenshot_has_the_page_width(report_html: Path, tmp_path: Path) -> None:
    chromium = _chromium()
    png = screenshot(report_html, tmp_path / "report.png", chromium, width=WIDTH)
    width, height = _png_size(png)
    assert width == WIDTH
    assert height > 3000


def test_a_wide_table_would_have_overflowed(report_html: Path, tmp_path: Path) -> None:
    """The measurement sees an overflow: the same page with the table boxes unwrapped."""
    chromium = _chromium()
    page = report_html.read_text(encoding="utf-8").replace("overflow-x:auto", "overflow-x:visible")
    unwrapped = tmp_path / "unwrapped.html"
    unwrapped.write_text(page, encoding="utf-8")
    size = measure(unwrapped, chromium, width=WIDTH)
    assert isinstance(size, PageSize) and size.overflows is True, size
