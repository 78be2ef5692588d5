"""A scripted provider that answers from a fixed script, for tests and dry runs.

The script is one of:

* a mapping: the key equal to the last user message wins; otherwise the longest key
  that occurs inside it (e.g. an instance id embedded in the prompt);
* a sequence: replies handed out in call order;
* a callable ``(messages, settings) -> reply`` (sync or async).

A reply is a string, a :class:`Completion`, an exception instance (raised), or a
:class:`ScriptedReply` with a delay, reasoning text or a number of failures before
it succeeds. A request's stop sequences cut a string or :class:`ScriptedReply` text
as a server would (a :class:`Completion` is returned as given).

Example:
    >>> import asyncio
    >>> p = ScriptedProvider({"inst-7": "42"})
    >>> msgs = [{"role": "user", "content": "Solve inst-7 now."}]
    >>> asyncio.run(p.complete(msgs, GenerationSettings(model="m"))).text
    '42'
"""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

from closurebench.errors import ConfigError
from closurebench.evaluate.providers.base import (
    Completion,
    GenerationSettings,
    ProviderError,
    ProviderOptions,
    apply_stop,
)

__all__ = [
    "ScriptedProvider",
    "ScriptedReply",
    "last_user_message",
    "load_script",
    "scripted_arguments",
]


@dataclass(frozen=True)
class ScriptedReply:
    """A scripted answer with optional behaviour.

    Attributes:
        text: The answer text.
        reasoning: Reasoning text to report, if any.
        delay_s: Seconds to sleep before answering (or failing).
        fail_times: How many calls answered with this reply object fail before it
            succeeds (counted per object, across keys sharing it).
        error: The error raised on those failing calls; a retryable
            :class:`ProviderError` (status 503) by default.
        finish_reason: Reported finish reason.
    """

    text: str = ""
    reasoning: str | None = None
    delay_s: float = 0.0
    fail_times: int = 0
    error: BaseException | None = None
    finish_reason: str | None = "stop"


Reply: TypeAlias = str | Completion | ScriptedReply | BaseException
ScriptFn: TypeAlias = Callable[
    [list[dict[str, str]], GenerationSettings], "Reply | Awaitable[Reply]"
]
Script: TypeAlias = Mapping[str, Reply] | Sequence[Reply] | ScriptFn


def last_user_message(messages: list[dict[str, str]]) -> str:
    """Return the content of the last ``user`` message ("" when there is none).

    Args:
        messages: Chat messages.

    Returns:
        The text of the last user message.
    """
    for message in reversed(messages):
        if message.get("role") == "user":
            return str(message.get("content", ""))
    return ""


def load_script(path: Path | None) -> list[Any] | dict[str, Any]:
    """Read a ``--script`` file: a JSON list of replies, or an object question-text -> reply.

    Args:
        path: The file (``None``: the option was not given).

    Returns:
        The script.

    Raises:
        ConfigError: when the option is missing or the file is unreadable or not a list
            or object.
    """
    if path is None:
        raise ConfigError("--provider scripted needs --script FILE (a JSON list or object)")
    try:
        script = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read --script {str(path)!r}: {exc}") from None
    if not isinstance(script, list | dict):
        raise ConfigError(f"--script {str(path)!r} must hold a JSON list or object")
    return script


def scripted_arguments(options: ProviderOptions) -> dict[str, Any]:
    """The :class:`ScriptedProvider` arguments of the CLI options (reads ``--script``)."""
    return {"script": load_script(options.script)}


class ScriptedProvider:
    """Answers from a script; records every call in :attr:`calls`.

    Attributes:
        name: Provider name recorded with results.
        calls: ``(messages, settings)`` of every call, in order.
        closed: True after :meth:`aclose`.
    """

    def __init__(
        self,
        script: Script,
        *,
        default: Reply | None = None,
        delay_s: float = 0.0,
        name: str = "scripted",
    ) -> None:
        """Create the provider.

        Args:
            script: A mapping, a sequence or a callable (see the module docstring).
            default: Reply when a mapping has no matching key (otherwise a
                non-retryable :class:`ProviderError` is raised).
            delay_s: Seconds to sleep before every reply.
            name: Provider name recorded with results.
        """
        if isinstance(script, str | bytes):
            raise TypeError("script must be a mapping, a sequence or a callable, not a string")
        self.name = name
        self.script = script
        self.default = default
        self.delay_s = delay_s
        self.calls: list[tuple[list[dict[str, str]], GenerationSettings]] = []
        self.closed = False
        self._next = 0
        self._failures: dict[int, int] = {}
        self._lock = threading.Lock()

    async def _pick(self, messages: list[dict[str, str]], settings: GenerationSettings) -> Reply:
        script = self.script
        if isinstance(script, Mapping):
            prompt = last_user_message(messages)
            if prompt in script:
                return script[prompt]
            hits = [key for key in script if key and key in prompt]
            if hits:
                return script[max(hits, key=len)]
            if self.default is not None:
                return self.default
            raise ProviderError(
                f"scripted provider has no answer for prompt {prompt[:80]!r}; add a key that "
                "occurs in it or pass default=",
                retryable=False,
            )
        if isinstance(script, Sequence):
            with self._lock:
                index = self._next
                self._next += 1
            if index < len(script):
                return script[index]
            if self.default is not None:
                return self.default
            raise ProviderError(
                f"scripted provider ran out of replies after {len(script)} calls; add replies "
                "or pass default=",
                retryable=False,
            )
        reply = script(messages, settings)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply

    async def complete(
        self, messages: list[dict[str, str]], settings: GenerationSettings
    ) -> Completion:
        """Answer from the script.

        Args:
            messages: Chat messages.
            settings: Sampling settings (recorded, otherwise ignored).

        Returns:
            The scripted completion; token counts are whitespace word counts.

        Raises:
            ProviderError: When the script has no answer, or a scripted failure.
        """
        if self.closed:
            raise ProviderError("scripted provider used after aclose()", retryable=False)
        self.calls.append(([dict(m) for m in messages], settings))
        start = time.perf_counter()
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        reply = await self._pick(messages, settings)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, Completion):
            return reply
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        if isinstance(reply, ScriptedReply):
            if reply.delay_s:
                await asyncio.sleep(reply.delay_s)
            if reply.fail_times:
                with self._lock:
                    failed = self._failures.get(id(reply), 0)
                    if failed < reply.fail_times:
                        self._failures[id(reply)] = failed + 1
                        fail = True
                    else:
                        fail = False
                if fail:
                    raise reply.error or ProviderError(
                        f"scripted failure {failed + 1} of {reply.fail_times}",
                        retryable=True,
                        status=503,
                    )
            text, stopped = apply_stop(reply.text, settings.stop)
            return Completion(
                text=text,
                reasoning=reply.reasoning,
                prompt_tokens=prompt_tokens,
                completion_tokens=len(text.split()),
                latency_s=time.perf_counter() - start,
                finish_reason="stop" if stopped else reply.finish_reason,
            )
        if isinstance(reply, str):
            text, _ = apply_stop(reply, settings.stop)
            return Completion(
                text=text,
                reasoning=None,
                prompt_tokens=prompt_tokens,
                completion_tokens=len(text.split()),
                latency_s=time.perf_counter() - start,
                finish_reason="stop",
            )
        raise ProviderError(
            f"scripted reply of type {type(reply).__name__} is not a str, Completion, "
            "ScriptedReply or exception",
            retryable=False,
        )

    async def aclose(self) -> None:
        """Mark the provider closed."""
        self.closed = True
