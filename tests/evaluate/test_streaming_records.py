"""Results and cache files are streamed: repair, drop, iterate, index-only cache."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from typed_records import closure_instance, results

from closurebench.evaluate.cache import CompletionCache
from closurebench.evaluate.providers import GenerationSettings, ProviderError, ScriptedProvider
from closurebench.evaluate.providers.base import Completion
from closurebench.evaluate.records import iter_results, repair_results, summarize
from closurebench.evaluate.runner import RunOptions, run_eval


def _write(path: Path, rows: list[dict[str, Any]], tail: str = "") -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + tail)


def test_iter_results_skips_damage_without_touching_the_file(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    rows: list[dict[str, Any]] = [
        {"id": "a", "strict": True},
        {"id": "b"},
        {"id": "a", "strict": False},
    ]
    _write(path, rows, tail='{"id": "c", "str')
    before = path.read_bytes()
    assert [r["id"] for r in iter_results(path)] == ["a", "b"]
    assert next(iter_results(path))["strict"] is True  # the first record of an id wins
    assert path.read_bytes() == before
    assert list(iter_results(tmp_path / "missing.jsonl")) == []


def test_repair_results_drops_damage_and_chosen_results(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    rows = [{"id": "a"}, {"id": "b", "error": "boom"}, {"id": "c"}]
    _write(path, rows, tail="not json\n")
    assert repair_results(path) == {"a", "b", "c"}
    assert path.read_text().count("\n") == 3
    kept = repair_results(path, drop=lambda r: bool(r.get("error")))
    assert kept == {"a", "c"}
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a", "c"]
    unchanged = path.stat().st_mtime_ns
    assert repair_results(path) == {"a", "c"}
    assert path.stat().st_mtime_ns == unchanged  # nothing to remove: not rewritten


def test_summarize_streams_one_pass() -> None:
    rows: list[dict[str, Any]] = [
        {"outcome": "strict_correct", "strict": True, "lenient": True, "suite": "closure",
         "usage": {"prompt_tokens": 10, "completion_tokens": 4}, "latency_s": 1.0},
        {"outcome": "no_answer", "error": "x", "usage": {}, "mode": "late"},
    ]  # fmt: skip
    assert summarize(iter(results(rows))) == summarize(results(rows))
    s = summarize(iter(results(rows))).to_json()
    # the old-style failed record ("no_answer" with an error) is an error, not a model result
    assert s["counts"] == {"total": 2, "answered": 1, "errors": 1}
    assert s["outcomes"]["error"] == 1 and s["outcomes"]["no_answer"] == 0
    assert s["strict_accuracy"] == 1.0 and s["complete"] is False
    assert s["tokens"]["completion_mean"] == 4.0 and s["tokens"]["per_correct_strict"] == 4.0
    assert s["latency_s"] == {"mean": 1.0, "p90": 1.0} and s["suites"] == ["closure"]


def test_cache_keeps_an_index_and_reads_hits_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    c = CompletionCache(path)
    comps = {f"k{i}": Completion(f"text {i} é", None, i, i + 1, 0.5, "stop") for i in range(3)}
    for k, v in comps.items():
        c.put(k, v)
    assert c._memory == {}  # nothing but offsets in memory
    assert c.get("k1") == comps["k1"] and c.get("nope") is None and c.hits == 1
    c.close()
    # Damage k1's line in place: it becomes a miss, the others still hit.
    raw = bytearray(path.read_bytes())
    start = raw.index(b'"k1"')
    raw[start : start + 4] = b"XXXX"
    path.write_bytes(bytes(raw))
    again = CompletionCache(path)
    assert len(again) == 2
    assert again.get("k0") == comps["k0"] and again.get("k2") == comps["k2"]
    assert again.get("k1") is None
    again.close()
    memory_only = CompletionCache(None)
    memory_only.put("m", comps["k0"])
    assert memory_only.get("m") is comps["k0"] and len(memory_only) == 1


def test_resume_reruns_only_failed_instances_unless_kept(tmp_path: Path) -> None:
    records = [closure_instance(f"r{k}", f"q{k}", k) for k in range(6)]
    settings = GenerationSettings(model="m")

    def flaky(messages: list[dict[str, str]], s: GenerationSettings) -> str:
        k = int(messages[-1]["content"].rsplit("q", 1)[1])
        if k % 3 == 0:
            raise ProviderError("refused", retryable=False)
        return json.dumps({"answer": k})

    def fixed(messages: list[dict[str, str]], s: GenerationSettings) -> str:
        return json.dumps({"answer": int(messages[-1]["content"].rsplit("q", 1)[1])})

    opts = RunOptions(progress=False, retries=0)
    first = asyncio.run(
        run_eval(records, ScriptedProvider(flaky), "direct", settings, tmp_path, opts)
    )
    assert first.failures == 2 and first.summary.counts.errors == 2
    assert first.summary.complete is False
    keep = RunOptions(progress=False, retries=0, keep_errors=True)
    kept = asyncio.run(
        run_eval(records, ScriptedProvider(fixed), "direct", settings, tmp_path, keep)
    )
    assert kept.evaluated == 0  # --keep-errors: a resume keeps the failed results
    second = asyncio.run(
        run_eval(records, ScriptedProvider(fixed), "direct", settings, tmp_path, opts)
    )
    assert second.evaluated == 2 and second.skipped == 4
    ids = [r["id"] for r in iter_results(tmp_path / "results.jsonl")]
    assert sorted(ids) == [f"r{k}" for k in range(6)] and len(ids) == 6
    assert second.summary.counts.errors == 0 and second.summary.complete is True
    assert second.summary.strict_correct == 6
