"""Build the report files: ``report.md``, ``report.html`` and ``figures/*.png``.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as empty:
    ...     try:
    ...         build_report([empty])
    ...     except ReportError as exc:
    ...         print(str(exc).endswith("results.jsonl: not found; pass a run directory "
    ...                                 "written by the runner"))
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from closurebench.report.aggregate import ReportError, attach_instances, load_runs
from closurebench.report.html import render_html
from closurebench.report.memorisation import probe_sections
from closurebench.report.plots import all_figures
from closurebench.report.tables import all_tables, render_markdown

__all__ = ["ReportError", "build_report"]


def build_report(
    run_dirs: Sequence[str | Path],
    out: str | Path | None = None,
    datasets: Sequence[str | Path] = (),
    probes: Sequence[tuple[str, str | Path]] = (),
) -> tuple[Path, Path]:
    """Load the runs and write the Markdown and HTML reports.

    Args:
        run_dirs: One or more run directories (shown side by side).
        out: Output directory (created); default: the first run directory.
        datasets: Dataset files the runs were made from (optional): joined by id to
            add what older results lack (``split``, ``density``, the directional
            lenient verdict; see :func:`~closurebench.report.aggregate.attach_instances`).
        probes: ``(supervision label, probe folder)`` pairs of ``closurebench
            memorisation`` outputs (optional): the report gains each probe's table and
            Figure 2 and, across them, Table 6 (answer vs program supervision).

    Returns:
        ``(report.md path, report.html path)``. Figures are also written as
        ``figures/<name>.png`` next to ``report.md`` (the HTML embeds them).

    Raises:
        ReportError: A run directory, dataset file or probe folder is missing or malformed.
        ConfigError: A probe label given twice, or a probe that evaluated no model.
    """
    runs = load_runs(run_dirs)
    extra, probe_figures = probe_sections(probes)
    if datasets:
        attach_instances(runs, datasets)
    out_dir = Path(out) if out is not None else runs[0].path
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = {**all_figures(runs), **probe_figures}
    fig_dir = out_dir / "figures"
    if figures:
        fig_dir.mkdir(exist_ok=True)
    rel = []
    for name, png in figures.items():
        (fig_dir / f"{name}.png").write_bytes(png)
        rel.append(f"figures/{name}.png")
    md_path = out_dir / "report.md"
    html_path = out_dir / "report.html"
    own = all_tables(runs)  # once: the Markdown and the HTML show the same tables
    md_path.write_text(render_markdown(runs, rel, extra, tables=own), encoding="utf-8")
    html_path.write_text(render_html(runs, {**own, **extra}, figures), encoding="utf-8")
    return md_path, html_path
