"""Training on the benchmarks: the data export, and what the training recipes build on.

* :mod:`closurebench.train.export` — SFT chat records and GRPO prompt records from a
  dataset file, in the evaluation modes' own words (``closurebench export sft|grpo``);
  their typed definitions are :class:`~closurebench.schema.SftRecord` and
  :class:`~closurebench.schema.GrpoRecord`.
* :mod:`closurebench.train.rewards` — RL rewards with TRL's signature over the harness's
  scorers: answer, format, program runs, ``s_inv`` and GRAIN's gated reward.
* :mod:`closurebench.train.recipe` — validated training recipes and the papers' presets.

The package imports without the optional ``train`` extra: nothing here loads torch,
transformers or TRL on import (only the ``datasets`` package, for ``--format hf``, when a
Hugging Face dataset is written). The names below load their module on first use.

Example:
    >>> import closurebench.train as train
    >>> "agent-tools" in train.TARGETS, train.DEFAULT_GRPO_MODES["grit"]
    (True, 'agent')
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from closurebench.train.export import (
        DEFAULT_GRPO_MODES,
        TARGETS,
        export_grpo,
        export_sft,
        grpo_record,
        grpo_records,
        sft_record,
        sft_records,
    )
    from closurebench.train.rewards import (
        AnswerReward,
        FormatReward,
        GatedReward,
        ProgramReward,
        StructureReward,
    )

_REWARDS = ("AnswerReward", "FormatReward", "GatedReward", "ProgramReward", "StructureReward")

__all__ = [
    "DEFAULT_GRPO_MODES",
    "TARGETS",
    "AnswerReward",
    "FormatReward",
    "GatedReward",
    "ProgramReward",
    "StructureReward",
    "export_grpo",
    "export_sft",
    "grpo_record",
    "grpo_records",
    "sft_record",
    "sft_records",
]

_LAZY: dict[str, str] = {
    **dict.fromkeys((n for n in __all__ if n not in _REWARDS), "closurebench.train.export"),
    **dict.fromkeys(_REWARDS, "closurebench.train.rewards"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'closurebench.train' has no attribute {name!r}")
