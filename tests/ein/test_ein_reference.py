"""The syntax card is generated from the registry and stays prompt-sized."""

from __future__ import annotations

import re

from closurebench.ein import run
from closurebench.ein.builtins import BUILTINS
from closurebench.ein.card import builtin_lines, syntax_card


def test_every_builtin_appears_in_the_card() -> None:
    card = syntax_card()
    for name in BUILTINS:
        assert re.search(rf"(?<![A-Za-z_]){name}(?![A-Za-z_])", card), name


def test_card_length_is_about_600_tokens() -> None:
    card = syntax_card()
    assert 1_500 <= len(card) <= 4_000
    assert "SYNTAX:" in card and "BUILTINS:" in card and "RULES:" in card


def test_card_lines_come_from_docstrings() -> None:
    lines = "\n".join(builtin_lines())
    for b in BUILTINS.values():
        if b.group is None or b is next(m for m in BUILTINS.values() if m.group == b.group):
            assert b.summary in lines, b.name


def test_every_builtin_has_a_docstring_with_an_example() -> None:
    for b in BUILTINS.values():
        assert b.summary, b.name
        assert ">>>" in b.doc, b.name


def test_card_examples_run() -> None:
    src = """
A = edges([[0,1],[1,2]], 3)
B[i,k] = A[i,j] A[j,k]
T[j,i] = A[i,j]
M[i,j] = A[i,j] B[i,j]
v[i] = A[i,j] ones(3)[j]
s = A[i,j] B[i,j]
X = A * B + A - B / 2 - A
:print s
"""
    assert float(run(src).value) == 0.0
