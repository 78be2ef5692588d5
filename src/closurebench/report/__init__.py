"""Evaluation reports: aggregate run directories into Markdown and self-contained HTML.

Modules: :mod:`~closurebench.report.aggregate` (pure statistics),
:mod:`~closurebench.report.tables` (Markdown tables), :mod:`~closurebench.report.plots`
(matplotlib PNG figures) and :mod:`~closurebench.report.html` (one HTML page). A
headless-Chromium screenshot of the page is the developer script ``scripts/screenshot.py``
of the repository.

Example:
    >>> from closurebench.report import build_report  # doctest: +SKIP
    >>> md_path, html_path = build_report(["runs/gpt-4.1-direct"], out="out")  # doctest: +SKIP
"""

from __future__ import annotations

from closurebench.report.aggregate import ReportError, Run, load_run, load_runs
from closurebench.report.build import build_report

__all__ = ["ReportError", "Run", "build_report", "load_run", "load_runs"]
