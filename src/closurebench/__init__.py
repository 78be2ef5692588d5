"""closurebench: constructive graph-reasoning benchmarks with proven answers.

The package implements two benchmark families — ClosureBench (26 closure-style
categories at three compositional levels) and GRIT (six graph tasks in many
scenarios) — together with Ein, the tensor-logic language whose programs compute
ClosureBench's reference answers.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
