"""``closurebench quickstart``: the offline main job."""

from __future__ import annotations


def quickstart() -> None:
    """Run the offline quickstart."""
