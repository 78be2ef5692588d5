"""Answer extraction from untrusted model text.

The papers ask for a JSON object with an ``"answer"`` field. :func:`extract_answer`
accepts, in order: the whole text as JSON (an object with ``"answer"``, or a bare
JSON value), then the last ``{"answer": ...}`` object embedded in longer text.
It never raises: malformed text is an outcome (``status``), not an exception.

Statuses: ``ok`` (a value was found), ``format_error`` (JSON-like text or an object
without ``"answer"``), ``no_answer`` (nothing answer-like at all: empty, refusal,
truncated reasoning).

Example:
    >>> extract_answer('{"answer": [1, 2]}')
    Extracted(status='ok', value=[1, 2])
    >>> extract_answer('I think... so {"answer": true} is it.').value
    True
    >>> extract_answer('{"answer": [1, 2}').status
    'format_error'
    >>> extract_answer('').status
    'no_answer'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Extracted", "extract_answer"]

_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Extracted:
    """Result of extraction: ``status`` and, when ``ok``, the answer ``value``."""

    status: str
    value: Any = None


def _embedded_objects(text: str) -> list[Any]:
    found = []
    start = text.find("{")
    while start != -1:
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        found.append(obj)
        start = text.find("{", end)
    return found


def extract_answer(text: str | None) -> Extracted:
    """Find the answer value in ``text`` (see the module docstring)."""
    if text is None or not isinstance(text, str) or not text.strip():
        return Extracted("no_answer")
    stripped = text.strip()
    try:
        whole = json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        whole = None
    else:
        if isinstance(whole, dict):
            if "answer" in whole:
                return Extracted("ok", whole["answer"])
            return Extracted("format_error")
        return Extracted("ok", whole)
    try:
        objects = _embedded_objects(stripped)
    except RecursionError:
        return Extracted("format_error")
    with_answer = [o for o in objects if isinstance(o, dict) and "answer" in o]
    if with_answer:
        return Extracted("ok", with_answer[-1]["answer"])
    if objects or "{" in stripped or '"answer"' in stripped:
        return Extracted("format_error")
    return Extracted("no_answer")
