"""Records and vocabularies: the one typed definition of every file the project writes.

* :mod:`~closurebench.schema.enums` — outcomes, extraction statuses, Algorithm 1 verdicts,
  result types, ambiguity classes, suites (``StrEnum``: files keep their strings);
* :mod:`~closurebench.schema.instances` — :class:`ClosureInstance`, :class:`GritInstance`
  (one envelope), validation with line/field messages, JSON Schemas;
* :mod:`~closurebench.schema.results` — :class:`ResultRecord`;
* :mod:`~closurebench.schema.summary` — :class:`SummaryFigures`, the typed mode figures of
  ``summary.json`` (program execution and error classes, agent episodes and structure);
* :mod:`~closurebench.schema.training` — :class:`SftRecord`, :class:`GrpoRecord`, the
  files ``closurebench export sft|grpo`` writes;
* :mod:`~closurebench.schema.memorisation` — :class:`MemorisationProbe`, :class:`Table6`,
  the files ``closurebench memorisation`` writes;
* :mod:`~closurebench.schema.samples` — :class:`RepeatedSampling`, the ``samples.json`` of
  ``closurebench eval --samples K`` (pass@k, the mean and its interval, the spread over
  repeats).

``closurebench schema closure|grit|result|sft|grpo|memorisation|table6|samples`` prints the
JSON Schemas; every
generated split writes its instance schema beside its manifest.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from closurebench.schema.enums import (
    Ambiguity,
    ExtractStatus,
    Match,
    Outcome,
    ResultType,
    ScoringMode,
    Suite,
)

if TYPE_CHECKING:
    from closurebench.schema.instances import (
        ClosureGraph,
        ClosureInstance,
        Envelope,
        GritGraph,
        GritInstance,
        Instance,
        Seeds,
        instance_schema,
        parse_instance,
    )
    from closurebench.schema.memorisation import (
        MemorisationProbe,
        Table6,
        memorisation_schema,
        parse_memorisation,
    )
    from closurebench.schema.results import (
        META_FIELDS,
        HarnessDeaths,
        ResultRecord,
        Usage,
        parse_result,
        result_schema,
    )
    from closurebench.schema.samples import RepeatedSampling, parse_samples, samples_schema
    from closurebench.schema.summary import (
        AgentFigures,
        ProgramFigures,
        RunSummary,
        StructureFigures,
        SuiteFigures,
        SummaryFigures,
        parse_summary,
        summary_schema,
    )
    from closurebench.schema.training import (
        ChatMessage,
        GrpoRecord,
        SftRecord,
        instance_from_ground_truth,
        parse_training,
        training_schema,
    )

#: The record names, loaded on first use: pydantic costs ~0.2 s to import, and scoring
#: (reward functions in training workers) needs only the enums.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "ClosureGraph",
            "ClosureInstance",
            "Envelope",
            "GritGraph",
            "GritInstance",
            "Instance",
            "Seeds",
            "instance_schema",
            "parse_instance",
        ),
        "closurebench.schema.instances",
    ),
    **dict.fromkeys(
        ("META_FIELDS", "HarnessDeaths", "ResultRecord", "Usage", "parse_result", "result_schema"),
        "closurebench.schema.results",
    ),
    **dict.fromkeys(
        (
            "AgentFigures",
            "ProgramFigures",
            "RunSummary",
            "StructureFigures",
            "SuiteFigures",
            "SummaryFigures",
            "parse_summary",
            "summary_schema",
        ),
        "closurebench.schema.summary",
    ),
    **dict.fromkeys(
        (
            "ChatMessage",
            "GrpoRecord",
            "SftRecord",
            "instance_from_ground_truth",
            "parse_training",
            "training_schema",
        ),
        "closurebench.schema.training",
    ),
    **dict.fromkeys(
        ("MemorisationProbe", "Table6", "memorisation_schema", "parse_memorisation"),
        "closurebench.schema.memorisation",
    ),
    **dict.fromkeys(
        ("RepeatedSampling", "parse_samples", "samples_schema"), "closurebench.schema.samples"
    ),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'closurebench.schema' has no attribute {name!r}")


__all__ = [
    "META_FIELDS",
    "SCHEMAS",
    "AgentFigures",
    "Ambiguity",
    "ChatMessage",
    "ClosureGraph",
    "ClosureInstance",
    "Envelope",
    "ExtractStatus",
    "GritGraph",
    "GritInstance",
    "GrpoRecord",
    "HarnessDeaths",
    "Instance",
    "Match",
    "MemorisationProbe",
    "Outcome",
    "ProgramFigures",
    "RepeatedSampling",
    "ResultRecord",
    "ResultType",
    "RunSummary",
    "ScoringMode",
    "Seeds",
    "SftRecord",
    "StructureFigures",
    "Suite",
    "SuiteFigures",
    "SummaryFigures",
    "Table6",
    "Usage",
    "instance_from_ground_truth",
    "instance_schema",
    "memorisation_schema",
    "parse_instance",
    "parse_memorisation",
    "parse_result",
    "parse_samples",
    "parse_summary",
    "parse_training",
    "result_schema",
    "samples_schema",
    "schema_for",
    "summary_schema",
    "training_schema",
]

#: The published schemas, by the name ``closurebench schema NAME`` takes.
SCHEMAS = (
    "closure",
    "grit",
    "result",
    "summary",
    "sft",
    "grpo",
    "memorisation",
    "table6",
    "samples",
)


def schema_for(name: str) -> dict[str, Any]:
    """The JSON Schema called ``name`` (one of :data:`SCHEMAS`).

    Raises:
        ValueError: for an unknown name (lists the known ones).

    Example:
        >>> schema_for("closure")["properties"]["suite"]["const"]
        'closure'
    """
    if name == "result":
        from closurebench.schema.results import result_schema

        return result_schema()
    if name in ("closure", "grit"):
        from closurebench.schema.instances import instance_schema

        return instance_schema(name)
    if name in ("sft", "grpo"):
        from closurebench.schema.training import training_schema

        return training_schema(name)
    if name in ("memorisation", "table6"):
        from closurebench.schema.memorisation import memorisation_schema

        return memorisation_schema(name)
    if name == "samples":
        from closurebench.schema.samples import samples_schema

        return samples_schema()
    if name == "summary":
        from closurebench.schema.summary import summary_schema

        return summary_schema()
    raise ValueError(f"unknown schema {name!r}; choose one of {', '.join(SCHEMAS)}")
