"""Helpers shared by the L1 categories: Ein 0/1 vectors as node sets, drawing anchors."""

from __future__ import annotations

from typing import Any

import numpy as np

from closurebench import ein
from closurebench.errors import Resample, VerificationError

__all__ = ["draw", "ein_set", "not_node"]


def ein_set(result: ein.EinResult, n: int, category: str) -> list[int]:
    """The node ids ``i`` with ``value[i] == 1`` of an Ein 0/1 vector of length ``n``.

    Raises:
        VerificationError: if the printed value is not a 0/1 vector of length ``n``.

    Example:
        >>> r = ein.run("// doc\\nResult = vec([0, 1, 1], 3)\\n:print Result")
        >>> ein_set(r, 3, "doc")
        [1, 2]
    """
    value = np.asarray(result.value, dtype=float)
    if value.shape != (n,) or not np.isin(value, (0.0, 1.0)).all():
        raise VerificationError(
            f"{category}: the Ein program printed {value.tolist()!r}, "
            f"not a 0/1 vector of length {n}"
        )
    return [i for i in range(n) if value[i] == 1]


def not_node(n: int, x: int) -> str:
    """Ein expression for the 0/1 vector that is 1 everywhere except at node ``x``.

    Example:
        >>> not_node(4, 2)
        '(ones(4) - select(eye(4), 2, 0))'
    """
    return f"(ones({n}) - select(eye({n}), {x}, 0))"


def draw(g: np.random.Generator, candidates: list[Any], category: str, what: str) -> Any:
    """One of ``candidates`` drawn uniformly; none → :class:`~closurebench.errors.Resample`.

    Example:
        >>> from closurebench.seeding import rng
        >>> draw(rng(0, "doc"), [(1, 2)], "doc", "pair")
        (1, 2)
    """
    if not candidates:
        raise Resample(f"{category}: the drawn graph has no well-posed {what}")
    return candidates[int(g.integers(len(candidates)))]
