"""The program in a model reply, and the answer in a program's printed output.

A reply's program is its last fenced code block (```` ```ein ````, ```` ```python ````,
```` ```py ```` or unlabelled); a block labelled with another language is skipped in
favour of an earlier acceptable one. With no fence the whole reply is the program (a
model that answers with bare code). An unclosed final fence runs to the end of the text
(a reply cut off by the token limit). Model text is untrusted: nothing here raises on it.

Example:
    >>> extract_program("Here:\\n```python\\nprint(1)\\n```\\nDone.", ("python", "py"))
    'print(1)\\n'
    >>> extract_program("A = edges([[0,1]], 2)\\n:print sum(A)", ("ein",))
    'A = edges([[0,1]], 2)\\n:print sum(A)'
    >>> last_printed_line("1\\n\\n[\\"a\\"]\\n\\n")
    '["a"]'
    >>> parse_printed('{"a", "b"}')
    (True, ['a', 'b'])
    >>> parse_printed("True"), parse_printed("srv-05")
    ((True, True), (True, 'srv-05'))
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Sequence
from typing import Any

from closurebench.scoring.extract import holdable

__all__ = ["MAX_PROGRAM_CHARS", "extract_program", "last_printed_line", "parse_printed"]

#: Longest program accepted (longer replies are cut here; Ein's own cap is 200,000).
MAX_PROGRAM_CHARS = 100_000

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*$", re.MULTILINE)


def extract_program(text: str | None, languages: Sequence[str]) -> str:
    """The program of ``text``: its last acceptable fenced block, else the whole text.

    Args:
        text: The model's reply (untrusted).
        languages: Fence labels accepted besides an unlabelled fence (lower case).

    Returns:
        The program text (empty when the reply is empty).
    """
    if not text:
        return ""
    blocks: list[tuple[str, str]] = []
    fences = list(_FENCE.finditer(text))
    i = 0
    while i < len(fences):
        opening = fences[i]
        marker, label = opening.group(1), opening.group(2).lower()
        body_start = opening.end() + 1
        close = next(
            (
                j
                for j in range(i + 1, len(fences))
                if fences[j].group(1).startswith(marker[0])
                and len(fences[j].group(1)) >= len(marker)
                and not fences[j].group(2)
            ),
            None,
        )
        body = text[body_start : fences[close].start()] if close is not None else text[body_start:]
        blocks.append((label, body))
        if close is None:
            break
        i = close + 1
    accepted = [body for label, body in blocks if not label or label in languages]
    program = accepted[-1] if accepted else ("" if blocks else text)
    return program[:MAX_PROGRAM_CHARS]


def last_printed_line(stdout: str) -> str | None:
    """The last non-empty line a program printed (stripped), or ``None``."""
    for line in reversed(stdout.splitlines()):
        if line.strip():
            return line.strip()
    return None


def _plain(value: Any) -> Any:
    """Sets/tuples to lists (sets sorted by their text), recursively; other values as is."""
    if isinstance(value, set | frozenset):
        return sorted((_plain(v) for v in value), key=lambda v: (str(type(v)), str(v)))
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def parse_printed(line: str | None) -> tuple[bool, Any]:
    """Read one printed line: JSON, else a Python literal, else the bare text.

    Returns:
        ``(found, value)``; ``found`` is False only for no line at all. Numbers that
        are not finite are kept as text (the scorer rejects them). A value that no result
        file can hold otherwise (a non-finite number inside it, nesting deeper than
        :data:`~closurebench.scoring.MAX_DEPTH`: :func:`~closurebench.scoring.holdable`)
        is returned as parsed, not converted (walking it could recurse too deep); the
        scorer makes it a ``format_error``.

    Example:
        >>> from closurebench.scoring import holdable
        >>> parse_printed("inf"), holdable(parse_printed("[" * 150 + "]" * 150)[1])
        ((True, 'inf'), False)
    """
    if line is None:
        return False, None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        try:
            value = ast.literal_eval(line)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return True, line
    if isinstance(value, float) and not math.isfinite(value):
        return True, line
    if not holdable(value):
        return True, value
    return True, _plain(value)
