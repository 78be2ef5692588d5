"""The typed result record: one line of ``RUN_DIR/results.jsonl`` per evaluated instance.

Example:
    >>> r = ResultRecord(id="a", outcome=Outcome.WRONG, mode="direct", settings={})
    >>> r.outcome == "wrong", r.usage.completion_tokens, r.to_json()["strict"]
    (True, 0, False)
    >>> parse_result(r.to_json()) == r
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from closurebench.errors import DatasetFileError
from closurebench.schema.enums import Outcome
from closurebench.schema.instances import describe_validation_error

__all__ = ["META_FIELDS", "ResultRecord", "Usage", "parse_result", "result_schema"]

#: Instance fields copied into each result, so reports need not reopen the dataset.
META_FIELDS = (
    "suite",
    "category",
    "level",
    "n",
    "result_type",
    "task",
    "form",
    "naming",
    "scenario",
)


class Usage(BaseModel):
    """Tokens one instance cost, over all its requests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)


class ResultRecord(BaseModel):
    """The judgement of one instance, with what it cost and how it was produced.

    Attributes:
        id: The instance id.
        outcome: One of :class:`~closurebench.schema.enums.Outcome`.
        strict: Correct under strict scoring.
        lenient: Correct under lenient scoring (``strict`` implies it).
        extracted: The extracted answer value (``None`` when none was usable).
        reason: A short explanation of the outcome.
        response: The final response text.
        reasoning: Separate reasoning text, if the backend returned one.
        usage: Prompt and completion tokens.
        latency_s: Request seconds over all requests of the instance.
        finish_reason: Finish reason of the last request.
        requests: Model calls the instance took.
        settings: The generation settings.
        mode: The evaluation mode.
        error: The error message when the instance failed after all retries.
        extra: Mode-specific details (program output, rounds, ...).
        suite, category, level, n, result_type, task, form, naming, scenario: Copied
            from the instance (:data:`META_FIELDS`; null where the suite has no such field).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    outcome: Outcome
    strict: bool = False
    lenient: bool = False
    extracted: JsonValue = None
    reason: str | None = None
    response: str = ""
    reasoning: str | None = None
    usage: Usage = Usage()
    latency_s: float = 0.0
    finish_reason: str | None = None
    requests: int = 0
    settings: dict[str, JsonValue] = Field(default_factory=dict)
    mode: str
    error: str | None = None
    extra: dict[str, JsonValue] = Field(default_factory=dict)
    suite: str | None = None
    category: str | None = None
    level: int | None = None
    n: int | None = None
    result_type: str | None = None
    task: str | None = None
    form: str | None = None
    naming: str | None = None
    scenario: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict of this record."""
        return self.model_dump(mode="json")


def parse_result(obj: Mapping[str, Any], where: str = "result") -> ResultRecord:
    """Validate one results-file object.

    Raises:
        DatasetFileError: naming ``where`` and the bad field.
    """
    try:
        return ResultRecord.model_validate(obj)
    except ValidationError as exc:
        raise DatasetFileError(
            f"{where}: not a valid result record: {describe_validation_error(exc)}; "
            "was this file written by `closurebench eval`?"
        ) from None


def result_schema() -> dict[str, Any]:
    """The JSON Schema of the result record (what ``closurebench schema result`` prints)."""
    schema = ResultRecord.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://closurebench.dev/schema/result.json"
    return schema
