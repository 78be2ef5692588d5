"""A provider running a local Hugging Face ``transformers`` chat model.

The prompt is built with the model's own chat template
(``tokenizer.apply_chat_template``); temperature 0 (or none set) means greedy decoding;
the token limit is ``max_completion_tokens`` or ``max_tokens`` (2048 when neither). ``torch``
and ``transformers`` are imported only when the provider is created, so the rest of
the harness works without them; when they are missing a :class:`ProviderError`
names the extra to install.

Generation runs in a worker thread, one request at a time (a single model on one
device gains nothing from concurrent ``generate`` calls). The provider bounds time
itself (``enforces_timeout``): ``generate`` stops after ``settings.timeout_s`` seconds
(``max_time``) and returns what it has, with finish reason ``"timeout"``; time spent
waiting for the model does not count.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

from closurebench.evaluate.providers.base import (
    Completion,
    GenerationSettings,
    ProviderError,
    apply_stop,
)

__all__ = ["MISSING_EXTRA_MESSAGE", "TransformersProvider", "load_causal_lm", "split_think"]

MISSING_EXTRA_MESSAGE = (
    "the transformers provider needs torch and transformers ({missing}); "
    "install the 'train' extra: uv sync --extra train"
)


def _import_backend() -> tuple[Any, Any]:
    """Import and return ``(torch, transformers)``.

    Raises:
        ProviderError: When either is not installed.
    """
    try:
        import torch
        import transformers
    except ImportError as exc:
        missing = getattr(exc, "name", None) or str(exc)
        raise ProviderError(
            MISSING_EXTRA_MESSAGE.format(missing=f"missing: {missing}"), retryable=False
        ) from exc
    return torch, transformers


def _offline() -> bool:
    return any(
        os.environ.get(v, "") not in ("", "0", "false", "False")
        for v in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


def load_causal_lm(
    name: str,
    *,
    dtype: str = "auto",
    tokenizer: str | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
) -> tuple[Any, Any]:
    """Load a causal LM and its tokenizer: a hub id, a local directory or a LoRA adapter.

    A local directory is read from disk (``save_pretrained`` output); a directory holding
    ``adapter_config.json`` (a PEFT adapter, as ``closurebench train`` writes) loads its
    base model with the adapter attached, the tokenizer from the adapter's folder when it
    has one, else from the base. Anything else is a hub id, read through the Hugging Face
    cache: with ``HF_HUB_OFFLINE=1`` a model missing from the cache is an error, never a
    download. A tokenizer without a pad token gets its end-of-sequence token.

    Args:
        name: Hub id or local directory.
        dtype: Torch dtype name (``"auto"``, ``"float32"``, ``"bfloat16"``, ...).
        tokenizer: Where the tokenizer is, when not beside the model.
        revision: Hub revision (ignored for local directories).
        trust_remote_code: Passed to ``from_pretrained``.

    Returns:
        ``(model, tokenizer)``, the model on CPU in ``dtype``.

    Raises:
        ProviderError: one line naming what is missing (torch / transformers / peft, the
            directory, its weights, the model in an offline cache) and the fix; fatal
            (every request of a run would fail the same way).
    """
    torch, transformers = _import_backend()
    path = Path(name).expanduser()
    local = path.exists()
    if not local and name.startswith((".", "/", "~")):
        raise ProviderError(
            f"model {name!r}: no such directory; pass a model directory or a hub id",
            retryable=False,
            fatal=True,
        )
    torch_dtype = dtype if dtype == "auto" else getattr(torch, dtype)
    kwargs: dict[str, Any] = {"trust_remote_code": trust_remote_code}
    if not local and revision is not None:
        kwargs["revision"] = revision
    source = str(path) if local else name
    adapter = local and (path / "adapter_config.json").is_file()
    tok_source = tokenizer or source
    try:
        if adapter:
            try:
                from peft import AutoPeftModelForCausalLM
            except ImportError:
                raise ProviderError(
                    f"model {name!r} is a LoRA adapter, and loading one needs peft; install "
                    "the 'train' extra: uv sync --extra train",
                    retryable=False,
                    fatal=True,
                ) from None
            model = AutoPeftModelForCausalLM.from_pretrained(
                source, dtype=torch_dtype, trust_remote_code=trust_remote_code
            )
            if tokenizer is None and not any(
                (path / f).is_file() for f in ("tokenizer.json", "tokenizer_config.json")
            ):
                tok_source = model.peft_config["default"].base_model_name_or_path
        else:
            model = transformers.AutoModelForCausalLM.from_pretrained(
                source, dtype=torch_dtype, **kwargs
            )
        tok = transformers.AutoTokenizer.from_pretrained(tok_source, **kwargs)
    except (OSError, ValueError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        if _offline() and not local:
            hint = (
                "HF_HUB_OFFLINE is set and the model is not in the local cache; download it "
                "once online or pass a local directory"
            )
        elif local:
            hint = "the directory needs config.json and weights (save_pretrained output)"
        else:
            hint = "check the hub id, or pass a local directory"
        raise ProviderError(
            f"model {name!r} cannot be loaded ({first}); {hint}", retryable=False, fatal=True
        ) from None
    if tok.pad_token_id is None:
        tok.pad_token = tok.eos_token
    return model, tok


def split_think(text: str) -> tuple[str, str | None]:
    """Split ``<think>...</think>`` reasoning off the front of a generated text.

    Args:
        text: Decoded model output.

    Returns:
        ``(answer, reasoning)``; reasoning is None when there is no closing tag.

    Example:
        >>> split_think("<think>a then b</think>\\n\\nB")
        ('B', 'a then b')
        >>> split_think("B")
        ('B', None)
    """
    head, sep, tail = text.partition("</think>")
    if not sep:
        return text, None
    reasoning = head.split("<think>", 1)[-1].strip()
    return tail.strip(), reasoning or None


class TransformersProvider:
    """Chat completions from a local ``transformers`` causal LM.

    Attributes:
        name: Provider name recorded with results.
        model_path: Hub id or local directory of the model; when None,
            ``settings.model`` of the first request is loaded.
        enforces_timeout: Always True: generation stops at ``settings.timeout_s``.
    """

    enforces_timeout = True

    def __init__(
        self,
        model_path: str | None = None,
        *,
        device: str | None = None,
        dtype: str = "auto",
        trust_remote_code: bool = False,
        chat_template_kwargs: dict[str, Any] | None = None,
        name: str = "transformers",
    ) -> None:
        """Check the dependencies; the model itself loads on the first request.

        Args:
            model_path: Hub id or local path; defaults to ``settings.model``.
            device: ``"cuda"``, ``"cpu"``, ...; the first CUDA device when available.
            dtype: Torch dtype name (``"auto"``, ``"bfloat16"``, ``"float32"``, ...).
            trust_remote_code: Passed to ``from_pretrained``.
            chat_template_kwargs: Extra keyword arguments for ``apply_chat_template``
                (e.g. ``{"enable_thinking": False}``).
            name: Provider name recorded with results.

        Raises:
            ProviderError: When torch or transformers is not installed.
        """
        self._torch, self._transformers = _import_backend()
        self.name = name
        self.model_path = model_path
        self.device = device
        self.dtype = dtype
        self.trust_remote_code = trust_remote_code
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self._model: Any = None
        self._tokenizer: Any = None
        self._loaded: str | None = None
        self._lock = threading.Lock()

    def _load(self, path: str) -> None:
        torch = self._torch
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        model, tokenizer = load_causal_lm(
            path, dtype=self.dtype, trust_remote_code=self.trust_remote_code
        )
        model = model.to(device)
        model.eval()
        self._model, self._tokenizer, self._loaded, self.device = model, tokenizer, path, device

    def _generate(
        self, messages: list[dict[str, str]], settings: GenerationSettings
    ) -> tuple[str, int, int, str]:
        torch, tokenizer, model = self._torch, self._tokenizer, self._model
        if getattr(tokenizer, "chat_template", None) is None:
            raise ProviderError(
                f"model '{self._loaded}' has no chat template; use an instruction-tuned "
                "(chat) model",
                retryable=False,
            )
        extra = settings.extra_fields()
        unknown = sorted(set(extra) - {"chat_template_kwargs"})
        if unknown:
            raise ProviderError(
                f"--extra-body {', '.join(unknown)}: a local model has no request body; the "
                "transformers provider takes only chat_template_kwargs there",
                retryable=False,
                fatal=True,
            )
        inputs = tokenizer.apply_chat_template(
            messages,
            add_generation_prompt=True,
            return_tensors="pt",
            return_dict=True,
            **{**self.chat_template_kwargs, **dict(extra.get("chat_template_kwargs") or {})},
        ).to(model.device)
        prompt_len = int(inputs["input_ids"].shape[-1])
        sample = (settings.temperature or 0.0) > 0
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": settings.token_limit,
            "do_sample": sample,
            "pad_token_id": tokenizer.pad_token_id,
            "max_time": float(settings.timeout_s),
        }
        if sample:
            gen_kwargs["temperature"] = settings.temperature
            if settings.top_p is not None:
                gen_kwargs["top_p"] = settings.top_p
            if settings.seed is not None:
                torch.manual_seed(settings.seed)
        else:
            # Greedy: clear sampling defaults from generation_config to avoid warnings.
            gen_kwargs.update(temperature=None, top_p=None, top_k=None)
        start = time.perf_counter()
        with torch.inference_mode():
            output = model.generate(**inputs, **gen_kwargs)
        elapsed = time.perf_counter() - start
        new_tokens = output[0, prompt_len:]
        n_new = int(new_tokens.shape[-1])
        text = tokenizer.decode(new_tokens, skip_special_tokens=True)
        eos = model.generation_config.eos_token_id
        eos_ids = {*(eos if isinstance(eos, list | tuple) else [eos]), tokenizer.eos_token_id}
        ended = n_new > 0 and int(new_tokens[-1]) in eos_ids
        text, stopped = apply_stop(text, settings.stop)
        if stopped:
            finish = "stop"  # generation is not stopped on strings: the reply is cut
        elif n_new >= settings.token_limit:
            finish = "length"
        elif not ended and elapsed >= settings.timeout_s:
            finish = "timeout"  # stopped by max_time: a truncated answer, scored as given
        else:
            finish = "stop"
        return text, prompt_len, n_new, finish

    def _run(
        self, messages: list[dict[str, str]], settings: GenerationSettings
    ) -> tuple[str, int, int, str, float]:
        """Load the model if needed and generate; returns the output and generation seconds."""
        path = self.model_path or settings.model
        with self._lock:
            if self._loaded is None:
                self._load(path)
            elif self._loaded != path:
                raise ProviderError(
                    f"this transformers provider already holds '{self._loaded}', not "
                    f"'{path}'; create one provider per model",
                    retryable=False,
                )
            start = time.perf_counter()
            out = self._generate(messages, settings)
            return (*out, time.perf_counter() - start)

    async def complete(
        self, messages: list[dict[str, str]], settings: GenerationSettings
    ) -> Completion:
        """Generate one completion in a worker thread.

        Generation stops after ``settings.timeout_s`` seconds (finish reason
        ``"timeout"``); ``latency_s`` covers generation only, not model loading or
        queueing behind other requests.

        Args:
            messages: Chat messages.
            settings: Sampling settings; temperature 0 decodes greedily.

        Returns:
            The completion; ``<think>`` reasoning is split into ``reasoning``.

        Raises:
            ProviderError: On load failure, a missing chat template, or CUDA out of
                memory (retryable); a request with native function-calling ``tools``
                (fatal: use ``--mode agent``, whose tool calls are plain text).
        """
        if settings.tools:
            raise ProviderError(
                "the transformers provider does not parse native tool calls; use --mode "
                "agent (tool calls as <graph> text) instead of --mode agent-tools",
                retryable=False,
                fatal=True,
            )
        try:
            raw, n_prompt, n_new, finish, latency = await asyncio.to_thread(
                self._run, messages, settings
            )
        except ProviderError:
            raise
        except RuntimeError as exc:
            oom = "out of memory" in str(exc).lower()
            raise ProviderError(
                f"generation with '{self.model_path or settings.model}' failed ({exc})"
                + ("; lower max_tokens or free GPU memory" if oom else ""),
                retryable=oom,
            ) from exc
        text, reasoning = split_think(raw)
        return Completion(
            text=text,
            reasoning=reasoning,
            prompt_tokens=n_prompt,
            completion_tokens=n_new,
            latency_s=latency,
            finish_reason=finish,
        )

    async def aclose(self) -> None:
        """Drop the model and free cached GPU memory."""
        with self._lock:
            self._model = self._tokenizer = None
            self._loaded = None
        torch = self._torch
        if torch is not None and torch.cuda.is_available():
            torch.cuda.empty_cache()
