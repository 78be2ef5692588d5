"""Build a tiny chat model locally (no downloads), for smoke tests of model paths.

:func:`build_tiny_chat_model` trains a byte-level BPE tokenizer on the given texts,
gives it a chat template, creates a 2-layer Llama-architecture causal LM with a few
thousand parameters per layer, and (when ``reply`` is given) fits it on CPU until greedy
decoding answers every prompt with ``reply`` — checked exactly, not hoped for: with the
reply fed in, the most likely next token is the reply's own at every position (~30 steps,
under a second; a fixed 200 steps took ~20 s on a loaded machine). Both are saved with
``save_pretrained`` into a directory that ``from_pretrained`` (and so the transformers
provider) loads like any Hub model.

Needs the ``train`` extra (torch, transformers); import it only after
``pytest.importorskip``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: A ChatML-style template: ``<|im_start|>role\ncontent<|im_end|>\n`` per message.
CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|pad|>", "<|im_start|>", "<|im_end|>"]


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Torch's intra-op parallelism set to one thread inside (the previous count after).

    A tiny model's ops are too small to share out: more threads only add CPU time (they
    spin between ops), most of all on a small, shared machine.
    """
    import torch

    saved = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(saved)


def build_tokenizer(texts: Sequence[str], vocab_size: int = 400):
    """A byte-level BPE ``PreTrainedTokenizerFast`` trained on ``texts``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(texts), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        pad_token="<|pad|>",
        bos_token="<|im_start|>",
        eos_token="<|im_end|>",
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def _greedy_gives(model, batch: Sequence[tuple[list[int], list[int]]]) -> bool:
    """Greedy decoding of every prompt yields its target (and then stops at its end).

    With the target fed in after the prompt, the argmax at each position must be the
    target's next token: exactly what greedy decoding would emit, one token at a time.
    """
    import torch

    model.eval()
    with torch.no_grad():
        for prompt_ids, target_ids in batch:
            logits = model(input_ids=torch.tensor([prompt_ids + target_ids])).logits[0]
            predicted = logits[len(prompt_ids) - 1 : -1].argmax(-1).tolist()
            if predicted != list(target_ids):
                return False
    return True


def build_tiny_chat_model(
    out_dir: str | Path,
    texts: Sequence[str],
    *,
    reply: str | None = None,
    prompts: Sequence[list[dict[str, str]]] = (),
    max_steps: int = 300,
    check_every: int = 10,
    seed: int = 0,
    vocab_size: int = 400,
    hidden_size: int = 64,
    intermediate_size: int = 128,
) -> Path:
    """Build, optionally fit, and save a tiny chat model; return its directory.

    Args:
        out_dir: Where to save the tokenizer and model.
        texts: Texts to train the tokenizer on (prompts and replies).
        reply: When set, fit the model to answer every prompt in ``prompts`` with it.
        prompts: Chat messages to fit on (without the assistant turn).
        max_steps: Most optimiser steps of the fit (one prompt per step, in turn).
        check_every: Steps between checks that greedy decoding gives ``reply`` for every
            prompt; the fit stops at the first check that passes.
        seed: Torch seed (weights and batch order).
        vocab_size: Target size of the BPE vocabulary.
        hidden_size: Width of the model (its MLP is ``intermediate_size`` wide).
        intermediate_size: Width of the MLP.

    Returns:
        ``out_dir`` as a Path.

    Raises:
        RuntimeError: the model did not learn ``reply`` within ``max_steps``.
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out = Path(out_dir)
    torch.manual_seed(seed)
    tokenizer = build_tokenizer([*texts, *([reply] if reply else [])], vocab_size=vocab_size)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=hidden_size,
        intermediate_size=intermediate_size,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    model = LlamaForCausalLM(config)
    if reply is not None and prompts:
        target = tokenizer(reply + "<|im_end|>", add_special_tokens=False)["input_ids"]
        batch = []
        for messages in prompts:
            ids = tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=True, return_dict=True
            )["input_ids"]
            batch.append((list(ids), list(target)))
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        learned = False
        for step in range(max_steps):
            model.train()
            prompt_ids, target_ids = batch[step % len(batch)]
            ids = torch.tensor([prompt_ids + target_ids])
            labels = torch.tensor([[-100] * len(prompt_ids) + target_ids])
            loss = model(input_ids=ids, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            if (step + 1) % check_every == 0 and _greedy_gives(model, batch):
                learned = True
                break
        if not learned:
            raise RuntimeError(
                f"the tiny model did not learn to answer {reply!r} in {max_steps} steps; "
                "raise max_steps"
            )
    model.eval()
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return out


def tool_chat_texts(
    chats: Sequence[tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]] | None]],
) -> list[str]:
    """``chats`` (messages, tool schemas) as the tool template renders them (Qwen 2.5's).

    Training the tokenizer on these too makes the tool prompts (the template's own text,
    the schemas) a few tokens instead of one byte each: shorter sequences, cheaper steps.
    """
    from trl.chat_template_utils import qwen2_5_chat_template

    tok = build_tokenizer(["x"])  # byte-level: it renders (and encodes) any text
    tok.chat_template = qwen2_5_chat_template
    return [
        tok.apply_chat_template(
            [dict(m) for m in messages],
            tools=[dict(t) for t in tools] if tools else None,
            tokenize=False,
        )
        for messages, tools in chats
    ]


def with_tool_template(model_dir: str | Path, out_dir: str | Path) -> Path:
    """A copy of a tiny model whose chat template renders tools and tool calls (Qwen 2.5's,
    which TRL's tool loop and its response parser know); return the copy's directory."""
    import shutil

    from transformers import AutoTokenizer
    from trl.chat_template_utils import qwen2_5_chat_template

    out = Path(out_dir)
    shutil.copytree(model_dir, out)
    tok = AutoTokenizer.from_pretrained(out)
    tok.chat_template = qwen2_5_chat_template
    tok.save_pretrained(out)
    return out
