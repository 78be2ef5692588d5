"""The parser's fast path and lark agree: same AST, or the fast path declines.

``parse`` tries a hand-written recursive-descent reader first (for speed on large
edge-list literals) and falls back to lark for anything unusual, so every error still
comes from lark. This differential test guards that the two never disagree on an
accepted program.
"""

from __future__ import annotations

import random
from typing import cast

from test_ein_fuzz import SEEDS, _mutate, _soup

from closurebench.ein.ast import Statement
from closurebench.ein.examples import PAPER_PROGRAMS
from closurebench.ein.parser import _fast_parse, _parser
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import sample_verified


def _corpus() -> list[str]:
    programs = [src for src, _ in PAPER_PROGRAMS.values()] + list(SEEDS)
    for name, task in CLOSURE_TASKS.items():
        for k in range(3):
            v = sample_verified(task, 0, ("parser-paths", name, k), n=6 + k, density=0.3)
            programs.append(v.programs["ein"])
    r = random.Random(20261130)
    base = list(programs)
    for _ in range(3000):
        programs.append(_mutate(r, r.choice(base)) if r.random() < 0.7 else _soup(r))
    return programs


def test_fast_path_matches_lark() -> None:
    accepted = declined = 0
    for src in _corpus():
        fast = _fast_parse(src)
        try:
            # lark types parse as returning a Tree; with the transformer it gives statements.
            slow = cast("tuple[Statement, ...] | None", _parser().parse(src))
        except Exception:  # lark (or the tree builder) rejects: the fast path must decline
            assert fast is None, f"fast path accepted a program lark rejects:\n{src}"
            declined += 1
            continue
        if fast is not None:
            assert tuple(fast) == tuple(slow or ()), f"ASTs differ for:\n{src}"
            accepted += 1
    # The fast path must actually be exercised on well-formed programs.
    assert accepted > 80 and declined > 100
