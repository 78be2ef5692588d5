"""Scoring runs in a worker thread, never on the event loop: one huge reply cannot stall
the other requests in flight. Records stay what they were."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from closurebench.evaluate.modes import AgentMode, CotMode, DirectMode
from closurebench.evaluate.modes.base import Message
from closurebench.evaluate.providers.base import Completion
from closurebench.generate.closure import ClosureConfig
from closurebench.generate.closure import generate_records as closure_records
from closurebench.schema import ClosureInstance
from closurebench.scoring import score_closure


@pytest.fixture(scope="module")
def record() -> ClosureInstance:
    return closure_records(ClosureConfig(split="heldout", count=1))[0]


def _reply(text: str, finish: str = "stop") -> Completion:
    return Completion(text, None, 10, 5, 0.01, finish)


def test_direct_mode_scores_off_the_loop_and_records_the_same(
    record: ClosureInstance, monkeypatch: pytest.MonkeyPatch
) -> None:
    mode = DirectMode()
    threads: list[threading.Thread] = []
    real = DirectMode.score

    def spy(self: DirectMode, rec: Any, completion: Completion) -> Any:
        threads.append(threading.current_thread())
        return real(self, rec, completion)

    monkeypatch.setattr(DirectMode, "score", spy)
    text = json.dumps({"answer": record.answer})

    async def complete(messages: list[Message], **_: Any) -> Completion:
        return _reply(text)

    async def main() -> Any:
        loop_thread = threading.current_thread()
        out = await mode.run(record, complete)
        return loop_thread, out

    loop_thread, out = asyncio.run(main())
    assert threads and threads[0] is not loop_thread
    assert out.score == score_closure(record, text)
    assert (out.response, out.prompt_tokens, out.completion_tokens) == (text, 10, 5)


def test_a_slow_score_does_not_block_other_requests(
    record: ClosureInstance, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one reply is being scored, the loop keeps serving other coroutines.

    The score waits for a coroutine on the loop to run; on the loop itself it would wait
    in vain (no clock is read: the wait's timeout only ends a broken run).
    """
    real = CotMode.score
    loop_ran = threading.Event()
    seen: list[bool] = []

    def waiting(self: CotMode, rec: Any, completion: Completion) -> Any:
        seen.append(loop_ran.wait(timeout=10))  # stands for a long scoring
        return real(self, rec, completion)

    monkeypatch.setattr(CotMode, "score", waiting)

    async def complete(messages: list[Message], **_: Any) -> Completion:
        return _reply('{"answer": 1}')

    async def other_request() -> None:
        await asyncio.sleep(0)  # let the run start scoring first
        await asyncio.sleep(0)
        loop_ran.set()

    async def main() -> None:
        await asyncio.gather(CotMode().run(record, complete), other_request())

    asyncio.run(main())
    assert seen == [True]


def test_agent_scores_its_answer_off_the_loop(
    record: ClosureInstance, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[threading.Thread] = []
    real = AgentMode._score

    def spy(self: AgentMode, rec: Any, turn: str | None) -> Any:
        threads.append(threading.current_thread())
        return real(self, rec, turn)

    monkeypatch.setattr(AgentMode, "_score", spy)

    async def complete(
        messages: list[Message],
        *,
        stop: Sequence[str] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        return _reply("<think>x</think><answer>\\boxed{3}")

    async def main() -> Any:
        return threading.current_thread(), await AgentMode().run(record, complete)

    loop_thread, out = asyncio.run(main())
    assert threads and threads[0] is not loop_thread
    assert out.extra["agent_outcome"] == "answered" and out.requests == 1
