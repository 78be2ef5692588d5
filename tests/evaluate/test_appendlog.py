"""The append-only log: per-line flush, group-committed fsync, torn-tail handling."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from closurebench.errors import ConfigError
from closurebench.evaluate import appendlog
from closurebench.evaluate.appendlog import AppendLog
from closurebench.evaluate.cache import CompletionCache
from closurebench.evaluate.providers import GenerationSettings, ScriptedProvider
from closurebench.evaluate.providers.base import Completion
from closurebench.evaluate.runner import RunOptions, run_eval


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count os.fsync calls made by the log (the real fsync still runs)."""
    calls: list[int] = []
    real = os.fsync

    def counting(fd: int) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(appendlog.os, "fsync", counting)
    return calls


def test_every_line_is_readable_before_close(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    log = AppendLog(path, sync_interval_s=3600)
    for k in range(5):
        log.append(f'{{"k": {k}}}')
        # Another process (a resume, a report) sees the line at once.
        assert path.read_text().splitlines()[-1] == f'{{"k": {k}}}'
    log.close()
    log.close()  # idempotent


def test_interval_zero_fsyncs_every_line(tmp_path: Path, fsyncs: list[int]) -> None:
    log = AppendLog(tmp_path / "a.jsonl", sync_interval_s=0)
    for k in range(4):
        log.append(str(k))
    assert len(fsyncs) == 4
    log.close()
    assert len(fsyncs) == 4  # nothing new to sync at close
    assert log.syncs == 4


def test_group_commit_syncs_once_per_interval_and_at_close(
    tmp_path: Path, fsyncs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000.0]
    monkeypatch.setattr(appendlog.time, "monotonic", lambda: now[0])
    log = AppendLog(tmp_path / "a.jsonl", sync_interval_s=1.0)
    for _ in range(50):
        log.append("x")
        now[0] += 0.01  # 50 lines in 0.5 s: inside one interval
    assert fsyncs == []
    now[0] += 0.6
    log.append("y")  # the interval has passed: one fsync covers all 51 lines
    assert len(fsyncs) == 1
    log.append("z")
    log.close()  # close always syncs what is pending
    assert len(fsyncs) == 2
    assert (tmp_path / "a.jsonl").read_text().count("\n") == 52


def test_torn_tail_gets_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"a": 1}\n{"b": 2')  # killed mid-write
    log = AppendLog(path)
    log.append('{"c": 3}')
    log.close()
    assert path.read_text().splitlines() == ['{"a": 1}', '{"b": 2', '{"c": 3}']


def test_negative_interval_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="sync_interval_s must be >= 0"):
        AppendLog(tmp_path / "a.jsonl", sync_interval_s=-1)


def test_cache_after_a_torn_line_keeps_later_entries(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    c = CompletionCache(path)
    c.put("k1", Completion("one", None, 1, 1, 0.1, "stop"))
    c.close()
    with path.open("a") as fh:
        fh.write('{"key": "k2", "compl')  # torn by a crash
    c2 = CompletionCache(path)
    assert len(c2) == 1
    c2.put("k3", Completion("three", None, 1, 1, 0.1, "stop"))
    c2.close()
    c3 = CompletionCache(path)
    assert c3.get("k1") is not None and c3.get("k3") is not None and c3.get("k2") is None


def test_run_option_is_checked_and_used(tmp_path: Path, fsyncs: list[int]) -> None:
    import asyncio

    from typed_records import closure_instance

    records = [closure_instance(f"i{k}", f"q{k}") for k in range(6)]
    settings = GenerationSettings(model="m")
    with pytest.raises(ConfigError, match="--fsync-interval must be >= 0"):
        asyncio.run(
            run_eval(records, ScriptedProvider(["1"]), "direct", settings, tmp_path / "bad",
                     RunOptions(sync_interval_s=-0.5, progress=False))
        )  # fmt: skip
    provider = ScriptedProvider(lambda m, s: '{"answer": 1}')
    stats = asyncio.run(
        run_eval(records, provider, "direct", settings, tmp_path / "run",
                 RunOptions(sync_interval_s=0, progress=False, concurrency=2))
    )  # fmt: skip
    assert stats.evaluated == 6
    # Interval 0: every result line and every cache line is fsynced.
    assert len(fsyncs) >= 12
