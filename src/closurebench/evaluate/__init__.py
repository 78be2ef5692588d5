"""The evaluation harness: model providers, modes, and the runner that drives them.

* Providers (:mod:`closurebench.evaluate.providers`) register in one table,
  :data:`PROVIDERS` (``--provider`` name -> :class:`ProviderSpec`);
* modes (:mod:`closurebench.evaluate.modes`) own their prompts and per-instance loop and
  register in ``MODES``;
* the runner (:mod:`closurebench.evaluate.runner`) plans, schedules, requests with
  retries, scores and records; results are :class:`~closurebench.schema.ResultRecord`.
"""

from closurebench.evaluate.providers import (
    PROVIDERS,
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
    ProviderOptions,
    ProviderSpec,
    build_provider,
    make_provider,
)

__all__ = [
    "PROVIDERS",
    "Completion",
    "GenerationSettings",
    "Provider",
    "ProviderError",
    "ProviderOptions",
    "ProviderSpec",
    "build_provider",
    "make_provider",
]
