"""Ein parser: source text → :class:`~closurebench.ein.ast.Program`.

The grammar (``grammar.lark``) is LALR(1) with lark's contextual lexer, and the
AST is built *while* parsing (lark's inline transformer), so parsing never
recurses and deep input cannot overflow the stack. Unknown characters, unexpected
tokens and leftover input are all :class:`~closurebench.ein.errors.EinSyntaxError`
with the line and column; nothing is silently dropped.

Example:
    >>> prog = parse("A = edges([[0,1],[1,2]], 3)  // a path\\n:print sum(A, 1)")
    >>> [type(s).__name__ for s in prog.statements]
    ['Assign', 'Print']
    >>> prog.statements[1].label
    'sum(A, 1)'
    >>> parse("A = 1 $ 2")
    Traceback (most recent call last):
    ...
    closurebench.ein.errors.EinSyntaxError: line 1, column 7: unexpected character '$'...
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from functools import cache
from importlib import resources
from typing import Any, cast

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from closurebench.ein import ast
from closurebench.ein.errors import EinError, EinSyntaxError, ResourceLimitError
from closurebench.ein.limits import DEFAULT_LIMITS, Limits

__all__ = ["parse", "with_source"]

_GRAMMAR = resources.files("closurebench.ein").joinpath("grammar.lark").read_text("utf-8")

# Integers read as floats, as Ein reads every number.
_JSON = json.JSONDecoder(parse_int=float)

_OPEN = {"LPAR", "LSQB"}
_CLOSE = {"RPAR", "RSQB"}

# Human names of terminals, for "expected ..." hints.
_FRIENDLY = {
    "NAME": "a name",
    "NUMBER": "a number",
    "PRINT": "`:print`",
    "EQUAL": "`=`",
    "PLUS": "`+`",
    "MINUS": "`-`",
    "STAR": "`*`",
    "SLASH": "`/`",
    "COMMA": "`,`",
    "LPAR": "`(`",
    "RPAR": "`)`",
    "LSQB": "`[`",
    "NUMLIST": "`[`",
    "RSQB": "`]`",
    "_NL": "end of line",
    "$END": "end of program",
}


class _NewlinePostLex:
    """Drop newlines inside brackets and collapse runs of blank/comment lines."""

    always_accept = ("_NL",)

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        depth = 0
        after_newline = True  # leading newlines are dropped too
        for tok in stream:
            if tok.type in _OPEN:
                depth += 1
            elif tok.type in _CLOSE:
                depth = max(0, depth - 1)
            elif tok.type == "_NL":
                if depth > 0 or after_newline:
                    continue
                after_newline = True
                yield tok
                continue
            after_newline = False
            yield tok


def _span_tok(tok: Token, end: int | None = None) -> ast.Span:
    return ast.Span(tok.line or 1, tok.column or 1, tok.start_pos or 0, end or tok.end_pos or 0)


def _depth(*nodes: Any) -> int:
    return 1 + max((getattr(n, "depth", 0) for n in nodes), default=0)


def _start(node: Any) -> int:
    return node.span.start


def _end(node: Any) -> int:
    return node.span.end


#: The children lark hands a transformer callback (``list`` is a callback name below).
Children = list[Any]


class _Build(Transformer[Token, Any]):
    """Inline LALR callbacks building AST nodes (stateless, so thread-safe)."""

    def start(self, children: Children) -> tuple[ast.Statement, ...]:
        return tuple(c for c in children if c is not None)

    def assign(self, c: Children) -> ast.Assign:
        name, _eq, value = c
        return ast.Assign(_span_tok(name, _end(value)), str(name), value)

    def einsum(self, c: Children) -> ast.EinsumAssign:
        name, value = c[0], c[-1]
        indices = tuple(x for x in c[1:-1] if isinstance(x, ast.Index))
        return ast.EinsumAssign(_span_tok(name, _end(value)), str(name), indices, value)

    def print(self, c: Children) -> ast.Print:
        kw, value = c
        return ast.Print(_span_tok(kw, _end(value)), value, "")

    def index(self, c: Children) -> ast.Index:
        (tok,) = c
        if tok.type == "NUMBER":
            raise EinSyntaxError(
                f"index `{tok}` is a number; einsum indices are names like i, j, k — to take "
                "one element or row use select, e.g. select(select(A, 0, 0), 1, 0) for A[0,1]",
                line=tok.line,
                column=tok.column,
            )
        return ast.Index(_span_tok(tok), str(tok))

    def binop(self, c: Children) -> ast.BinOp:
        left, op, right = c
        span = ast.Span(op.line, op.column, _start(left), _end(right))
        return ast.BinOp(span, str(op), left, right, False, _depth(left, right))

    def juxt(self, c: Children) -> ast.BinOp:
        left, right = c
        span = ast.Span(right.span.line, right.span.column, _start(left), _end(right))
        return ast.BinOp(span, "*", left, right, True, _depth(left, right))

    def neg(self, c: Children) -> ast.Neg:
        op, operand = c
        span = ast.Span(op.line, op.column, op.start_pos, _end(operand))
        return ast.Neg(span, operand, _depth(operand))

    def indexed(self, c: Children) -> ast.Indexed:
        base, close = c[0], c[-1]
        indices = tuple(x for x in c[1:-1] if isinstance(x, ast.Index))
        span = ast.Span(base.span.line, base.span.column, _start(base), close.end_pos)
        return ast.Indexed(span, base, indices, _depth(base))

    def group(self, c: Children) -> ast.Group:
        open_, inner, close = c
        span = ast.Span(open_.line, open_.column, open_.start_pos, close.end_pos)
        return ast.Group(span, inner, _depth(inner))

    def call(self, c: Children) -> ast.Call:
        name, close = c[0], c[-1]
        args = tuple(x for x in c[2:-1] if x is not None and not isinstance(x, Token))
        span = ast.Span(name.line, name.column, name.start_pos, close.end_pos)
        return ast.Call(span, str(name), args, _depth(*args))

    def list(self, c: Children) -> ast.ListLiteral:
        open_, close = c[0], c[-1]
        items = tuple(x for x in c[1:-1] if x is not None and not isinstance(x, Token))
        span = ast.Span(open_.line, open_.column, open_.start_pos, close.end_pos)
        return ast.ListLiteral(span, items, _depth(*items))

    def numlist(self, c: Children) -> ast.ListLiteral:
        """A one-line number list read as one token: the tree ``list`` would build."""
        (tok,) = c
        return _literal(str(tok), tok.line, tok.column, tok.start_pos)

    def signed(self, c: Children) -> ast.Number:
        num = _number(c[-1])
        if len(c) == 1:
            return num
        minus = c[0]
        return ast.Number(
            ast.Span(minus.line, minus.column, minus.start_pos, num.span.end), -num.value
        )

    def name(self, c: Children) -> ast.Name:
        (tok,) = c
        return ast.Name(_span_tok(tok), str(tok))

    def number(self, c: Children) -> ast.Number:
        return _number(c[0])


def _number(tok: Token) -> ast.Number:
    value = float(tok)
    if value == float("inf"):
        raise EinSyntaxError(
            f"number {tok} is too large for float64; use a value below 1.8e308",
            line=tok.line,
            column=tok.column,
        )
    return ast.Number(_span_tok(tok), value)


def _numlist(text: str, line: int, col0: int, pos0: int) -> ast.ListLiteral:
    """The tree rule ``list`` builds for a NUMLIST token ``text`` at line/column/offset."""
    Span, Number = ast.Span, ast.Number
    stack: list[tuple[int, list[Any]]] = []
    minus = -1
    out: ast.ListLiteral | None = None
    for m in _NUMLIST_PART.finditer(text):
        kind = m.lastgroup
        at = m.start()
        if kind == "NUMBER":
            digits = m.group()
            end = pos0 + m.end()
            value = float(digits)
            if value == float("inf"):
                raise EinSyntaxError(
                    f"number {digits} is too large for float64; use a value below 1.8e308",
                    line=line,
                    column=col0 + at,
                )
            if minus < 0:
                num = Number(Span(line, col0 + at, pos0 + at, end), value)
            else:
                num = Number(Span(line, col0 + minus, pos0 + minus, end), -value)
                minus = -1
            stack[-1][1].append(num)
        elif kind == "LSQB":
            stack.append((at, []))
        elif kind == "RSQB":
            start, items = stack.pop()
            span = Span(line, col0 + start, pos0 + start, pos0 + at + 1)
            lit = ast.ListLiteral(span, tuple(items), _depth(*items))
            if stack:
                stack[-1][1].append(lit)
            else:
                out = lit
        else:
            minus = at
    assert out is not None
    return out


#: Number lists at least this long (characters) are read by :func:`_literal`'s array path.
LAZY_LITERAL_CHARS = 256


class LazyListLiteral(ast.ListLiteral):
    """A long number list read straight into an array; its item nodes are built on demand.

    Equal to the :class:`~closurebench.ein.ast.ListLiteral` :func:`_numlist` builds for the
    same text (``items`` gives the same nodes and spans, built on first access), but
    evaluation and the shape checker read :attr:`array` and never need them: a
    10,000-pair edge list costs one JSON parse instead of 30,000 nodes.

    Attributes:
        array: The float64 values (rank 1 or 2, finite); treat it as read-only.
    """

    __slots__ = ("_items", "_source", "array")
    _items: tuple[ast.Number | ast.ListLiteral, ...] | None
    _source: tuple[str, int, int, int]
    array: Any

    def __init__(
        self, span: ast.Span, depth: int, array: Any, source: tuple[str, int, int, int]
    ) -> None:
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "array", array)
        object.__setattr__(self, "_source", source)
        object.__setattr__(self, "_items", None)

    @property
    def items(self) -> tuple[ast.Number | ast.ListLiteral, ...]:
        """The item nodes, as :func:`_numlist` builds them (built once, on first access)."""
        if self._items is None:
            text, line, col0, pos0 = self._source
            if "\n" in text:  # read from a multi-line literal: the node path's own nodes
                items = _Fast(text, line=line, column=col0, offset=pos0, arrays=False)._list().items
            else:
                items = _numlist(text, line, col0, pos0).items
            object.__setattr__(self, "_items", items)
        return cast(tuple[ast.Number | ast.ListLiteral, ...], self._items)


def _literal(text: str, line: int, col0: int, pos0: int) -> ast.ListLiteral:
    """A NUMLIST token's node: eager for short lists, :class:`LazyListLiteral` for long ones.

    The array path takes only what it reads exactly as :func:`_numlist` would (JSON
    numbers, rank 1 or 2, rectangular, non-empty, finite; ``-0`` stays ``-0.0``); anything
    else (``1.``, ``.5``, ``- 1``, ragged rows, overflow) goes the eager way, which also
    gives every error its located message.
    """
    if len(text) < LAZY_LITERAL_CHARS:
        return _numlist(text, line, col0, pos0)
    import json

    import numpy as np

    try:
        array = np.array(json.loads(text, parse_int=float), dtype=np.float64)
    except (ValueError, TypeError, RecursionError):
        return _numlist(text, line, col0, pos0)
    if array.ndim not in (1, 2) or array.size == 0 or not np.isfinite(array).all():
        return _numlist(text, line, col0, pos0)
    array.setflags(write=False)
    span = ast.Span(line, col0, pos0, pos0 + len(text))
    return LazyListLiteral(span, array.ndim + 1, array, (text, line, col0, pos0))


# Characters a plain number list may hold; JSON also reads ``NaN``, ``Infinity``, strings,
# ``true``... none of which is an Ein number list.
_NOT_NUMLIST = re.compile(r"[^0-9eE.+\-\[\], \t\r\n]")


def _blank_comments(source: str) -> str:
    """``source`` with every ``//`` comment turned into as many spaces (offsets kept).

    Example:
        >>> _blank_comments("[1, // one\\n 2]")
        '[1,       \\n 2]'
    """
    if "//" not in source:
        return source
    return _COMMENT.sub(lambda m: " " * len(m.group()), source)


_COMMENT = re.compile(r"//[^\n]*")


def _array_literal(
    read: str, source: str, pos: int, line: int, column: int, offset: int = 0
) -> LazyListLiteral | None:
    """The array-path node of the long number list opening at ``source[pos]``, else None.

    One JSON read from ``pos`` finds the list's end and its values at once (no regex pass
    over the text first). It is taken only when the list is at least
    :data:`LAZY_LITERAL_CHARS` long, holds nothing but numbers, brackets, commas and
    blanks (newlines and comments included: inside brackets they are blanks to Ein too)
    and reads as a
    non-empty finite rank-1 or rank-2 array; anything else returns None and is tokenised
    as before (the ``NUMLIST`` token, or bracket by bracket), so every error keeps its
    located message. On one line, such a list is exactly a ``NUMLIST`` token (JSON's
    numbers and blanks are a subset of Ein's); over several lines its nodes are the node
    path's, built on demand.

    Args:
        read: ``source`` with its comments blanked (:func:`_blank_comments`).
        source: The text being tokenised.
        pos: Where the ``[`` is in ``source``.
        line: Its line.
        column: Its column.
        offset: The program offset of ``source[0]``.
    """
    import numpy as np

    try:
        value, end = _JSON.raw_decode(read, pos)
    except (ValueError, RecursionError):
        return None
    if end - pos < LAZY_LITERAL_CHARS or not isinstance(value, list):
        return None
    if _NOT_NUMLIST.search(read, pos, end) is not None:
        return None
    try:
        array = np.array(value, dtype=np.float64)
    except (ValueError, TypeError):
        return None
    if array.ndim not in (1, 2) or array.size == 0 or not np.isfinite(array).all():
        return None
    array.setflags(write=False)
    span = ast.Span(line, column, offset + pos, offset + end)
    text = source[pos:end]
    return LazyListLiteral(span, array.ndim + 1, array, (text, line, column, offset + pos))


class _NotFast(Exception):
    """The fast path declines; lark parses the source (and reports any error)."""


_FAST_TOKEN = re.compile(
    r"(?P<WS>[ \t\r]+)|(?P<COMMENT>//[^\n]*)|(?P<NL>\n)|(?P<NAME>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<NUMBER>(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)|(?P<PRINT>:print\b)|(?P<OP>[-+*/=,()\[\]])"
)
# The grammar's own NUMLIST pattern (one definition for both paths).
_FAST_NUMLIST = re.compile(
    next(x[len("NUMLIST.2: /") : -1] for x in _GRAMMAR.splitlines() if x.startswith("NUMLIST"))
)
_FAST_OPS = {
    "-": "MINUS",
    "+": "PLUS",
    "*": "STAR",
    "/": "SLASH",
    "=": "EQUAL",
    ",": "COMMA",
    "(": "LPAR",
    ")": "RPAR",
    "[": "LSQB",
    "]": "RSQB",
}


class _Fast:
    """A recursive-descent reading of the same grammar, for well-formed programs only.

    It builds exactly the tree lark + :class:`_Build` would, and raises
    :class:`_NotFast` at anything unusual (any syntax error included), so every error
    message still comes from lark. Tokens are ``(type, text, start, end, line, column)``.

    Args:
        source: The text to read.
        line: The line of ``source[0]`` (for reading a piece of a program).
        column: The column of ``source[0]``.
        offset: The program offset of ``source[0]``.
        arrays: Read long number lists spanning lines by :func:`_array_literal` too
            (off when the node path rebuilds such a list's nodes).
    """

    __slots__ = ("i", "lists", "toks")

    def __init__(
        self, source: str, *, line: int = 1, column: int = 1, offset: int = 0, arrays: bool = True
    ) -> None:
        toks: list[tuple[str, str, int, int, int, int]] = []
        #: Array-path nodes of the NUMLIST tokens that span lines, by start offset.
        lists: dict[int, ast.ListLiteral] = {}
        line_start, pos, depth, after_newline = 1 - column, 0, 0, True
        n = len(source)
        arrays = arrays and n >= LAZY_LITERAL_CHARS
        read = _blank_comments(source) if arrays else source
        match = _FAST_TOKEN.match
        numlist = _FAST_NUMLIST.match
        ops = _FAST_OPS
        while pos < n:
            m = match(source, pos)
            if m is None or m.lastgroup is None:
                raise _NotFast
            kind = m.lastgroup
            end = m.end()
            if kind == "NL":
                if depth == 0 and not after_newline:
                    toks.append(
                        ("_NL", "\n", offset + pos, offset + end, line, pos - line_start + 1)
                    )
                    after_newline = True
                line += 1
                line_start = end
            elif kind == "WS" or kind == "COMMENT":
                pass
            else:
                text = m.group()
                col, at_line = pos - line_start + 1, line
                if kind == "OP":
                    kind = ops[text]
                    node = None
                    if kind == "LSQB" and arrays:
                        node = _array_literal(read, source, pos, line, col, offset)
                    if node is not None:
                        kind, end = "NUMLIST", node.span.end - offset
                        text = source[pos:end]
                        lists[offset + pos] = node
                        if (newlines := text.count("\n")) > 0:
                            line += newlines
                            line_start = pos + text.rfind("\n") + 1
                    elif kind == "LSQB" and (m := numlist(source, pos)) is not None:
                        kind, text, end = "NUMLIST", m.group(), m.end()
                    elif kind == "LPAR" or kind == "LSQB":
                        depth += 1
                    elif (kind == "RPAR" or kind == "RSQB") and depth > 0:
                        depth -= 1
                toks.append((kind, text, offset + pos, offset + end, at_line, col))
                after_newline = False
            pos = end
        toks.append(("$END", "", offset + n, offset + n, line, n - line_start + 1))
        self.toks = toks
        self.lists = lists
        self.i = 0

    def _peek(self) -> str:
        return self.toks[self.i][0]

    def _take(self, kind: str) -> tuple[str, str, int, int, int, int]:
        tok = self.toks[self.i]
        if tok[0] != kind:
            raise _NotFast
        self.i += 1
        return tok

    def program(self) -> tuple[ast.Statement, ...]:
        out: list[ast.Statement] = []
        while self._peek() != "$END":
            out.append(self._stmt())
            if self._peek() == "_NL":
                self.i += 1
            elif self._peek() != "$END":
                raise _NotFast
        return tuple(out)

    def _stmt(self) -> ast.Statement:
        tok = self.toks[self.i]
        if tok[0] == "PRINT":
            self.i += 1
            value = self._expr()
            return ast.Print(ast.Span(tok[4], tok[5], tok[2], value.span.end), value, "")
        name = self._take("NAME")
        if self._peek() == "LSQB":
            self.i += 1
            indices = self._indices()
            self._take("EQUAL")
            value = self._expr()
            span = ast.Span(name[4], name[5], name[2], value.span.end)
            return ast.EinsumAssign(span, name[1], indices, value)
        self._take("EQUAL")
        value = self._expr()
        return ast.Assign(ast.Span(name[4], name[5], name[2], value.span.end), name[1], value)

    def _indices(self) -> tuple[ast.Index, ...]:
        """``index (COMMA index)* RSQB`` after an opening bracket (names only)."""
        out = []
        while True:
            tok = self._take("NAME")
            out.append(ast.Index(ast.Span(tok[4], tok[5], tok[2], tok[3]), tok[1]))
            if self._peek() != "COMMA":
                break
            self.i += 1
        self._take("RSQB")
        return tuple(out)

    def _expr(self) -> Any:
        left = self._term()
        while self._peek() in ("PLUS", "MINUS"):
            op = self.toks[self.i]
            self.i += 1
            right = self._term()
            span = ast.Span(op[4], op[5], left.span.start, right.span.end)
            left = ast.BinOp(span, op[1], left, right, False, _depth(left, right))
        return left

    def _term(self) -> Any:
        left = self._unary()
        while self._peek() in ("STAR", "SLASH"):
            op = self.toks[self.i]
            self.i += 1
            right = self._unary()
            span = ast.Span(op[4], op[5], left.span.start, right.span.end)
            left = ast.BinOp(span, op[1], left, right, False, _depth(left, right))
        return left

    def _unary(self) -> Any:
        op = self.toks[self.i]
        if op[0] == "MINUS":
            self.i += 1
            operand = self._unary()
            return ast.Neg(
                ast.Span(op[4], op[5], op[2], operand.span.end), operand, _depth(operand)
            )
        left = self._postfix()
        while self._peek() == "NAME":  # juxtaposition: every later factor is indexed
            right = self._postfix()
            if not isinstance(right, ast.Indexed):
                raise _NotFast
            span = ast.Span(right.span.line, right.span.column, left.span.start, right.span.end)
            left = ast.BinOp(span, "*", left, right, True, _depth(left, right))
        return left

    def _postfix(self) -> Any:
        tok = self.toks[self.i]
        kind = tok[0]
        if kind == "NAME":
            self.i += 1
            if self._peek() == "LPAR":
                base: Any = self._call(tok)
            else:
                base = ast.Name(ast.Span(tok[4], tok[5], tok[2], tok[3]), tok[1])
            if self._peek() != "LSQB":
                return base
            self.i += 1
            indices = self._indices()
            close = self.toks[self.i - 1]
            span = ast.Span(base.span.line, base.span.column, base.span.start, close[3])
            return ast.Indexed(span, base, indices, _depth(base))
        if kind == "NUMBER":
            self.i += 1
            return self._number(tok)
        if kind == "LSQB":
            return self._list()
        if kind == "NUMLIST":
            self.i += 1
            return self._numlist(tok)
        if kind == "LPAR":
            self.i += 1
            inner = self._expr()
            close = self._take("RPAR")
            span = ast.Span(tok[4], tok[5], tok[2], close[3])
            return ast.Group(span, inner, _depth(inner))
        raise _NotFast

    def _call(self, name: tuple[str, str, int, int, int, int]) -> ast.Call:
        self.i += 1  # LPAR
        args = []
        if self._peek() != "RPAR":
            args.append(self._expr())
            while self._peek() == "COMMA":
                self.i += 1
                args.append(self._expr())
        close = self._take("RPAR")
        span = ast.Span(name[4], name[5], name[2], close[3])
        return ast.Call(span, name[1], tuple(args), _depth(*args))

    def _list(self) -> ast.ListLiteral:
        open_ = self._take("LSQB")
        items: list[Any] = []
        if self._peek() != "RSQB":
            while True:
                tok = self.toks[self.i]
                if tok[0] == "LSQB":
                    items.append(self._list())
                elif tok[0] == "NUMLIST":
                    self.i += 1
                    items.append(self._numlist(tok))
                elif tok[0] == "MINUS":
                    self.i += 1
                    num = self._number(self._take("NUMBER"))
                    span = ast.Span(tok[4], tok[5], tok[2], num.span.end)
                    items.append(ast.Number(span, -num.value))
                else:
                    items.append(self._number(self._take("NUMBER")))
                if self._peek() != "COMMA":
                    break
                self.i += 1
        close = self._take("RSQB")
        span = ast.Span(open_[4], open_[5], open_[2], close[3])
        return ast.ListLiteral(span, tuple(items), _depth(*items))

    def _numlist(self, tok: tuple[str, str, int, int, int, int]) -> ast.ListLiteral:
        node = self.lists.get(tok[2])
        return node if node is not None else _literal(tok[1], tok[4], tok[5], tok[2])

    @staticmethod
    def _number(tok: tuple[str, str, int, int, int, int]) -> ast.Number:
        value = float(tok[1])
        if value == float("inf"):
            raise _NotFast
        return ast.Number(ast.Span(tok[4], tok[5], tok[2], tok[3]), value)


def _fast_parse(source: str) -> tuple[ast.Statement, ...] | None:
    """The statements by :class:`_Fast`, or ``None`` when lark must parse ``source``."""
    try:
        return _Fast(source).program()
    except (_NotFast, EinSyntaxError, RecursionError):
        return None


# The pieces of a NUMLIST token (commas and blanks are skipped).
_NUMLIST_PART = re.compile(
    r"(?P<LSQB>\[)|(?P<RSQB>\])|(?P<MINUS>-)|(?P<NUMBER>(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)"
)


@cache
def _parser() -> Lark:
    return Lark(
        _GRAMMAR,
        parser="lalr",
        lexer="contextual",
        postlex=_NewlinePostLex(),
        transformer=_Build(),
        maybe_placeholders=True,
    )


def _end_position(source: str) -> tuple[int, int]:
    """Line and column just past the last non-blank character."""
    stripped = source.rstrip()
    line = stripped.count("\n") + 1
    column = len(stripped) - (stripped.rfind("\n") + 1) + 1
    return line, column


def _expected(names: Any, *, in_brackets: bool = False) -> str:
    skip = {"_NL"} if in_brackets else set()
    friendly = sorted(
        {_FRIENDLY.get(n, n) for n in names if not str(n).startswith("__") and n not in skip}
    )
    if not friendly:
        return ""
    if len(friendly) > 8:
        friendly = [*friendly[:8], "..."]
    return "; expected " + ", ".join(friendly)


_BRACKET_SCAN = re.compile(r"//[^\n]*|[()\[\]]")


def _unclosed_hint(source: str, pos: int) -> str:
    """Name the innermost bracket still open at ``pos`` (a common cause of errors)."""
    stack: list[int] = []
    for m in _BRACKET_SCAN.finditer(source, 0, pos):
        ch = m.group()
        if ch in "([":
            stack.append(m.start())
        elif ch in ")]" and stack:
            stack.pop()
    if not stack:
        return ""
    at = stack[-1]
    line = source.count("\n", 0, at) + 1
    column = at - (source.rfind("\n", 0, at) + 1) + 1
    return f" (inside `{source[at]}` opened at line {line}, column {column}; is it closed?)"


def _syntax_error(exc: UnexpectedInput, source: str) -> EinSyntaxError:
    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream
        ch = source[at] if at is not None and at < len(source) else ""
        msg = (
            f"unexpected character {ch!r}; Ein programs use names, numbers, "
            "+ - * / = , ( ) [ ], :print and // comments"
        )
        return EinSyntaxError(msg, line=exc.line, column=exc.column)
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        tok = exc.token
        shown = {"_NL": "end of line", "NUMLIST": "`[`"}.get(tok.type, f"`{tok}`")
        pos = tok.start_pos if tok.start_pos is not None else len(source)
        hint = _unclosed_hint(source, pos)
        msg = f"unexpected {shown}" + _expected(exc.expected, in_brackets=bool(hint)) + hint
        return EinSyntaxError(msg, line=tok.line, column=tok.column)
    expected = exc.expected if isinstance(exc, UnexpectedToken | UnexpectedEOF) else ()
    line, column = _end_position(source)
    hint = _unclosed_hint(source, len(source))
    msg = "unexpected end of program" + _expected(expected or (), in_brackets=bool(hint)) + hint
    return EinSyntaxError(msg, line=line, column=column)


def with_source(err: EinError, source: str) -> EinError:
    """Fill in the offending line's text from ``source`` if the error lacks it."""
    if err.line is not None and err.source_line is None:
        lines = source.split("\n")
        if 1 <= err.line <= len(lines):
            err.source_line = lines[err.line - 1].rstrip("\r")
    return err


def _check_size(source: str, limits: Limits) -> None:
    if len(source) > limits.max_source_chars:
        raise ResourceLimitError(
            f"program is {len(source)} characters long; the limit is "
            f"{limits.max_source_chars} (Limits.max_source_chars)",
            line=1,
            column=1,
        )
    n_lines = source.count("\n") + 1
    if n_lines > limits.max_lines:
        raise ResourceLimitError(
            f"program has {n_lines} lines; the limit is {limits.max_lines} (Limits.max_lines)",
            line=limits.max_lines + 1,
            column=1,
        )


def _label(node: ast.Expr, source: str) -> str:
    if isinstance(node, ast.Name):
        return node.name
    return " ".join(source[node.span.start : node.span.end].split())


def _max_depth(node: Any) -> int:
    return int(getattr(node, "depth", 1))


def parse(source: str, *, limits: Limits | None = None) -> ast.Program:
    """Parse Ein source text into a :class:`~closurebench.ein.ast.Program`.

    Args:
        source: The program text.
        limits: Caps on source length, line count and expression depth.

    Returns:
        The program with typed, located statements.

    Raises:
        EinSyntaxError: Unknown character, unexpected token, leftover input.
        ResourceLimitError: The source is too long or nested too deeply.

    Example:
        >>> parse("s = A[i,j] B[i,j]").statements[0].value.op
        '*'
    """
    limits = limits or DEFAULT_LIMITS
    if not isinstance(source, str):
        raise EinSyntaxError(
            f"program source must be a str, got {type(source).__name__}", line=1, column=1
        )
    _check_size(source, limits)
    try:
        statements = _fast_parse(source)
        if statements is None:
            # The transformer (_Build) turns the tree into the statement tuple.
            statements = cast(tuple[ast.Statement, ...] | None, _parser().parse(source))
    except UnexpectedInput as exc:
        raise with_source(_syntax_error(exc, source), source) from None
    except EinSyntaxError as exc:
        raise with_source(exc.locate(1, 1), source) from None
    if statements is None:
        statements = ()
    out: list[ast.Statement] = []
    for stmt in statements:
        if _max_depth(stmt.value) > limits.max_depth:
            raise with_source(
                ResourceLimitError(
                    f"expression is nested {_max_depth(stmt.value)} levels deep; the limit is "
                    f"{limits.max_depth} (Limits.max_depth) — split it into several assignments",
                    line=stmt.span.line,
                    column=stmt.span.column,
                ),
                source,
            )
        if isinstance(stmt, ast.Print):
            stmt = replace(stmt, label=_label(stmt.value, source))
        out.append(stmt)
    return ast.Program(tuple(out), source)
