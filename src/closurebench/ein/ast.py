"""Typed abstract syntax tree of Ein programs.

Every node carries a :class:`Span`: the 1-based ``line`` and ``column`` where an
error about the node should point (an operator's symbol, a call's name, a
name's first letter) and the ``start``/``end`` character offsets of the whole
node in the source, used to recover its text (e.g. the label of ``:print expr``).

Example:
    >>> from closurebench.ein.parser import parse
    >>> prog = parse("B[i,k] = A[i,j] A[j,k]")
    >>> stmt = prog.statements[0]
    >>> type(stmt).__name__, stmt.target, [ix.name for ix in stmt.indices]
    ('EinsumAssign', 'B', ['i', 'k'])
    >>> prog.text(stmt.value)
    'A[i,j] A[j,k]'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Assign",
    "BinOp",
    "Call",
    "EinsumAssign",
    "Expr",
    "Group",
    "Index",
    "Indexed",
    "ListLiteral",
    "Name",
    "Neg",
    "Number",
    "Print",
    "Program",
    "Span",
    "Statement",
]


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node is: caret position (line, column) and source offsets [start, end)."""

    line: int
    column: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Number:
    """A numeric literal such as ``3`` or ``6.0``."""

    span: Span
    value: float
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Name:
    """A reference to an assigned tensor."""

    span: Span
    name: str
    depth: int = 1


@dataclass(frozen=True, slots=True)
class ListLiteral:
    """A list literal ``[1, 0, 1]`` or ``[[0,1],[1,2]]``; items are numbers or lists."""

    span: Span
    items: tuple[Number | ListLiteral, ...]
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Call:
    """A builtin call ``func(arg, ...)``; the span's caret is on the function name."""

    span: Span
    func: str
    args: tuple[Expr, ...]
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Index:
    """One index name in an index list, e.g. the ``j`` of ``A[i,j]``."""

    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class Indexed:
    """An einsum factor: a name or call result with an index list, ``A[i,j]``, ``ones(3)[j]``."""

    span: Span
    base: Name | Call
    indices: tuple[Index, ...]
    depth: int = 1


@dataclass(frozen=True, slots=True)
class BinOp:
    """``left op right`` for op in ``+ - * /``; juxtaposition ``A[i,j] B[j,k]`` is ``*``.

    Attributes:
        implicit: True for juxtaposition (no ``*`` written).
    """

    span: Span
    op: str
    left: Expr
    right: Expr
    implicit: bool = False
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Neg:
    """Unary minus."""

    span: Span
    operand: Expr
    depth: int = 1


@dataclass(frozen=True, slots=True)
class Group:
    """A parenthesised expression; transparent for evaluation, kept for exact spans."""

    span: Span
    inner: Expr
    depth: int = 1


Expr = Number | Name | ListLiteral | Call | Indexed | BinOp | Neg | Group


@dataclass(frozen=True, slots=True)
class Assign:
    """``Name = expr``; an einsum product on the right with no left indices is a scalar."""

    span: Span
    target: str
    value: Expr


@dataclass(frozen=True, slots=True)
class EinsumAssign:
    """``Name[i,j] = <product of indexed factors and constants>``."""

    span: Span
    target: str
    indices: tuple[Index, ...]
    value: Expr


@dataclass(frozen=True, slots=True)
class Print:
    """``:print expr``; ``label`` is the name, or the expression's source text."""

    span: Span
    value: Expr
    label: str


Statement = Assign | EinsumAssign | Print


@dataclass(frozen=True, slots=True)
class Program:
    """A parsed program: its statements and the source text they came from."""

    statements: tuple[Statement, ...]
    source: str

    def line_text(self, line: int) -> str | None:
        """The text of 1-based ``line``, or ``None`` when out of range."""
        # Split on "\n" only, exactly as the lexer counts lines.
        lines = self.source.split("\n")
        return lines[line - 1].rstrip("\r") if 1 <= line <= len(lines) else None

    def text(self, node: Expr) -> str:
        """The exact source text of an expression node."""
        return self.source[node.span.start : node.span.end]
