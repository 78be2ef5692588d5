"""The evaluation-mode interface.

A mode decides what is sent for a record and how the reply becomes a score:

* :meth:`Mode.messages` builds the chat messages for a record;
* :meth:`Mode.postprocess` turns a completion into the text that is scored (a program
  mode would execute the generated program here and return its printed output);
* :meth:`Mode.score` scores a completion against the record;
* :meth:`Mode.run` drives one instance given an awaitable ``complete(messages)``
  (cached, retried by the runner). The default is one request; an agent mode overrides
  it to loop (call the model, run a tool, append the result, call again).

Example:
    >>> from closurebench.evaluate.modes import get_mode
    >>> get_mode("cot").messages({"suite": "closure", "question": "Q?"})[1]
    {'role': 'user', 'content': 'Q?'}
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from closurebench.evaluate.prompts import system_prompt
from closurebench.evaluate.providers.base import Completion

__all__ = ["CompleteFn", "Mode", "ModeOutput", "score_text"]

#: The runner's request function: messages in, completion out (cache + retries inside).
CompleteFn = Callable[[list[dict[str, str]]], Awaitable[Completion]]


def score_text(record: dict[str, Any], text: str | None) -> Any:
    """Score answer ``text`` against ``record`` with its suite's scorer.

    Args:
        record: A dataset record (``suite`` ``closure`` or ``grit``).
        text: The text to score.

    Returns:
        A :class:`closurebench.scoring.Score`.
    """
    from closurebench.scoring import score_closure, score_grit

    if record.get("suite") == "grit":
        return score_grit(record, text or "")
    return score_closure(record, text or "")


@dataclass
class ModeOutput:
    """What a mode produced for one instance.

    Attributes:
        score: The score (``outcome``, ``strict``, ``lenient``, ``extracted``, ``reason``).
        response: The final response text.
        reasoning: Separate reasoning text, if the backend returned one.
        prompt_tokens: Prompt tokens over all requests of the instance.
        completion_tokens: Generated tokens over all requests of the instance.
        latency_s: Request seconds over all requests of the instance.
        finish_reason: Finish reason of the last request.
        requests: How many model calls the instance took.
        extra: Mode-specific details (program output, rounds, ...), recorded as-is.
    """

    score: Any
    response: str
    reasoning: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    finish_reason: str | None = None
    requests: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


class Mode:
    """Base mode: one request with a suite-specific system prompt, score the reply.

    Attributes:
        name: The mode's registry name (recorded in every result).
    """

    name: str = "base"

    def system(self, record: dict[str, Any]) -> str:
        """The system prompt for ``record``.

        Args:
            record: A dataset record.

        Returns:
            The system prompt.
        """
        return system_prompt(str(record.get("suite", "closure")), self.name)

    def messages(self, record: dict[str, Any]) -> list[dict[str, str]]:
        """The chat messages for ``record``: system prompt, then the question.

        Args:
            record: A dataset record.

        Returns:
            ``[{"role": "system", ...}, {"role": "user", "content": question}]``.
        """
        return [
            {"role": "system", "content": self.system(record)},
            {"role": "user", "content": str(record["question"])},
        ]

    def postprocess(self, record: dict[str, Any], completion: Completion) -> str:
        """The text to score (default: the completion text unchanged).

        Args:
            record: A dataset record.
            completion: The model's completion.

        Returns:
            The text handed to the scorer.
        """
        return completion.text or ""

    def score(self, record: dict[str, Any], completion: Completion) -> Any:
        """Score ``completion`` against ``record``.

        Args:
            record: A dataset record.
            completion: The model's completion.

        Returns:
            A :class:`closurebench.scoring.Score`.
        """
        return score_text(record, self.postprocess(record, completion))

    async def run(self, record: dict[str, Any], complete: CompleteFn) -> ModeOutput:
        """Evaluate one instance.

        Args:
            record: A dataset record.
            complete: The runner's request function.

        Returns:
            The mode's output for the instance.

        Raises:
            ProviderError: when a request fails after the runner's retries.
        """
        completion = await complete(self.messages(record))
        return ModeOutput(
            score=self.score(record, completion),
            response=completion.text or "",
            reasoning=completion.reasoning,
            prompt_tokens=completion.prompt_tokens or 0,
            completion_tokens=completion.completion_tokens or 0,
            latency_s=completion.latency_s,
            finish_reason=completion.finish_reason,
        )
