"""Direct mode: answer immediately as JSON (ClosureBench) or in ``<answer>`` tags (GRIT)."""

from __future__ import annotations

from closurebench.evaluate.modes.base import Mode

__all__ = ["DirectMode"]


class DirectMode(Mode):
    """The paper's direct baseline (Appendix F)."""

    name = "direct"
