"""Screenshot a report page with headless Chromium (for visual checks and docs).

Usage::

    python -m closurebench.report.screenshot REPORT.html OUT.png [--chromium PATH]

Runs ``/usr/bin/chromium --headless --no-sandbox --disable-gpu
--disable-background-networking --disable-component-update --disable-sync
--no-first-run --user-data-dir=TMP --screenshot=OUT.png --window-size=1280,2400
file://REPORT.html`` with a throw-away profile directory. The report is
self-contained, so no network access is needed (and background networking is off).

Example:
    >>> chromium_command("r.html", "o.png", "/tmp/p")[:3]
    ['/usr/bin/chromium', '--headless', '--no-sandbox']
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["CHROMIUM", "chromium_command", "screenshot"]

CHROMIUM = "/usr/bin/chromium"


def chromium_command(
    html_path: str | Path,
    png_path: str | Path,
    user_data_dir: str | Path,
    chromium: str = CHROMIUM,
    window_size: tuple[int, int] = (1280, 2400),
) -> list[str]:
    """The Chromium argument vector for one screenshot (paths made absolute)."""
    return [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={user_data_dir}",
        f"--screenshot={Path(png_path).resolve()}",
        f"--window-size={window_size[0]},{window_size[1]}",
        Path(html_path).resolve().as_uri(),
    ]


def screenshot(
    html_path: str | Path,
    png_path: str | Path,
    chromium: str = CHROMIUM,
    timeout_s: float = 60.0,
) -> Path:
    """Render ``html_path`` to ``png_path`` with headless Chromium.

    Raises:
        FileNotFoundError: The HTML file or the Chromium binary is missing.
        RuntimeError: Chromium failed or wrote no PNG.
    """
    src = Path(html_path)
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such report file")
    if not Path(chromium).exists():
        raise FileNotFoundError(f"{chromium}: Chromium not installed")
    out = Path(png_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cb-chromium-") as profile:
        proc = subprocess.run(
            chromium_command(src, out, profile, chromium),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"chromium failed (rc {proc.returncode}): {proc.stderr[-2000:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``REPORT.html OUT.png [--chromium PATH]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html")
    parser.add_argument("png")
    parser.add_argument("--chromium", default=CHROMIUM)
    args = parser.parse_args(argv)
    try:
        print(screenshot(args.html, args.png, args.chromium))
    except (FileNotFoundError, RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
