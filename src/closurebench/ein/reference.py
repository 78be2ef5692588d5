"""The Ein syntax card for prompts, generated from the builtin registry.

The card mirrors the paper's Appendix F reference (≈600 tokens): a fixed header
of statement syntax, one line per builtin (or group of builtins with the same
parameters) taken from each builtin's docstring, and the RULES. Because the
builtin lines come from the registry, the card cannot drift from the
implementation.

Example:
    >>> card = syntax_card()
    >>> card.splitlines()[0]
    'Ein is a minimal tensor-logic language for graph computation.'
    >>> "- tc(A) -- Strict transitive closure" in card
    True
"""

from __future__ import annotations

from closurebench.ein.builtins import BUILTINS, Builtin

__all__ = ["builtin_lines", "syntax_card"]

_HEADER = """\
Ein is a minimal tensor-logic language for graph computation.
Programs are lines run top to bottom; every value is a float64 scalar, vector or matrix
(booleans are 0/1). No loops, no recursion: every program terminates.

SYNTAX:
- // comment -- a whole line or the rest of a line
- A = edges([[0,1],[1,2]], N) -- assignment (here: adjacency matrix from an edge list)
- B[i,k] = A[i,j] A[j,k] -- Einstein summation: indices missing on the left are summed
- T[j,i] = A[i,j] -- the left index order fixes the output axes (a transpose)
- M[i,j] = A[i,j] B[i,j] -- elementwise product (no index summed)
- v[i] = A[i,j] ones(N)[j] -- a call result can carry indices too
- s = A[i,j] B[i,j] -- indexed factors with no left indices: sum of everything, a scalar
- X = A * B, A + B, A - B, A / 2, -A -- elementwise with broadcasting; / by 0 is an error
- :print Result -- output a value (the program's answer is the last value printed)"""

_RULES = """\
RULES:
- Start with a comment: // category_name
- Define A = edges(...) for the adjacency matrix; nodes are 0..N-1
- Node ids, positions and axes are integers: literals or scalars holding one
- Axis 0 runs down the columns, axis 1 across the rows; a reduction removes the axis
- Compute the answer using tensor operations; end with :print Result"""


def _group_line(members: list[Builtin]) -> str:
    first = members[0]
    names = "/".join(b.name for b in members)
    forms = [f.replace(first.name + "(", names + "(", 1) for f in first.forms()]
    if len(forms) > 1 and len(members) > 1:
        # "sum(T) / sum(T, d)" reads better than two full lines.
        tail = [f[len(names) :] for f in forms[1:]]
        shown = " / ".join([forms[0], *tail])
    else:
        shown = " / ".join(forms)
    return f"- {shown} -- {first.summary}"


def builtin_lines() -> list[str]:
    """One card line per builtin, or per group of builtins sharing parameters.

    Example:
        >>> [line for line in builtin_lines() if line.startswith("- ge/")][0][:32]
        '- ge/gt/eq/le/lt/ne(A, B) -- Ele'
    """
    lines: list[str] = []
    done: set[str] = set()
    for b in BUILTINS.values():
        if b.name in done:
            continue
        members = [b]
        if b.group is not None:
            members = [m for m in BUILTINS.values() if m.group == b.group]
        done.update(m.name for m in members)
        lines.append(_group_line(members))
    return lines


def syntax_card() -> str:
    """The complete Ein syntax card, ready to append to a system prompt."""
    return "\n".join([_HEADER, "", "BUILTINS:", *builtin_lines(), "", _RULES]) + "\n"
