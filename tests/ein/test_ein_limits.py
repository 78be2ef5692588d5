"""Resource caps are checked before allocating or computing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from closurebench.ein import Limits, ResourceLimitError, run
from closurebench.errors import ConfigError

SMALL = Limits(max_elements=10_000, max_einsum_work=1_000_000)


def test_limits_validate_themselves() -> None:
    with pytest.raises(ConfigError):
        Limits(max_lines=0)
    with pytest.raises(ConfigError):
        Limits(max_depth=10_000)
    with pytest.raises(ConfigError):
        Limits(max_einsum_factors=100)


def test_source_length_and_line_caps() -> None:
    with pytest.raises(ResourceLimitError, match="characters"):
        run("x = 1" + " " * 100, limits=Limits(max_source_chars=50))
    with pytest.raises(ResourceLimitError, match="lines") as info:
        run("x = 1\n" * 20, limits=Limits(max_lines=10))
    assert info.value.line == 11


def test_nesting_depth_cap_instead_of_recursion() -> None:
    deep = "x = " + "(" * 5000 + "1" + ")" * 5000
    with pytest.raises(ResourceLimitError, match="nested"):
        run(deep)
    chain = "x = " + " + ".join(["1"] * 20_000)
    with pytest.raises(ResourceLimitError, match="nested"):
        run(chain)
    assert float(run("x = " + "(" * 50 + "1" + ")" * 50).value) == 1.0


@pytest.mark.parametrize(
    "src",
    [
        ":print ones(200, 200)",
        ":print zeros(100001)",
        ":print eye(101)",
        ":print edges([], 101)",
        ":print diag(ones(101))",
        ":print ones(200, 1) + ones(1, 200)",
        ":print ge(ones(200, 1), ones(1, 200))",
        "u = ones(200)\nO[i,j] = u[i] u[j]",
    ],
)
def test_element_and_work_caps(src: str) -> None:
    with pytest.raises(ResourceLimitError):
        run(src, limits=SMALL)


def test_einsum_work_cap() -> None:
    src = "M = ones(50, 50)\nC[i,k] = M[i,j] M[j,k]"
    assert run(src, limits=Limits(max_einsum_work=125_000)).value.shape == (50, 50)
    with pytest.raises(ResourceLimitError, match="multiply-adds"):
        run(src, limits=Limits(max_einsum_work=100_000))


def test_huge_requests_fail_fast_under_default_limits() -> None:
    """Refused before the work: no allocation near the request's size, no einsum run."""
    import tracemalloc

    calls: list[str] = []
    real_einsum = np.einsum

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(str(args[0]))
        return real_einsum(*args, **kwargs)

    for src in (
        ":print ones(100000, 100000)",
        ":print edges([[0, 99999999]])",
        "A = ones(3000, 3000)\nB[i,l] = A[i,j] A[j,k] A[k,l] A[l,i]",
    ):
        tracemalloc.start()
        try:
            with pytest.MonkeyPatch.context() as m:
                m.setattr(np, "einsum", counted)
                with pytest.raises(ResourceLimitError):
                    run(src)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < 200 * 2**20, (src, peak)  # 10^10 floats would be 80 GB; 3000^2 is 72 MB
        assert calls == [], (src, calls)  # the 4-factor product was refused, never run


def test_einsum_factor_cap() -> None:
    src = "v = ones(2)\ns = " + " ".join(["v[i]"] * 5)
    assert float(run(src).value) == 2.0
    with pytest.raises(ResourceLimitError, match="factors"):
        run(src, limits=Limits(max_einsum_factors=4))


def test_intermediate_cap_with_three_factors() -> None:
    # Output is small, but contracting u[i] v[j] first would need a 200x200 intermediate;
    # numpy's greedy order avoids it, and the replayed plan is checked either way.
    src = "u = ones(200)\nM = ones(200, 200)\ns = u[i] M[i,j] u[j]"
    assert float(run(src, limits=Limits(max_elements=40_000)).value) == 40_000.0
