"""Helpers of the memorisation-probe tests: scripted "models" that memorised a file.

A scripted model that memorised the seen file answers each seen question (looked up by
its exact text in the prompt) with its reference answer and every other question with a
label no question uses, so the probe must find seen = 1 and fresh = re-worded = 0.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from closurebench.evaluate.providers import GenerationSettings, ScriptedProvider
from closurebench.evaluate.providers.scripted import last_user_message
from closurebench.schema import ClosureInstance

#: The categories of the seen file: one per level and result type (boolean, count, set).
CATEGORIES = ("reachability", "reach_then_count", "negative_reach", "conditional")

#: What the scripted models answer to a question they did not memorise.
WRONG = '{"answer": "nobody-at-all"}'


def memorised_reply(records: Sequence[ClosureInstance]) -> Callable[[str], str]:
    """``prompt -> reply``: the reference answer of a memorised question, else :data:`WRONG`."""
    known = {r.question: json.dumps({"answer": r.answer}) for r in records}

    def reply(prompt: str) -> str:
        for question, answer in known.items():
            if question in prompt:
                return answer
        return WRONG

    return reply


def memorising_provider(records: Sequence[ClosureInstance]) -> ScriptedProvider:
    """A scripted provider that memorised ``records`` (see the module docstring)."""
    reply = memorised_reply(records)

    def script(messages: list[dict[str, str]], settings: GenerationSettings) -> str:
        return reply(last_user_message(messages))

    return ScriptedProvider(script)
