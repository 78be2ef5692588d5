"""``docs/`` is generated from the code and up to date; every relative link resolves."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs import main, render_docs, stale_pages

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# [text](target) — not images' alt text nor code spans (stripped first).
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_HEADING = re.compile(r"^#{1,6}\s+(.*)$", re.MULTILINE)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {_anchor(h) for h in _HEADING.findall(text)}


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_committed_docs_match_the_generator(tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path / "docs")]) == 0
    fresh = {p.name: p.read_text(encoding="utf-8") for p in (tmp_path / "docs").iterdir()}
    committed = {p.name: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    stale = sorted(n for n in fresh if committed.get(n) != fresh[n])
    assert not stale, f"docs/ is out of date ({stale}); run `uv run python scripts/docs.py`"
    extra = sorted(set(committed) - set(fresh))
    assert not extra, f"docs/ holds pages the generator does not make: {extra}"


def test_check_mode_reports_a_stale_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "docs"
    assert main(["--out", str(out)]) == 0
    assert stale_pages(out) == [] and main(["--check", "--out", str(out)]) == 0
    (out / "ein.md").write_text("old\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--check", "--out", str(out)]) == 1
    assert "ein.md is out of date" in capsys.readouterr().out


def test_the_script_runs_as_a_file() -> None:
    """``python scripts/docs.py`` runs as a file (it is no module of the package)."""
    script = ROOT / "scripts" / "docs.py"
    done = subprocess.run(
        [sys.executable, str(script), "--check", "--out", str(DOCS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_pages_come_from_the_registries() -> None:
    from closurebench.ein.builtins import BUILTINS
    from closurebench.tasks.closure import CLOSURE_TASKS
    from closurebench.tasks.grit import GRIT_TASKS

    pages = render_docs()
    for b in BUILTINS.values():
        assert f"### `{' / '.join(b.forms())}`" in pages["ein.md"]
    for name in CLOSURE_TASKS:
        assert f"### {name}\n" in pages["categories.md"]
    for name in GRIT_TASKS:
        assert f"### {name}\n" in pages["categories.md"]
    for field in ("structural_seed", "certificate", "outcome"):
        assert f"| `{field}` |" in pages["formats.md"]


@pytest.mark.parametrize("page", _markdown_files(), ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    text = _CODE.sub("", page.read_text(encoding="utf-8"))
    broken = []
    for target in _LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        if not dest.exists():
            broken.append(f"{target} (no file {dest})")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target} (no heading #{anchor} in {dest.name})")
    assert not broken, f"{page.name}: broken links: {broken}"


def test_the_link_check_catches_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "x.md"
    page.write_text("[a](missing.md) `[b](ignored.md)` [c](#nowhere)\n# Here\n", encoding="utf-8")
    text = _CODE.sub("", page.read_text(encoding="utf-8"))
    assert _LINK.findall(text) == ["missing.md", "#nowhere"]
    assert _anchors(page) == {"here"}


def test_nothing_shipped_cites_files_outside_the_repository() -> None:
    """Code, docs and README stand alone: no ``spec/*.md`` or ``../shared`` reference."""
    pattern = re.compile(r"\bspec/[a-z_]+\.md|\.\./shared\b|\bshared/(?:spec|seeds|external)\b")
    shipped = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    shipped += sorted((ROOT / "src").rglob("*.py")) + sorted((ROOT / "scripts").rglob("*.py"))
    hits = [
        f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
        for p in shipped
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not hits, "\n".join(hits[:20])
