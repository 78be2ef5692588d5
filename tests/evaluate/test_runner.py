"""Runner tests: end to end over real HTTP (fake OpenAI server + ``openai`` client),
retries, cache, resume repair, selection and summary."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import Malformed, Reply, Slow, Status
from typed_records import closure_instance, grit_instance

import closurebench
from closurebench.evaluate.modes import CLOSURE_COT, CLOSURE_DIRECT, GRIT_DIRECT, MODES, get_mode
from closurebench.evaluate.providers import GenerationSettings, ScriptedProvider, make_provider
from closurebench.evaluate.records import load_results
from closurebench.evaluate.runner import RunOptions, backoff_delay, run_eval, select_instances


@pytest.fixture(scope="session")
def closure_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    # one dataset per session, shared by the runner and CLI test modules
    out = tmp_path_factory.getbasetemp() / "closure-heldout-30"
    if not (out / "closure-heldout.jsonl").exists():
        closurebench.generate_split("heldout", seed=0, count=30, out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


def correct(record: Any) -> str:
    return json.dumps({"answer": record.answer})


def wrong(record: Any) -> str | None:
    """A well-typed wrong answer, or None when none is easy to make."""
    if record.result_type == "boolean":
        return json.dumps({"answer": not record.answer})
    if record.result_type == "integer" and record.alt_answer is None:
        return json.dumps({"answer": int(record.answer) + 1000})
    return None


def by_question(records: list[Any]) -> dict[str, Any]:
    return {r.question: r for r in records}


def test_prompts_are_the_papers_verbatim() -> None:
    assert CLOSURE_DIRECT == (
        "You are a reasoning assistant. Read the graph description carefully, reason about the "
        'structure, and provide your answer as a JSON object with an "answer" field. Do not '
        "include any explanation outside the JSON."
    )
    assert CLOSURE_COT.endswith(
        'Then provide your final answer as a JSON object with an "answer" field.'
    )
    msgs = get_mode("cot").messages(closure_instance("c", "Q"))
    assert msgs == [{"role": "system", "content": CLOSURE_COT}, {"role": "user", "content": "Q"}]
    grit = get_mode("direct").messages(grit_instance("g", "Q"))
    assert grit[0]["content"] == GRIT_DIRECT and "<answer>" in GRIT_DIRECT
    assert set(MODES) >= {"direct", "cot"}


def test_end_to_end_over_http(fake_openai: Any, closure_data: Any, tmp_path: Path) -> None:
    _, records = closure_data
    questions = by_question(records)
    plan: dict[str, str] = {}
    kinds = [
        "correct",
        "wrong",
        "format",
        "malformed",
        "slow",
        "500once",
        "429once",
        "timeout1",
        "dead",
    ]
    for i, r in enumerate(records):
        kind = kinds[i % len(kinds)]
        if kind == "wrong" and wrong(r) is None:
            kind = "correct"
        plan[r.id] = kind
    attempts: Counter[str] = Counter()
    lock = threading.Lock()

    def step(body: dict[str, Any]) -> Any:
        record = questions[body["messages"][-1]["content"]]
        with lock:
            attempts[record.id] += 1
            n = attempts[record.id]
        kind = plan[record.id]
        ok = Reply(correct(record), prompt_tokens=100, completion_tokens=5)
        if kind == "wrong":
            return Reply(wrong(record), prompt_tokens=100, completion_tokens=5)
        if kind == "format":
            return Reply('{"answer": [1, 2}', prompt_tokens=100, completion_tokens=5)
        if kind == "malformed":
            return Malformed()
        if kind == "slow":
            return Slow(0.3, ok)
        if kind == "500once":
            return Status(500) if n == 1 else ok
        if kind == "429once":
            return Status(429, retry_after=0.2) if n == 1 else ok
        if kind == "timeout1":
            return Slow(5.0, ok) if n == 1 else ok
        if kind == "dead":
            return Status(503)
        return ok

    fake_openai.script(default=step)
    provider = make_provider("openai", base_url=fake_openai.base_url)
    settings = GenerationSettings(model="fake-model", timeout_s=1.0)
    opts = RunOptions(concurrency=6, retries=2, backoff_base_s=0.02, progress=False)
    out = tmp_path / "run"

    async def go() -> Any:
        try:
            return await run_eval(records, provider, "direct", settings, out, opts)
        finally:
            await provider.aclose()

    stats = asyncio.run(go())
    results = {r["id"]: r for r in load_results(out / "results.jsonl")}
    assert len(results) == len(records) == stats.evaluated
    expected = {
        "correct": "strict_correct",
        "wrong": "wrong",
        "format": "format_error",
        "malformed": "error",
        "slow": "strict_correct",
        "500once": "strict_correct",
        "429once": "strict_correct",
        "timeout1": "strict_correct",
        "dead": "error",
    }
    for rid, kind in plan.items():
        res = results[rid]
        assert res["outcome"] == expected[kind], (kind, res)
        if kind in {"malformed", "dead"}:
            assert res["error"] and not res["strict"]
        else:
            assert res["error"] is None
            assert res["usage"] == {"prompt_tokens": 100, "completion_tokens": 5}
        assert res["mode"] == "direct" and res["settings"]["model"] == "fake-model"
        assert res["category"] and res["level"] and res["suite"] == "closure"
    # retries: 1 extra for 500once/429once/timeout1, 2 extra for dead, none for malformed
    for rid, kind in plan.items():
        want = {"500once": 2, "429once": 2, "timeout1": 2, "dead": 3}.get(kind, 1)
        assert attempts[rid] == want, (kind, attempts[rid])
    sent = fake_openai.chat_requests[0].body
    assert sent["messages"][0]["content"] == CLOSURE_DIRECT and sent["temperature"] == 0.0

    summary = json.loads((out / "summary.json").read_text())
    counts = Counter(expected[k] for k in plan.values())
    assert summary["outcomes"] == {**dict.fromkeys(summary["outcomes"], 0), **counts}
    n_ok = counts["strict_correct"]
    answered = sum(1 for k in plan.values() if k not in {"malformed", "dead"})
    # failed requests are not model results: accuracy is over the answered instances
    assert summary["strict_accuracy"] == pytest.approx(n_ok / answered)
    assert summary["counts"] == {
        "total": len(records),
        "answered": answered,
        "errors": len(records) - answered,
        "selected": len(records),
    }
    assert summary["complete"] is False and summary["aborted"] is None
    assert summary["tokens"]["completion_total"] == 5 * answered
    assert summary["tokens"]["per_correct_strict"] == pytest.approx(5 * answered / n_ok)
    assert summary["latency_s"]["p90"] >= summary["latency_s"]["mean"] > 0

    # a re-run of the same directory resumes: only the errored instances run again
    before = len(fake_openai.chat_requests)
    provider2 = make_provider("openai", base_url=fake_openai.base_url)
    stats2 = asyncio.run(run_eval(records, provider2, "direct", settings, out, opts))
    errored = len(records) - answered
    assert stats2.evaluated == errored and stats2.skipped == answered
    assert len(fake_openai.chat_requests) > before
    # with --keep-errors nothing is left to do and no request is sent
    before = len(fake_openai.chat_requests)
    keep = RunOptions(concurrency=6, retries=0, progress=False, keep_errors=True)
    provider3 = make_provider("openai", base_url=fake_openai.base_url)
    stats3 = asyncio.run(run_eval(records, provider3, "direct", settings, out, keep))
    assert stats3.evaluated == 0 and stats3.skipped == len(records)
    assert len(fake_openai.chat_requests) == before


def test_cache_makes_rerun_free(fake_openai: Any, closure_data: Any, tmp_path: Path) -> None:
    _, records = closure_data
    records = records[:10]
    questions = by_question(records)
    fake_openai.script(
        default=lambda body: Reply(correct(questions[body["messages"][-1]["content"]]))
    )
    settings = GenerationSettings(model="fake-model", timeout_s=5.0)
    opts = RunOptions(concurrency=4, progress=False)
    out = tmp_path / "run"
    asyncio.run(
        run_eval(
            records,
            make_provider("openai", base_url=fake_openai.base_url),
            "cot",
            settings,
            out,
            opts,
        )
    )
    first = {r["id"]: r for r in load_results(out / "results.jsonl")}
    assert len(fake_openai.chat_requests) == 10
    (out / "results.jsonl").unlink()
    stats = asyncio.run(
        run_eval(
            records,
            make_provider("openai", base_url=fake_openai.base_url),
            "cot",
            settings,
            out,
            opts,
        )
    )
    assert len(fake_openai.chat_requests) == 10 and stats.cache_hits == 10 and stats.requests == 0
    second = {r["id"]: r for r in load_results(out / "results.jsonl")}
    assert {k: v["outcome"] for k, v in first.items()} == {
        k: v["outcome"] for k, v in second.items()
    }
    assert all(v["outcome"] == "strict_correct" for v in second.values())


def test_other_settings_refuse_the_run_dir(tmp_path: Path) -> None:
    from closurebench.evaluate.rundir import RunDirError

    recs = [closure_instance("a", "q")]
    provider = ScriptedProvider(['{"answer": 1}'])
    asyncio.run(
        run_eval(
            recs,
            provider,
            "direct",
            GenerationSettings(model="m"),
            tmp_path,
            RunOptions(progress=False),
        )
    )
    with pytest.raises(RunDirError, match=r"mode 'direct' -> 'cot'.*--force-new"):
        asyncio.run(
            run_eval(
                recs,
                provider,
                "cot",
                GenerationSettings(model="m"),
                tmp_path,
                RunOptions(progress=False),
            )
        )


def test_load_results_repairs_truncated_tail_and_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    good = [json.dumps({"id": f"x{i}", "outcome": "wrong"}) for i in range(3)]
    path.write_text("\n".join([*good, good[0]]) + "\n" + '{"id": "x9", "outc')
    rows = load_results(path)
    assert [r["id"] for r in rows] == ["x0", "x1", "x2"]
    assert path.read_text().count("\n") == 3 and path.read_text().endswith("\n")


def test_select_instances_sample_is_stratified_and_seeded() -> None:
    recs = [closure_instance(f"{c}{i}", "q", category=c) for c in "abc" for i in range(10)]
    picked = select_instances(recs, sample=9, seed=3)
    assert Counter(r.category for r in picked) == {"a": 3, "b": 3, "c": 3}
    assert picked == select_instances(recs, sample=9, seed=3)
    assert picked != select_instances(recs, sample=9, seed=4)
    assert [r.id for r in select_instances(recs, categories=["b"], limit=2)] == ["b0", "b1"]
    grit = [grit_instance(str(i), "q", task="tsp" if i % 2 else "bfs") for i in range(6)]
    assert {r.task for r in select_instances(grit, tasks=["tsp"])} == {"tsp"}


def test_backoff_is_exponential_seeded_and_respects_retry_after() -> None:
    d = [backoff_delay(a, base_s=1, max_s=8, rng=random.Random(0)) for a in range(6)]
    assert 0.5 <= d[0] <= 1 and 1 <= d[1] <= 2 and 4 <= d[5] <= 8
    assert d == [backoff_delay(a, base_s=1, max_s=8, rng=random.Random(0)) for a in range(6)]
    assert backoff_delay(0, base_s=1, max_s=60, rng=random.Random(0), retry_after=30) == 30
    # a Retry-After beyond the maximum is cut to it
    assert backoff_delay(0, base_s=1, max_s=8, rng=random.Random(0), retry_after=30) == 8


def test_progress_bar_shows_the_final_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Updates are throttled to 10 per second; closing must still show every instance.
    records = [closure_instance(f"p{k}", f"q{k}") for k in range(40)]
    provider = ScriptedProvider(lambda m, s: '{"answer": 1}')
    asyncio.run(
        run_eval(records, provider, "direct", GenerationSettings(model="m"), tmp_path,
                 RunOptions(concurrency=4, progress=True))
    )  # fmt: skip
    err = capsys.readouterr().err
    assert "40/40" in err
    assert "strict 100.0%" in err


def test_providers_that_bound_time_themselves_are_not_cut_off(tmp_path: Path) -> None:
    # A local model queues requests and stops generating at the timeout itself; the
    # runner must not cancel it from outside (that would waste uninterruptible work).
    records = [closure_instance(f"t{k}", f"q{k}") for k in range(2)]
    settings = GenerationSettings(model="m", timeout_s=0.05)
    opts = RunOptions(concurrency=2, retries=0, progress=False)

    slow = ScriptedProvider(lambda m, s: '{"answer": 1}', delay_s=0.8)
    cut = asyncio.run(run_eval(records, slow, "direct", settings, tmp_path / "cut", opts))
    assert cut.failures == 2  # the runner's timeout (0.05 + 0.5 s) fired

    self_timed = ScriptedProvider(lambda m, s: '{"answer": 1}', delay_s=0.8)
    self_timed.enforces_timeout = True  # type: ignore[attr-defined]
    kept = asyncio.run(run_eval(records, self_timed, "direct", settings, tmp_path / "kept", opts))
    assert kept.failures == 0 and kept.summary.strict_correct == 2
