"""``samples.json``: the scores of repeated sampling (``closurebench eval --samples K``).

``eval --samples K`` evaluates every instance K times, one run folder per sample
(``OUT/sample-1`` … ``OUT/sample-K``, each resumable on its own), and writes
``OUT/samples.json``: one :class:`SampleGroup` per model (and mode) with

* each sample's accuracy (:class:`SampleRun`),
* the mean over instances of the share of an instance's answered samples that are
  correct, with a 95 % normal-approximation interval over instances (``mean``,
  ``ci95``) — the mean of the per-sample accuracies when no sample errored,
* the standard deviation of the per-sample accuracies (``std_over_samples``, ddof 1:
  the spread over repeats the papers report), and
* pass@k for k = 1..K with the unbiased estimator of Chen et al. (2021) over the
  instances with at least k answered samples (:class:`PassAtK`).

Results that ended in error are not samples: an instance's ``n`` counts its answered
samples only, as every accuracy of the harness leaves errors out of the denominator.

Example:
    >>> file = RepeatedSampling(groups=[])
    >>> parse_samples(file.model_dump_json(), "x.json").groups
    []
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from closurebench.errors import ClosureBenchError

__all__ = [
    "SAMPLES_FORMAT",
    "PassAtK",
    "RepeatScores",
    "RepeatedSampling",
    "SampleGroup",
    "SampleRun",
    "parse_samples",
    "samples_schema",
]

#: Version of the ``samples.json`` layout.
SAMPLES_FORMAT = 1


class _Samples(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SampleRun(_Samples):
    """One sample's run folder and its accuracy.

    Attributes:
        sample: The sample number (1..K).
        path: The run folder.
        answered: Results with a model response (errors left out).
        errors: Results that ended in error.
        strict_accuracy: Strict accuracy over the answered results (None: none answered).
        lenient_accuracy: Lenient accuracy over the answered results (None: none answered).
    """

    sample: int
    path: str
    answered: int
    errors: int
    strict_accuracy: float | None
    lenient_accuracy: float | None


class PassAtK(_Samples):
    """pass@k over the instances with at least k answered samples.

    Attributes:
        k: The number of draws.
        value: The mean over those instances of ``1 - C(n-c, k) / C(n, k)`` (n answered
            samples, c correct); None when no instance has k answered samples.
        instances: How many instances it covers.
    """

    k: int
    value: float | None
    instances: int


class RepeatScores(_Samples):
    """One scoring rule's figures over the samples.

    Attributes:
        mean: Mean over instances of the share of an instance's answered samples that
            are correct (None: no answered sample).
        ci95: 95 % normal-approximation interval of ``mean`` over instances, clipped to
            [0, 1] (None with fewer than two instances).
        std_over_samples: Standard deviation (ddof 1) of the per-sample accuracies
            (None with fewer than two answered samples).
        pass_at: pass@k for k = 1..K.
    """

    mean: float | None
    ci95: tuple[float, float] | None
    std_over_samples: float | None
    pass_at: list[PassAtK]


class SampleGroup(_Samples):
    """The K samples of one configuration (same dataset, model, provider, mode, options).

    Attributes:
        model: The model name.
        mode: The evaluation mode.
        provider: The provider (``run.json``), or None when not recorded.
        samples: K, the number of samples found.
        instances: Instances with at least one answered sample.
        complete_instances: Instances answered in every sample.
        runs: The samples, in sample order.
        strict: The figures under strict scoring.
        lenient: The figures under lenient scoring (Algorithm 1; equal to strict for GRIT).
    """

    model: str
    mode: str
    provider: str | None
    samples: int
    instances: int
    complete_instances: int
    runs: list[SampleRun]
    strict: RepeatScores
    lenient: RepeatScores


class RepeatedSampling(_Samples):
    """The ``samples.json`` file.

    Attributes:
        format: :data:`SAMPLES_FORMAT`.
        groups: One group per sampled configuration.
    """

    format: int = SAMPLES_FORMAT
    groups: list[SampleGroup]


def samples_schema() -> dict[str, Any]:
    """The JSON Schema of ``samples.json``.

    Example:
        >>> samples_schema()["title"]
        'RepeatedSampling'
    """
    return RepeatedSampling.model_json_schema()


def parse_samples(text: str, where: str) -> RepeatedSampling:
    """Validate a ``samples.json`` text.

    Args:
        text: The file's text.
        where: Names the file in messages.

    Raises:
        ClosureBenchError: Not JSON, or not a ``samples.json`` record (the message
            names the first bad field).

    Example:
        >>> try:
        ...     parse_samples('{"groups": 1}', "s.json")
        ... except ClosureBenchError as exc:
        ...     print(exc)
        s.json: not a samples.json record: groups: Input should be a valid array
    """
    try:
        return RepeatedSampling.model_validate_json(text)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        raise ClosureBenchError(
            f"{where}: not a samples.json record: {loc}: {err['msg']}"
        ) from None
