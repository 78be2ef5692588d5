"""Robustness and correctness properties.

* Fuzz: random token soup and mutated valid programs only ever succeed or raise
  :class:`EinError` — never another exception, never an internal error — and finish
  quickly under small limits.
* Property: on random digraphs, Ein's ``tc``, ``reach``, ``desc`` and ``has_path``
  agree with networkx.
"""

from __future__ import annotations

import random
import time

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from closurebench.ein import EinError, EinInternalError, Limits, check, run
from closurebench.ein.builtins import BUILTINS
from closurebench.ein.examples import PAPER_PROGRAMS

LIMITS = Limits(max_elements=4_096, max_einsum_work=200_000, max_source_chars=4_000, max_lines=60)

SEEDS = [
    *(src for src, _ in PAPER_PROGRAMS.values()),
    "A = edges([[0,1],[1,2],[2,0]])\nB[i,k] = A[i,j] A[j,k]\ns = A[i,j] B[j,i]\n:print s",
    "A = edges([[0,1],[1,2]], 4)\nv[i] = A[i,j] ones(4)[j]\n:print argmax(v)\n:print v / 2",
    "M = [[1,2],[3,4]]\nT[j,i] = M[i,j]\n:print select(T, 1, 1)\n:print ge(M, 2) * -1",
    "A = edges([[0,1]])\n:print has_path(A, argmax(sum(A,1)), 1)\n:print mean(A, 0)",
    "x = (1 + 2) * 3 - 4 / 2\nv = vec([1,0,1], 3)\n:print diag(v)\n:print trace(eye(3))",
    "A = edges([[0,2],[2,1]])\nD = desc(A, 0)\nR = reach(A, 2)\n:print D - R\n:print min(D)",
    "Z = zeros(2, 3)\nO = ones(3)\nP[i] = Z[i,j] O[j]\n:print max(transpose(Z), 1)",
]

TOKENS = [
    *BUILTINS,
    *["A", "B", "C", "M", "T", "v", "x", "s", "i", "j", "k"],
    *["0", "1", "2", "3", "-1", "0.5", "1e3", "99", "4096", "1e308"],
    *["=", "+", "-", "*", "/", ",", "(", ")", "[", "]", ":print", "//", "\n", "\n"],
    "[[0,1],[1,2]]",
    "[]",
    "[[0,1,1],[1,0,1],[1,1,0]]",
    "A[i,j]",
    "B[j,k]",
    "ones(3)[j]",
    "$",
    "@",
    ";",
    "'",
    "\t",
    "é",
    "\r",
    ":",
    ".",
    "!",
]


def _soup(rng: random.Random) -> str:
    n = rng.randint(1, 30)
    return "".join(rng.choice(TOKENS) + rng.choice(["", " ", " ", "\n"]) for _ in range(n))


def _mutate(rng: random.Random, src: str) -> str:
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        pos = rng.randrange(len(src) + 1)
        if kind == 0 and src:  # delete a character
            src = src[: max(pos - 1, 0)] + src[pos:]
        elif kind == 1:  # insert a token
            src = src[:pos] + rng.choice(TOKENS) + src[pos:]
        elif kind == 2:  # insert a random character
            src = src[:pos] + chr(rng.randrange(32, 0x3000)) + src[pos:]
        elif kind == 3:  # duplicate or drop a line
            lines = src.split("\n")
            k = rng.randrange(len(lines))
            lines.insert(k, lines[k]) if rng.random() < 0.5 else lines.pop(k)
            src = "\n".join(lines)
        elif kind == 4:  # change a digit
            digits = [m for m, ch in enumerate(src) if ch.isdigit()]
            if digits:
                m = rng.choice(digits)
                src = src[:m] + rng.choice("0123456789") + src[m + 1 :]
        elif kind == 5:  # swap two characters
            if len(src) > 1:
                a, b = sorted(rng.sample(range(len(src)), 2))
                src = src[:a] + src[b] + src[a + 1 : b] + src[a] + src[b + 1 :]
        else:  # replace a name by another
            names = [t for t in TOKENS if t.isidentifier()]
            old, new = rng.choice(names), rng.choice(names)
            src = src.replace(old, new, 1)
    return src


def _exercise(src: str) -> str:
    """Run and check ``src``; return the outcome class name."""
    outcome = "ok"
    try:
        run(src, limits=LIMITS)
    except EinInternalError as err:  # a bug, not a user error
        raise AssertionError(f"internal error on {src!r}: {err}") from err
    except EinError as err:
        assert err.line is not None and err.column is not None, src
        str(err)  # rendering never fails
        outcome = type(err).__name__
    try:
        check(src, limits=LIMITS)
    except EinInternalError as err:
        raise AssertionError(f"internal error in check on {src!r}: {err}") from err
    except EinError:
        assert outcome != "ok", f"check rejects a program that runs: {src!r}"
    return outcome


def test_seed_programs_run() -> None:
    for src in SEEDS:
        run(src, limits=LIMITS)


def test_fuzz_token_soup_and_mutations() -> None:
    start = time.perf_counter()
    outcomes: dict[str, int] = {}
    for k in range(3_000):
        rng = random.Random(k)
        src = _soup(rng) if k % 3 == 0 else _mutate(rng, rng.choice(SEEDS))
        t0 = time.perf_counter()
        name = _exercise(src)
        assert time.perf_counter() - t0 < 2.0, f"slow case: {src!r}"
        outcomes[name] = outcomes.get(name, 0) + 1
    assert time.perf_counter() - start < 60
    # The corpus reaches both successes and a variety of error classes.
    assert outcomes.get("ok", 0) > 100
    assert len(outcomes) >= 6, outcomes


@st.composite
def digraphs(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    n = draw(st.integers(min_value=1, max_value=12))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    return n, draw(st.lists(pairs, max_size=3 * n))


@settings(max_examples=60, deadline=None)
@given(digraphs())
def test_closure_builtins_agree_with_networkx(graph: tuple[int, list[tuple[int, int]]]) -> None:
    n, edge_list = graph
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edge_list)
    lines = [f"A = edges({[list(e) for e in edge_list]}, {n})", ":print tc(A)"]
    lines += [f":print reach(A, {i})\n:print desc(A, {i})" for i in range(n)]
    lines += [f":print has_path(A, {i}, {j})" for i in range(n) for j in range(n)]
    printed = [v for _, v in run("\n".join(lines)).printed]
    tc, rest = printed[0], printed[1:]
    for i in range(n):
        descendants = nx.descendants(g, i)
        on_cycle = any(nx.has_path(g, s, i) for s in g.successors(i))
        want_tc = np.zeros(n)
        want_tc[list(descendants)] = 1
        if on_cycle:
            want_tc[i] = 1
        assert tc[i].tolist() == want_tc.tolist()
        want_desc = np.zeros(n)
        want_desc[list(descendants - {i})] = 1
        want_reach = want_desc.copy()
        want_reach[i] = 1
        assert rest[2 * i].tolist() == want_reach.tolist()
        assert rest[2 * i + 1].tolist() == want_desc.tolist()
    for k, v in enumerate(rest[2 * n :]):
        i, j = divmod(k, n)
        assert float(v) == float(nx.has_path(g, i, j))
