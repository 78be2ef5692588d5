"""Reference models: the offline provider ``reference`` and what it answers with.

``closurebench eval --provider reference --model oracle-program|reader|random|majority``
(``--provider auto``, the default, picks ``reference`` for these names) answers every
instance from the instance itself, so the whole evaluation path runs with no server
and must reach a known score.

* :mod:`closurebench.evaluate.reference.models`: the table of reference models
  (:data:`REFERENCE_MODELS`) and :func:`reference_provider`, the provider's factory (the
  ``reference`` row of :data:`closurebench.evaluate.providers.PROVIDERS` names it);
* :mod:`closurebench.evaluate.reference.plans`: the reference agent on ClosureBench
  questions (``--model reader``), running each category's own plan
  (:meth:`~closurebench.tasks.closure.base.ClosureTask.plan`).

This package sits above the providers and the modes of :mod:`closurebench.evaluate`
(it reads modes, the chance baselines and the reference programs); neither imports it.

Example:
    >>> sorted(REFERENCE_MODELS)
    ['majority', 'oracle-program', 'random', 'reader']
"""

from __future__ import annotations

from closurebench.evaluate.reference.models import (
    REFERENCE_MODELS,
    ReferenceModel,
    is_reference_model,
    reader_call,
    reference_provider,
)

__all__ = [
    "REFERENCE_MODELS",
    "ReferenceModel",
    "is_reference_model",
    "reader_call",
    "reference_provider",
]
