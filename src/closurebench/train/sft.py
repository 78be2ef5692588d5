"""``closurebench train sft``: supervised fine-tuning on TRL (ClosureBench §3.4, GRAIN §4.3).

The recipe (:class:`SftRecipe`: the shared sections of
:class:`~closurebench.train.recipe.RecipeBase` plus ``[sft]``, :class:`SftSettings`) is
validated before anything heavy is imported: an unknown key or a bad value is one
:class:`~closurebench.errors.ConfigError` naming every bad key. The presets are
``closurebench-sft`` (ClosureBench §3.4: LoRA r 16, α 32, dropout 0.05, learning rate
2e-4, batch 4, 3 epochs; the default) and ``grain-sft`` (GRAIN Table 7: full
fine-tuning, the warm start before RL).

What a run does:

1. reads a ``closurebench export sft`` file (JSONL, or a ``--format hf`` folder); every
   row is validated as a :class:`~closurebench.schema.SftRecord` (any target: ``answer``,
   ``cot``, ``ein``, ``python``, ``agent``, ``agent-tools``; a file may mix them);
2. loads the model (:func:`~closurebench.train.recipe.load_model`: a hub id, a local
   directory or an adapter directory) and wraps it in a PEFT LoRA adapter (``[lora]``)
   or trains it fully (``lora = false``);
3. turns each record into TRL's conversational form (:func:`to_trl_row`), the loss on
   what the assistant is to learn (``sft.loss``):

   * ``assistant`` (default; GRAIN §4.3) — only the tokens the model wrote: every
     assistant turn, through its end-of-turn marker; the prompt and every tool result
     (``<result>`` turns, ``tool`` messages) are masked. The rows are tokenized here
     (:func:`~closurebench.train.masking.assistant_token_mask`, any chat template that
     keeps earlier turns as they are) and given to TRL as ``input_ids`` with their
     ``assistant_masks``.
   * ``completion`` — a prompt-completion pair (TRL's ``completion_only_loss``): the
     prompt is the turns evaluation sends (system, user), the completion everything after
     them, tool results of agent episodes included (this project's behaviour before the
     ``assistant`` default; identical to it for one-reply targets).
   * ``full`` — every token.

   ``agent-tools`` records carry their ``tools`` (TRL renders them with the template)
   and their calls' arguments as objects, as chat templates expect. Rows longer than
   ``sft.max_length`` tokens are dropped (counted and reported), never cut: a cut reply
   would teach a truncated answer;
4. trains with TRL's ``SFTTrainer`` (seeded), showing TRL's progress bar;
5. writes ``OUT/recipe.json`` (the recipe as run), ``OUT/metrics.jsonl`` (every log
   event, :class:`~closurebench.train.callbacks.JsonlMetrics`), ``OUT/checkpoint-<step>/``
   (every ``output.save_steps`` steps, else at each epoch's end) and ``OUT/final/`` (the
   adapter or model with its tokenizer: ``closurebench eval --provider transformers
   --model OUT/final`` evaluates it).

``--resume`` continues from the last checkpoint with the run's own recipe
(:func:`~closurebench.train.recipe.check_resume`).

Example:
    >>> r = load_sft_recipe(None, overrides={"model": {"name": "m"}})
    >>> r.preset, r.lora.r, r.lora.alpha, r.optim.learning_rate, r.optim.epochs, r.sft.loss
    ('closurebench-sft', 16, 32, 0.0002, 3.0, 'assistant')
    >>> g = load_sft_recipe(None, preset_name="grain-sft", overrides={"model": {"name": "m"}})
    >>> g.lora, g.optim.gradient_accumulation, g.optim.scheduler, g.sft.max_length
    (False, 2, 'cosine', 15000)
"""

from __future__ import annotations

import contextlib
import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from closurebench.errors import ConfigError, DatasetFileError
from closurebench.train.masking import assistant_token_mask
from closurebench.train.recipe import (
    RecipeBase,
    _Strict,
    check_resume,
    load_recipe,
    lora_config,
    read_training_file,
    require_extra,
    write_recipe,
)

__all__ = [
    "DEFAULT_PRESET",
    "SftRecipe",
    "SftSettings",
    "build_sft_trainer",
    "load_sft_recipe",
    "read_sft_rows",
    "to_trl_row",
    "train_sft",
]

#: The preset a recipe starts from when it names none (ClosureBench §3.4).
DEFAULT_PRESET = "closurebench-sft"


class SftSettings(_Strict):
    """The ``[sft]`` section.

    Attributes:
        loss: What the loss covers: ``assistant`` (only the tokens the model wrote: the
            prompt and tool results masked), ``completion`` (everything after the
            prompt, tool results included) or ``full`` (every token).
        max_length: Longest row kept, in tokens (chat template applied); longer rows are
            dropped, never truncated.
        packing: Pack several rows into one sequence (TRL's ``packing``).
    """

    loss: Literal["assistant", "completion", "full"] = "assistant"
    max_length: int = Field(2048, ge=8)
    packing: bool = False


class SftRecipe(RecipeBase):
    """An SFT recipe: the shared sections plus ``[sft]``."""

    sft: SftSettings = Field(default_factory=SftSettings)


def load_sft_recipe(
    path: str | Path | None,
    *,
    preset_name: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> SftRecipe:
    """Read and validate an SFT recipe (file, preset, then ``overrides``); nothing heavy.

    A recipe starts from the preset its file names, else ``preset_name``, else
    :data:`DEFAULT_PRESET`.

    Raises:
        ConfigError: an unreadable file, an unknown preset or key, a bad value.
    """
    recipe: SftRecipe = load_recipe(
        path,
        SftRecipe,
        "sft",
        preset_name=preset_name or DEFAULT_PRESET,
        overrides=dict(overrides or {}),
    )
    return recipe


# ----------------------------------------------------------------------------- data


def read_sft_rows(path: str | Path) -> list[dict[str, Any]]:
    """The records of a ``closurebench export sft`` file (JSONL or a ``--format hf`` folder).

    Raises:
        DatasetFileError: a missing file, or a line that is not an SFT record.
    """
    return read_training_file(path, "sft")


def _message(turn: Mapping[str, Any]) -> dict[str, Any]:
    """A chat turn as chat templates read it: no null keys, call arguments as objects."""
    out: dict[str, Any] = {"role": turn["role"], "content": turn.get("content") or ""}
    calls = turn.get("tool_calls")
    if calls:
        out["tool_calls"] = []
        for call in calls:
            fn = dict(call["function"])
            args = fn.get("arguments")
            if isinstance(args, str):
                with contextlib.suppress(ValueError):  # else rendered as the string it is
                    fn["arguments"] = json.loads(args)
            out["tool_calls"].append({"id": call["id"], "type": "function", "function": fn})
    if turn.get("tool_call_id"):
        out["tool_call_id"] = turn["tool_call_id"]
    return out


def to_trl_row(record: Mapping[str, Any], loss: str = "completion") -> dict[str, Any]:
    """One SFT record (JSON) in TRL's conversational form for ``loss``.

    Args:
        record: An :class:`~closurebench.schema.SftRecord` as JSON.
        loss: ``completion`` gives ``{"prompt", "completion"}`` (split before the first
            assistant turn); ``assistant`` and ``full`` give ``{"messages"}``.

    Returns:
        The row, plus ``tools`` (the JSON list of function schemas) when it has them.

    Raises:
        DatasetFileError: a record without an assistant turn after its prompt.

    Example:
        >>> rec = {"id": "x", "messages": [
        ...     {"role": "system", "content": "S"}, {"role": "user", "content": "Q"},
        ...     {"role": "assistant", "content": "A"}], "tools": None}
        >>> to_trl_row(rec)
        {'prompt': [{'role': 'system', 'content': 'S'}, {'role': 'user', 'content': 'Q'}], \
'completion': [{'role': 'assistant', 'content': 'A'}]}
        >>> list(to_trl_row(rec, "full"))
        ['messages']
    """
    messages = [_message(m) for m in record["messages"]]
    first = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), None)
    if first is None or first == 0:
        raise DatasetFileError(
            f"SFT record {record.get('id')!r} has no assistant turn after its prompt; "
            "re-export it with `closurebench export sft`"
        )
    row: dict[str, Any] = (
        {"prompt": messages[:first], "completion": messages[first:]}
        if loss == "completion"
        else {"messages": messages}
    )
    if record.get("tools"):
        row["tools"] = record["tools"]
    return row


def _tokens(tokenizer: Any, row: Mapping[str, Any]) -> int:
    if "input_ids" in row:
        return len(row["input_ids"])
    messages = list(row.get("messages") or [*row["prompt"], *row["completion"]])
    tools = json.loads(row["tools"]) if row.get("tools") else None
    ids = tokenizer.apply_chat_template(messages, tools=tools, tokenize=True)
    if isinstance(ids, Mapping):
        ids = ids["input_ids"]
    return len(ids)


def tokenize_assistant_loss(tokenizer: Any, row: Mapping[str, Any]) -> dict[str, list[int]]:
    """A ``{"messages"}`` row as TRL's pre-tokenized form, the loss on the model's tokens.

    Returns:
        ``{"input_ids", "assistant_masks"}`` (1 on the assistant turns' tokens).

    Raises:
        ConfigError: the chat template rewrites earlier turns (see
            :func:`~closurebench.train.masking.assistant_segments`).
    """
    tools = json.loads(row["tools"]) if row.get("tools") else None
    ids, mask = assistant_token_mask(tokenizer, row["messages"], tools)
    if 1 not in mask:
        raise ConfigError("an SFT row has no assistant token to learn")
    return {"input_ids": ids, "assistant_masks": mask}


def _fit(rows: list[dict[str, Any]], tokenizer: Any, limit: int) -> tuple[list[dict], int]:
    sizes = [_tokens(tokenizer, r) for r in rows]
    kept = [r for r, n in zip(rows, sizes, strict=True) if n <= limit]
    if not kept:
        raise ConfigError(
            f"every SFT row is longer than sft.max_length={limit} tokens (the shortest has "
            f"{min(sizes)}); raise sft.max_length"
        )
    return kept, len(rows) - len(kept)


# ----------------------------------------------------------------------------- trainer


def _sft_config(recipe: SftRecipe, progress: bool) -> Any:
    from trl import SFTConfig

    o, opt, s = recipe.output, recipe.optim, recipe.sft
    kwargs: dict[str, Any] = {
        "output_dir": o.dir,
        "learning_rate": opt.learning_rate,
        "per_device_train_batch_size": opt.batch_size,
        "gradient_accumulation_steps": opt.gradient_accumulation,
        "num_train_epochs": opt.epochs,
        "max_steps": opt.max_steps or -1,
        "lr_scheduler_type": opt.scheduler,
        "seed": opt.seed,
        "data_seed": opt.seed,
        "logging_steps": o.logging_steps,
        "report_to": list(o.report_to) or "none",
        "save_strategy": "steps" if o.save_steps else "epoch",
        "disable_tqdm": not progress,
        "bf16": recipe.model.dtype == "bfloat16",
        "fp16": recipe.model.dtype == "float16",
        "max_length": s.max_length,
        "packing": s.packing,
        "completion_only_loss": s.loss == "completion",
        "assistant_only_loss": False,  # ``assistant``: masks computed here, any template
        "dataset_num_proc": None,
    }
    if o.save_steps:
        kwargs["save_steps"] = o.save_steps
    if opt.warmup_ratio:
        kwargs["warmup_steps"] = opt.warmup_ratio  # a float below 1 is a ratio
    return SFTConfig(**kwargs)


def build_sft_trainer(
    recipe: SftRecipe,
    records: Sequence[Mapping[str, Any]],
    *,
    progress: bool = True,
    model: Any = None,
    tokenizer: Any = None,
    echo: Callable[[str], None] | None = None,
) -> Any:
    """The TRL ``SFTTrainer`` of ``recipe`` over ``records`` (SFT records as JSON).

    Args:
        recipe: The validated recipe (``output.dir`` is where everything goes).
        records: SFT records as JSON dicts (:func:`read_sft_rows`).
        progress: Show TRL's progress bar.
        model: A loaded model (default: ``load_model(recipe.model)``).
        tokenizer: Its tokenizer (with ``model``).
        echo: Where to say how many rows were dropped for length.

    Raises:
        ConfigError: the model cannot be loaded; ``sft.loss = "assistant"`` with a chat
            template that rewrites earlier turns; no row fits.
    """
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import SFTTrainer

    from closurebench.train.callbacks import jsonl_metrics
    from closurebench.train.recipe import load_model

    say = echo or (lambda _msg: None)
    if model is None:
        model, tokenizer = load_model(recipe.model)
    if tokenizer is None:
        raise ConfigError("build_sft_trainer: pass the tokenizer with the model")
    if getattr(tokenizer, "chat_template", None) is None:
        raise ConfigError(
            f"model {recipe.model.name!r} has no chat template, and SFT rows are chats; "
            "use an instruct/chat model or set tokenizer.chat_template"
        )
    rows = [to_trl_row(r, recipe.sft.loss) for r in records]
    if recipe.sft.loss == "assistant":
        rows = [tokenize_assistant_loss(tokenizer, r) for r in rows]
    elif any("tools" in r for r in rows):
        rows = [{**r, "tools": r.get("tools")} for r in rows]  # one column for all rows
    rows, dropped = _fit(rows, tokenizer, recipe.sft.max_length)
    if dropped:
        say(f"dropped {dropped} row(s) longer than sft.max_length={recipe.sft.max_length}")
    peft_config = lora_config(recipe)
    datasets = importlib.import_module("datasets")
    return SFTTrainer(
        model=model,
        args=_sft_config(recipe, progress),
        train_dataset=datasets.Dataset.from_list(rows),
        processing_class=tokenizer,
        peft_config=peft_config,
        callbacks=[jsonl_metrics(Path(recipe.output.dir) / "metrics.jsonl")],
    )


def train_sft(
    recipe: SftRecipe,
    data: str | Path,
    *,
    resume: bool = False,
    progress: bool = True,
    echo: Callable[[str], None] | None = None,
) -> Path:
    """Run ``recipe`` on the SFT file ``data``; return the final model's folder.

    Raises:
        ConfigError / DatasetFileError: bad data, recipe, output folder or model.
    """
    say = echo or (lambda _msg: None)
    out = Path(recipe.output.dir)
    require_extra()
    records = read_sft_rows(data)
    checkpoint = check_resume(recipe, resume)
    trainer = build_sft_trainer(recipe, records, progress=progress, echo=say)
    write_recipe(recipe)
    targets = sorted({str(r["target"]) for r in records})
    say(
        f"sft: {len(trainer.train_dataset)} rows ({', '.join(targets)}), loss on "
        f"{recipe.sft.loss}, {'LoRA r ' + str(recipe.lora.r) if recipe.lora else 'full'}"
    )
    trainer.train(resume_from_checkpoint=checkpoint)
    final = out / "final"
    trainer.save_model(str(final))
    trainer.processing_class.save_pretrained(str(final))
    say(f"wrote {final}")
    return final
