"""Typed records of the memorisation probe (ClosureBench §4.5, Table 6, Figure 2).

``closurebench memorisation`` evaluates a model and its checkpoints on three sets and
writes ``OUT/memorisation.json``, one :class:`MemorisationProbe`:

* ``seen`` — the training file itself;
* ``fresh`` — new instances of the same distribution (same categories or tasks, levels
  and sizes; new structural and surface seeds), one set per probe seed;
* ``reworded`` — the seen structures asked again in new words (new surface seeds; same
  graphs, anchors and answers), one set per probe seed (ClosureBench only).

Per checkpoint (:class:`CheckpointScores`) it holds each set's strict and lenient
accuracy (:class:`SetScores`, pooled over the seeds and their instances, with a Wilson
interval) and the gaps seen − fresh and seen − reworded (:class:`GapScores`, with
Newcombe's interval for a difference of two proportions). ``closurebench memorisation
--table6 LABEL=DIR ...`` gathers several probes (one per kind of supervision: answer,
ein, python) into ``OUT/table6.json``, one :class:`Table6`.

Accuracies are fractions in [0, 1] over *answered* instances (results with outcome
``error`` are left out, as in ``summary.json``); a value without a denominator is null.

``closurebench schema memorisation|table6`` prints the JSON Schemas.

Example:
    >>> iv = Interval(value=0.5, low=0.2366, high=0.7634)
    >>> Interval.model_validate(iv.model_dump()) == iv
    True
    >>> memorisation_schema("memorisation")["properties"]["kind"]["const"]
    'memorisation'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from closurebench.errors import DatasetFileError
from closurebench.schema.instances import describe_validation_error

__all__ = [
    "GAPS",
    "PROBE_SETS",
    "CheckpointScores",
    "GapName",
    "GapScores",
    "Interval",
    "MemorisationProbe",
    "ProbeSetFile",
    "ProbeSetName",
    "SeedGap",
    "SeedScore",
    "SetScores",
    "Table6",
    "Table6Row",
    "memorisation_schema",
    "parse_memorisation",
]

#: The probe's sets.
ProbeSetName = Literal["seen", "fresh", "reworded"]
#: The sets in table order.
PROBE_SETS: tuple[ProbeSetName, ...] = ("seen", "fresh", "reworded")

#: The gaps the probe reports.
GapName = Literal["seen-fresh", "seen-reworded"]
#: The gaps in table order.
GAPS: tuple[GapName, ...] = ("seen-fresh", "seen-reworded")


class _Probe(BaseModel):
    # Field docstrings become the fields' descriptions in the JSON Schema (and docs/).
    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class Interval(_Probe):
    """An estimate with its 95% interval (fractions; null without a denominator)."""

    value: float | None
    """The point estimate."""
    low: float | None
    """Lower bound of the 95% interval."""
    high: float | None
    """Upper bound of the 95% interval."""


class SeedScore(_Probe):
    """One set of one seed: the counts behind its accuracies."""

    seed: int | None
    """The probe seed the set was drawn from (null for ``seen``: one file for every seed)."""
    answered: int = Field(ge=0)
    """Results with a model answer (outcome other than ``error``)."""
    errors: int = Field(ge=0)
    """Results whose request failed (left out of the accuracies)."""
    strict_correct: int = Field(ge=0)
    """Answered results that are strictly correct (Algorithm 1, strict)."""
    lenient_correct: int = Field(ge=0)
    """Answered results that are lenient-correct (Algorithm 1, lenient)."""
    strict: float | None
    """``strict_correct / answered``."""
    lenient: float | None
    """``lenient_correct / answered``."""
    run: str
    """The run folder of the evaluation, relative to the probe folder."""


class SetScores(_Probe):
    """One set of one checkpoint, pooled over its seeds and their instances."""

    set: ProbeSetName
    """Which set."""
    answered: int = Field(ge=0)
    """Answered results, over every seed."""
    errors: int = Field(ge=0)
    """Results in error, over every seed."""
    strict: Interval
    """Strict accuracy of the pooled results, with the Wilson 95% interval."""
    lenient: Interval
    """Lenient accuracy of the pooled results, with the Wilson 95% interval."""
    per_seed: list[SeedScore]
    """The evaluations the pool is made of: one per probe seed (one for ``seen``)."""


class SeedGap(_Probe):
    """A gap measured on one seed's sets."""

    seed: int
    """The probe seed."""
    strict: float | None
    """Strict accuracy of ``seen`` minus that of the seed's other set."""
    lenient: float | None
    """Lenient accuracy of ``seen`` minus that of the seed's other set."""


class GapScores(_Probe):
    """A gap of one checkpoint: ``seen`` accuracy minus ``fresh`` or ``reworded`` accuracy."""

    name: GapName
    """``seen-fresh`` (memorised instances, wording and structure) or ``seen-reworded``
    (memorised wording: the structures are the seen ones)."""
    strict: Interval
    """Strict gap of the pooled accuracies, with Newcombe's 95% interval (hybrid Wilson
    score) for a difference of two independent proportions."""
    lenient: Interval
    """Lenient gap, likewise."""
    per_seed: list[SeedGap]
    """The gap on each probe seed's set."""


class CheckpointScores(_Probe):
    """The probe's results for one model or checkpoint."""

    label: str
    """Display label: ``base`` for ``--model``, else the checkpoint's folder name."""
    model: str
    """What the provider was given as the model (the ``--model`` value, or the checkpoint
    as passed to ``--checkpoints``)."""
    base: bool
    """Whether this is the base model (``--model``) rather than a checkpoint."""
    step: int | None
    """Training step: from a transformers ``checkpoint-<step>`` folder name or its
    ``trainer_state.json`` (``global_step``)."""
    epoch: float | None
    """Training epoch, from the checkpoint's ``trainer_state.json`` when present."""
    run_dir: str
    """The folder of this checkpoint's run folders, relative to the probe folder."""
    complete: bool
    """Whether every instance of every set has a model answer (no ``error`` results)."""
    sets: list[SetScores]
    """One entry per evaluated set, in the order of :data:`PROBE_SETS`."""
    gaps: list[GapScores]
    """One entry per gap whose sets were evaluated, in the order of :data:`GAPS`."""


class ProbeSetFile(_Probe):
    """One dataset file the probe evaluated."""

    set: ProbeSetName
    """Which set."""
    seed: int | None
    """The probe seed it was drawn from (null for ``seen``)."""
    file: str
    """The file: its name for ``seen``, else its path relative to the probe folder."""
    sha256: str
    """SHA-256 of the file's bytes."""
    records: int = Field(ge=0)
    """Instances in the file."""
    derived_seed: int | None
    """The seed the set was generated from, ``derive_seed(seed, "memorisation", set)``
    (null for ``seen``)."""


class MemorisationProbe(_Probe):
    """``OUT/memorisation.json``: one memorisation probe (ClosureBench §4.5, Figure 2)."""

    kind: Literal["memorisation"] = "memorisation"
    """Always ``memorisation``."""
    version: str
    """closurebench version that wrote the file."""
    suite: str
    """Suite of the seen file (``closure`` or ``grit``)."""
    mode: str
    """Evaluation mode (``closurebench eval --mode``)."""
    provider: str
    """Provider the models were loaded or served through (``--provider``)."""
    seeds: list[int]
    """The probe seeds, in the given order."""
    confidence: float
    """Confidence level of every interval (0.95)."""
    seen: ProbeSetFile
    """The seen (training) file."""
    sets: list[ProbeSetFile]
    """The generated sets: for each seed, ``fresh`` then ``reworded``."""
    reworded_note: str | None
    """What a GRIT probe's ``reworded`` sets leave out (the standard form with canonical
    names reads the same under every surface); ``None`` for ClosureBench."""
    checkpoints: list[CheckpointScores]
    """The base model first, then the checkpoints in the given order."""


class Table6Row(_Probe):
    """One row of Table 6: the final checkpoint of one probe, labelled by supervision."""

    supervision: str
    """The row's label (``answer``, ``ein``, ``python``, ...: what the model was
    fine-tuned to write)."""
    probe: str
    """The probe folder, as given."""
    suite: str
    """Suite of the probe's seen file."""
    mode: str
    """Evaluation mode of the probe."""
    checkpoint: CheckpointScores
    """The probe's last checkpoint (the base model when it has no checkpoint)."""


class Table6(_Probe):
    """``OUT/table6.json``: answer vs program supervision, on seen and held-out instances."""

    kind: Literal["table6"] = "table6"
    """Always ``table6``."""
    version: str
    """closurebench version that wrote the file."""
    rows: list[Table6Row]
    """One row per ``--table6 LABEL=DIR``, in the given order."""


def memorisation_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of ``memorisation`` or ``table6`` (what ``closurebench schema`` prints).

    Raises:
        ValueError: for another name.
    """
    models: dict[str, type[BaseModel]] = {"memorisation": MemorisationProbe, "table6": Table6}
    if name not in models:
        raise ValueError(f"unknown probe schema {name!r}; choose memorisation or table6")
    schema = models[name].model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://closurebench.dev/schema/{name}.json"
    return schema


def parse_memorisation(text: str, name: str, where: str) -> MemorisationProbe | Table6:
    """Validate the JSON text of a ``memorisation`` or ``table6`` file.

    Raises:
        DatasetFileError: naming ``where`` and the bad field.
        ValueError: for an unknown ``name``.
    """
    models: dict[str, type[MemorisationProbe] | type[Table6]] = {
        "memorisation": MemorisationProbe,
        "table6": Table6,
    }
    if name not in models:
        raise ValueError(f"unknown probe schema {name!r}; choose memorisation or table6")
    try:
        return models[name].model_validate_json(text)
    except ValidationError as exc:
        raise DatasetFileError(
            f"{where}: not a valid {name} record: {describe_validation_error(exc)}; "
            "was it written by `closurebench memorisation`?"
        ) from None
