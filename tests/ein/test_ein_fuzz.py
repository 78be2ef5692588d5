"""Robustness and correctness properties.

* Fuzz: :data:`FUZZ_COUNT` programs (2,000; ``CLOSUREBENCH_FUZZ_SCALE=10`` runs the
  2 x 10**4 of earlier versions, see ``tests/fuzz_scale.py``), generated
  deterministically (one ``random.Random(k)`` per program, no module-level randomness):
  random token soup; mutations of valid programs (the paper's examples, this file's
  seeds and the oracle programs of generated ClosureBench records); random well-formed
  programs over every builtin; huge and odd literals in every size, index and axis
  position; deep nesting; huge shapes; and many prints. Each only ever succeeds or
  raises a documented :class:`EinError` subclass —
  never another exception, never an internal error, never a wrapped ``RecursionError``
  or ``MemoryError`` — every error is located, and a successful run's output (the
  ``label = value`` lines) is no longer than its counted ``output_bytes``, which stays
  within :attr:`Limits.max_output_bytes`. Tight limits keep each program fast. Every
  required outcome is reached within the first 500 programs, and about a fifth succeed.
  ``benchmarks/bench_ein_fuzz.py`` runs the same corpus at any size and prints counts.
* Property: on random digraphs, Ein's ``tc``, ``reach``, ``desc`` and ``has_path``
  agree with networkx.
"""

from __future__ import annotations

import functools
import json
import random

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from closurebench import ein
from closurebench.ein import EinError, EinInternalError, Limits, check, run
from closurebench.ein.builtins import BUILTINS
from closurebench.ein.examples import MULTI_QUERY, PAPER_PROGRAMS, TRIANGLE_COUNT
from closurebench.ein.values import format_value
from fuzz_scale import fuzz_count

LIMITS = Limits(
    max_elements=4_096,
    max_einsum_work=200_000,
    max_source_chars=4_000,
    max_lines=60,
    max_live_bytes=2**20,
    max_output_bytes=4_096,
    max_seconds=5.0,
)
#: Programs 0 .. FUZZ_COUNT - 1 run in the test (2,000 times ``CLOSUREBENCH_FUZZ_SCALE``).
FUZZ_COUNT = fuzz_count(2_000)

SEEDS = [
    *(src for src, _ in PAPER_PROGRAMS.values()),
    TRIANGLE_COUNT,
    MULTI_QUERY,
    "A = edges([[0,1],[1,2],[2,0]])\nB[i,k] = A[i,j] A[j,k]\ns = A[i,j] B[j,i]\n:print s",
    "A = edges([[0,1],[1,2]], 4)\nv[i] = A[i,j] ones(4)[j]\n:print argmax(v)\n:print v / 2",
    "M = [[1,2],[3,4]]\nT[j,i] = M[i,j]\n:print select(T, 1, 1)\n:print ge(M, 2) * -1",
    "A = edges([[0,1]])\n:print has_path(A, argmax(sum(A,1)), 1)\n:print mean(A, 0)",
    "x = (1 + 2) * 3 - 4 / 2\nv = vec([1,0,1], 3)\n:print diag(v)\n:print trace(eye(3))",
    "A = edges([[0,2],[2,1]])\nD = desc(A, 0)\nR = reach(A, 2)\n:print D - R\n:print min(D)",
    "Z = zeros(2, 3)\nO = ones(3)\nP[i] = Z[i,j] O[j]\n:print max(transpose(Z), 1)",
    "n = sum(ones(3))\nA = ones(n, n)\nB = eye(n) * 2\n:print A - B\n:print lt(A, B)",
]

# Odd numbers for size, index and axis positions: huge, tiny, negative, fractional,
# just past the caps, past float64 (a syntax error) and integers float64 cannot hold.
ODD_NUMBERS = [
    "0", "1", "2", "-1", "0.5", "2.5", "63", "64", "65", "4096", "4097", "10000000",
    "10000001", "1e7", "1e12", "1e16", "1e30", "1e300", "1e308", "-1e308", "1.7976931348623157e308",
    "1e309", "1e-308", "5e-324", "9007199254740993", "18446744073709551616", "9" * 400,
    "0.0000001", "-0", "-0.0", "1e+308", "1E308", "(1e308)", "(0-1e308)", "1e308 * 10",
    "1e308 / 1e-308", "sum(ones(3)) * 1e300", "-sum(ones(2))", "sum(ones(2)) / 3",
]  # fmt: skip

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
    "\x00",
    "\ufeff",
    "1e309",
    "9" * 40,
]


@functools.cache
def oracle_programs() -> tuple[str, ...]:
    """The Ein programs of one generated record per ClosureBench category (deterministic)."""
    from closurebench.generate.closure import ClosureConfig, generate_records
    from closurebench.tasks.closure import CLOSURE_TASKS

    config = ClosureConfig(count=len(CLOSURE_TASKS), categories=tuple(CLOSURE_TASKS))
    return tuple(rec.programs["ein"] for rec in generate_records(config))


def _soup(rng: random.Random) -> str:
    n = rng.randint(1, 30)
    return "".join(rng.choice(TOKENS) + rng.choice(["", " ", " ", "\n"]) for _ in range(n))


def _mutate(rng: random.Random, src: str) -> str:
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(9)
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
        elif kind == 6:  # replace a number by an odd one
            spans = [(m, m + 1) for m, ch in enumerate(src) if ch.isdigit()]
            if spans:
                a, _ = rng.choice(spans)
                b = a
                while b < len(src) and (src[b].isdigit() or src[b] in ".e"):
                    b += 1
                src = src[:a] + rng.choice(ODD_NUMBERS) + src[b:]
        elif kind == 7:  # print something more
            src += f"\n:print {rng.choice(_names(src) or ['1'])}"
        else:  # replace a name by another
            names = [t for t in TOKENS if t.isidentifier()]
            old, new = rng.choice(names), rng.choice(names)
            src = src.replace(old, new, 1)
    return src


def _names(src: str) -> list[str]:
    return sorted({line.split("=")[0].split("[")[0].strip() for line in src.split("\n")} - {""})


def _number(rng: random.Random) -> str:
    return rng.choice(ODD_NUMBERS) if rng.random() < 0.3 else str(rng.randint(0, 6))


def _expr(rng: random.Random, names: list[str], depth: int = 0) -> str:
    """A random expression over ``names`` (often ill-typed: that is the point)."""
    roll = rng.random()
    if depth > 3 or roll < 0.2:
        if names and rng.random() < 0.7:
            return rng.choice(names)
        return _number(rng)
    if roll < 0.3:
        rows = [[rng.randint(0, 4) for _ in range(rng.choice((2, 2, 3)))] for _ in range(3)]
        return json.dumps(rows if rng.random() < 0.7 else rows[0])
    if roll < 0.45:
        op = rng.choice("+-*/")
        return f"{_expr(rng, names, depth + 1)} {op} {_expr(rng, names, depth + 1)}"
    if roll < 0.5:
        return f"-({_expr(rng, names, depth + 1)})"
    b = rng.choice(list(BUILTINS.values()))
    lo, hi = b.arity()
    args = []
    for p in b.params[: rng.randint(max(lo - 1, 0), hi + (rng.random() < 0.05))]:
        args.append(_number(rng) if p.kind != "tensor" else _expr(rng, names, depth + 1))
    return f"{b.name}({', '.join(args)})"


EINSUM_FORMS = [
    "[i,j] = {a}[i,k] {b}[k,j]",
    "[i] = {a}[i,j] {b}[j]",
    " = {a}[i] {b}[i]",
    "[j,i] = {a}[i,j]",
    "[i] = {a}[i,i]",
    "[i,j] = {a}[i] {b}[j]",
]


def _random_program(rng: random.Random) -> str:
    """A random, mostly well-formed program: assignments, einsums and prints."""
    names: list[str] = []
    lines: list[str] = []
    for _ in range(rng.randint(1, 8)):
        roll = rng.random()
        if roll < 0.2 and names:
            a, b = rng.choice(names), rng.choice(names)
            ix = rng.choice(EINSUM_FORMS)
            target = f"E{len(lines)}"
            lines.append(target + ix.format(a=a, b=b))
            names.append(target)
        elif roll < 0.4:
            lines.append(f":print {_expr(rng, names)}")
        else:
            target = rng.choice(["A", "B", "C", "M", "v", "x", f"N{len(lines)}"])
            lines.append(f"{target} = {_expr(rng, names)}")
            names.append(target)
    return "\n".join(lines)


def _huge_literal(rng: random.Random) -> str:
    """A size, node id, position or axis that is huge, negative, fractional or odd."""
    n = rng.choice(ODD_NUMBERS)
    m = rng.choice(ODD_NUMBERS)
    return rng.choice(
        [
            f"X = ones({n})", f"X = zeros({n}, {m})", f"X = ones({n}, 0)", f"X = zeros(0, {n})",
            f"X = eye({n})", f"X = vec([1, 0], {n})", f"X = edges([], {n})",
            f"X = edges([[0, {n}]])", f"X = edges([[{n}, 1]], {m})", f"X = edges([[0,1]], {n})",
            f"A = eye(3)\nX = reach(A, {n})", f"A = eye(3)\nX = desc(A, {n})",
            f"A = eye(3)\nX = has_path(A, {n}, {m})", f"A = eye(3)\nX = select(A, {n}, {m})",
            f"A = eye(3)\nX = sum(A, {n})", f"A = eye(3)\nX = max(A, {n})",
            f"X = mean(ones(3), {n})", f"X = {n}", f"X = [{n}, {m}]", f"X = [[{n}], [{m}]]",
            f"X[i] = ones({n})[i]", f"X = {n} * {m}", f"X = {n} / {m}", f"X = {n} - {m}",
            f"N = {n}\nX = ones(N)\n:print X", f"N = sum(ones(2)) * {n}\nX = eye(N)",
            f"N = {n}\nX = ones(N, N)\n:print sum(X)", f"X = ge(ones({n}), {m})",
        ]
    )  # fmt: skip


def _deep(rng: random.Random) -> str:
    """Deep nesting of every kind, around and past Limits.max_depth."""
    d = rng.choice([10, 50, 98, 99, 100, 101, 150, 500, 1_000, 1_900])
    return rng.choice(
        [
            "x = " + "(" * d + "1" + ")" * d,
            "x = " + "-" * d + "1",
            "x = " + "sum(" * d + "1" + ")" * d,
            "x = " + "[" * d + "1" + "]" * d,
            "x = " + " + ".join(["1"] * d),
            "x = " + " * ".join(["2"] * d),
            "x = 1" + "\nx = x + 1" * min(d, 58),
            "x = " + "(" * d + "1",
            "x = 1" + ")" * d,
            "A = eye(2)\nx = " + "transpose(" * d + "A" + ")" * d,
            "A = eye(2)\nx" + "".join(" A[i,j]" for _ in range(min(d, 30))),
            "A = eye(2)\nB[i,j] = " + " ".join(f"A[i,{c}]" for c in "abcdefghklmnopqrstuvwxyz"),
        ]
    )  # fmt: skip


def _huge_shape(rng: random.Random) -> str:
    """Shapes and work around and past the element, einsum and live-bytes caps."""
    n = rng.choice([1, 8, 63, 64, 65, 100, 1_000, 4_096, 4_097, 10**5, 10**7])
    return rng.choice(
        [
            f"A = ones({n})\nB[i,j] = A[i] A[j]\n:print sum(B)",
            f"A = ones({n}, 1)\nB = transpose(A)\nC = A + B\n:print sum(C)",
            f"A = ones({n})\nB = diag(A)\n:print trace(B)",
            f"A = eye({n})\nT = tc(A)\n:print sum(T)",
            f"v = ones({n})\nA = edges([[0, {n} - 1]], {n})\n:print sum(reach(A, 0))",
            f"A = ones(64, 64)\nB[i,k] = A[i,j] A[j,k] / {n}\n:print sum(B)",
            f"A = ones({n}, 64)\nB[i,k] = A[i,j] A[k,j]\n:print B",
            "A = ones(64, 64)\n" + "".join(f"B{k} = A + {k}\n" for k in range(rng.randint(1, 40))),
            f"A = ones(8, 8)\nB[a,b,c,d] = A[a,b] A[c,d] ones({n})[a]\n:print sum(B)",
            f"x = ge(ones({n}, 1), ones(1, {n}))\n:print sum(x)",
        ]
    )  # fmt: skip


def _many_prints(rng: random.Random) -> str:
    """Many prints, small and large, around Limits.max_output_bytes."""
    k = rng.randint(1, 58)
    n = rng.choice([0, 1, 10, 64, 100, 1_000, 4_096])
    value = rng.choice(
        [f"ones({n})", f"ones({n}) / 3", f"eye({min(n, 64)})", "A", f"zeros({n}, 0)",
         f"ones({n}) * -1e300", f"ones({n}) * 1e-300", "x"]
    )  # fmt: skip
    head = f"A = ones({n})\nx = sum(A) / 7\n"
    return head + "".join(f":print {value}\n" for _ in range(k))


def fuzz_program(k: int) -> str:
    """The ``k``-th fuzz program (a pure function of ``k``)."""
    rng = random.Random(k)
    kind = k % 8
    if kind == 0:
        return _soup(rng)
    if kind in (1, 2):
        seeds = SEEDS if kind == 1 else oracle_programs()
        return _mutate(rng, rng.choice(seeds))
    if kind == 3:
        return _random_program(rng)
    if kind == 4:
        return _huge_literal(rng)
    if kind == 5:
        return _deep(rng)
    if kind == 6:
        return _huge_shape(rng)
    return _many_prints(rng)


def exercise(src: str, limits: Limits = LIMITS) -> str:
    """Run and check ``src``; return the outcome (``ok`` or the EinError class name).

    Raises:
        AssertionError: Anything but a located, documented EinError; a wrapped
            RecursionError or MemoryError; a run whose output passes its count.
    """
    outcome = "ok"
    try:
        result = run(src, limits=limits)
    except EinInternalError as err:  # a bug, not a user error
        raise AssertionError(f"internal error on {src!r}: {err}") from err
    except EinError as err:
        assert type(err).__name__ in ein.__all__, f"undocumented {type(err)} on {src!r}"
        assert err.line is not None and err.column is not None, src
        assert "out of resources" not in err.message, f"{err.message} on {src!r}"
        text = str(err)  # rendering never fails
        assert len(text) < 2_000, f"message of {len(text)} characters on {src!r}"
        outcome = type(err).__name__
    else:
        shown = result.printed or [(result.label, result.value)]
        size = sum(len(f"{label} = {format_value(v)}\n".encode()) for label, v in shown)
        assert size <= result.output_bytes <= limits.max_output_bytes, src
        json.dumps(ein.to_json_value(result.value), allow_nan=False)
    try:
        check(src, limits=limits)
    except EinInternalError as err:
        raise AssertionError(f"internal error in check on {src!r}: {err}") from err
    except EinError as err:
        assert "out of resources" not in err.message, f"{err.message} in check on {src!r}"
        assert outcome != "ok", f"check rejects a program that runs: {src!r}"
    return outcome


def test_seed_programs_run() -> None:
    for src in (*SEEDS, *oracle_programs()):
        run(src, limits=LIMITS)


def test_fuzz_corpus_is_deterministic() -> None:
    assert [fuzz_program(k) for k in range(0, 400, 7)] == [
        fuzz_program(k) for k in range(0, 400, 7)
    ]


def test_fuzz_programs_raise_only_documented_errors() -> None:
    outcomes: dict[str, int] = {}
    for k in range(FUZZ_COUNT):
        name = exercise(fuzz_program(k))
        outcomes[name] = outcomes.get(name, 0) + 1
    # The corpus reaches successes (over 1 in 20 programs) and every kind of failure the
    # limits guard.
    assert outcomes.get("ok", 0) > FUZZ_COUNT // 20, outcomes
    for name in (
        "EinSyntaxError",
        "ShapeError",
        "ArgumentError",
        "NonIntegerIndexError",
        "IndexOutOfRangeError",
        "ResourceLimitError",
        "EinOutputLimitError",
        "EinBudgetError",
        "UnknownNameError",
        "ArityError",
        "DivisionByZeroError",
        "EinRuntimeError",
    ):
        assert outcomes.get(name, 0) > 0, (name, outcomes)


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
