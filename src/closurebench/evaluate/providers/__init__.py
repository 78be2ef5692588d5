"""Model providers: one table from a ``--provider`` name to its :class:`ProviderSpec`.

A new provider is one module (a class following the :class:`Provider` protocol) plus
one line in :data:`PROVIDERS`: its name, where its factory lives (imported only when
it is used, so listing providers loads no SDK), a line of help, and how the
``closurebench eval`` options map to its arguments. The CLI reads the table for its
``--provider`` choices and help.

``--provider auto`` (the CLI's default) is :func:`resolve_provider`: the provider whose
row lists the ``--model`` name under ``models`` (``reference`` for its four reference
models), else ``openai``. A provider's own options come as ``--provider-arg KEY=VALUE``
(:attr:`ProviderOptions.extra`), each key declared in its row (``accepts``).

Example:
    >>> sorted(PROVIDERS)
    ['openai', 'reference', 'scripted', 'transformers']
    >>> resolve_provider("auto", "reader"), resolve_provider("auto", "gpt-4.1")
    ('reference', 'openai')
    >>> resolve_provider("openai", "random")
    'openai'
    >>> p = make_provider("scripted", script=["yes"])
    >>> p.name
    'scripted'
    >>> try:
    ...     build_provider("scripted", ProviderOptions(model="m", workers=2))
    ... except ConfigError as exc:
    ...     print(str(exc).split(";")[0])
    --workers is supported for --provider openai, not 'scripted'

Several ``--base-url`` (``ProviderOptions.base_url`` a tuple) build one provider per
endpoint behind an :class:`~closurebench.evaluate.providers.endpoints.EndpointRouter`
(least in flight first; a failing endpoint is set aside and its requests go to the
others), for the providers that talk to a server (``needs_base_url``); the others
refuse more than one:

    >>> try:
    ...     check_provider_options("scripted", ProviderOptions(model="m",
    ...                            base_url=("http://a/v1", "http://b/v1")))
    ... except ConfigError as exc:
    ...     print(str(exc).split(";")[0])
    --base-url is given 2 times, but --provider scripted talks to no server

A ``--provider-arg`` key the provider does not take is refused, naming those it takes:

    >>> try:
    ...     check_provider_options("transformers", ProviderOptions(model="m",
    ...                            extra={"dtyp": "bfloat16"}))
    ... except ConfigError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    --provider-arg dtyp: --provider transformers takes dtype, trust_remote_code
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from closurebench.errors import ConfigError
from closurebench.evaluate.providers.base import (
    Completion,
    GenerationSettings,
    Provider,
    ProviderError,
    ProviderOptions,
    ProviderSpec,
    check_reachable,
)
from closurebench.evaluate.providers.scripted import (
    ScriptedProvider,
    ScriptedReply,
    scripted_arguments,
)

__all__ = [
    "AUTO",
    "DEFAULT_PROVIDER",
    "PROVIDERS",
    "Completion",
    "GenerationSettings",
    "Provider",
    "ProviderError",
    "ProviderOptions",
    "ProviderSpec",
    "ScriptedProvider",
    "ScriptedReply",
    "build_provider",
    "check_provider_options",
    "make_provider",
    "parse_provider_args",
    "provider_spec",
    "providers_help",
    "resolve_provider",
]

#: The ``--provider`` value that picks the provider from the ``--model`` name.
AUTO = "auto"
#: The provider ``auto`` picks for a model name no provider row claims.
DEFAULT_PROVIDER = "openai"

_PKG = "closurebench.evaluate.providers"


def _openai_arguments(o: ProviderOptions) -> dict[str, Any]:
    return {
        "base_url": o.base_urls[0] if o.base_urls else "https://api.openai.com/v1",
        "api_key_env": o.api_key_env,
        "timeout_s": o.timeout_s,
    }


def _flag(key: str, value: str) -> bool:
    text = value.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"--provider-arg {key}={value}: pass true or false")


def _seconds(key: str, value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise ConfigError(f"--provider-arg {key}={value}: pass a number of seconds >= 0")
    return seconds


def _transformers_arguments(o: ProviderOptions) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"model_path": o.model, "device": o.device}
    if "dtype" in o.extra:
        kwargs["dtype"] = o.extra["dtype"]
    if "trust_remote_code" in o.extra:
        kwargs["trust_remote_code"] = _flag("trust_remote_code", o.extra["trust_remote_code"])
    return kwargs


def _scripted_arguments(o: ProviderOptions) -> dict[str, Any]:
    kwargs = scripted_arguments(o)
    if "delay_s" in o.extra:
        kwargs["delay_s"] = _seconds("delay_s", o.extra["delay_s"])
    return kwargs


def _reference_arguments(o: ProviderOptions) -> dict[str, Any]:
    return {"model": o.model}


#: The one provider table: ``--provider`` name -> spec.
PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(
            "openai",
            f"{_PKG}.openai_compat:OpenAICompatProvider",
            "any OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, hosted APIs)",
            _openai_arguments,
            ("--base-url", "--api-key-env", "--timeout", "--workers"),
            needs_base_url=True,
            supports_workers=True,
        ),
        ProviderSpec(
            "transformers",
            f"{_PKG}.transformers_local:TransformersProvider",
            "a local model (--model is a Hub id or a directory; needs the 'train' extra)",
            _transformers_arguments,
            ("--model", "--device"),
            accepts={
                "dtype": "torch dtype of the weights (auto, bfloat16, float16, float32)",
                "trust_remote_code": "true to run the model repository's own code",
            },
        ),
        ProviderSpec(
            "scripted",
            ScriptedProvider,
            "replies from --script FILE (a JSON list, or an object question-text -> reply)",
            _scripted_arguments,
            ("--script",),
            accepts={"delay_s": "seconds to wait before every reply"},
        ),
        ProviderSpec(
            "reference",
            "closurebench.evaluate.reference:reference_provider",
            "the reference models, answered offline from the instances themselves: "
            "oracle-program (program modes), reader (agent modes), random, majority "
            "(chance; direct, cot, agent)",
            _reference_arguments,
            ("--model",),
            models=("oracle-program", "reader", "random", "majority"),
            takes_run=True,
        ),
    )
}


def provider_spec(name: str) -> ProviderSpec:
    """The spec of the provider called ``name``.

    Raises:
        ConfigError: for an unknown name (lists the known ones).
    """
    try:
        return PROVIDERS[name]
    except KeyError:
        raise ConfigError(
            f"unknown provider kind {name!r}; choose one of: {', '.join(sorted(PROVIDERS))}"
        ) from None


def resolve_provider(name: str, model: str) -> str:
    """The provider ``--provider name`` means for ``--model model``.

    ``auto`` is the provider whose row lists ``model`` under ``models`` (a reference
    model's name: ``reference``), else ``openai``; any other name is itself.

    Example:
        >>> resolve_provider("auto", "majority"), resolve_provider("scripted", "majority")
        ('reference', 'scripted')
    """
    if name != AUTO:
        return name
    return next((s.name for s in PROVIDERS.values() if model in s.models), DEFAULT_PROVIDER)


def parse_provider_args(values: Iterable[str] | None) -> dict[str, str]:
    """``--provider-arg KEY=VALUE`` options as a dict (the value is text; may hold ``=``).

    Raises:
        ConfigError: for an item without ``=`` or an empty key, or a key given twice.

    Example:
        >>> parse_provider_args(["dtype=bfloat16", "note=a=b"])
        {'dtype': 'bfloat16', 'note': 'a=b'}
        >>> try:
        ...     parse_provider_args(["dtype"])
        ... except ConfigError as exc:
        ...     print(str(exc).split(";")[0])
        --provider-arg 'dtype' is not KEY=VALUE
    """
    out: dict[str, str] = {}
    for item in values or ():
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(
                f"--provider-arg {item!r} is not KEY=VALUE; e.g. --provider-arg dtype=bfloat16"
            )
        if key in out:
            raise ConfigError(f"--provider-arg {key} is given twice; give each key once")
        out[key] = value
    return out


def providers_help() -> str:
    """One help paragraph listing the table (``closurebench eval --provider``).

    Example:
        >>> providers_help().startswith("Backend: openai (--base-url, ")
        True
    """
    parts = []
    for s in PROVIDERS.values():
        uses = [*s.uses, *(f"--provider-arg {key}=..." for key in s.accepts)]
        parts.append(f"{s.name} ({', '.join(uses)}): {s.help}" if uses else f"{s.name}: {s.help}")
    picks = [f"{s.name} for --model {', '.join(s.models)}" for s in PROVIDERS.values() if s.models]
    auto = f"{'; '.join(picks)}; else {DEFAULT_PROVIDER}" if picks else DEFAULT_PROVIDER
    return "Backend: " + "; ".join(parts) + f". Default {AUTO}: {auto}."


def make_provider(kind: str, **kwargs: Any) -> Provider:
    """Create a provider by kind from its constructor arguments.

    Args:
        kind: A key of :data:`PROVIDERS`.
        **kwargs: Keyword arguments of that provider's factory.

    Returns:
        The provider.

    Raises:
        ConfigError: For an unknown kind or arguments the provider does not accept.
        ProviderError: When the provider cannot be set up (missing key or extra).
    """
    return provider_spec(kind).make(**kwargs)


def check_provider_options(name: str, options: ProviderOptions) -> ProviderSpec:
    """Check the provider name and the options it cannot use, before any data is loaded.

    Returns:
        The provider's spec.

    Raises:
        ConfigError: for an unknown provider, a ``--model`` it does not answer (one
            with ``models``), a ``--provider-arg`` key it does not take, ``--workers``
            with one that does not support it, several ``--base-url`` with one that
            talks to no server, or a ``--base-url`` given twice.
    """
    spec = provider_spec(name)
    if spec.models and options.model not in spec.models:
        raise ConfigError(
            f"--provider {name} answers --model {', '.join(spec.models)}, not "
            f"{options.model!r}; pick one of them, or another --provider for a served model"
        )
    unknown = sorted(set(options.extra) - set(spec.accepts))
    if unknown:
        takes = (
            f"takes {', '.join(sorted(spec.accepts))}"
            if spec.accepts
            else "takes no --provider-arg"
        )
        raise ConfigError(f"--provider-arg {', '.join(unknown)}: --provider {name} {takes}")
    if options.workers and not spec.supports_workers:
        poolable = ", ".join(sorted(n for n, s in PROVIDERS.items() if s.supports_workers))
        raise ConfigError(
            f"--workers is supported for --provider {poolable}, not {name!r}; drop --workers"
        )
    urls = options.base_urls
    if len(urls) > 1:
        if not spec.needs_base_url:
            servers = ", ".join(sorted(n for n, s in PROVIDERS.items() if s.needs_base_url))
            raise ConfigError(
                f"--base-url is given {len(urls)} times, but --provider {name} talks to no "
                f"server; several --base-url spread requests for --provider {servers} only: "
                "drop them"
            )
        seen: set[str] = set()
        for url in urls:
            if url.rstrip("/") in seen:
                raise ConfigError(f"--base-url {url} is given twice; give each server once")
            seen.add(url.rstrip("/"))
    return spec


def build_provider(
    name: str,
    options: ProviderOptions,
    *,
    instances: Sequence[Any] | None = None,
    mode: Any = None,
) -> Provider:
    """The provider ``name`` configured from the CLI ``options``.

    With ``options.workers`` its requests run in that many worker processes
    (:class:`~closurebench.evaluate.providers.pool.ProcessPoolProvider`). With several
    ``--base-url``, one provider per endpoint (each with its own worker processes)
    behind an :class:`~closurebench.evaluate.providers.endpoints.EndpointRouter`; an
    endpoint unreachable now starts marked down (one line on stderr).

    Args:
        name: A key of :data:`PROVIDERS` (resolve ``auto`` first: :func:`resolve_provider`).
        options: The CLI options.
        instances: The instances the run evaluates, for a provider that answers from
            them (``takes_run``: ``reference``); the others ignore them.
        mode: The run's mode, likewise.

    Raises:
        ConfigError: for an unknown provider or options it cannot use.
        ProviderError: when the provider cannot be set up (missing key or extra) or its
            server (every server, with several) is unreachable.
    """
    spec = check_provider_options(name, options)
    if spec.needs_base_url and len(options.base_urls) > 1:
        return _endpoint_router(name, spec, options)
    kwargs = spec.arguments(options)
    if spec.takes_run:
        if instances is None or mode is None:
            raise ConfigError(
                f"--provider {name} answers from the run's instances; build it with "
                "instances= and mode="
            )
        return spec.make(**kwargs, instances=instances, mode=mode)
    if spec.needs_base_url:
        check_reachable(str(kwargs["base_url"]))
    return _one_provider(name, spec, kwargs, options.workers)


def _one_provider(name: str, spec: ProviderSpec, kwargs: dict[str, Any], workers: int) -> Provider:
    if workers:
        from closurebench.evaluate.providers.pool import ProcessPoolProvider

        return ProcessPoolProvider(name, kwargs, workers=workers)
    return spec.make(**kwargs)


def _endpoint_router(name: str, spec: ProviderSpec, options: ProviderOptions) -> Provider:
    """One provider per ``--base-url`` behind a router; unreachable ones start down."""
    from closurebench.evaluate.providers.endpoints import EndpointRouter

    every = [spec.arguments(replace(options, base_url=url)) for url in options.base_urls]
    urls = [str(kwargs["base_url"]) for kwargs in every]
    unreachable: dict[int, ProviderError] = {}
    for i, url in enumerate(urls):
        try:
            check_reachable(url)
        except ProviderError as exc:
            unreachable[i] = exc
    if len(unreachable) == len(urls):
        raise ProviderError(
            f"cannot reach any of the {len(urls)} servers ("
            + "; ".join(str(exc).split(";")[0] for exc in unreachable.values())
            + "); are they running? check --base-url",
            retryable=False,
            fatal=True,
        )
    router = EndpointRouter(
        [_one_provider(name, spec, kwargs, options.workers) for kwargs in every], urls
    )
    for i, refused in unreachable.items():
        router.mark_down(i, str(refused).split(";")[0] + " at the start")
    return router
