"""Model providers: one lookup table from a provider kind to its factory.

Example:
    >>> sorted(PROVIDERS)
    ['openai', 'scripted', 'transformers']
    >>> p = make_provider("scripted", script=["yes"])
    >>> p.name
    'scripted'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from closurebench.errors import ConfigError
from closurebench.evaluate.providers.base import (
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
)
from closurebench.evaluate.providers.openai_compat import OpenAICompatProvider
from closurebench.evaluate.providers.scripted import ScriptedProvider, ScriptedReply
from closurebench.evaluate.providers.transformers_local import TransformersProvider

__all__ = [
    "PROVIDERS",
    "Completion",
    "GenerationSettings",
    "OpenAICompatProvider",
    "Provider",
    "ProviderError",
    "ScriptedProvider",
    "ScriptedReply",
    "TransformersProvider",
    "make_provider",
]

#: Provider kind (as given on the command line) -> factory.
PROVIDERS: dict[str, Callable[..., Provider]] = {
    "openai": OpenAICompatProvider,
    "scripted": ScriptedProvider,
    "transformers": TransformersProvider,
}


def make_provider(kind: str, **kwargs: Any) -> Provider:
    """Create a provider by kind.

    Args:
        kind: A key of :data:`PROVIDERS`.
        **kwargs: Keyword arguments of that provider's constructor.

    Returns:
        The provider.

    Raises:
        ConfigError: For an unknown kind or arguments the provider does not accept.
        ProviderError: When the provider cannot be set up (missing key or extra).
    """
    try:
        factory = PROVIDERS[kind]
    except KeyError:
        raise ConfigError(
            f"unknown provider kind {kind!r}; choose one of: {', '.join(sorted(PROVIDERS))}"
        ) from None
    signature = inspect.signature(factory)
    try:
        signature.bind(**kwargs)
    except TypeError as exc:
        accepted = ", ".join(p for p in signature.parameters if p != "self")
        raise ConfigError(
            f"bad arguments for provider {kind!r} ({exc}); it accepts: {accepted}"
        ) from None
    return factory(**kwargs)
