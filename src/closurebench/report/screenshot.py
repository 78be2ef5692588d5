"""Screenshot a whole report page with headless Chromium (for visual checks and docs).

Usage::

    python -m closurebench.report.screenshot REPORT.html OUT.png [--chromium PATH]
        [--width 1280]

Chromium's ``--screenshot`` captures the window only, so the page is rendered twice,
each time with a throw-away profile directory:

1. **measure**: a copy of the page with a one-line script that, once the page has
   loaded (figures included), writes ``document.documentElement.scrollHeight`` into
   a ``data-cb-height`` attribute, is loaded with ``--dump-dom`` and the height read
   back from the printed DOM (:func:`measure_command`, :func:`parse_height`);
2. **capture**: the page itself, with ``--window-size=WIDTH,HEIGHT`` set to that
   height (:func:`chromium_command`), so the PNG holds the full page. Heights above
   :data:`MAX_HEIGHT` are cut to it; when the height cannot be measured the default
   window height is used.

Both runs use ``--headless --no-sandbox --disable-gpu --disable-background-networking
--disable-component-update --disable-sync --no-first-run``. The report is
self-contained, so no network access is needed (and background networking is off).

Example:
    >>> chromium_command("r.html", "o.png", "/tmp/p")[:3]
    ['/usr/bin/chromium', '--headless', '--no-sandbox']
    >>> parse_height('<html data-cb-height="5120"><body>...</body></html>')
    5120
    >>> parse_height("<html></html>") is None
    True
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = [
    "CHROMIUM",
    "MAX_HEIGHT",
    "chromium_command",
    "measure_command",
    "parse_height",
    "screenshot",
]

CHROMIUM = "/usr/bin/chromium"
#: Tallest screenshot taken, in CSS pixels (a longer page is cut here).
MAX_HEIGHT = 30000
DEFAULT_SIZE = (1280, 2400)

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
_PROBE = (
    "<script>addEventListener('load',function(){document.documentElement.setAttribute("
    "'data-cb-height',String(Math.ceil(document.documentElement.scrollHeight)))});</script>"
)
_HEIGHT = re.compile(r'data-cb-height="(\d+)"')


def chromium_command(
    html_path: str | Path,
    png_path: str | Path,
    user_data_dir: str | Path,
    chromium: str = CHROMIUM,
    window_size: tuple[int, int] = DEFAULT_SIZE,
) -> list[str]:
    """The Chromium argument vector for one screenshot (paths made absolute)."""
    return [
        chromium,
        *_FLAGS,
        f"--user-data-dir={user_data_dir}",
        f"--screenshot={Path(png_path).resolve()}",
        f"--window-size={window_size[0]},{window_size[1]}",
        Path(html_path).resolve().as_uri(),
    ]


def measure_command(
    probe_path: str | Path,
    user_data_dir: str | Path,
    chromium: str = CHROMIUM,
    width: int = DEFAULT_SIZE[0],
) -> list[str]:
    """The Chromium argument vector that prints the probed page's DOM (with its height).

    Example:
        >>> measure_command("p.html", "/tmp/p")[-3:-1]
        ['--dump-dom', '--window-size=1280,800']
    """
    return [
        chromium,
        *_FLAGS,
        f"--user-data-dir={user_data_dir}",
        "--virtual-time-budget=10000",
        "--dump-dom",
        f"--window-size={width},800",
        Path(probe_path).resolve().as_uri(),
    ]


def parse_height(dom: str) -> int | None:
    """The page height the probe script wrote into the dumped DOM, or None."""
    m = _HEIGHT.search(dom)
    return int(m.group(1)) if m else None


def _with_probe(page: str) -> str:
    """The page with the measuring script before ``</body>`` (or at the end)."""
    at = page.lower().rfind("</body>")
    return page + _PROBE if at < 0 else page[:at] + _PROBE + page[at:]


def _run(cmd: list[str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)


def screenshot(
    html_path: str | Path,
    png_path: str | Path,
    chromium: str = CHROMIUM,
    timeout_s: float = 60.0,
    width: int = DEFAULT_SIZE[0],
) -> Path:
    """Render the whole page ``html_path`` to ``png_path`` with headless Chromium.

    Args:
        html_path: A self-contained HTML page (a report).
        png_path: The PNG to write.
        chromium: The Chromium binary.
        timeout_s: Limit of each Chromium run.
        width: Window width in CSS pixels.

    Returns:
        ``png_path``.

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
    with tempfile.TemporaryDirectory(prefix="cb-chromium-") as tmp:
        probe = Path(tmp) / "probe.html"
        probe.write_text(_with_probe(src.read_text(encoding="utf-8")), encoding="utf-8")
        measured = _run(measure_command(probe, Path(tmp) / "measure", chromium, width), timeout_s)
        height = parse_height(measured.stdout) or DEFAULT_SIZE[1]
        size = (width, min(max(height, 1), MAX_HEIGHT))
        proc = _run(chromium_command(src, out, Path(tmp) / "shot", chromium, size), timeout_s)
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"chromium failed (rc {proc.returncode}): {proc.stderr[-2000:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``REPORT.html OUT.png [--chromium PATH] [--width W]``."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("html")
    parser.add_argument("png")
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--width", type=int, default=DEFAULT_SIZE[0])
    args = parser.parse_args(argv)
    try:
        print(screenshot(args.html, args.png, args.chromium, width=args.width))
    except (FileNotFoundError, RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
