r"""Answer extraction from untrusted model text.

Two answer forms exist:

* **JSON** (ClosureBench, paper Appendix I): the whole text as a JSON object with
  ``"answer"`` (a Markdown code fence around it is allowed), else the last
  ``{"answer": ...}`` object embedded in longer text. A bare JSON value as the whole reply
  (``3``, ``true``, ``["a"]``, ``"Alice"``) is a ``format_error``: the paper asks for an
  object whose required field is ``answer``, and accepts nothing else. (An
  already-extracted answer, as ``score_answer`` of :mod:`closurebench.dataset` receives, is
  not a reply: there a bare value is the answer.)
* **GRIT** (``spec/grit.md``, paper §4.2/§5.1): an ``<answer>…</answer>`` block (the last one
  wins; an unclosed final ``<answer>`` runs to the end of the text) or, when there is no
  block, the last ``\boxed{…}`` (balanced braces). The content is parsed as JSON when
  possible (an object with ``"answer"`` yields that field; any other JSON value, including
  an object such as a colouring ``{name: colour}``, is the value), else as a number, a list
  of names (separated by ``->``/``→``, or by commas/semicolons/new lines), or one bare
  string. ``\boxed{}`` inside a block and ``\text{…}`` wrappers are unwrapped.

:func:`extract_answer` never raises: malformed text is an outcome (``status``). Numbers
that no result file can hold are malformed too: ``NaN``/``Infinity``, a float that
overflows (``1e999``) and an integer longer than Python converts (4,300 digits) are a
``format_error``.

Statuses:
    ``ok``: a value was found.
    ``format_error``: something answer-like is there but unusable: malformed JSON (an
    object that does not parse, an unclosed ``{`` at the end of the text), an object
    without ``"answer"``, an empty or unbalanced answer block / ``\boxed{``, and — in
    JSON mode — a bare JSON value, an answer block or ``\boxed`` instead of the required
    JSON object. (GRIT mode, which falls back to JSON when there is no block, reads a
    bare JSON value as the answer.)
    ``no_answer``: nothing answer-like at all: empty text, a refusal, reasoning that was
    cut off before any answer (braces of closed math like ``{B, C}`` in prose do not count
    as an answer attempt).

Example:
    >>> extract_answer('{"answer": [1, 2]}')
    Extracted(status=<ExtractStatus.OK: 'ok'>, value=[1, 2])
    >>> extract_answer('I think... so {"answer": true} is it.').value
    True
    >>> extract_answer('{"answer": [1, 2}').status.value
    'format_error'
    >>> extract_answer('').status.value
    'no_answer'
    >>> extract_answer('<think>hm</think><answer>A -> B -> C</answer>', grit=True).value
    ['A', 'B', 'C']
    >>> extract_answer(r'so the cost is \boxed{17}.', grit=True).value
    17
    >>> extract_answer('<answer>17</answer>').status.value
    'format_error'
    >>> got = extract_answer('3')
    >>> got.status.value, got.reason
    ('format_error', 'a bare JSON value, not an object with an "answer" field')
    >>> extract_answer('3', grit=True).value
    3
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from closurebench.schema.enums import ExtractStatus

__all__ = ["Extracted", "extract_answer", "parse_block"]


def _int(text: str) -> int | float:
    """A JSON integer; ``nan`` (rejected by :func:`_holdable`) past Python's digit limit."""
    try:
        return int(text)
    except ValueError:  # more than sys.get_int_max_str_digits() digits
        return math.nan


def _holdable(value: Any) -> bool:
    """Every number in ``value`` is finite (``NaN``, ``Infinity``, ``1e999`` are not).

    Example:
        >>> _holdable({"a": [1, 2.5]}), _holdable([1, float("inf")])
        (True, False)
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return True


#: JSON parsing of model text. Python's parser also reads ``NaN``/``Infinity`` and turns
#: ``1e999`` into ``inf``; an over-long integer becomes ``nan`` here instead of raising.
#: Values with such numbers are a format error (:func:`_holdable`): no file can hold them.
_DECODER = json.JSONDecoder(parse_int=_int)
_BLOCK = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_OPEN = re.compile(r"<answer>", re.IGNORECASE)
_BOXED = "\\boxed{"
_TEXT = re.compile(r"^\\(?:text|mathrm|textbf)\{(.*)\}$", re.DOTALL)
_ANSWER_KEY = re.compile(r"""[{,]\s*["']?answer["']?\s*:""", re.IGNORECASE)
_JSONISH_OPEN = re.compile(r"""\{\s*["'\[{]""")
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_FENCE = re.compile(r"^```[A-Za-z]*\s*(.*?)\s*```$", re.DOTALL)

#: Why a whole-reply bare JSON value is not read in JSON mode.
BARE_VALUE = 'a bare JSON value, not an object with an "answer" field'
#: Why a JSON object that lacks the field is not read.
NO_FIELD = 'a JSON object without an "answer" field'


@dataclass(frozen=True)
class Extracted:
    """Result of extraction: ``status``, the answer ``value`` when ``ok``, and a ``reason``.

    ``reason`` says why a ``format_error`` is one where that is worth telling (a bare
    JSON value); else it is empty.
    """

    status: ExtractStatus
    value: Any = None
    reason: str = field(default="", repr=False)


def _embedded_objects(text: str) -> tuple[list[Any], bool]:
    """Parsed ``{...}`` objects in ``text`` and whether a JSON-like one failed to parse."""
    found = []
    broken = False
    start = text.find("{")
    while start != -1:
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            if _JSONISH_OPEN.match(text, start) or "}" not in text[start:]:
                broken = True
            start = text.find("{", start + 1)
            continue
        if not _holdable(obj):  # valid JSON syntax, but a number no result file can hold
            broken = True
            start = text.find("{", start + 1)
            continue
        found.append(obj)
        start = text.find("{", end)
    return found, broken


def _boxed_contents(text: str) -> list[str | None]:
    r"""Contents of every ``\boxed{...}``; ``None`` for an unbalanced one (linear time)."""
    match: dict[int, int] = {}
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            match[stack.pop()] = i
    out: list[str | None] = []
    start = text.find(_BOXED)
    while start != -1:
        brace = start + len(_BOXED) - 1
        end = match.get(brace)
        out.append(text[brace + 1 : end] if end is not None else None)
        start = text.find(_BOXED, brace + 1)
    return out


def _split_names(content: str) -> list[str] | None:
    for seps in (r"->|→|⟶", r"[,;\n]"):
        parts = re.split(seps, content)
        if len(parts) > 1:
            return [p.strip().strip("\"'`").strip() for p in parts if p.strip()]
    return None


def parse_block(content: str) -> Extracted:
    r"""Parse the content of an ``<answer>`` block or ``\boxed{}`` (GRIT forms).

    Example:
        >>> parse_block(' {"answer": 5} ').value, parse_block('[1, 2]').value
        (5, [1, 2])
        >>> parse_block('Poplar Lane').value, parse_block('Vega, Acrux').value
        ('Poplar Lane', ['Vega', 'Acrux'])
        >>> parse_block(r'\boxed{\text{n5c37}}').value, parse_block('  ').status.value
        ('n5c37', 'format_error')
        >>> parse_block('{"answer": [1, 2}').status.value
        'format_error'
    """
    text = content.strip()
    boxed = _boxed_contents(text)
    if boxed:
        if boxed[-1] is None:
            return Extracted(ExtractStatus.FORMAT_ERROR)
        text = boxed[-1].strip()
    m = _TEXT.match(text)
    if m:
        text = m.group(1).strip()
    if not text:
        return Extracted(ExtractStatus.FORMAT_ERROR)
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError:
        pass
    except RecursionError:
        return Extracted(ExtractStatus.FORMAT_ERROR)
    else:
        if not _holdable(value):
            return Extracted(ExtractStatus.FORMAT_ERROR)
        if isinstance(value, dict) and "answer" in value:
            return Extracted(ExtractStatus.OK, value["answer"])
        return Extracted(ExtractStatus.OK, value)
    if text[0] in '{"' or _ANSWER_KEY.search(text):
        return Extracted(ExtractStatus.FORMAT_ERROR)
    if text[0] == "[" and text[-1] == "]":
        text = text[1:-1].strip()
    if _NUMBER.match(text):
        number = _int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)
        if not _holdable(number):  # over Python's 4,300-digit limit, or overflows a float
            return Extracted(ExtractStatus.FORMAT_ERROR)
        return Extracted(ExtractStatus.OK, number)
    names = _split_names(text)
    if names is not None:
        return Extracted(ExtractStatus.OK, names)
    return Extracted(ExtractStatus.OK, text.strip("\"'`").strip())


def _grit_form(text: str) -> Extracted | None:
    blocks = _BLOCK.findall(text)
    last_close = text.lower().rfind("</answer>")
    opens = [m.end() for m in _OPEN.finditer(text)]
    if opens and opens[-1] > last_close:  # unclosed final block (stop sequence, truncation)
        tail = text[opens[-1] :]
        return parse_block(tail)
    if blocks:
        return parse_block(blocks[-1])
    boxed = _boxed_contents(text)
    if boxed:
        return (
            parse_block(_BOXED + boxed[-1] + "}")
            if boxed[-1] is not None
            else Extracted(ExtractStatus.FORMAT_ERROR)
        )
    return None


def _json_form(stripped: str, *, bare: bool) -> Extracted:
    """The JSON answer form; ``bare``: a whole-text bare JSON value is the answer (GRIT)."""
    fenced = _FENCE.match(stripped)
    try:
        whole = _DECODER.decode(fenced.group(1) if fenced and not bare else stripped)
    except (json.JSONDecodeError, RecursionError):
        whole = None
    else:
        if not _holdable(whole):
            return Extracted(ExtractStatus.FORMAT_ERROR)
        if isinstance(whole, dict):
            if "answer" in whole:
                return Extracted(ExtractStatus.OK, whole["answer"])
            return Extracted(ExtractStatus.FORMAT_ERROR, reason=NO_FIELD)
        if not bare:
            return Extracted(ExtractStatus.FORMAT_ERROR, reason=BARE_VALUE)
        return Extracted(ExtractStatus.OK, whole)
    try:
        objects, broken = _embedded_objects(stripped)
    except RecursionError:
        return Extracted(ExtractStatus.FORMAT_ERROR)
    with_answer = [o for o in objects if isinstance(o, dict) and "answer" in o]
    if with_answer:
        return Extracted(ExtractStatus.OK, with_answer[-1]["answer"])
    if objects and not broken and not _ANSWER_KEY.search(stripped):
        return Extracted(ExtractStatus.FORMAT_ERROR, reason=NO_FIELD)
    if objects or broken or _ANSWER_KEY.search(stripped):
        return Extracted(ExtractStatus.FORMAT_ERROR)
    return Extracted(ExtractStatus.NO_ANSWER)


def extract_answer(text: str | None, *, grit: bool = False) -> Extracted:
    """Find the answer value in ``text`` (see the module docstring).

    Args:
        text: The model's response (anything; non-strings are ``no_answer``).
        grit: Also accept the GRIT forms (``<answer>`` blocks, ``\\boxed{}``), which then
            take precedence over bare JSON. Without it (ClosureBench), those forms are a
            ``format_error`` unless a JSON answer object is present too.

    Returns:
        The :class:`Extracted` status and value.
    """
    if text is None or not isinstance(text, str) or not text.strip():
        return Extracted(ExtractStatus.NO_ANSWER)
    stripped = text.strip()
    if grit:
        found = _grit_form(stripped)
        if found is not None:
            return found
        return _json_form(stripped, bare=True)
    got = _json_form(stripped, bare=False)
    if got.status is ExtractStatus.NO_ANSWER and (_OPEN.search(stripped) or _BOXED in stripped):
        return Extracted(ExtractStatus.FORMAT_ERROR)
    return got
