r"""Answer extraction from untrusted model text.

Two answer forms exist:

* **JSON** (ClosureBench, paper Appendix I): the whole text as a JSON object with
  ``"answer"`` (a Markdown code fence around it is allowed), else the single
  ``{"answer": ...}`` object embedded in longer text. The whole-text object is the answer
  whatever it nests (``{"answer": {"answer": 1}}`` answers ``{"answer": 1}``); only in
  longer text are objects counted. Several embedded answer objects with different values
  (two fenced objects, an object in prose and another in a fence) are a ``format_error``
  (reason :data:`SEVERAL`): the paper tolerates "a single ``{"answer": ...}`` object
  embedded in a longer string" and nothing else. The same object repeated (equal values)
  counts once; an object nested in another is part of it, not a second one; objects
  without ``"answer"`` do not count. A bare JSON value as the whole reply
  (``3``, ``true``, ``["a"]``, ``"Alice"``) is a ``format_error``: the paper asks for an
  object whose required field is ``answer``, and accepts nothing else. (An
  already-extracted answer, as ``score_answer`` of :mod:`closurebench.dataset` receives, is
  not a reply: there a bare value is the answer.)
* **GRIT** (``docs/tools.md``, paper §4.2/§5.1): an ``<answer>…</answer>`` block (the last one
  wins; an unclosed final ``<answer>`` runs to the end of the text) or, when there is no
  block, the last ``\boxed{…}`` (balanced braces). The content is parsed as JSON when
  possible (an object with ``"answer"`` yields that field; any other JSON value, including
  an object such as a colouring ``{name: colour}``, is the value), else as a number, a list
  of names (separated by ``->``/``→``, or by commas/semicolons/new lines), or one bare
  string. ``\boxed{}`` inside a block and ``\text{…}`` wrappers are unwrapped. With no
  block and no ``\boxed{}``, the JSON form applies, except that a bare value is the
  answer and, as with blocks, the last embedded answer object wins.

:func:`extract_answer` never raises: malformed text is an outcome (``status``). Numbers
that no result file can hold are malformed too: ``NaN``/``Infinity``, a float that
overflows (``1e999``) and an integer longer than Python converts (4,300 digits) are a
``format_error``; so is a value nested deeper than :data:`MAX_DEPTH` (100) levels of
lists/objects (reason :data:`TOO_DEEP`; :func:`holdable` says what can be held). Text
nested deeper than Python's parser can follow is not JSON (a whole reply is then searched
for embedded objects; an answer block or ``\boxed{}`` is a ``format_error``).

Work per reply is linear in its length, and bounded:

* only the last :data:`MAX_REPLY_CHARS` (1,000,000) characters of a reply are read (the
  answer comes last; a longer reply is read from there);
* every scan (tags, ``\boxed{``, fences, braces) is one pass; ``<answer>`` blocks are paired
  in one pass over the tags, not by a regular expression that rescans the tail from every
  unclosed ``<answer>``;
* embedded JSON objects: only a ``{`` that can open one (``{}``, or ``{"key":``; JSON
  whitespace allowed) is decoded, in a window that grows only while its end may be why
  decoding failed, so a failure costs what the decoder examined. The characters examined
  by candidates that fail (or hold unholdable values) may total at most
  :data:`SCAN_FACTOR` (16) times the reply's length plus 262,144; a reply that needs more is
  a ``format_error`` (reason :data:`TOO_TANGLED`), whatever it holds after that point.

Statuses:
    ``ok``: a value was found.
    ``format_error``: something answer-like is there but unusable: malformed JSON (an
    object that does not parse, an unclosed ``{`` at the end of the text), an object
    without ``"answer"``, several different embedded answer objects, an empty or
    unbalanced answer block / ``\boxed{``, and — in JSON mode — a bare JSON value, an
    answer block or ``\boxed`` instead of the required JSON object. (GRIT mode, which
    falls back to JSON when there is no block, reads a bare JSON value as the answer.)
    ``no_answer``: nothing answer-like at all: empty text, a refusal, reasoning that was
    cut off before any answer (braces of closed math like ``{B, C}`` in prose do not count
    as an answer attempt).

Example:
    >>> extract_answer('{"answer": [1, 2]}')
    Extracted(status=<ExtractStatus.OK: 'ok'>, value=[1, 2])
    >>> extract_answer('I think... so {"answer": true} is it.').value
    True
    >>> got = extract_answer('{"answer": 1}, no: {"answer": 2}')
    >>> got.status.value, got.reason == SEVERAL
    ('format_error', True)
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
import sys
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from closurebench.schema.enums import ExtractStatus

__all__ = [
    "MAX_DEPTH",
    "MAX_REPLY_CHARS",
    "SCAN_FACTOR",
    "UNHOLDABLE",
    "Extracted",
    "extract_answer",
    "holdable",
    "parse_block",
]

#: Characters of a reply that are read: a longer reply is read from its last this many
#: characters (the answer comes last; no model reply is near this long).
MAX_REPLY_CHARS = 1_000_000
#: Most levels of nested lists/objects an answer value may have (a deeper one is a
#: ``format_error``; real answers nest two or three levels).
MAX_DEPTH = 100
#: Characters the JSON decoder may examine in embedded candidates that do not parse, per
#: character of the reply (plus :data:`_SCAN_FLOOR`); past it the reply is a
#: ``format_error`` (:data:`TOO_TANGLED`).
SCAN_FACTOR = 16
_SCAN_FLOOR = 262_144
#: First window an embedded candidate is decoded in (doubled while the window's end may
#: be the reason it failed), so a failure costs what it examined, not the reply's length.
_WINDOW = 512
#: Lookahead of the JSON decoder (``-Infinity``, escapes): an error this close to a
#: window's end may be the window's doing.
_LOOKAHEAD = 16


#: Why a whole-reply bare JSON value is not read in JSON mode.
BARE_VALUE = 'a bare JSON value, not an object with an "answer" field'
#: Why a JSON object that lacks the field is not read.
NO_FIELD = 'a JSON object without an "answer" field'
#: Why a value nested deeper than :data:`MAX_DEPTH` levels is not read.
TOO_DEEP = f"the answer nests lists or objects deeper than {MAX_DEPTH} levels"
#: Why an already-extracted value that :func:`holdable` rejects is not scored.
UNHOLDABLE = (
    f"the answer holds a number no result file can hold, or nests deeper than {MAX_DEPTH} levels"
)
#: Why a reply with several different embedded answer objects is not read (JSON mode).
SEVERAL = 'several different {"answer": ...} objects in the reply; the answer must be a single one'
#: Why a reply whose embedded candidates exhaust the scan budget is not read.
TOO_TANGLED = "too many malformed JSON objects to read them all"


def _int(text: str) -> int | float:
    """A JSON integer; ``nan`` (rejected by :func:`holdable`) past Python's digit limit."""
    try:
        return int(text)
    except ValueError:  # more than sys.get_int_max_str_digits() digits
        return math.nan


def _printable(number: int) -> bool:
    """``str(number)`` works: it has at most ``sys.get_int_max_str_digits()`` digits."""
    limit = sys.get_int_max_str_digits()
    return limit == 0 or number.bit_length() <= 3 * limit or abs(number) < 10**limit


def _problem(value: Any) -> str | None:
    """Why no result file can hold ``value`` (:func:`holdable`), or ``None`` (iterative)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return ""  # no reason beyond the format error itself, as before
        elif isinstance(item, int):
            if not _printable(item):
                return ""
        elif isinstance(item, list | tuple | set | frozenset | dict):
            if depth >= MAX_DEPTH:
                return TOO_DEEP
            stack.extend((member, depth + 1) for member in item)
            if isinstance(item, dict):
                stack.extend((member, depth + 1) for member in item.values())
    return None


def holdable(value: Any) -> bool:
    """A value a result file can hold and every scorer can read.

    Every number is finite (``NaN``, ``Infinity``, ``1e999`` are not), every integer can be
    printed (at most Python's 4,300 digits) and lists/objects (tuples, sets, dict keys
    too) nest at most :data:`MAX_DEPTH` levels. Iterative: never recurses.

    Example:
        >>> holdable({"a": [1, 2.5]}), holdable([1, float("inf")]), holdable(10**5000)
        (True, False, False)
        >>> deep = []
        >>> for _ in range(MAX_DEPTH - 1):  # MAX_DEPTH levels of lists
        ...     deep = [deep]
        >>> holdable(deep), holdable([deep])
        (True, False)
    """
    return _problem(value) is None


#: JSON parsing of model text. Python's parser also reads ``NaN``/``Infinity`` and turns
#: ``1e999`` into ``inf``; an over-long integer becomes ``nan`` here instead of raising.
#: Values with such numbers are a format error (:func:`holdable`): no file can hold them.
_DECODER = json.JSONDecoder(parse_int=_int)
_OPEN = re.compile(r"<answer>", re.IGNORECASE)
_CLOSE = re.compile(r"</answer>", re.IGNORECASE)
_BOXED = "\\boxed{"
_BRACE = re.compile(r"[{}]")
_TEXT = re.compile(r"^\\(?:text|mathrm|textbf)\{(.*)\}$", re.DOTALL)
_ANSWER_KEY = re.compile(r"""[{,]\s*["']?answer["']?\s*:""", re.IGNORECASE)
_JSONISH_OPEN = re.compile(r"""\{\s*["'\[{]""")
#: A ``{`` that can start a JSON object: ``}``, or a first key (a string, then ``:``),
#: after JSON whitespace. Anything else fails to decode at once; a regular expression
#: rejects it without the decoder's error (which costs as much as the text before it).
#: Linear overall: a key's string stops at the next unescaped quote.
_CANDIDATE = re.compile(r'\{[ \t\n\r]*(?:\}|"(?:[^"\\\x00-\x1f]|\\.)*"[ \t\n\r]*:)')
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_FENCE_TAG = re.compile(r"[A-Za-z]*")


@dataclass(frozen=True)
class Extracted:
    """Result of extraction: ``status``, the answer ``value`` when ``ok``, and a ``reason``.

    ``reason`` says why a ``format_error`` is one where that is worth telling (a bare
    JSON value); else it is empty.
    """

    status: ExtractStatus
    value: Any = None
    reason: str = field(default="", repr=False)


def _unusable(value: Any) -> Extracted | None:
    """The format error of a decoded value that :func:`holdable` rejects, else ``None``."""
    problem = _problem(value)
    return None if problem is None else Extracted(ExtractStatus.FORMAT_ERROR, reason=problem)


class _Attempt(NamedTuple):
    """One decoding attempt at a ``{``: the value, where it ended (or failed), its cost."""

    ok: bool
    value: Any
    end: int
    cost: int


def _decode_at(text: str, start: int, reach: int = 0) -> _Attempt:
    """Decode the JSON value at ``start`` in windows, so a failure costs what it examined.

    A JSON value is decided by its own characters: when it parses inside a window, it
    parses the same in the whole text; when it fails well before the window's end, it
    fails the same there. Otherwise (the failure may be the window's end, or a string
    runs to it) the window doubles. ``cost`` counts the characters the decoder examined:
    every outgrown window, then the last one up to the failure (all of it when a string
    runs to its end or the nesting is too deep to follow). ``reach``: where the previous
    attempt failed; a candidate before it starts with a window reaching there (candidates
    nested in one malformed object usually fail at the same place), which saves the
    doublings; the outcome never depends on the window.
    """
    size, cost = max(_WINDOW, reach - start), 0
    while True:
        stop = min(len(text), start + size)
        window = text[start:stop]
        try:
            value, end = _DECODER.raw_decode(window)
        except json.JSONDecodeError as exc:
            unterminated = exc.msg.startswith("Unterminated string")
            if stop < len(text) and (exc.pos >= len(window) - _LOOKAHEAD or unterminated):
                cost += len(window)
                size *= 2
                continue
            cost += len(window) if unterminated else exc.pos + 1
            return _Attempt(False, None, start + exc.pos, cost)
        except RecursionError:  # nested deeper than the interpreter can follow
            return _Attempt(False, None, stop, cost + len(window))
        return _Attempt(True, value, start + end, cost + end)


def _embedded_objects(text: str) -> tuple[list[Any], bool, bool]:
    """Parsed ``{...}`` objects in ``text``, whether a JSON-like one failed to parse, and
    whether the scan budget ran out (linear time: see :data:`SCAN_FACTOR`)."""
    found: list[Any] = []
    broken = False
    budget = SCAN_FACTOR * len(text) + _SCAN_FLOOR
    reach = 0
    last_close = text.rfind("}")
    start = text.find("{")
    while start != -1:
        if not _CANDIDATE.match(text, start):  # cannot start an object: no need to decode
            if _JSONISH_OPEN.match(text, start) or start > last_close:
                broken = True
            start = text.find("{", start + 1)
            continue
        if budget <= 0:
            return found, True, True
        got = _decode_at(text, start, reach)
        if got.ok and holdable(got.value):
            found.append(got.value)
            reach = 0
            start = text.find("{", got.end)
            continue
        # malformed, or valid syntax with a number no result file can hold: the objects
        # inside it are candidates of their own, at a cost
        budget -= got.cost
        reach = got.end
        broken = True
        start = text.find("{", start + 1)
    return found, broken, False


def _boxed_contents(text: str) -> list[str | None]:
    r"""Contents of every ``\boxed{...}``; ``None`` for an unbalanced one (linear time)."""
    if _BOXED not in text:
        return []
    match: dict[int, int] = {}
    stack: list[int] = []
    for found in _BRACE.finditer(text):
        i = found.start()
        if text[i] == "{":
            stack.append(i)
        elif stack:
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
    text = _bounded(content).strip()
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
        return Extracted(ExtractStatus.FORMAT_ERROR, reason=TOO_DEEP)
    else:
        unusable = _unusable(value)
        if unusable is not None:
            return unusable
        if isinstance(value, dict) and "answer" in value:
            return Extracted(ExtractStatus.OK, value["answer"])
        return Extracted(ExtractStatus.OK, value)
    if text[0] in '{"' or _ANSWER_KEY.search(text):
        return Extracted(ExtractStatus.FORMAT_ERROR)
    if text[0] == "[" and text[-1] == "]":
        text = text[1:-1].strip()
    if _NUMBER.match(text):
        number = _int(text) if re.fullmatch(r"[+-]?\d+", text) else float(text)
        if not holdable(number):  # over Python's 4,300-digit limit, or overflows a float
            return Extracted(ExtractStatus.FORMAT_ERROR)
        return Extracted(ExtractStatus.OK, number)
    names = _split_names(text)
    if names is not None:
        return Extracted(ExtractStatus.OK, names)
    return Extracted(ExtractStatus.OK, text.strip("\"'`").strip())


def _last_block(text: str) -> tuple[str | None, str | None]:
    """``(content of the last closed <answer> block, tail after an unclosed final one)``.

    The blocks are those a left-to-right scan pairs: an ``<answer>``, then the first
    ``</answer>`` after it, then the next ``<answer>`` after that (what
    ``re.findall(r"<answer>(.*?)</answer>")`` finds), in one pass over the tags.
    """
    opens = [(m.start(), m.end()) for m in _OPEN.finditer(text)]
    closes = [(m.start(), m.end()) for m in _CLOSE.finditer(text)]
    if opens and (not closes or opens[-1][1] > closes[-1][0]):
        return None, text[opens[-1][1] :]  # unclosed final block (stop sequence, truncation)
    block = None
    at = ci = 0
    for start, end in opens:
        if start < at:
            continue
        while ci < len(closes) and closes[ci][0] < end:
            ci += 1
        if ci == len(closes):
            break
        block = text[end : closes[ci][0]]
        at = closes[ci][1]
    return block, None


def _grit_form(text: str) -> Extracted | None:
    block, tail = _last_block(text)
    if tail is not None:
        return parse_block(tail)
    if block is not None:
        return parse_block(block)
    boxed = _boxed_contents(text)
    if boxed:
        return (
            parse_block(_BOXED + boxed[-1] + "}")
            if boxed[-1] is not None
            else Extracted(ExtractStatus.FORMAT_ERROR)
        )
    return None


def _fence_body(text: str) -> str | None:
    """The inside of a Markdown fence that is the whole (stripped) ``text``, else ``None``.

    What ``^```[A-Za-z]*\\s*(.*?)\\s*```$`` captures, found in linear time (that regular
    expression backtracks cubically on a long run of spaces).

    Example:
        >>> _fence_body('```json\\n{"answer": 1}\\n```'), _fence_body("```x"), _fence_body("``````")
        ('{"answer": 1}', None, '')
    """
    if len(text) < 6 or not text.startswith("```") or not text.endswith("```"):
        return None
    tag = _FENCE_TAG.match(text, 3)
    begin = tag.end() if tag else 3
    return text[begin : len(text) - 3].strip()


def _distinct_answers(objects: list[Any]) -> list[Any]:
    """The ``"answer"`` values of the embedded answer objects, repeats of one value once.

    Two values are one when their canonical JSON text is equal (so ``1`` and ``true``, or
    ``1`` and ``1.0``, are two). Linear: each object is written once, and the objects are
    disjoint pieces of the reply.

    Example:
        >>> _distinct_answers([{"answer": 1}, {"x": 2}, {"answer": 1}, {"answer": True}])
        [1, True]
    """
    seen: dict[str, Any] = {}
    for obj in objects:
        if isinstance(obj, dict) and "answer" in obj:
            key = json.dumps(obj["answer"], sort_keys=True)
            seen.pop(key, None)  # re-insert: the order is that of the last occurrences
            seen[key] = obj["answer"]
    return list(seen.values())


def _json_form(stripped: str, *, bare: bool) -> Extracted:
    """The JSON answer form; ``bare``: a whole-text bare JSON value is the answer (GRIT)."""
    fenced = None if bare else _fence_body(stripped)
    try:
        whole = _DECODER.decode(fenced if fenced is not None else stripped)
    except (json.JSONDecodeError, RecursionError):  # not one JSON value: look inside
        whole = None
    else:
        unusable = _unusable(whole)
        if unusable is not None:
            return unusable
        if isinstance(whole, dict):
            if "answer" in whole:
                return Extracted(ExtractStatus.OK, whole["answer"])
            return Extracted(ExtractStatus.FORMAT_ERROR, reason=NO_FIELD)
        if not bare:
            return Extracted(ExtractStatus.FORMAT_ERROR, reason=BARE_VALUE)
        return Extracted(ExtractStatus.OK, whole)
    objects, broken, exhausted = _embedded_objects(stripped)
    if exhausted:
        return Extracted(ExtractStatus.FORMAT_ERROR, reason=TOO_TANGLED)
    answers = _distinct_answers(objects)
    if len(answers) > 1 and not bare:
        return Extracted(ExtractStatus.FORMAT_ERROR, reason=SEVERAL)
    if answers:
        return Extracted(ExtractStatus.OK, answers[-1])
    if objects and not broken and not _ANSWER_KEY.search(stripped):
        return Extracted(ExtractStatus.FORMAT_ERROR, reason=NO_FIELD)
    if objects or broken or _ANSWER_KEY.search(stripped):
        return Extracted(ExtractStatus.FORMAT_ERROR)
    return Extracted(ExtractStatus.NO_ANSWER)


def _bounded(text: str) -> str:
    """``text``, or its last :data:`MAX_REPLY_CHARS` characters when it is longer."""
    return text if len(text) <= MAX_REPLY_CHARS else text[len(text) - MAX_REPLY_CHARS :]


def extract_answer(text: str | None, *, grit: bool = False) -> Extracted:
    """Find the answer value in ``text`` (see the module docstring).

    Linear in the length of ``text``; at most its last :data:`MAX_REPLY_CHARS` characters
    are read.

    Args:
        text: The model's response (anything; non-strings are ``no_answer``).
        grit: Also accept the GRIT forms (``<answer>`` blocks, ``\\boxed{}``), which then
            take precedence over bare JSON. Without it (ClosureBench), those forms are a
            ``format_error`` unless a JSON answer object is present too.

    Returns:
        The :class:`Extracted` status and value.
    """
    if text is None or not isinstance(text, str):
        return Extracted(ExtractStatus.NO_ANSWER)
    stripped = _bounded(text.strip()).lstrip()
    if not stripped:
        return Extracted(ExtractStatus.NO_ANSWER)
    if grit:
        found = _grit_form(stripped)
        if found is not None:
            return found
        return _json_form(stripped, bare=True)
    got = _json_form(stripped, bare=False)
    if got.status is ExtractStatus.NO_ANSWER and (_OPEN.search(stripped) or _BOXED in stripped):
        return Extracted(ExtractStatus.FORMAT_ERROR)
    return got
