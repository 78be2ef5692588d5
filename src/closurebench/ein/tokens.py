"""How many tokens a prompt text (an Ein card) costs: a real tokenizer, else a labelled estimate.

:func:`count_tokens` counts with the first tokenizer that works on this machine,
without downloading anything unless asked by name:

1. ``tiktoken`` (if importable), encoding ``o200k_base`` then ``cl100k_base``, when the
   encoding loads within :data:`LOAD_SECONDS` (tiktoken reads its cache, else it
   downloads the file; a machine with no network falls through);
2. a ``transformers`` tokenizer already on disk (``local_files_only``), by default the
   paper's fine-tuned base model :data:`DEFAULT_HF_TOKENIZER`;
3. otherwise an **estimate**, ``ceil(characters / 4)``, marked ``exact=False`` and
   named as such in :attr:`TokenCount.method`, never passed off as a count.

``tokenizer=`` picks one: ``"tiktoken:<encoding>"``, a transformers model name or local
folder, or ``"estimate"``; a named tokenizer that does not load is an error (a
:class:`~closurebench.errors.ConfigError` naming it), not a silent estimate.

Example:
    >>> count_tokens("Ein is a minimal tensor-logic language.", tokenizer="estimate")
    TokenCount(tokens=10, method='estimate: ceil(characters / 4), no tokenizer used', exact=False)
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from closurebench.errors import ConfigError

__all__ = [
    "DEFAULT_HF_TOKENIZER",
    "ESTIMATE",
    "LOAD_SECONDS",
    "TIKTOKEN_ENCODINGS",
    "TokenCount",
    "count_tokens",
]

#: tiktoken encodings tried, in order (GPT-4o's, then GPT-4's).
TIKTOKEN_ENCODINGS: tuple[str, ...] = ("o200k_base", "cl100k_base")

#: The transformers tokenizer tried from the local cache: the paper's SFT base model.
DEFAULT_HF_TOKENIZER = "Qwen/Qwen3-4B"

#: Seconds a tokenizer may take to load before the next one is tried.
LOAD_SECONDS = 10.0

#: The ``tokenizer=`` value that asks for the character estimate.
ESTIMATE = "estimate"

_ESTIMATE_METHOD = "estimate: ceil(characters / 4), no tokenizer used"


@dataclass(frozen=True)
class TokenCount:
    """A text's size in tokens, and how it was measured.

    Attributes:
        tokens: The number of tokens (or the estimate).
        method: The tokenizer, e.g. ``"tiktoken o200k_base"`` or ``"transformers
            Qwen/Qwen3-4B"``, or the estimate's rule.
        exact: True when a real tokenizer counted; False for the estimate.
    """

    tokens: int
    method: str
    exact: bool


def _within(seconds: float, load: Callable[[], Any]) -> Any:
    """``load()``, or None when it raises or takes longer than ``seconds`` (a daemon thread)."""
    box: list[Any] = []

    def target() -> None:
        try:
            box.append(load())
        except Exception:
            box.append(None)

    thread = threading.Thread(target=target, name="closurebench-tokenizer", daemon=True)
    thread.start()
    thread.join(seconds)
    return box[0] if box else None


def _tiktoken(encoding: str) -> Callable[[str], int] | None:
    try:
        import tiktoken  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return None
    enc = _within(LOAD_SECONDS, lambda: tiktoken.get_encoding(encoding))
    if enc is None:
        return None
    return lambda text: len(enc.encode(text, disallowed_special=()))


def _transformers(name: str) -> Callable[[str], int] | None:
    try:
        from transformers import AutoTokenizer
    except ImportError:
        return None
    tok = _within(LOAD_SECONDS, lambda: AutoTokenizer.from_pretrained(name, local_files_only=True))
    if tok is None:
        return None
    return lambda text: len(tok.encode(text, add_special_tokens=False))


def _named(tokenizer: str) -> tuple[Callable[[str], int], str]:
    if tokenizer.startswith("tiktoken:"):
        encoding = tokenizer.removeprefix("tiktoken:")
        counter = _tiktoken(encoding)
        method = f"tiktoken {encoding}"
    else:
        counter = _transformers(tokenizer)
        method = f"transformers {tokenizer}"
    if counter is None:
        raise ConfigError(
            f"tokenizer {tokenizer!r} does not load here (is its package installed and, for "
            "a transformers model, the tokenizer on disk?); pass tiktoken:<encoding>, a local "
            f"transformers model, or {ESTIMATE!r}"
        )
    return counter, method


def count_tokens(text: str, tokenizer: str | None = None) -> TokenCount:
    """The size of ``text`` in tokens (see the module docstring for the tokenizer order).

    Args:
        text: The text, e.g. an Ein card.
        tokenizer: ``None`` (the first that works), ``"tiktoken:<encoding>"``, a
            transformers model name or folder, or ``"estimate"``.

    Returns:
        The count, the tokenizer that made it, and whether it is exact.

    Raises:
        ConfigError: when a named tokenizer does not load.
    """
    if tokenizer == ESTIMATE:
        return TokenCount(math.ceil(len(text) / 4), _ESTIMATE_METHOD, False)
    if tokenizer is not None:
        counter, method = _named(tokenizer)
        return TokenCount(counter(text), method, True)
    for encoding in TIKTOKEN_ENCODINGS:
        found = _tiktoken(encoding)
        if found is not None:
            return TokenCount(found(text), f"tiktoken {encoding}", True)
    found = _transformers(DEFAULT_HF_TOKENIZER)
    if found is not None:
        return TokenCount(found(text), f"transformers {DEFAULT_HF_TOKENIZER}", True)
    return TokenCount(math.ceil(len(text) / 4), _ESTIMATE_METHOD, False)
