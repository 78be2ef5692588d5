"""The evaluation harness: model providers, and the runner that drives them.

Providers live in :mod:`closurebench.evaluate.providers`.
"""

from closurebench.evaluate.providers import (
    PROVIDERS,
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
    make_provider,
)

__all__ = [
    "PROVIDERS",
    "Completion",
    "GenerationSettings",
    "Provider",
    "ProviderError",
    "make_provider",
]
