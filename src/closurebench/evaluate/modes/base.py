"""The evaluation-mode interface: a mode owns its prompts and its per-instance loop.

A mode decides what is sent for an instance and how the reply becomes a score:

* :attr:`Mode.system_prompts` holds the mode's system prompt per suite, and
  :meth:`Mode.messages` builds the chat messages for an instance;
* :meth:`Mode.postprocess` turns a completion into the text that is scored (a program
  mode executes the generated program in a sandbox here and returns its printed output);
* :meth:`Mode.score` scores a completion against the instance;
* :meth:`Mode.run` drives one instance given an awaitable ``complete(messages)``
  (cached, timed and retried by the runner). The default is one request; an agent mode
  overrides it to loop (call the model, run a tool, append the result, call again) and
  returns one :class:`ModeOutput`. The runner never needs to change for a new mode.

Scoring a reply is CPU work on untrusted text (linear in its length, but a reply can be
long): :meth:`Mode.run` runs :meth:`Mode.score` in a worker thread
(:func:`asyncio.to_thread`), never on the event loop, so one huge reply cannot stall the
other requests in flight.

Example:
    >>> from closurebench.evaluate.modes import get_mode
    >>> from types import SimpleNamespace
    >>> get_mode("cot").messages(SimpleNamespace(suite="closure", question="Q?"))[1]
    {'role': 'user', 'content': 'Q?'}
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeAlias

from closurebench.errors import ConfigError
from closurebench.evaluate.providers.base import Completion
from closurebench.schema import ClosureInstance, GritInstance, Suite

if TYPE_CHECKING:
    from closurebench.scoring.outcome import Score

__all__ = ["AnyInstance", "CompleteFn", "Message", "Mode", "ModeOutput", "score_text"]

#: A typed instance record of either suite.
AnyInstance: TypeAlias = ClosureInstance | GritInstance

#: One chat message, ``{"role": ..., "content": ...}``.
Message: TypeAlias = dict[str, Any]


class CompleteFn(Protocol):
    """The runner's request function: messages in, completion out (cache + retries inside).

    ``stop`` sets this request's stop sequences (an agent mode's ``</graph>``): the
    reply ends before the first one, which is not included. ``tools`` offers native
    function-calling tools (OpenAI ``tools``); the calls come back in
    :attr:`Completion.tool_calls`. ``max_tokens`` sets this request's token limit in
    place of the run's (an agent call gets its episode's remaining budget).
    """

    def __call__(
        self,
        messages: list[Message],
        *,
        stop: Sequence[str] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> Awaitable[Completion]: ...


def score_text(record: AnyInstance, text: str | None) -> Score:
    """Score answer ``text`` against ``record`` with its suite's scorer.

    Args:
        record: A typed instance record.
        text: The text to score (``None`` counts as empty).

    Returns:
        The :class:`~closurebench.scoring.outcome.Score`.
    """
    from closurebench.scoring import score_closure, score_grit

    if isinstance(record, GritInstance):
        return score_grit(record, text or "")
    return score_closure(record, text or "")


@dataclass
class ModeOutput:
    """What a mode produced for one instance.

    Attributes:
        score: The score (outcome, strict, lenient, extracted answer, reason).
        response: The final response text.
        reasoning: Separate reasoning text, if the backend returned one.
        prompt_tokens: Prompt tokens over all requests of the instance.
        completion_tokens: Generated tokens over all requests of the instance.
        reasoning_tokens: Of those, reasoning tokens, when the backend reported them
            (None when no request did).
        latency_s: Request seconds over all requests of the instance.
        finish_reason: Finish reason of the last request.
        requests: How many model calls the instance took (the runner records the
            number of calls it served when that is larger).
        extra: Mode-specific details (program output, rounds, tool calls...), recorded
            in the result's ``extra`` (JSON values; anything else is recorded as its repr).
    """

    score: Score
    response: str
    reasoning: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int | None = None
    latency_s: float = 0.0
    finish_reason: str | None = None
    requests: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


class Mode:
    """Base mode: one request with the mode's system prompt for the suite; score the reply.

    Attributes:
        name: The mode's registry name (recorded in every result).
        system_prompts: The system prompt text per suite (``"closure"``, ``"grit"``).
    """

    name: ClassVar[str] = "base"
    system_prompts: ClassVar[Mapping[Suite, str]] = {}
    #: A system prompt that replaces the mode's own for every suite (``--system-prompt``).
    system_override: str | None = None
    #: Few-shot examples sent before the question: ``(question, reply)`` pairs.
    fewshot: tuple[tuple[str, str], ...] = ()
    #: Whether the mode takes few-shot examples (one request per instance, one reply).
    takes_fewshot: ClassVar[bool] = True
    #: Whether the prompt asks for a ClosureBench answer as JSON inside ``<answer>`` tags
    #: (the agent modes) rather than as a ``{"answer": ...}`` object (:meth:`answer_reply`).
    answer_in_tags: ClassVar[bool] = False

    def answer_reply(self, record: AnyInstance, answer: Any) -> str:
        """A reply carrying ``answer`` in the form the mode's prompt asks for.

        A few-shot turn, a chance baseline's reply, an exported target: GRIT answers in
        ``<answer>`` tags (a list as comma-separated names); ClosureBench as
        ``{"answer": ...}``, or JSON in ``<answer>`` tags where :attr:`answer_in_tags`.

        Example:
            >>> from types import SimpleNamespace
            >>> Mode().answer_reply(SimpleNamespace(suite="closure"), [1, 2])
            '{"answer": [1, 2]}'
            >>> Mode().answer_reply(SimpleNamespace(suite="grit"), ["a", "b"])
            '<answer>a, b</answer>'
        """
        if record.suite == Suite.GRIT:
            text = ", ".join(map(str, answer)) if isinstance(answer, list) else str(answer)
            return f"<answer>{text}</answer>"
        if self.answer_in_tags:
            return f"<answer>{json.dumps(answer, ensure_ascii=False)}</answer>"
        return json.dumps({"answer": answer}, ensure_ascii=False)

    def use_fewshot(self, examples: Sequence[AnyInstance]) -> None:
        """Send ``examples`` before every question: each as a user turn (its question) and
        an assistant turn (its own verified answer in the reply form the mode asks for).

        Raises:
            ConfigError: for a mode that runs more than one request per instance.
        """
        if not self.takes_fewshot:
            raise ConfigError(
                f"--fewshot applies to single-request modes (direct, cot); --mode {self.name} "
                "runs programs or tool episodes, so drop it"
            )
        self.fewshot = tuple((str(r.question), self.answer_reply(r, r.answer)) for r in examples)

    def use_system_prompt(self, text: str) -> None:
        """Send ``text`` as the system prompt instead of the mode's own (every suite).

        The reply is still read and scored by the mode's rules, so the text should ask for
        the mode's answer form. Its sha256 joins the run's identity.

        Raises:
            ConfigError: for an empty prompt.
        """
        if not text.strip():
            raise ConfigError("--system-prompt: the file is empty; write the prompt into it")
        self.system_override = text

    def identity(self) -> dict[str, Any]:
        """``run.json``'s ``mode_options``: :meth:`identity_options`, plus the sha256 of a
        replaced system prompt and the count and sha256 of the few-shot examples."""
        opts = dict(self.identity_options())
        if self.system_override is not None:
            digest = hashlib.sha256(self.system_override.encode("utf-8")).hexdigest()
            opts["system_prompt_sha256"] = digest
        if self.fewshot:
            text = json.dumps(self.fewshot, ensure_ascii=False, separators=(",", ":"))
            opts["fewshot"] = len(self.fewshot)
            opts["fewshot_sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return opts

    def system(self, record: AnyInstance) -> str:
        """The system prompt for ``record``'s suite.

        Args:
            record: A typed instance record.

        Returns:
            The system prompt.

        Raises:
            ConfigError: when the mode has no prompt for the record's suite.
        """
        suite = Suite(record.suite)
        try:
            return self.system_prompts[suite]
        except KeyError:
            known = ", ".join(sorted(str(s) for s in self.system_prompts)) or "none"
            from closurebench.evaluate.modes import MODES

            fits = [n for n, f in MODES.items() if suite in getattr(f, "system_prompts", {})]
            raise ConfigError(
                f"mode {self.name!r} does not apply to {suite.value!r} instances (it has "
                f"prompts for: {known}); pass --mode {' or '.join(fits) or '...'} for them, "
                f"or a {known} dataset file for --mode {self.name}"
            ) from None

    def messages(self, record: AnyInstance) -> list[Message]:
        """The chat messages for ``record``: system prompt, then the question.

        Args:
            record: A typed instance record.

        Returns:
            ``[{"role": "system", ...}, {"role": "user", "content": question}]``.
        """
        system = self.system(record)  # a suite the mode has no prompt for still fails
        shots: list[Message] = []
        for question, reply in self.fewshot:
            shots += [
                {"role": "user", "content": question},
                {"role": "assistant", "content": reply},
            ]
        return [
            {"role": "system", "content": self.system_override or system},
            *shots,
            {"role": "user", "content": str(record.question)},
        ]

    def check_instances(self, instances: Iterable[AnyInstance]) -> None:
        """Refuse, before any request, instances of a suite this mode has no prompt for.

        Args:
            instances: The instances of the run.

        Raises:
            ConfigError: naming the suite and the suites the mode supports.
        """
        seen: set[str] = set()
        for record in instances:
            if str(record.suite) not in seen:
                seen.add(str(record.suite))
                self.system(record)

    def identity_options(self) -> dict[str, Any]:
        """The mode's options that change what is asked or how a reply is scored.

        They are part of the run's identity (``run.json``'s ``mode_options``): a run
        folder is resumed only with the same ones, so one folder never mixes results
        of two prompts or two scoring rules (default: none).
        """
        return {}

    def run_info(self) -> dict[str, Any]:
        """Facts about how this mode runs, recorded in ``run.json`` (default: none).

        A program mode records its sandbox (isolation level and layers) here; the
        facts are informative, not part of the run's identity.
        """
        return {}

    def postprocess(self, record: AnyInstance, completion: Completion) -> str:
        """The text to score (default: the completion text unchanged).

        Args:
            record: A typed instance record.
            completion: The model's completion.

        Returns:
            The text handed to the scorer.
        """
        return completion.text or ""

    def score(self, record: AnyInstance, completion: Completion) -> Score:
        """Score ``completion`` against ``record``.

        Args:
            record: A typed instance record.
            completion: The model's completion.

        Returns:
            The score of the post-processed text.
        """
        return score_text(record, self.postprocess(record, completion))

    async def run(self, record: AnyInstance, complete: CompleteFn) -> ModeOutput:
        """Evaluate one instance (the per-instance loop; one request by default).

        Args:
            record: A typed instance record.
            complete: The runner's request function.

        Returns:
            The mode's output for the instance.

        Raises:
            ProviderError: when a request fails after the runner's retries.
        """
        completion = await complete(self.messages(record))
        # scoring is CPU-bound on untrusted text: off the event loop, so that one huge
        # reply does not stall the other requests in flight
        score = await asyncio.to_thread(self.score, record, completion)
        return ModeOutput(
            score=score,
            response=completion.text or "",
            reasoning=completion.reasoning,
            prompt_tokens=completion.prompt_tokens or 0,
            completion_tokens=completion.completion_tokens or 0,
            reasoning_tokens=completion.reasoning_tokens,
            latency_s=completion.latency_s,
            finish_reason=completion.finish_reason,
        )
