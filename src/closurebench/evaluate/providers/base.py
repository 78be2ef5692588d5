"""The provider interface shared by every model backend.

A provider turns a list of chat messages plus :class:`GenerationSettings` into one
:class:`Completion`. Providers never retry: they raise :class:`ProviderError` with
``retryable`` set, and the runner decides whether to try again.

Example:
    >>> settings = GenerationSettings(model="m", temperature=0.0, seed=1)
    >>> settings.to_dict()["model"], settings.to_dict()["seed"]
    ('m', 1)
    >>> ProviderError("server busy; retry later", retryable=True, status=503).retryable
    True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Protocol, runtime_checkable

from closurebench.errors import ClosureBenchError

__all__ = ["Completion", "GenerationSettings", "Provider", "ProviderError"]


@dataclass(frozen=True)
class GenerationSettings:
    """Sampling settings sent with a request and recorded with every result.

    Attributes:
        model: Model name as the backend knows it.
        temperature: Sampling temperature; 0.0 means greedy.
        max_tokens: Upper bound on generated tokens.
        top_p: Nucleus sampling mass, or None for the backend default.
        seed: Sampling seed, or None when the backend should not get one.
        timeout_s: Per-request timeout in seconds.
    """

    model: str
    temperature: float = 0.0
    max_tokens: int = 2048
    top_p: float | None = None
    seed: int | None = None
    timeout_s: float = 120.0

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a plain JSON-serialisable dict.

        Returns:
            A dict with one key per field.
        """
        return asdict(self)


@dataclass(frozen=True)
class Completion:
    """One model answer.

    Attributes:
        text: The answer text (empty string when the model returned none).
        reasoning: Reasoning/thinking text when the backend returns it separately.
        prompt_tokens: Prompt tokens as reported by the backend, if any.
        completion_tokens: Generated tokens as reported by the backend, if any.
        latency_s: Wall-clock seconds of the request.
        finish_reason: Why generation stopped (``"stop"``, ``"length"``, ...), if known.
    """

    text: str
    reasoning: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    finish_reason: str | None


class ProviderError(ClosureBenchError):
    """A backend failed to produce a completion.

    The message names the cause and the fix.

    Attributes:
        retryable: True when trying the same request again may succeed
            (rate limits, server errors, timeouts, connection errors).
        status: The HTTP status code, when there was one.
        retry_after_s: Seconds the server asked to wait (``Retry-After``), if any.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after_s: float | None = None,
    ):
        """Create the error.

        Args:
            message: What went wrong and how to fix it.
            retryable: Whether the runner may retry the request.
            status: HTTP status code, if any.
            retry_after_s: Seconds the server asked to wait before retrying, if any.
        """
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep ``retryable`` and ``status`` when pickled (e.g. across processes)."""
        return (
            _rebuild_provider_error,
            (type(self), str(self), self.retryable, self.status, self.retry_after_s),
        )


def _rebuild_provider_error(
    cls: type[ProviderError],
    message: str,
    retryable: bool,
    status: int | None,
    retry_after_s: float | None,
) -> ProviderError:
    return cls(message, retryable=retryable, status=status, retry_after_s=retry_after_s)


@runtime_checkable
class Provider(Protocol):
    """A model backend.

    Attributes:
        name: Short identifier recorded with results (e.g. ``"openai"``).

    A provider may also set ``enforces_timeout = True`` when it bounds
    ``settings.timeout_s`` itself, in a way that yields a (possibly truncated)
    completion rather than an error - a local model that stops generating after the
    time limit, whose requests also wait for one another. The runner then does not
    wrap its requests in its own timeout (which would cancel queued requests and waste
    generation that cannot be interrupted).
    """

    name: str

    async def complete(
        self, messages: list[dict[str, str]], settings: GenerationSettings
    ) -> Completion:
        """Generate one completion.

        Args:
            messages: Chat messages, each ``{"role": ..., "content": ...}``.
            settings: Sampling settings.

        Returns:
            The completion.

        Raises:
            ProviderError: On any backend failure.
        """
        ...

    async def aclose(self) -> None:
        """Release connections and other resources."""
        ...
