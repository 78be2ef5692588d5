"""closurebench: constructive graph-reasoning benchmarks with proven answers.

The package implements two benchmark families — ClosureBench (26 closure-style
categories at three compositional levels) and GRIT (six graph tasks in many
scenarios) — together with Ein, the tensor-logic language whose programs compute
ClosureBench's reference answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the lazy public API, typed for checkers
    from closurebench.dataset import create_dataset, score_answer
    from closurebench.generate.closure import generate_split
    from closurebench.generate.io import load_instances

__version__ = "0.2.0"

__all__ = ["__version__", "create_dataset", "generate_split", "load_instances", "score_answer"]

# Public API, imported lazily so that ``import closurebench`` stays light.
_LAZY = {
    "create_dataset": "closurebench.dataset",
    "score_answer": "closurebench.dataset",
    "generate_split": "closurebench.generate.closure",
    "load_instances": "closurebench.generate.io",
}


def __dir__() -> list[str]:
    """The module's names plus the lazy public API, so ``dir(closurebench)`` lists it.

    Example:
        >>> import closurebench
        >>> {"create_dataset", "score_answer", "load_instances"} <= set(dir(closurebench))
        True
    """
    return sorted({*globals(), *_LAZY})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'closurebench' has no attribute {name!r}")
