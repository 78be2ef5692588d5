"""The crash journal (``RUN_DIR/journal.jsonl``) and the runner's harness-death policy.

Unit tests of :mod:`closurebench.evaluate.journal` (torn and corrupt lines, concurrent
attempts, completed and waiting attempts not counted), then the runner in process: a
death recorded by an earlier session is retried once, alone and first, from the cache;
``max_harness_deaths`` deaths give a ``wrong`` result in the denominator; an interrupt
while a reply is handled is charged, one while a request waits is not. The schema, the
summary and the report show these results. The end-to-end test with a real SIGKILL is
``test_harness_deaths_e2e.py``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any, ClassVar

import jsonschema
import pytest
from typed_records import closure_instance

from closurebench.errors import ConfigError
from closurebench.evaluate.journal import JOURNAL_FILE, CrashJournal, read_deaths
from closurebench.evaluate.modes import DirectMode
from closurebench.evaluate.modes.base import AnyInstance, CompleteFn, ModeOutput
from closurebench.evaluate.providers import GenerationSettings, ScriptedProvider
from closurebench.evaluate.records import iter_results, summarize
from closurebench.evaluate.runner import RunOptions, run_eval
from closurebench.jsonl import scan
from closurebench.report.aggregate import accuracy, load_run, program_stats
from closurebench.report.tables import run_status
from closurebench.schema import HarnessDeaths, Outcome, ResultRecord, parse_result, schema_for

# -- the journal ------------------------------------------------------------------------


def _line(event: str, session: str, key: str) -> str:
    return json.dumps({"event": event, "session": session, "id": key}) + "\n"


def test_missing_journal_means_no_deaths(tmp_path: Path) -> None:
    assert read_deaths(tmp_path / JOURNAL_FILE) == {}


def test_completed_and_waiting_attempts_are_not_deaths(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    path.write_text(
        _line("handle", "s1", "done")
        + _line("done", "s1", "done")
        + _line("handle", "s1", "waits")
        + _line("wait", "s1", "waits")  # died while its next request was in flight
        + _line("handle", "s1", "died")
        + _line("handle", "s2", "died")  # a second session died on it too
        + _line("done", "s3", "never-open")  # a done without a handle: nothing
        + _line("handle", "s2", "agent")
        + _line("wait", "s2", "agent")
        + _line("handle", "s2", "agent"),  # died handling its second reply
        encoding="utf-8",
    )
    assert read_deaths(path) == {"agent": 1, "died": 2}


def test_torn_and_corrupt_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    path.write_text(
        _line("handle", "s1", "a")
        + "{not json\n"
        + "[1, 2]\n"
        + json.dumps({"event": "handle", "session": 7, "id": "b"})
        + "\n"  # not a session token
        + json.dumps({"event": "handle", "id": "c"})
        + "\n"  # no session at all
        + '{"event": "handle", "session": "s1", "id": "torn',  # killed mid-write
        encoding="utf-8",
    )
    # A torn "handle" line was never complete, so its reply was never handed over.
    assert read_deaths(path) == {"a": 1}
    # A new session appends after the torn fragment, on a line of its own.
    journal = CrashJournal(path, session="s2")
    journal.handling("d")
    journal.close()
    assert read_deaths(path) == {"a": 1, "d": 1}
    lines = list(scan(path))
    assert lines[-1].obj == {"event": "handle", "session": "s2", "id": "d"}
    assert not lines[-1].torn


def test_writer_writes_only_state_changes(tmp_path: Path) -> None:
    path = tmp_path / JOURNAL_FILE
    journal = CrashJournal(path, session="s")
    journal.waiting("x")  # never handled: nothing to pause
    journal.done("x")  # never handled: nothing to close
    journal.handling("y")
    journal.handling("y")  # already being handled
    journal.waiting("y")
    journal.waiting("y")
    journal.handling("y")
    assert journal.open_ids == ["y"]
    journal.done("y")
    journal.done("y")
    assert journal.open_ids == []
    journal.close()
    journal.close()  # idempotent
    events = [(line.obj or {}).get("event") for line in scan(path)]
    assert events == ["session", "handle", "wait", "handle", "done"]
    first = next(iter(scan(path))).obj or {}
    assert first["session"] == "s" and isinstance(first["pid"], int)


def test_sessions_get_distinct_random_tokens(tmp_path: Path) -> None:
    a = CrashJournal(tmp_path / JOURNAL_FILE)
    b = CrashJournal(tmp_path / JOURNAL_FILE)
    assert a.session != b.session
    a.close()
    b.close()


def test_concurrent_tasks_and_threads(tmp_path: Path) -> None:
    """Many instances at once: every line stays whole, every state is per instance."""
    path = tmp_path / JOURNAL_FILE
    journal = CrashJournal(path, session="s", sync_interval_s=0)

    async def instance(i: int) -> None:
        key = f"i{i}"
        for _ in range(3):  # three rounds, as an agent mode would
            journal.handling(key)
            await asyncio.sleep(0)
            journal.waiting(key)
            await asyncio.sleep(0)
        journal.handling(key)
        await asyncio.sleep(0)
        if i % 4:  # every fourth instance is still being handled when the process ends
            journal.done(key)

    async def main() -> None:
        await asyncio.gather(*(instance(i) for i in range(200)))

    asyncio.run(main())

    def from_thread(t: int) -> None:  # a mode could call in from a worker thread
        for j in range(200):
            key = f"t{t}-{j}"
            journal.handling(key)
            if j % 2:
                journal.done(key)

    threads = [threading.Thread(target=from_thread, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    journal.close()
    lines = list(scan(path))
    assert all(line.obj is not None for line in lines)  # nothing torn or interleaved
    expected = {f"i{i}": 1 for i in range(0, 200, 4)}
    expected |= {f"t{t}-{j}": 1 for t in range(4) for j in range(0, 200, 2)}
    assert read_deaths(path) == expected


# -- the runner -------------------------------------------------------------------------


class HandlingMode(DirectMode):
    """The direct mode, recording which replies are handled at once and in what order."""

    name: ClassVar[str] = "direct"

    def __init__(self) -> None:
        self.handling: set[str] = set()
        self.overlaps: dict[str, set[str]] = {}
        self.order: list[str] = []

    async def run(self, record: AnyInstance, complete: CompleteFn) -> ModeOutput:
        completion = await complete(self.messages(record))
        rid = str(record.id)
        self.order.append(rid)
        self.handling.add(rid)
        self.overlaps.setdefault(rid, set())
        for _ in range(3):  # hand the loop to the other workers while "handling"
            self.overlaps[rid] |= self.handling - {rid}
            await asyncio.sleep(0.01)
        self.handling.discard(rid)
        return ModeOutput(
            score=self.score(record, completion),
            response=completion.text or "",
            latency_s=completion.latency_s,
        )


def _records(n: int = 8) -> list[Any]:
    return [closure_instance(f"r{i}", f"question {i}?", i) for i in range(n)]


def _provider() -> ScriptedProvider:
    return ScriptedProvider(
        lambda messages, settings: json.dumps(
            {"answer": int(messages[-1]["content"].split()[1].rstrip("?"))}
        )
    )


def _prompts(provider: ScriptedProvider) -> list[str]:
    return [messages[-1]["content"] for messages, _ in provider.calls]


def _run(
    out: Path, mode: Any = None, provider: ScriptedProvider | None = None, **options: Any
) -> tuple[Any, ScriptedProvider, list[str]]:
    provider = provider or _provider()
    notices: list[str] = []
    opts = RunOptions(progress=False, concurrency=4, **options)
    stats = asyncio.run(
        run_eval(
            _records(),
            provider,
            mode or HandlingMode(),
            GenerationSettings(model="m"),
            out,
            opts,
            notice=notices.append,
        )
    )
    return stats, provider, notices


def _died_on(out: Path, *keys: str, session: str = "dead") -> None:
    """Append what a process that died while handling ``keys`` leaves in the journal."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / JOURNAL_FILE).open("a", encoding="utf-8") as fh:
        for key in keys:
            fh.write(_line("handle", session, key))


def _by_id(out: Path) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in iter_results(out / "results.jsonl")}


def test_a_fresh_run_leaves_no_open_attempt(tmp_path: Path) -> None:
    out = tmp_path / "run"
    stats, _, notices = _run(out)
    assert stats.summary.to_json()["strict_accuracy"] == 1.0 and not notices
    assert read_deaths(out / JOURNAL_FILE) == {}
    events = [(line.obj or {}).get("event") for line in scan(out / JOURNAL_FILE)]
    assert events.count("handle") == events.count("done") == 8
    assert all("harness_deaths" not in r for r in _by_id(out).values())
    assert stats.summary.to_json()["harness_deaths"] == {
        "recorded_wrong": 0,
        "survived": 0,
        "examples": [],
    }


def test_one_death_is_retried_once_alone_first_from_the_cache(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(out)
    # Forget two results, as if the process had died while handling them (r5 with a
    # bystander, r6); their replies stay cached.
    kept = [r for r in iter_results(out / "results.jsonl") if r["id"] not in ("r5", "r6")]
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    _died_on(out, "r5", "r6")
    mode = HandlingMode()
    stats, provider, notices = _run(out, mode)
    assert provider.calls == []  # the retry replays the cached reply, it does not re-ask
    assert mode.order == ["r5", "r6"]
    assert mode.overlaps == {"r5": set(), "r6": set()}  # each handled with nothing else
    results = _by_id(out)
    for rid in ("r5", "r6"):
        assert results[rid]["outcome"] == "strict_correct"
        assert results[rid]["harness_deaths"] == {"count": 1, "gave_up": False}
    assert stats.harness_retried == 2 and stats.harness_gave_up == 0
    assert stats.summary.to_json()["harness_deaths"]["survived"] == 2
    assert stats.summary.to_json()["run"]["harness_retried"] == 2
    assert any("handled once more, alone" in n and "r5, r6" in n for n in notices)
    assert read_deaths(out / JOURNAL_FILE) == {"r5": 1, "r6": 1}  # the retries completed


def test_retries_run_before_and_apart_from_the_others(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _died_on(out, "r6")
    mode = HandlingMode()
    _run(out, mode)
    assert mode.order[0] == "r6" and mode.overlaps["r6"] == set()
    assert any(mode.overlaps[r] for r in mode.order[1:])  # the rest ran concurrently


def test_max_deaths_records_wrong_in_the_denominator(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _died_on(out, "r3", session="first")
    _died_on(out, "r3", session="second")
    mode = HandlingMode()
    stats, provider, notices = _run(out, mode)
    assert "question 3?" not in _prompts(provider)  # neither requested nor handled
    assert "r3" not in mode.order
    results = _by_id(out)
    poisoned = results["r3"]
    assert (poisoned["outcome"], poisoned["strict"], poisoned["lenient"]) == ("wrong", False, False)
    assert poisoned["error"] is None and poisoned["requests"] == 0
    assert poisoned["harness_deaths"] == {"count": 2, "gave_up": True}
    assert "the harness died 2 times while handling this reply" in poisoned["reason"]
    summary = stats.summary.to_json()
    assert summary["counts"] == {"total": 8, "answered": 8, "errors": 0, "selected": 8}
    assert summary["strict_accuracy"] == 7 / 8 and summary["complete"] is True
    assert summary["outcomes"]["wrong"] == 1
    assert summary["harness_deaths"] == {"recorded_wrong": 1, "survived": 0, "examples": ["r3"]}
    assert summary["run"]["harness_gave_up"] == 1
    assert any("r3: the harness died 2 times" in n for n in notices)
    # A later resume has nothing left to do: the wrong result is final, not an error.
    stats2, provider2, _ = _run(out)
    assert stats2.evaluated == 0 and provider2.calls == []


def test_max_harness_deaths_is_configurable(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _died_on(out, "r1")
    _, provider, _ = _run(out, max_harness_deaths=1)
    assert "question 1?" not in _prompts(provider)
    assert _by_id(out)["r1"]["harness_deaths"] == {"count": 1, "gave_up": True}
    assert "1 time while" in _by_id(out)["r1"]["reason"]
    out3 = tmp_path / "three"
    _died_on(out3, "r1", session="a")
    _died_on(out3, "r1", session="b")
    _run(out3, max_harness_deaths=3)  # a third try
    assert _by_id(out3)["r1"]["harness_deaths"] == {"count": 2, "gave_up": False}
    with pytest.raises(ConfigError, match="max_harness_deaths must be >= 1"):
        RunOptions(max_harness_deaths=0).check()


def test_deaths_of_finished_instances_are_ignored(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(out)
    _died_on(out, "r2", "r2x")  # r2 has a result (died after writing it); r2x is unknown
    mode = HandlingMode()
    stats, _, notices = _run(out, mode)
    assert stats.evaluated == 0 and mode.order == [] and not notices


def test_force_new_forgets_the_journal(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run(out)
    (out / "results.jsonl").write_text("")
    _died_on(out, "r0", session="a")
    _died_on(out, "r0", session="b")
    _run(out, force_new=True)
    assert _by_id(out)["r0"]["outcome"] == "strict_correct"
    assert "harness_deaths" not in _by_id(out)["r0"]


class _StopWhile:
    """A mode that makes two requests and lets the test stop the run at a chosen point."""

    name: ClassVar[str] = "direct"

    def __init__(self, stop_handling: bool) -> None:
        self.stop_handling = stop_handling
        self.mode = HandlingMode()
        self.reached = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.mode, name)

    async def run(self, record: AnyInstance, complete: CompleteFn) -> ModeOutput:
        first = await complete(self.mode.messages(record))
        if str(record.id) == "r4":
            if self.stop_handling:
                self.reached.set()  # handling the first reply
                await asyncio.Event().wait()
            await complete(self.mode.messages(record))  # the provider never answers
        return ModeOutput(score=self.mode.score(record, first), response=first.text or "")


@pytest.mark.parametrize("stop_handling", [True, False])
def test_an_interrupt_is_charged_only_while_a_reply_is_handled(
    tmp_path: Path, stop_handling: bool
) -> None:
    out = tmp_path / "run"
    mode = _StopWhile(stop_handling)
    waiting = asyncio.Event()
    answered: set[str] = set()

    async def script(messages: list[dict[str, Any]], settings: Any) -> str:
        prompt = messages[-1]["content"]
        if prompt in answered:  # r4's second request: waiting on the network
            waiting.set()
            await asyncio.Event().wait()
        answered.add(prompt)
        return json.dumps({"answer": int(prompt.split()[1].rstrip("?"))})

    notices: list[str] = []

    async def main() -> None:
        task = asyncio.create_task(
            run_eval(
                _records(),
                ScriptedProvider(script),
                mode,  # type: ignore[arg-type]
                GenerationSettings(model="m"),
                out,
                RunOptions(progress=False, concurrency=2, use_cache=False),
                notice=notices.append,
            )
        )
        await (mode.reached if stop_handling else waiting).wait()
        task.cancel()  # what Ctrl-C does
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    if stop_handling:
        assert read_deaths(out / JOURNAL_FILE) == {"r4": 1}
        assert any("stopped while handling the reply of r4" in n for n in notices)
    else:
        assert read_deaths(out / JOURNAL_FILE) == {}
        assert not any("stopped while handling" in n for n in notices)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["aborted"] == "interrupted"


# -- schema, summary, report ------------------------------------------------------------


def _given_up(rid: str = "p", mode: str = "program-python") -> ResultRecord:
    return ResultRecord(
        id=rid,
        outcome=Outcome.WRONG,
        reason="the harness died 2 times while handling this reply",
        mode=mode,
        harness_deaths=HarnessDeaths(count=2, gave_up=True),
        suite="closure",
        level=1,
    )


def test_schema_carries_harness_deaths() -> None:
    record = _given_up()
    assert parse_result(record.to_json()) == record
    plain = ResultRecord(id="q", outcome=Outcome.WRONG, mode="direct")
    assert "harness_deaths" not in plain.to_json()  # old lines keep their bytes
    validator = jsonschema.Draft202012Validator(schema_for("result"))
    assert validator.is_valid(record.to_json()) and validator.is_valid(plain.to_json())
    bad = {**record.to_json(), "harness_deaths": {"count": 0, "gave_up": True}}
    assert not validator.is_valid(bad)
    assert not validator.is_valid({**record.to_json(), "harness_deaths": {"count": 1, "x": 1}})
    with pytest.raises(ValueError, match="gave_up needs outcome 'wrong'"):
        ResultRecord(
            id="e",
            outcome=Outcome.ERROR,
            mode="d",
            harness_deaths=HarnessDeaths(count=2, gave_up=True),
        )


def test_summary_and_report_show_given_up_results(tmp_path: Path) -> None:
    ok = ResultRecord(
        id="a",
        outcome=Outcome.STRICT_CORRECT,
        strict=True,
        lenient=True,
        mode="program-python",
        suite="closure",
        level=1,
        extra={"exec_outcome": "ok", "exec_error": False, "error_class": None},
    )
    survived = ok.model_copy(update={"id": "b", "harness_deaths": HarnessDeaths(count=1)})
    lines = [r.to_json() for r in (ok, survived, _given_up())]
    summary = summarize([ok, survived, _given_up()]).to_json()
    assert summary["strict_accuracy"] == 2 / 3 and summary["counts"]["answered"] == 3
    assert summary["harness_deaths"] == {"recorded_wrong": 1, "survived": 1, "examples": ["p"]}
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    run = load_run(run_dir)
    assert len(run.records) == 3 and run.errors == 0 and run.harness_gave_up == 1
    assert accuracy(run.records).k == 2 and accuracy(run.records).n == 3
    assert "1 recorded wrong: the harness died handling the reply" in run_status(run)
    assert run.incomplete is None
    stats = program_stats(run.records)
    assert stats.responses == 3 and stats.failures == {"harness_died": 1}
    assert stats.classes["execution"] == 1
    # a given-up record of a non-program mode is not a program execution
    assert program_stats([_given_up(mode="direct")]).responses == 0
