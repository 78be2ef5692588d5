"""The Ein syntax cards for prompts: ours, generated from the builtin registry, and the paper's.

Two cards, the texts of ``closurebench eval --mode program-ein --ein-card ours|paper``
(:data:`EIN_CARDS`, :func:`ein_card`):

* ``ours`` (:func:`syntax_card`, the default): mirrors the paper's Appendix F reference
  in form: a fixed header of statement syntax, one line per builtin (or group of
  builtins with the same parameters) taken from each builtin's docstring, and the
  RULES. Because the builtin lines come from the registry, the card cannot drift from
  the implementation; it is longer than the paper's because it names every builtin and
  the conventions (axes, integer positions) a program needs.
* ``paper`` (:data:`PAPER_CARD`): the paper's own card (ClosureBench App. F, "System
  prompt (Ein code-gen mode)"), verbatim but for the spaces and line breaks the
  published text lost. Some of its lines read differently under this interpreter
  (``closurebench.ein.examples.PAPER_CARD_CHECKS``; the Ein reference page lists them).

``closurebench ein card [--card paper] [--tokens]`` prints a card or the cards' sizes
(:func:`closurebench.ein.tokens.count_tokens`).

Example:
    >>> card = syntax_card()
    >>> card.splitlines()[0]
    'Ein is a minimal tensor-logic language for graph computation.'
    >>> "- tc(A) -- Strict transitive closure" in card
    True
    >>> ein_card("paper").splitlines()[-1]
    '- End with :print Result'
    >>> ein_card("ours") == syntax_card()
    True
"""

from __future__ import annotations

from collections.abc import Callable

from closurebench.ein.builtins import BUILTINS, Builtin
from closurebench.errors import ConfigError

__all__ = ["EIN_CARDS", "PAPER_CARD", "builtin_lines", "ein_card", "syntax_card"]

#: The paper's Ein syntax card (ClosureBench App. F, "System prompt (Ein code-gen
#: mode)"): its words and symbols verbatim; the spaces, lost when the paper's text was
#: extracted, restored, with a blank line before each heading.
PAPER_CARD = """\
Ein is a minimal tensor-logic language for graph computation.
Programs operate on adjacency matrices and produce scalar or vector results.

SYNTAX:
- A = edges([[0,1],[1,2]], N) -- adjacency matrix from edge list, N nodes
- B[i,k] = A[i,j] A[j,k] -- Einstein summation (repeated indices summed)
- Result = trace(A) -- trace (sum of diagonal)
- Result = sum(A) / sum(A, 1) -- sum all / along axis
- Result = tc(A) -- transitive closure (reachability matrix)
- Result = reach(A, i) -- nodes reachable from i, INCLUDING i
- Result = desc(A, i) -- descendants of i, EXCLUDING i
- Result = has_path(A, i, j) -- 1.0 if path exists, else 0.0
- Result = select(V, i, d) -- select element i along dim d
- Result = ge/gt/eq(A, x) -- comparison predicates (return 0/1)
- U = ones(N) / zeros(N) -- constructors
- X = A * B / A + B / A - B -- elementwise ops
- :print Result -- output (MUST be last line)

RULES:
- Start with comment: // category_name
- Define A = edges(...) for the adjacency matrix
- Compute answer using tensor operations
- End with :print Result
"""

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


#: The cards a prompt can carry: name -> a function giving its text (``--ein-card``).
EIN_CARDS: dict[str, Callable[[], str]] = {
    "ours": syntax_card,
    "paper": lambda: PAPER_CARD,
}


def ein_card(name: str = "ours", where: str = "--ein-card") -> str:
    """The text of the Ein card ``name`` (one of :data:`EIN_CARDS`).

    Args:
        name: ``"ours"`` (:func:`syntax_card`) or ``"paper"`` (:data:`PAPER_CARD`).
        where: How the caller's user named the choice, for the error message.

    Raises:
        ConfigError: for an unknown name, naming it and the choices.

    Example:
        >>> ein_card("appendix")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --ein-card 'appendix' is unknown; choose one of \
ours, paper
    """
    make = EIN_CARDS.get(name)
    if make is None:
        raise ConfigError(f"{where} {name!r} is unknown; choose one of {', '.join(EIN_CARDS)}")
    return make()
