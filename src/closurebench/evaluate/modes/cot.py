"""Chain-of-thought mode: reason step by step, then give the final answer."""

from __future__ import annotations

from closurebench.evaluate.modes.base import Mode

__all__ = ["CotMode"]


class CotMode(Mode):
    """The paper's chain-of-thought baseline (Appendix F)."""

    name = "cot"
