"""Screenshot a whole report page with headless Chromium (for visual checks and docs).

A developer script of the repository (not part of the installed package). Usage::

    uv run python scripts/screenshot.py REPORT.html OUT.png [--chromium PATH]
        [--width 1280] [--check-width]

Chromium's ``--screenshot`` captures the window only, so the page is rendered twice,
each time with a throw-away profile directory:

1. **measure**: a copy of the page with a one-line script that, once the page has
   loaded (figures included), writes ``document.documentElement.scrollHeight`` into
   a ``data-cb-height`` attribute (and the page's ``scrollWidth``, the document's
   ``clientWidth`` and ``window.innerWidth`` into ``data-cb-scroll-width``,
   ``data-cb-client-width`` and ``data-cb-inner-width``), is loaded with
   ``--dump-dom`` and the numbers read back from the printed DOM
   (:func:`measure_command`, :func:`parse_height`, :func:`parse_page_size`;
   :func:`measure` does both);
2. **capture**: the page itself, with ``--window-size=WIDTH,HEIGHT`` set to that
   height (:func:`chromium_command`), so the PNG holds the full page. Heights above
   :data:`MAX_HEIGHT` are cut to it; when the height cannot be measured the default
   window height is used.

Both runs use ``--headless --no-sandbox --disable-gpu --disable-background-networking
--disable-component-update --disable-sync --no-first-run``. The report is
self-contained, so no network access is needed (and background networking is off).

A page overflows sideways when its ``scrollWidth`` exceeds the document's
``clientWidth`` (:attr:`PageSize.overflows`); ``--check-width`` makes the command
fail (exit 2) when the report does at ``--width``.

Example:
    >>> chromium_command("r.html", "o.png", "/tmp/p")[:3]
    ['/usr/bin/chromium', '--headless', '--no-sandbox']
    >>> parse_height('<html data-cb-height="5120"><body>...</body></html>')
    5120
    >>> parse_height("<html></html>") is None
    True
    >>> size = parse_page_size('<html data-cb-height="900" data-cb-scroll-width="1500" '
    ...                        'data-cb-client-width="1400" data-cb-inner-width="1400">')
    >>> size.height, size.overflows
    (900, True)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CHROMIUM",
    "MAX_HEIGHT",
    "PageSize",
    "chromium_command",
    "measure",
    "measure_command",
    "parse_height",
    "parse_page_size",
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
    "<script>addEventListener('load',function(){var d=document.documentElement;"
    "d.setAttribute('data-cb-scroll-width',String(Math.ceil(d.scrollWidth)));"
    "d.setAttribute('data-cb-client-width',String(d.clientWidth));"
    "d.setAttribute('data-cb-inner-width',String(window.innerWidth));"
    "d.setAttribute('data-cb-height',String(Math.ceil(d.scrollHeight)))});</script>"
)
_HEIGHT = re.compile(r'data-cb-height="(\d+)"')
_WIDTHS = {
    key: re.compile(rf'data-cb-{key}-width="(\d+)"') for key in ("scroll", "client", "inner")
}


@dataclass(frozen=True)
class PageSize:
    """What the measuring run read off the loaded page (CSS pixels; None: not measured).

    Attributes:
        height: ``document.documentElement.scrollHeight``.
        scroll_width: ``document.documentElement.scrollWidth``: the page's full width.
        client_width: ``document.documentElement.clientWidth``: the visible width
            (the window less a vertical scroll bar).
        inner_width: ``window.innerWidth``.
    """

    height: int | None
    scroll_width: int | None
    client_width: int | None
    inner_width: int | None

    @property
    def overflows(self) -> bool | None:
        """Whether the page is wider than its window (None when not measured)."""
        if self.scroll_width is None or self.client_width is None:
            return None
        return self.scroll_width > self.client_width


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


def parse_page_size(dom: str) -> PageSize:
    """Height and widths the probe script wrote into the dumped DOM (None where absent)."""
    found = {key: rx.search(dom) for key, rx in _WIDTHS.items()}
    widths = {key: int(m.group(1)) if m else None for key, m in found.items()}
    return PageSize(parse_height(dom), widths["scroll"], widths["client"], widths["inner"])


def _with_probe(page: str) -> str:
    """The page with the measuring script before ``</body>`` (or at the end)."""
    at = page.lower().rfind("</body>")
    return page + _PROBE if at < 0 else page[:at] + _PROBE + page[at:]


def _run(cmd: list[str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)


def _check_paths(src: Path, chromium: str) -> None:
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such report file")
    if not Path(chromium).exists():
        raise FileNotFoundError(f"{chromium}: Chromium not installed")


def _measure(src: Path, tmp: Path, chromium: str, timeout_s: float, width: int) -> PageSize:
    probe = tmp / "probe.html"
    probe.write_text(_with_probe(src.read_text(encoding="utf-8")), encoding="utf-8")
    measured = _run(measure_command(probe, tmp / "measure", chromium, width), timeout_s)
    return parse_page_size(measured.stdout)


def measure(
    html_path: str | Path,
    chromium: str = CHROMIUM,
    timeout_s: float = 60.0,
    width: int = DEFAULT_SIZE[0],
) -> PageSize:
    """Load ``html_path`` in headless Chromium at ``width`` and read its size back.

    Raises:
        FileNotFoundError: The HTML file or the Chromium binary is missing.
    """
    src = Path(html_path)
    _check_paths(src, chromium)
    with tempfile.TemporaryDirectory(prefix="cb-chromium-") as tmp:
        return _measure(src, Path(tmp), chromium, timeout_s, width)


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
    _check_paths(src, chromium)
    out = Path(png_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cb-chromium-") as tmp:
        height = _measure(src, Path(tmp), chromium, timeout_s, width).height or DEFAULT_SIZE[1]
        size = (width, min(max(height, 1), MAX_HEIGHT))
        proc = _run(chromium_command(src, out, Path(tmp) / "shot", chromium, size), timeout_s)
    if proc.returncode != 0 or not out.is_file():
        raise RuntimeError(f"chromium failed (rc {proc.returncode}): {proc.stderr[-2000:]}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: ``REPORT.html OUT.png [--chromium PATH] [--width W] [--check-width]``.

    Exit status 0; 1 when Chromium is missing or fails; 2 with ``--check-width`` when
    the page is wider than the window (the screenshot is still written).
    """
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("html")
    parser.add_argument("png")
    parser.add_argument("--chromium", default=CHROMIUM)
    parser.add_argument("--width", type=int, default=DEFAULT_SIZE[0])
    parser.add_argument(
        "--check-width", action="store_true", help="exit 2 when the page overflows sideways"
    )
    args = parser.parse_args(argv)
    try:
        print(screenshot(args.html, args.png, args.chromium, width=args.width))
        size = measure(args.html, args.chromium, width=args.width) if args.check_width else None
    except (FileNotFoundError, RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if size is not None and size.overflows is None:
        print("error: the page width could not be measured", file=sys.stderr)
        return 2
    if size is not None and size.overflows:
        print(
            f"error: the page is {size.scroll_width} px wide in a {size.client_width} px "
            f"window (width {args.width})",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
