"""Large graphs: every category is well posed at n = 100, and error messages stay short.

At n = 100 and the default densities (ρ 0.1..0.5) ``G(n, ρ)`` is strongly connected, so
the categories that need unreachable pairs draw a graph with a planted block order
(:func:`~closurebench.tasks.closure.sampling.reach_digraph`); the default knobs
(n 4..10) never do, so their output is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from closurebench.errors import MESSAGE_LIMIT, Resample, VerificationError, shorten
from closurebench.generate.closure import ClosureConfig, generate_instance
from closurebench.graphs import Graph, has_path
from closurebench.seeding import rng
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import TESTED_MAX_N, ClosureStructure, ClosureTask, verify
from closurebench.tasks.closure.sampling import (
    block_digraph,
    digraph,
    mostly_strongly_connected,
    reach_digraph,
)


@pytest.mark.slow
@pytest.mark.parametrize("category", list(CLOSURE_TASKS))
def test_every_category_generates_at_the_tested_n(category: str) -> None:
    n = TESTED_MAX_N
    config = ClosureConfig(split="heldout", seed=0, categories=(category,), n_min=n, n_max=n)
    # Indices 0 and 1: a balanced boolean category needs both answers.
    for index in (0, 1):
        record = generate_instance(config, category, index)
        assert record.n == n
        assert record.answer is not None


def test_default_knobs_never_take_the_block_draw() -> None:
    # Byte-identical output for the default n range rests on this.
    for n in range(4, 11):
        for rho in np.linspace(0.0001, 0.5, 200):
            assert not mostly_strongly_connected(n, float(rho))
            assert _draw(reach_digraph, n, float(rho)) == _draw(digraph, n, float(rho))


def _draw(sampler: Callable[[np.random.Generator, int, float], Graph], n: int, rho: float) -> Any:
    try:
        return sampler(rng(n, str(rho), "same"), n, rho)
    except Resample as exc:
        return str(exc)


def test_large_dense_graphs_take_the_block_draw() -> None:
    assert mostly_strongly_connected(100, 0.1)
    assert mostly_strongly_connected(30, 0.5)
    assert not mostly_strongly_connected(30, 0.1)
    assert _draw(reach_digraph, 30, 0.5) != _draw(digraph, 30, 0.5)


def test_small_graphs_stay_plain_at_any_density() -> None:
    # n <= 10 regenerates byte for byte, even where G(n, ρ) is strongly connected.
    assert mostly_strongly_connected(10, 0.95)
    for n in range(4, 11):
        for rho in (0.6, 0.8, 1.0):
            assert _draw(reach_digraph, n, rho) == _draw(digraph, n, rho)


def test_block_digraph_has_unreachable_pairs_and_no_trace_of_order() -> None:
    zero_reaches_all = []
    for k in range(20):
        g = block_digraph(rng(k, "block"), 60, 0.4)
        assert g.n == 60 and g.m > 0
        assert not all(has_path(g, u, v) for u in range(60) for v in range(60) if u != v)
        zero_reaches_all.append(all(has_path(g, 0, v) for v in range(1, 60)))
    # The order is shuffled: node 0 is sometimes in the source block, sometimes not.
    assert any(zero_reaches_all) and not all(zero_reaches_all)


def test_block_digraph_tiny_n() -> None:
    # n = 2 caps the blocks at 2 (one cut), never fails on the cut draw.
    for k in range(20):
        try:
            g = block_digraph(rng(k, "tiny"), 2, 1.0)
        except Resample as exc:  # only "no edges" may happen
            assert "no edges" in str(exc)
        else:
            assert g.m == 1


class _Broken(ClosureTask):
    """A category whose Python route disagrees with the others (a bug)."""

    name = "reach_then_count"
    level = 2
    result_type = CLOSURE_TASKS["reach_then_count"].result_type
    template = "?"

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        raise NotImplementedError

    def solve(self, s: ClosureStructure) -> int:
        return 1

    def ein_program(self, s: ClosureStructure) -> str:
        return "// broken\n" + "A = 1\n" * 2_000 + "Result = 1\n:print Result\n"

    def python_program(self, s: ClosureStructure) -> str:
        return "import json\n" + "x = 1\n" * 50_000 + "print(json.dumps(2))\n"


def test_a_disagreement_on_a_large_graph_gives_a_short_message() -> None:
    n = 300
    edges = tuple((u, v) for u in range(n) for v in range(n) if u != v)[:20_000]
    s = ClosureStructure("reach_then_count", Graph(n, edges), (("X", 0),))
    with pytest.raises(VerificationError) as info:
        verify(_Broken(), s)
    message = str(info.value)
    assert "routes disagree" in message
    assert len(message) < 6 * MESSAGE_LIMIT
    assert "\n" not in message


def test_an_ein_failure_quotes_a_short_one_line_program() -> None:
    class _BadEin(_Broken):
        def ein_program(self, s: ClosureStructure) -> str:
            return "// bad\nA = edges([" + ",".join(["[0,1]"] * 50_000) + "], 2)\n:print B\n"

    s = ClosureStructure("reach_then_count", Graph(2, ((0, 1),)), (("X", 0),))
    with pytest.raises(VerificationError) as info:
        verify(_BadEin(), s)
    message = str(info.value)
    assert "the Ein program failed" in message
    assert "characters omitted" in message
    assert len(message) < 4 * MESSAGE_LIMIT
    assert "\n" not in message


def test_shorten_keeps_head_and_tail() -> None:
    text = "head" + "x" * 10_000 + "tail"
    short = shorten(text, 100)
    assert short.startswith("head") and short.endswith("tail")
    assert "10000 characters omitted" not in short and "characters omitted" in short
    assert len(short) < 150
    assert shorten("abc", 100) == "abc"


def test_set_intersect_pairs_by_matrix_product_match_the_definition() -> None:
    # The sampler's one-product pair list equals the per-pair definition, in order.
    from closurebench.tasks.closure.l1.set_intersect import _intersect, _pairs
    from closurebench.tasks.closure.sampling import desc_matrix, reach_digraph

    for k in range(30):
        g = rng(0, "test-set-intersect-pairs", k)
        n = int(g.integers(2, 40))
        d = desc_matrix(reach_digraph(g, n, float(g.uniform(0.05, 0.5))))
        slow = [(x, y) for x in range(n) for y in range(n) if x != y and _intersect(d, x, y)]
        assert _pairs(d) == slow, k
