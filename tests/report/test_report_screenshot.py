"""Headless-Chromium screenshot (skipped where /usr/bin/chromium is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest
from screenshot import CHROMIUM, chromium_command, screenshot

from closurebench.report import build_report


def test_command_line_flags(tmp_path: Path) -> None:
    cmd = chromium_command(tmp_path / "r.html", tmp_path / "o.png", tmp_path / "prof")
    assert cmd[0] == "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--window-size=1280,2400"):  # fmt: skip
        assert flag in cmd
    assert f"--user-data-dir={tmp_path / 'prof'}" in cmd
    assert f"--screenshot={(tmp_path / 'o.png').resolve()}" in cmd
    assert cmd[-1] == (tmp_path / "r.html").resolve().as_uri()


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed")
def test_screenshot_report(synthetic_runs, tmp_path: Path) -> None:
    _, html_path = build_report(synthetic_runs, tmp_path / "out")
    png = screenshot(html_path, tmp_path / "shot.png")
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
