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
    >>> ProviderError("model not served", status=404).fatal
    True
    >>> GenerationSettings(model="m", timeout_s=-5).check()
    Traceback (most recent call last):
    ...
    closurebench.errors.ConfigError: --timeout must be a positive number of seconds, got -5
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from closurebench.errors import ClosureBenchError, ConfigError

__all__ = [
    "ADAPTABLE_PARAMETERS",
    "DEFAULT_MAX_TOKENS",
    "FATAL_STATUS",
    "Completion",
    "GenerationSettings",
    "Provider",
    "ProviderError",
    "ProviderOptions",
    "ProviderSpec",
    "apply_stop",
    "check_reachable",
    "parse_extra_body",
]

#: HTTP statuses that say the run's configuration is wrong for every request alike
#: (bad request, key, permission, model or path): a non-retryable error with one of
#: these stops the run at once (see :attr:`ProviderError.fatal`).
FATAL_STATUS = frozenset({400, 401, 403, 404, 405, 422})


#: The token limit of a request that names none (``--max-tokens``' default).
DEFAULT_MAX_TOKENS = 2048

#: Request parameters a server may refuse for a model (an OpenAI reasoning model refuses
#: ``max_tokens`` and any ``temperature`` but its default), and what the harness does
#: then (:meth:`GenerationSettings.without`): ``max_tokens`` and
#: ``max_completion_tokens`` are renamed into each other (same limit), the others are
#: dropped (the server's default applies).
ADAPTABLE_PARAMETERS = ("temperature", "top_p", "seed", "max_tokens", "max_completion_tokens")


@dataclass(frozen=True)
class GenerationSettings:
    """Sampling settings sent with a request and recorded with every result.

    A field that is ``None`` is not sent: the server's default applies (a reasoning
    model that refuses ``temperature``, a server whose output limit is its own).

    The dict form (:meth:`to_dict`: ``run.json``, each result's ``settings`` and, less
    the timeout, the cache key) has the keys ``model``, ``temperature``,
    ``max_tokens``, ``top_p``, ``seed`` and ``timeout_s`` (null where not sent), plus
    ``max_completion_tokens`` only when it is set, so the settings of runs made before
    it existed keep their ``run.json`` and cache keys.

    Attributes:
        model: Model name as the backend knows it.
        temperature: Sampling temperature; 0.0 means greedy (the papers' decoding);
            None sends none.
        max_tokens: Upper bound on generated tokens (``max_tokens``); None sends none.
        top_p: Nucleus sampling mass, or None for the backend default.
        seed: Sampling seed, or None when the backend should not get one.
        timeout_s: Per-request timeout in seconds.
        max_completion_tokens: Upper bound on generated tokens, reasoning included,
            sent as ``max_completion_tokens`` (what OpenAI's reasoning models take
            instead of ``max_tokens``); None sends none.
        stop: Stop sequences for one request (an agent mode's ``</graph>``); the
            reply ends before the first one, which is not included (OpenAI's rule).
            Set per request by :meth:`with_stop`, never by the user; None sends none.
        tools: Function-calling tool specs for one request (OpenAI's ``tools``; the
            ``agent-tools`` mode's graph tool). Set per request by :meth:`with_tools`.
        extra_body: Server-specific fields sent with every request (``--extra-body``:
            vLLM / SGLang ``chat_template_kwargs``, ``reasoning_effort``, ``top_k``...),
            as canonical JSON text of an object; None sends none. Part of the run's
            identity and of the cache key, like every other setting.
    """

    model: str
    temperature: float | None = 0.0
    max_tokens: int | None = DEFAULT_MAX_TOKENS
    top_p: float | None = None
    seed: int | None = None
    timeout_s: float = 120.0
    max_completion_tokens: int | None = None
    stop: tuple[str, ...] | None = None
    tools: tuple[dict[str, Any], ...] | None = None
    extra_body: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as a plain JSON-serialisable dict.

        Returns:
            A dict with one key per field (``max_completion_tokens`` only when set).

        Example:
            >>> "max_completion_tokens" in GenerationSettings(model="m").to_dict()
            False
            >>> GenerationSettings(model="m", max_tokens=None,
            ...                    max_completion_tokens=64).to_dict()["max_completion_tokens"]
            64
        """
        d = asdict(self)
        for optional in ("max_completion_tokens", "stop", "tools", "extra_body"):
            if d[optional] is None:
                del d[optional]
        for listed in ("stop", "tools"):
            if listed in d:
                d[listed] = list(d[listed])
        if "extra_body" in d:
            d["extra_body"] = self.extra_fields()
        return d

    def extra_fields(self) -> dict[str, Any]:
        """The ``extra_body`` fields as a dict (empty when none).

        Example:
            >>> GenerationSettings(model="m", extra_body='{"top_k": 20}').extra_fields()
            {'top_k': 20}
        """
        if not self.extra_body:
            return {}
        value = json.loads(self.extra_body)
        return dict(value) if isinstance(value, dict) else {}

    def with_stop(self, stop: Sequence[str] | None) -> GenerationSettings:
        """These settings with the stop sequences of one request (None or empty: unchanged).

        Example:
            >>> GenerationSettings(model="m").with_stop(["</graph>"]).stop
            ('</graph>',)
        """
        return replace(self, stop=tuple(stop)) if stop else self

    def with_tools(self, tools: Sequence[Mapping[str, Any]] | None) -> GenerationSettings:
        """These settings with the function-calling tools of one request (None: unchanged).

        Example:
            >>> spec = {"type": "function", "function": {"name": "f", "parameters": {}}}
            >>> fields = GenerationSettings(model="m").with_tools([spec]).request_fields()
            >>> fields["tools"][0]["type"]
            'function'
        """
        return replace(self, tools=tuple(dict(t) for t in tools)) if tools else self

    def with_token_limit(self, limit: int | None) -> GenerationSettings:
        """These settings with one request's token limit (an agent call's remaining budget).

        The limit goes in the field the run sends (``max_completion_tokens`` when set,
        else ``max_tokens``); settings that send neither (the server refused both) and
        ``limit`` None are unchanged.

        Example:
            >>> GenerationSettings(model="m").with_token_limit(700).max_tokens
            700
            >>> s = GenerationSettings(model="m", max_tokens=None, max_completion_tokens=64)
            >>> s.with_token_limit(10).max_completion_tokens
            10
        """
        if limit is None:
            return self
        if self.max_completion_tokens is not None:
            return replace(self, max_completion_tokens=limit)
        if self.max_tokens is not None:
            return replace(self, max_tokens=limit)
        return self

    def request_fields(self) -> dict[str, Any]:
        """The sampling fields a request body carries: the set ones only.

        Example:
            >>> GenerationSettings(model="m", temperature=None, seed=3).request_fields()
            {'max_tokens': 2048, 'seed': 3}
        """
        fields = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "max_completion_tokens": self.max_completion_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
            "stop": list(self.stop) if self.stop else None,
            "tools": list(self.tools) if self.tools else None,
        }
        sent = {k: v for k, v in fields.items() if v is not None}
        return {**sent, **self.extra_fields()}

    @property
    def token_limit(self) -> int:
        """The generated-token limit for a backend that always needs one (a local model).

        Example:
            >>> GenerationSettings(model="m", max_tokens=None).token_limit
            2048
        """
        return self.max_completion_tokens or self.max_tokens or DEFAULT_MAX_TOKENS

    def without(self, param: str, *, rename: bool = True) -> tuple[GenerationSettings, str] | None:
        """These settings with ``param`` no longer sent, after a server refused it.

        ``max_tokens`` and ``max_completion_tokens`` are renamed into each other (the
        limit is kept) unless ``rename`` is False; the other
        :data:`ADAPTABLE_PARAMETERS` are dropped.

        Args:
            param: The refused request parameter (as the server names it).
            rename: Allow the rename (False when the other name was refused too).

        Returns:
            ``(new settings, what was done)``, or None when ``param`` is not one these
            settings send (or not adaptable): nothing can be changed.

        Example:
            >>> s = GenerationSettings(model="m")
            >>> s.without("max_tokens")[1]
            'max_tokens renamed to max_completion_tokens'
            >>> s.without("temperature")[0].temperature is None
            True
            >>> s.without("stop") is None
            True
        """
        if param not in ADAPTABLE_PARAMETERS or getattr(self, param) is None:
            return None
        renames = {"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}
        other = renames.get(param)
        if other is not None and rename and getattr(self, other) is None:
            changes: dict[str, Any] = {param: None, other: getattr(self, param)}
            return replace(self, **changes), f"{param} renamed to {other}"
        dropped: dict[str, Any] = {param: None}
        return replace(self, **dropped), f"{param} dropped"

    def check(self) -> None:
        """Reject values no request can use, naming the ``closurebench eval`` option.

        Raises:
            ConfigError: naming the option, the value and the accepted range.
        """
        if not self.model:
            raise ConfigError("--model is empty; pass the model name the server serves")
        if not (math.isfinite(self.timeout_s) and self.timeout_s > 0):
            raise ConfigError(
                f"--timeout must be a positive number of seconds, got {self.timeout_s:g}"
            )
        if self.temperature is not None and not (
            math.isfinite(self.temperature) and self.temperature >= 0
        ):
            raise ConfigError(f"--temperature must be >= 0, got {self.temperature:g}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ConfigError(f"--max-tokens must be >= 1, got {self.max_tokens}")
        if self.max_completion_tokens is not None and self.max_completion_tokens < 1:
            raise ConfigError(
                f"--max-completion-tokens must be >= 1, got {self.max_completion_tokens}"
            )
        if self.max_tokens is not None and self.max_completion_tokens is not None:
            raise ConfigError(
                f"--max-tokens {self.max_tokens} and --max-completion-tokens "
                f"{self.max_completion_tokens} are both set; pass one of them (reasoning "
                "models take --max-completion-tokens)"
            )
        if self.top_p is not None and not (0 < self.top_p <= 1):
            raise ConfigError(f"--top-p must be in (0, 1], got {self.top_p:g}")
        if self.extra_body is not None:
            parse_extra_body(self.extra_body)


def apply_stop(text: str, stop: Sequence[str] | None) -> tuple[str, bool]:
    """Cut ``text`` before the first stop sequence, as a server does.

    For backends that cannot stop generation on a string (a local model, a script).

    Returns:
        ``(text, stopped)``: the text up to (not including) the earliest stop sequence,
        and whether one was found.

    Example:
        >>> apply_stop("<graph>{}</graph><result>made up", ["</graph>", "</answer>"])
        ('<graph>{}', True)
        >>> apply_stop("no tags", ["</graph>"])
        ('no tags', False)
    """
    cuts = [i for i in (text.find(s) for s in stop or () if s) if i >= 0]
    return (text[: min(cuts)], True) if cuts else (text, False)


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
        reasoning_tokens: Of ``completion_tokens``, those spent reasoning, when the
            backend reports them (``usage.completion_tokens_details.reasoning_tokens``).
        tool_calls: Native function calls the model made (``message.tool_calls``), each
            ``{"id": str, "name": str, "arguments": str}`` (the arguments as the model
            wrote them: untrusted JSON text).
    """

    text: str
    reasoning: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    finish_reason: str | None
    reasoning_tokens: int | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()


class ProviderError(ClosureBenchError):
    """A backend failed to produce a completion.

    The message names the cause and the fix.

    Attributes:
        retryable: True when trying the same request again may succeed
            (rate limits, server errors, timeouts, connection errors).
        status: The HTTP status code, when there was one.
        retry_after_s: Seconds the server asked to wait (``Retry-After``), if any.
        fatal: True when every other request of the run would fail the same way (a
            wrong key, model, path or request shape): the runner then stops the run at
            once instead of recording the instance as failed. By default, a
            non-retryable error whose status is in :data:`FATAL_STATUS`; a provider
            passes ``fatal=False`` for a rejection specific to one request (a prompt
            longer than the model's context).
        unsupported: The request parameter the server refused as unsupported for the
            model (e.g. ``"max_tokens"`` or ``"temperature"`` from an OpenAI reasoning
            model), when it named one: the runner then changes the settings
            (:meth:`GenerationSettings.without`) and retries once instead of stopping.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after_s: float | None = None,
        fatal: bool | None = None,
        unsupported: str | None = None,
    ):
        """Create the error.

        Args:
            message: What went wrong and how to fix it.
            retryable: Whether the runner may retry the request.
            status: HTTP status code, if any.
            retry_after_s: Seconds the server asked to wait before retrying, if any.
            fatal: Whether the run must stop (None: derived from ``retryable`` and
                ``status``).
            unsupported: The request parameter the server refused, if it named one.
        """
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s
        self.fatal = (not retryable and status in FATAL_STATUS) if fatal is None else fatal
        self.unsupported = unsupported

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep every field when pickled (e.g. across processes)."""
        return (
            _rebuild_provider_error,
            (
                type(self),
                str(self),
                self.retryable,
                self.status,
                self.retry_after_s,
                self.fatal,
                self.unsupported,
            ),
        )


def _rebuild_provider_error(
    cls: type[ProviderError],
    message: str,
    retryable: bool,
    status: int | None,
    retry_after_s: float | None,
    fatal: bool | None = None,
    unsupported: str | None = None,
) -> ProviderError:
    return cls(
        message,
        retryable=retryable,
        status=status,
        retry_after_s=retry_after_s,
        fatal=fatal,
        unsupported=unsupported,
    )


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


@dataclass(frozen=True)
class ProviderOptions:
    """The command-line options a provider may be configured from (``closurebench eval``).

    Each :class:`ProviderSpec` reads the ones it uses; the others are ignored.

    Attributes:
        model: ``--model`` (a served model name, or a Hub id / directory for a local model).
        timeout_s: ``--timeout``.
        base_url: ``--base-url`` (None: the provider's default); a tuple of several
            when it is repeated (the requests are spread over them:
            :class:`~closurebench.evaluate.providers.endpoints.EndpointRouter`).
        api_key_env: ``--api-key-env``.
        device: ``--device``.
        script: ``--script``.
        workers: ``--workers`` (0: requests in this process; with several
            ``--base-url``, the processes of each endpoint).
        extra: ``--provider-arg KEY=VALUE`` (repeatable): the provider's own options,
            as text. Each provider names the keys it takes (:attr:`ProviderSpec.accepts`)
            and reads their values itself, so a new provider's options need no new
            field here and no new CLI option.

    Example:
        >>> ProviderOptions(model="m", base_url=("http://a/v1", "http://b/v1")).base_urls
        ('http://a/v1', 'http://b/v1')
        >>> ProviderOptions(model="m").base_urls
        ()
        >>> ProviderOptions(model="m", extra={"dtype": "bfloat16"}).extra["dtype"]
        'bfloat16'
    """

    model: str
    timeout_s: float = 120.0
    base_url: str | tuple[str, ...] | None = None
    api_key_env: str = "OPENAI_API_KEY"
    device: str | None = None
    script: Path | None = None
    workers: int = 0
    extra: Mapping[str, str] = field(default_factory=dict)

    @property
    def base_urls(self) -> tuple[str, ...]:
        """Every ``--base-url`` given, in order (empty: none)."""
        if self.base_url is None:
            return ()
        return (self.base_url,) if isinstance(self.base_url, str) else tuple(self.base_url)


def _no_arguments(options: ProviderOptions) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class ProviderSpec:
    """One entry of the provider table: how to build a provider from the CLI options.

    Attributes:
        name: The ``--provider`` name.
        target: The factory (usually the provider class), or ``"module:attribute"``
            naming it, imported on first use (so listing providers imports no SDK).
        help: One line for ``--provider``'s help.
        arguments: Maps the CLI options to the factory's keyword arguments (and checks
            them, raising :class:`~closurebench.errors.ConfigError`).
        uses: The CLI options the provider reads (shown in the help).
        needs_base_url: The provider talks to a server at ``arguments(...)["base_url"]``;
            the CLI checks that something listens there before the run. Such a
            provider may be given several ``--base-url`` (one provider per endpoint,
            behind an :class:`~closurebench.evaluate.providers.endpoints.EndpointRouter`);
            the others refuse more than one.
        supports_workers: Requests may be spread over ``--workers`` processes (the
            arguments must then be JSON).
        accepts: The ``--provider-arg`` keys the provider takes (key -> one line of
            help); ``arguments`` reads and checks their values from
            :attr:`ProviderOptions.extra`. Any other key is refused, naming these.
        models: The only ``--model`` names the provider answers (empty: any); under
            ``--provider auto`` these names pick this provider
            (:func:`~closurebench.evaluate.providers.resolve_provider`).
        takes_run: The factory also takes the run's ``instances`` and ``mode`` (keyword
            arguments): a provider that answers from the instances themselves
            (``reference``).

    Example:
        >>> spec = ProviderSpec("echo", "closurebench.evaluate.providers.scripted:"
        ...                     "ScriptedProvider", "replies in order",
        ...                     arguments=lambda o: {"script": [o.model]})
        >>> spec.make(**spec.arguments(ProviderOptions(model="hi"))).name
        'scripted'
    """

    name: str
    target: str | Callable[..., Provider]
    help: str
    arguments: Callable[[ProviderOptions], dict[str, Any]] = _no_arguments
    uses: tuple[str, ...] = ()
    needs_base_url: bool = False
    supports_workers: bool = False
    accepts: Mapping[str, str] = field(default_factory=dict)
    models: tuple[str, ...] = ()
    takes_run: bool = False

    @property
    def factory(self) -> Callable[..., Provider]:
        """The factory, imported when ``target`` names it."""
        if not isinstance(self.target, str):
            return self.target
        module, _, attribute = self.target.partition(":")
        factory: Callable[..., Provider] = getattr(importlib.import_module(module), attribute)
        return factory

    def make(self, **kwargs: Any) -> Provider:
        """Call the factory with ``kwargs`` after checking them against its signature.

        Raises:
            ConfigError: for arguments the factory does not accept (lists the accepted ones).
        """
        factory = self.factory
        signature = inspect.signature(factory)
        try:
            signature.bind(**kwargs)
        except TypeError as exc:
            accepted = ", ".join(p for p in signature.parameters if p != "self")
            raise ConfigError(
                f"bad arguments for provider {self.name!r} ({exc}); it accepts: {accepted}"
            ) from None
        return factory(**kwargs)


#: Request fields ``--extra-body`` may not set: each has its own option, or the harness
#: owns it (the prompt, the agent's stop sequences and tools, streaming).
RESERVED_FIELDS = {
    "model": "--model",
    "messages": "the mode",
    "temperature": "--temperature",
    "max_tokens": "--max-tokens",
    "max_completion_tokens": "--max-completion-tokens",
    "top_p": "--top-p",
    "stop": "the mode",
    "tools": "the mode",
    "stream": "the harness",
    "n": "the harness (one reply per request)",
}


def parse_extra_body(text: str) -> str:
    """Validate ``--extra-body`` (JSON text of an object, or ``@FILE``); canonical JSON.

    Raises:
        ConfigError: not JSON, not an object, unreadable file, or a field another
            option (or the harness) sets.

    Example:
        >>> parse_extra_body('{"chat_template_kwargs": {"enable_thinking": false}}')
        '{"chat_template_kwargs":{"enable_thinking":false}}'
        >>> try:
        ...     parse_extra_body('{"temperature": 1}')
        ... except ConfigError as exc:
        ...     print(exc)
        --extra-body sets 'temperature', which --temperature sets; use --temperature
    """
    source = "--extra-body"
    raw = text
    if text.startswith("@"):
        path = Path(text[1:])
        source = f"--extra-body {text}"
        try:
            raw = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{source}: cannot read {path} ({exc})") from None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source} is not JSON ({exc.msg} at character {exc.pos}); pass an object, e.g. "
            '\'{"chat_template_kwargs": {"enable_thinking": false}}\' or @FILE.json'
        ) from None
    if not isinstance(value, dict) or not value:
        raise ConfigError(f"{source} must be a non-empty JSON object, got {raw.strip()[:60]}")
    for key in value:
        if key in RESERVED_FIELDS:
            owner = RESERVED_FIELDS[key]
            fix = f"use {owner}" if owner.startswith("--") else "drop it"
            raise ConfigError(f"{source} sets {key!r}, which {owner} sets; {fix}")
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check_reachable(base_url: str, timeout_s: float = 5.0) -> None:
    """Open (and close) a TCP connection to the server of ``base_url``.

    Raises:
        ConfigError: when the URL is malformed (bad input: exit 1).
        ProviderError: when nothing listens there (fatal, not retryable: the run stops
            as a provider failure, exit 3).

    Example:
        >>> check_reachable("ftp://x")
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --base-url 'ftp://x' is not an http(s) URL
    """
    import socket
    from urllib.parse import urlparse

    parsed = urlparse(base_url)
    if parsed.scheme not in {"http", "https"} or not parsed.hostname:
        raise ConfigError(f"--base-url {base_url!r} is not an http(s) URL")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout_s):
            pass
    except OSError as exc:
        raise ProviderError(
            f"cannot reach the server at {base_url} ({exc}); is it running? check --base-url",
            retryable=False,
            fatal=True,
        ) from None
