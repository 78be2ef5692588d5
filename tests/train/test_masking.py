"""The SFT loss mask's segmentation (closurebench.train.masking) on stand-in templates."""

from __future__ import annotations

from typing import Any

import pytest

from closurebench.errors import ConfigError
from closurebench.train.masking import assistant_segments, assistant_token_mask


class _Template:
    """ChatML text, one token per character; ``strip_history`` drops earlier thinking
    (as some reasoning models' templates do), which breaks the prefix property."""

    def __init__(self, strip_history: bool = False) -> None:
        self.strip_history = strip_history

    def apply_chat_template(
        self, messages: list[dict[str, Any]], tools: Any = None, tokenize: bool = False,
        add_generation_prompt: bool = False,
    ) -> str:  # fmt: skip
        last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
        out = "<sys>tools</sys>" if tools else ""
        for i, m in enumerate(messages):
            text = m["content"]
            if self.strip_history and m["role"] == "assistant" and i != last:
                text = text.split("</think>")[-1]
            out += f"<|{m['role']}|>{text}<|end|>"
        return out + ("<|assistant|>" if add_generation_prompt else "")

    def __call__(self, text: str, add_special_tokens: bool = False) -> dict[str, list[int]]:
        return {"input_ids": [ord(c) for c in text]}


CHAT = [
    {"role": "system", "content": "S"},
    {"role": "user", "content": "Q"},
    {"role": "assistant", "content": "<think>t</think>call"},
    {"role": "user", "content": "<result>R</result>"},
    {"role": "assistant", "content": "<answer>8</answer>"},
]


def test_segments_join_to_the_render_and_mark_only_assistant_text() -> None:
    tok = _Template()
    segments = assistant_segments(tok, CHAT, tools=[{"name": "f"}])
    assert "".join(t for t, _ in segments) == tok.apply_chat_template(CHAT, tools=[1])
    assert [t for t, mine in segments if mine] == [
        "<think>t</think>call<|end|>",
        "<answer>8</answer><|end|>",
    ]
    ids, mask = assistant_token_mask(tok, CHAT)
    text = "".join(chr(i) for i in ids)
    assert text == tok.apply_chat_template(CHAT)
    learned = "".join(chr(i) for i, m in zip(ids, mask, strict=True) if m)
    assert "R" not in learned and "Q" not in learned and "<|assistant|>" not in learned


def test_a_template_that_rewrites_earlier_turns_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match=r"sft\.loss = 'completion'"):
        assistant_token_mask(_Template(strip_history=True), CHAT)


def test_a_chat_without_assistant_turns_has_nothing_to_learn() -> None:
    ids, mask = assistant_token_mask(_Template(), CHAT[:2])
    assert ids and set(mask) == {0}
