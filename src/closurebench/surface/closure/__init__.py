"""ClosureBench question surface: labels, domain frames, question text and a reader.

- :mod:`~closurebench.surface.closure.labels` — the four label pools;
- :mod:`~closurebench.surface.closure.frames` — the 16 domain frames;
- :mod:`~closurebench.surface.closure.questions` — frame vocabulary and answer forms that
  fill each category task's query template;
- :mod:`~closurebench.surface.closure.render` — :func:`render_closure`;
- :mod:`~closurebench.surface.closure.reader` — :func:`read_closure`, :func:`read_wording`,
  :func:`certify`.
"""

from closurebench.surface.closure.frames import FRAMES, general_frames, kinship_frames
from closurebench.surface.closure.labels import LABEL_POOLS, labels_for
from closurebench.surface.closure.reader import (
    ReadError,
    RoundTripError,
    certify,
    read_closure,
    read_wording,
)
from closurebench.surface.closure.render import (
    ENCODINGS,
    STYLES,
    RenderedClosure,
    render_closure,
)

__all__ = [
    "ENCODINGS",
    "FRAMES",
    "LABEL_POOLS",
    "STYLES",
    "ReadError",
    "RenderedClosure",
    "RoundTripError",
    "certify",
    "general_frames",
    "kinship_frames",
    "labels_for",
    "read_closure",
    "read_wording",
    "render_closure",
]
