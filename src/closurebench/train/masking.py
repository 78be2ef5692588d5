"""Which tokens of a chat the model wrote: the loss mask of SFT's default ``assistant`` loss.

GRAIN (§4.3) trains only on what the model itself produces: the prompt (system, user)
and every tool result (``<result>`` turns, ``tool`` messages) are context, not targets.
:func:`assistant_token_mask` renders a chat with the tokenizer's own chat template and
returns its token ids with a 0/1 mask that is 1 exactly on the tokens of the assistant
turns — each turn's text as the template renders it after the generation prompt (the
``<|im_start|>assistant\\n`` a model is given), through its end-of-turn marker (which the
model must learn to emit) — and 0 everywhere else.

It works with any chat template whose renders of a chat's prefixes are prefixes of the
chat's render (every common template; TRL's ``assistant_only_loss`` instead needs the
template to mark assistant turns with ``{% generation %}``). The chat is cut into
segments at each assistant turn's start and end, by rendering the prefixes:

* before turn ``i``: ``render(messages[:i], add_generation_prompt=True)`` — context;
* through turn ``i``: ``render(messages[:i + 1])`` — the difference is the turn's text;

and each segment is tokenized on its own (``add_special_tokens=False``, as chat
templates hold their own special tokens). So an assistant turn's tokens are the ones a
model generating it after that prompt would produce, never a token straddling context
and reply.

Pure: no torch; any object with ``apply_chat_template`` and ``__call__`` (a Hugging Face
tokenizer) will do.

Example (a stand-in tokenizer: ChatML text, one token per character):
    >>> class Chars:
    ...     def apply_chat_template(self, messages, tools=None, tokenize=False,
    ...                             add_generation_prompt=False):
    ...         text = "".join(f"<{m['role']}>{m['content']}." for m in messages)
    ...         return text + ("<assistant>" if add_generation_prompt else "")
    ...     def __call__(self, text, add_special_tokens=False):
    ...         return {"input_ids": [ord(c) for c in text]}
    >>> chat = [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A"},
    ...         {"role": "tool", "content": "R"}, {"role": "assistant", "content": "B"}]
    >>> ids, mask = assistant_token_mask(Chars(), chat)
    >>> "".join(chr(i) for i, m in zip(ids, mask) if m)
    'A.B.'
    >>> "".join(chr(i) for i, m in zip(ids, mask) if not m)
    '<user>Q.<assistant><tool>R.<assistant>'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from closurebench.errors import ConfigError

__all__ = ["assistant_segments", "assistant_token_mask"]


def _render(tokenizer: Any, messages: Sequence[Mapping[str, Any]], tools: Any, gen: bool) -> str:
    text = tokenizer.apply_chat_template(
        list(messages), tools=tools, tokenize=False, add_generation_prompt=gen
    )
    if not isinstance(text, str):
        raise ConfigError("the tokenizer's chat template did not render text")
    return text


def assistant_segments(
    tokenizer: Any, messages: Sequence[Mapping[str, Any]], tools: Any = None
) -> list[tuple[str, bool]]:
    """The chat's rendered text cut into ``(text, written_by_the_model)`` segments.

    Args:
        tokenizer: Has ``apply_chat_template``.
        messages: The chat (TRL's conversational form).
        tools: Function schemas the template renders (or ``None``).

    Returns:
        Segments whose texts join to the chat's full render; ``True`` on the assistant
        turns' own text.

    Raises:
        ConfigError: the template renders a prefix of the chat differently from the
            chat's start (it rewrites earlier turns), so no token can be attributed.
    """
    segments: list[tuple[str, bool]] = []
    done = ""
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        before = _render(tokenizer, messages[:i], tools, gen=True)
        through = _render(tokenizer, messages[: i + 1], tools, gen=False)
        if not before.startswith(done) or not through.startswith(before):
            raise ConfigError(
                f"the chat template renders the chat's first {i} message(s) differently "
                f"from its start (at assistant turn {i}), so the tokens the model wrote "
                "cannot be told apart; use sft.loss = 'completion' or a template that "
                "keeps earlier turns as they are"
            )
        segments += [(before[len(done) :], False), (through[len(before) :], True)]
        done = through
    full = _render(tokenizer, messages, tools, gen=False)
    if not full.startswith(done):
        raise ConfigError(
            "the chat template renders the whole chat differently from its last assistant "
            "turn's prefix; use sft.loss = 'completion'"
        )
    segments.append((full[len(done) :], False))
    return [(text, mine) for text, mine in segments if text]


def assistant_token_mask(
    tokenizer: Any, messages: Sequence[Mapping[str, Any]], tools: Any = None
) -> tuple[list[int], list[int]]:
    """The chat's token ids and a mask: 1 on the tokens the model wrote, 0 elsewhere.

    Args:
        tokenizer: A Hugging Face tokenizer with a chat template.
        messages: The chat (TRL's conversational form).
        tools: Function schemas the template renders (or ``None``).

    Returns:
        ``(input_ids, mask)`` of equal length.

    Raises:
        ConfigError: as :func:`assistant_segments`.
    """
    ids: list[int] = []
    mask: list[int] = []
    for text, mine in assistant_segments(tokenizer, messages, tools):
        piece = tokenizer(text, add_special_tokens=False)["input_ids"]
        ids += piece
        mask += [int(mine)] * len(piece)
    return ids, mask
