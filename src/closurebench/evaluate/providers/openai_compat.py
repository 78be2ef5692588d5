"""A provider for any OpenAI-compatible chat-completions server.

Works with vLLM, SGLang, llama.cpp, Ollama and hosted APIs through the ``openai``
SDK. The SDK's own retries are switched off (``max_retries=0``): the runner owns
retries and reads :attr:`ProviderError.retryable` to decide.

Speed: requests go through the SDK's generic ``client.post`` (its documented way to
send a request the typed helpers do not model) and the JSON body is read here, so
the SDK's per-call parameter transformation and response-model construction, which
cost more than the HTTP exchange itself, are skipped; the client's transport is the
SDK's aiohttp one (``openai[aiohttp]``), the faster of its two under concurrency.
Authentication, base-URL handling, timeouts and error mapping stay the SDK's. See
``benchmarks/RESULTS.md`` for the measured difference.

Example:
    >>> p = OpenAICompatProvider(base_url="http://127.0.0.1:8000/v1")
    >>> p.name, p.base_url
    ('openai', 'http://127.0.0.1:8000/v1')
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import re
import time
from typing import Any
from urllib.parse import urlparse

import httpx2
import openai

from closurebench.evaluate.providers.base import Completion, GenerationSettings, ProviderError

__all__ = [
    "DEFAULT_API_KEY_ENV",
    "OpenAICompatProvider",
    "is_local_url",
    "unsupported_parameter",
]

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
_DUMMY_KEY = "EMPTY"
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
# A rejection of one request's length, not of the run's configuration: vLLM, SGLang,
# llama.cpp, Ollama and OpenAI word it differently, all with one of these phrases.
_CONTEXT_OVERFLOW = re.compile(
    r"context[ _](length|size|window)|maximum context|too many tokens|prompt is too long",
    re.IGNORECASE,
)


def is_local_url(url: str) -> bool:
    """Tell whether ``url`` points at a local or private-network server.

    Such servers (a vLLM on this machine or on a cluster node) usually need no key.

    Args:
        url: A base URL such as ``http://127.0.0.1:8000/v1``.

    Returns:
        True for localhost, loopback, private and link-local addresses.

    Example:
        >>> is_local_url("http://localhost:8000/v1"), is_local_url("https://api.openai.com/v1")
        (True, False)
    """
    host = (urlparse(url).hostname or "").lower()
    if host in {"localhost", "0.0.0.0", "host.docker.internal"} or host.endswith(
        (".localhost", ".local", ".internal")
    ):
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return addr.is_loopback or addr.is_private or addr.is_link_local or addr.is_unspecified


class OpenAICompatProvider:
    """Chat completions from an OpenAI-compatible HTTP server.

    Attributes:
        name: Provider name recorded with results.
        base_url: The server's API root (``.../v1``).
    """

    def __init__(
        self,
        base_url: str = "https://api.openai.com/v1",
        *,
        api_key: str | None = None,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        timeout_s: float = 120.0,
        name: str = "openai",
        extra_body: dict[str, Any] | None = None,
        default_headers: dict[str, str] | None = None,
    ) -> None:
        """Configure the provider; no connection is made until the first request.

        Args:
            base_url: API root of the server, e.g. ``http://127.0.0.1:8000/v1``.
            api_key: Explicit key; overrides ``api_key_env``.
            api_key_env: Environment variable holding the key (``--api-key-env``).
            timeout_s: Default request timeout; ``GenerationSettings.timeout_s`` wins
                per request.
            name: Provider name recorded with results.
            extra_body: Extra JSON fields sent with every request (e.g.
                ``{"chat_template_kwargs": {"enable_thinking": False}}`` for vLLM).
            default_headers: Extra HTTP headers sent with every request.

        Raises:
            ProviderError: When no key is available for a non-local server.
        """
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.extra_body = dict(extra_body or {})
        self.default_headers = dict(default_headers or {})
        key = api_key if api_key is not None else os.environ.get(api_key_env)
        if not key:
            if not is_local_url(self.base_url):
                raise ProviderError(
                    f"no API key for {self.base_url}: set the environment variable "
                    f"{api_key_env} (or pass --api-key-env NAME of a variable that holds it)",
                    retryable=False,
                )
            key = _DUMMY_KEY
        self._api_key = key
        self._client: openai.AsyncOpenAI | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAICompatProvider(name={self.name!r}, base_url={self.base_url!r})"

    async def _get_client(self) -> openai.AsyncOpenAI:
        """Return a client bound to the running event loop (recreated if the loop changed)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            # A client's connection pool belongs to the loop that opened it; a fresh
            # loop (e.g. a second asyncio.run) needs a fresh client.
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self._api_key,
                max_retries=0,
                timeout=self.timeout_s,
                default_headers=self.default_headers or None,
                http_client=_http_client(self.timeout_s),
            )
            self._loop = loop
        return self._client

    async def complete(
        self, messages: list[dict[str, Any]], settings: GenerationSettings
    ) -> Completion:
        """Send one chat-completions request.

        Args:
            messages: Chat messages, each ``{"role": ..., "content": ...}``.
            settings: Sampling settings; only the set fields are sent
                (:meth:`GenerationSettings.request_fields`).

        Returns:
            The completion with usage (reasoning tokens too, when reported), latency,
            finish reason and reasoning text.

        Raises:
            ProviderError: On any failure; ``retryable`` is True for 429, 5xx,
                timeouts and connection errors; ``unsupported`` names the parameter
                of a 400 that refuses one (:func:`unsupported_parameter`).
        """
        client = await self._get_client()
        body: dict[str, Any] = {
            "model": settings.model,
            "messages": messages,
            **settings.request_fields(),
        }
        if self.extra_body:
            body.update(self.extra_body)
        start = time.perf_counter()
        try:
            response = await client.post(
                "/chat/completions",
                body=body,
                cast_to=httpx2.Response,
                options={"timeout": settings.timeout_s},
            )
            raw = response.content
        except openai.OpenAIError as exc:
            raise self._map_error(exc, settings, time.perf_counter() - start) from exc
        except (httpx2.TimeoutException, TimeoutError) as exc:  # reading the body timed out
            raise self._timed_out(settings) from exc
        except (httpx2.HTTPError, OSError) as exc:
            raise ProviderError(
                f"could not reach {self.base_url} ({type(exc).__name__}: {exc}); is the "
                "server running? check --base-url",
                retryable=True,
            ) from exc
        latency = time.perf_counter() - start
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise self._malformed(
                f"body is not JSON ({exc}): {raw[:80]!r}", status=response.status_code
            ) from exc
        return self._parse(data, latency)

    def _parse(self, data: Any, latency: float) -> Completion:
        """Turn a chat-completion JSON body into a :class:`Completion`.

        The body is untrusted: every field is type-checked, and anything that is not a
        completion raises a non-retryable :class:`ProviderError`.
        """
        if not isinstance(data, dict):
            raise self._malformed(f"expected a JSON object, got {type(data).__name__}")
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise self._malformed("the response has no choices")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise self._malformed("choices[0] has no message")
        text = message.get("content")
        if text is not None and not isinstance(text, str):
            raise self._malformed(f"message content is {type(text).__name__}, not a string")
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        finish = choice.get("finish_reason")
        details = usage.get("completion_tokens_details")
        reasoning_tokens = (
            _int_or_none(details.get("reasoning_tokens")) if isinstance(details, dict) else None
        )
        return Completion(
            text=text or "",
            tool_calls=_tool_calls_of(message),
            reasoning=_reasoning_of(message),
            prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
            completion_tokens=_int_or_none(usage.get("completion_tokens")),
            latency_s=latency,
            finish_reason=str(finish) if finish is not None else None,
            reasoning_tokens=reasoning_tokens,
        )

    def _malformed(self, detail: str, status: int | None = None) -> ProviderError:
        return ProviderError(
            f"malformed response from {self.base_url}: {detail}; check that --base-url "
            "points at an OpenAI-compatible API root (usually ending in /v1)",
            retryable=False,
            status=status,
        )

    def _timed_out(self, settings: GenerationSettings) -> ProviderError:
        return ProviderError(
            f"request to {self.base_url} timed out after {settings.timeout_s:g}s; the server "
            "may be overloaded; raise the timeout or lower concurrency",
            retryable=True,
        )

    def _map_error(
        self, exc: openai.OpenAIError, settings: GenerationSettings, elapsed_s: float
    ) -> ProviderError:
        """Translate an SDK exception into a :class:`ProviderError`."""
        url = self.base_url
        if isinstance(exc, openai.APITimeoutError):
            cause = exc.__cause__
            if isinstance(cause, httpx2.ConnectTimeout) and elapsed_s < 0.9 * settings.timeout_s:
                # The aiohttp transport reports a refused connection as ConnectTimeout.
                return ProviderError(
                    f"could not reach {url} ({cause}); is the server running? check --base-url",
                    retryable=True,
                )
            return self._timed_out(settings)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            return ProviderError(
                f"could not reach {url} ({type(cause).__name__}: {cause}); is the server "
                "running? check --base-url",
                retryable=True,
            )
        if isinstance(exc, openai.APIResponseValidationError):
            return self._malformed(str(exc), status=exc.status_code)
        if isinstance(exc, openai.APIStatusError):
            return self._map_status(exc, settings)
        return ProviderError(
            f"request to {url} failed ({type(exc).__name__}: {exc})", retryable=False
        )

    def _map_status(
        self, exc: openai.APIStatusError, settings: GenerationSettings
    ) -> ProviderError:
        url = self.base_url
        status = exc.status_code
        detail = _server_message(exc)
        if status == 429:
            retry_after = _retry_after(exc)
            hint = f"; server asks to retry after {retry_after:g}s" if retry_after else ""
            return ProviderError(
                f"rate limited by {url} (429: {detail}){hint}; lower concurrency or wait",
                retryable=True,
                status=status,
                retry_after_s=retry_after,
            )
        if status >= 500 or status in _RETRYABLE_STATUS:
            retry_after = _retry_after(exc)
            return ProviderError(
                f"server error from {url} ({status}: {detail}); retry later or check the "
                "server's logs",
                retryable=True,
                status=status,
                retry_after_s=retry_after,
            )
        if status == 401:
            return ProviderError(
                f"authentication failed at {url} (401: {detail}); set {self.api_key_env} to a "
                "valid API key (or pass --api-key-env NAME of a variable that holds it)",
                retryable=False,
                status=status,
            )
        if status == 403:
            return ProviderError(
                f"permission denied at {url} (403: {detail}); the key in {self.api_key_env} "
                f"may lack access to model '{settings.model}'",
                retryable=False,
                status=status,
            )
        if status == 404:
            return ProviderError(
                f"model '{settings.model}' not served at {url} (404: {detail}); check --model "
                f"(GET {url}/models lists what is served) and --base-url",
                retryable=False,
                status=status,
            )
        refused = unsupported_parameter(exc.body) if status == 400 else None
        if refused is not None:
            # Fatal unless the runner can stop sending it (it retries once without it).
            return ProviderError(
                f"request rejected by {url} ({status}: {detail}); the model does not take "
                f"the parameter {refused!r}: leave its option unset (reasoning models take "
                "--max-completion-tokens and no --temperature)",
                retryable=False,
                status=status,
                unsupported=refused,
            )
        if _CONTEXT_OVERFLOW.search(detail):
            # This instance's prompt is too long for the model: the others may fit, so
            # the instance fails and the run goes on.
            return ProviderError(
                f"request rejected by {url} ({status}: {detail}); the prompt plus "
                f"max_tokens={settings.max_tokens} exceeds the model's context: lower "
                "--max-tokens or serve the model with a longer context",
                retryable=False,
                status=status,
                fatal=False,
            )
        return ProviderError(
            f"request rejected by {url} ({status}: {detail}); check the generation settings "
            f"(e.g. max_tokens={settings.max_tokens} may exceed the model's context) and "
            "the messages",
            retryable=False,
            status=status,
        )

    async def aclose(self) -> None:
        """Close the HTTP client; the provider may be used again afterwards."""
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await client.close()


def _http_client(timeout_s: float) -> Any:
    """The SDK's aiohttp transport (``openai[aiohttp]`` is a core dependency)."""
    return openai.DefaultAioHttpClient(timeout=timeout_s)


def _reasoning_of(message: dict[str, Any]) -> str | None:
    """Read reasoning text from ``reasoning_content`` (vLLM, DeepSeek) or ``reasoning``."""
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _int_or_none(value: Any) -> int | None:
    """A token count from the server, or None when it is not a count (untrusted input).

    Example:
        >>> _int_or_none(12), _int_or_none(-5), _int_or_none(True), _int_or_none("7")
        (12, None, None, None)
    """
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


#: The OpenAI error codes of a refused parameter.
_UNSUPPORTED_CODES = frozenset({"unsupported_parameter", "unsupported_value"})
_UNSUPPORTED_TEXT = re.compile(r"Unsupported (?:parameter|value): '([A-Za-z_]+)'")


def _tool_calls_of(message: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """The function calls of a message (``tool_calls``), malformed entries skipped.

    Example:
        >>> _tool_calls_of({"tool_calls": [{"id": "c1", "type": "function",
        ...     "function": {"name": "graph_tool", "arguments": "{}"}}, "junk"]})
        ({'id': 'c1', 'name': 'graph_tool', 'arguments': '{}'},)
    """
    calls = message.get("tool_calls")
    out: list[dict[str, Any]] = []
    for call in calls if isinstance(calls, list) else ():
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            continue
        args = fn.get("arguments")
        out.append(
            {
                "id": str(call.get("id") or f"call_{len(out)}"),
                "name": str(fn.get("name") or ""),
                "arguments": args if isinstance(args, str) else json.dumps(args),
            }
        )
    return tuple(out)


def unsupported_parameter(body: Any) -> str | None:
    """The request parameter a 400 error body refuses as unsupported, or None.

    Reads the OpenAI error shape (``{"error": {"param": ..., "code":
    "unsupported_parameter" | "unsupported_value"}}``, or its inner object as the SDK
    keeps it), else the message's ``Unsupported parameter: 'x'`` wording. The body is
    untrusted: anything else is None.

    Example:
        >>> unsupported_parameter({"error": {"message": "Unsupported parameter: "
        ...     "'max_tokens' is not supported with this model.", "param": "max_tokens",
        ...     "code": "unsupported_parameter"}})
        'max_tokens'
        >>> unsupported_parameter({"message": "Unsupported value: 'temperature' does "
        ...     "not support 0.0 with this model."})
        'temperature'
        >>> unsupported_parameter({"error": {"message": "bad request", "code": 400}}) is None
        True
    """
    inner = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return None
    param, code = inner.get("param"), inner.get("code")
    if isinstance(param, str) and param and code in _UNSUPPORTED_CODES:
        return param
    message = inner.get("message")
    found = _UNSUPPORTED_TEXT.search(message) if isinstance(message, str) else None
    return found.group(1) if found else None


def _server_message(exc: openai.APIStatusError) -> str:
    """The server's own error message, kept short."""
    body = exc.body
    msg: Any = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        msg = inner.get("message") if isinstance(inner, dict) else inner
        if msg is None:
            msg = body.get("message") or body.get("detail")
    if not msg:
        msg = exc.message
    text = str(msg).strip() or "no details"
    return text if len(text) <= 300 else text[:297] + "..."


def _retry_after(exc: openai.APIStatusError) -> float | None:
    """Seconds from a ``Retry-After`` (or ``retry-after-ms``) header, if present."""
    headers = exc.response.headers if exc.response is not None else {}
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return float(ms) / 1000.0
        value = headers.get("retry-after")
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
