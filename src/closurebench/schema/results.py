"""The typed result record: one line of ``RUN_DIR/results.jsonl`` per evaluated instance.

Example:
    >>> r = ResultRecord(id="a", outcome=Outcome.WRONG, mode="direct", settings={})
    >>> r.outcome == "wrong", r.usage.completion_tokens, r.to_json()["strict"]
    (True, 0, False)
    >>> parse_result(r.to_json()) == r
    True

A result written before ``error`` was an outcome (a failed request recorded as
``no_answer`` with an ``error`` message) reads as ``error``:

    >>> parse_result({"id": "b", "outcome": "no_answer", "error": "503", "mode": "d"}).outcome
    <Outcome.ERROR: 'error'>
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from closurebench.errors import DatasetFileError
from closurebench.schema.enums import Outcome
from closurebench.schema.instances import describe_validation_error

__all__ = [
    "META_FIELDS",
    "HarnessDeaths",
    "ResultRecord",
    "Usage",
    "is_error_result",
    "parse_result",
    "result_schema",
    "upgrade_result",
]

_OUTCOMES = frozenset(o.value for o in Outcome)

#: Instance fields copied into each result, so reports need not reopen the dataset.
META_FIELDS = (
    "suite",
    "split",
    "category",
    "level",
    "n",
    "density",
    "result_type",
    "task",
    "form",
    "naming",
    "scenario",
    "encoding",
)


def upgrade_result(obj: dict[str, Any]) -> dict[str, Any]:
    """Bring a results-file object written by an older version up to date, in place.

    Before ``error`` was an outcome, a failed request was recorded as ``no_answer``
    with its message in ``error``; such a record is an infrastructure failure, so its
    outcome becomes ``error``.

    Args:
        obj: One results-file object (changed in place).

    Returns:
        ``obj``.

    Example:
        >>> upgrade_result({"outcome": "no_answer", "error": "boom"})["outcome"]
        'error'
        >>> upgrade_result({"outcome": "no_answer", "error": None})["outcome"]
        'no_answer'
    """
    if obj.get("error") and obj.get("outcome") == Outcome.NO_ANSWER:
        obj["outcome"] = Outcome.ERROR.value
    return obj


def is_error_result(obj: Mapping[str, Any]) -> bool:
    """Whether a results-file object records a failure rather than a model response.

    Example:
        >>> is_error_result({"outcome": "error"}), is_error_result({"outcome": "wrong"})
        (True, False)
        >>> is_error_result({"outcome": "no_answer", "error": "timeout"})  # an old file
        True
    """
    outcome = obj.get("outcome")
    return outcome == Outcome.ERROR or (outcome == Outcome.NO_ANSWER and bool(obj.get("error")))


class Usage(BaseModel):
    """Tokens one instance cost, over all its requests.

    Attributes:
        prompt_tokens: Prompt tokens.
        completion_tokens: Generated tokens (reasoning included).
        reasoning_tokens: Of those, the tokens spent reasoning, when the server reported
            them (``usage.completion_tokens_details.reasoning_tokens``); None when it did
            not (and in files written before they were recorded).

    Example:
        >>> Usage.model_validate({"prompt_tokens": 3, "completion_tokens": 5}).reasoning_tokens
        >>> Usage(completion_tokens=9, reasoning_tokens=6).reasoning_tokens
        6
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    reasoning_tokens: int | None = Field(default=None, ge=0)


class HarnessDeaths(BaseModel):
    """Harness processes that stopped while handling this instance's reply.

    The runner's crash journal (``RUN_DIR/journal.jsonl``) notes each reply before it is
    handled (scored, its program executed); a process that stopped before the instance's
    result was written - killed, crashed, out of memory, interrupted - counts as one
    death of that reply. A resumed run handles such a reply again, alone, at most until
    it has died ``max_harness_deaths`` times (default 2); then the reply is not handled
    again and the instance is recorded as ``wrong``: it stays in every accuracy's
    denominator, so a reply cannot remove itself from the benchmark by crashing the
    harness.

    Attributes:
        count: Harness processes that stopped while handling this instance's reply.
        gave_up: True when the reply was not handled again and the instance is recorded
            as ``wrong`` because of these deaths (its ``reason`` says so); False when it
            was handled again and the result is that handling's.

    Example:
        >>> HarnessDeaths(count=2, gave_up=True).model_dump()
        {'count': 2, 'gave_up': True}
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: int = Field(ge=1)
    gave_up: bool = False


class ResultRecord(BaseModel):
    """The judgement of one instance, with what it cost and how it was produced.

    Attributes:
        id: The instance id.
        outcome: One of :class:`~closurebench.schema.enums.Outcome`.
        strict: Correct under strict scoring (when left out: the outcome is
            ``strict_correct``).
        lenient: Correct under lenient scoring (Algorithm 1; ``strict`` implies it; when
            left out: the outcome is ``strict_correct`` or ``lenient_only``).
        lenient_directional: Correct under the directional lenient rule (only the step
            towards the other convention's answer; ClosureBench only, else null).
        extracted: The extracted answer value (``None`` when none was usable).
        reason: A short explanation of the outcome.
        response: The final response text.
        reasoning: Separate reasoning text, if the backend returned one.
        usage: Prompt, completion and (when reported) reasoning tokens.
        latency_s: Request seconds over all requests of the instance.
        finish_reason: Finish reason of the last request.
        requests: Model calls the instance took.
        settings: The generation settings.
        mode: The evaluation mode.
        error: The error message when the instance failed (outcome ``error``).
        extra: Mode-specific details (program output, rounds, ...).
        harness_deaths: Harness processes that stopped while handling this instance's
            reply (:class:`HarnessDeaths`); null when none did. With ``gave_up`` the
            outcome is ``wrong``.
        suite, split, category, level, n, density, result_type, task, form, naming, scenario,
            encoding: Copied from the instance (:data:`META_FIELDS`; null where the suite
            has no such field). ``density`` is a ClosureBench instance's drawn ρ, and a
            GRIT instance's measured graph density ``2|E| / (|V|(|V|-1))`` (``|E| /
            (|V|(|V|-1))`` when directed; null in results written before it was recorded).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    outcome: Outcome
    strict: bool = False
    lenient: bool = False
    lenient_directional: bool | None = None
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
    harness_deaths: HarnessDeaths | None = None
    suite: str | None = None
    split: str | None = None
    category: str | None = None
    level: int | None = None
    n: int | None = None
    density: float | None = None
    result_type: str | None = None
    task: str | None = None
    form: str | None = None
    naming: str | None = None
    scenario: str | None = None
    encoding: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """Read an old file's failed request (``no_answer`` + ``error``) as ``error``, and
        give a record that leaves out ``strict`` or ``lenient`` the verdicts its outcome
        implies (``strict_correct`` is both, ``lenient_only`` lenient only)."""
        if not isinstance(data, dict):
            return data
        if data.get("error") and data.get("outcome") == "no_answer":
            data = {**data, "outcome": Outcome.ERROR.value}
        given = data.get("outcome")
        if ("strict" not in data or "lenient" not in data) and (
            isinstance(given, str) and given in _OUTCOMES
        ):
            outcome = Outcome(given)
            data = {
                "strict": outcome is Outcome.STRICT_CORRECT,
                "lenient": outcome in (Outcome.STRICT_CORRECT, Outcome.LENIENT_ONLY),
                **data,
            }
        return data

    @model_validator(mode="after")
    def _given_up_is_wrong(self) -> ResultRecord:
        """A reply given up after harness deaths is a wrong answer, never ``error``."""
        deaths = self.harness_deaths
        if (
            deaths is not None
            and deaths.gave_up
            and (self.outcome is not Outcome.WRONG or self.strict or self.lenient)
        ):
            raise ValueError(
                "harness_deaths.gave_up needs outcome 'wrong' (not strict, not lenient), "
                f"got {self.outcome.value!r}"
            )
        return self

    @property
    def is_error(self) -> bool:
        """Whether the instance failed (no model response; left out of accuracy)."""
        return self.outcome is Outcome.ERROR

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict of this record.

        ``usage.reasoning_tokens`` is left out when the server reported none, and
        ``harness_deaths`` when no harness died on the reply, so such a result reads
        exactly as before they were recorded.
        """
        out = self.model_dump(mode="json")
        if out["usage"].get("reasoning_tokens") is None:
            out["usage"].pop("reasoning_tokens", None)
        if out.get("harness_deaths") is None:
            out.pop("harness_deaths", None)
        return out


R = TypeVar("R", bound="ResultRecord")


@overload
def parse_result(obj: Mapping[str, Any], where: str = "result") -> ResultRecord: ...
@overload
def parse_result(obj: Mapping[str, Any], where: str, model: type[R]) -> R: ...
def parse_result(
    obj: Mapping[str, Any], where: str = "result", model: type[ResultRecord] = ResultRecord
) -> ResultRecord:
    """Validate one results-file object (as ``model``: a :class:`ResultRecord` type).

    Raises:
        DatasetFileError: naming ``where`` and the bad field.
    """
    try:
        return model.model_validate(obj)
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
