"""Surface realisation: turning graph structures into question text and reading it back.

GRIT's text surface lives in :mod:`closurebench.surface.grit`.
"""

from closurebench.surface import grit

__all__ = ["grit"]
