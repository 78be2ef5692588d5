"""The memorisation probe end to end, with scripted models that memorised the seen file.

The probe's sets (fresh: same distribution, no seen structure; re-worded: same
structures, new words), its runs through the harness (resumable, no second query), its
scores (seen 1, fresh and re-worded 0, the gaps, intervals), its files (JSON record,
Markdown, Figure 2) and their determinism.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from memorisation_helpers import CATEGORIES, memorising_provider
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.evaluate.memorisation import (
    Checkpoint,
    ProbeSet,
    SetRun,
    build_sets,
    fresh_records,
    resolve_checkpoints,
    reworded_records,
    run_probe,
)
from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.providers import (
    GenerationSettings,
    Provider,
    ProviderError,
    ScriptedProvider,
)
from closurebench.evaluate.runner import RunAborted, RunOptions
from closurebench.report.memorisation import (
    FIGURE_FILE,
    JSON_FILE,
    MARKDOWN_FILE,
    score_probe,
    write_probe,
)
from closurebench.schema import ClosureInstance, MemorisationProbe, schema_for
from closurebench.schema.memorisation import GapScores, SetScores

runner = CliRunner()


def _checkpoint_dirs(root: Path) -> list[Path]:
    """Two transformers-style checkpoint folders with trainer states (epochs 1 and 2)."""
    out = []
    for step, epoch in ((4, 1.0), (8, 2.0)):
        folder = root / f"checkpoint-{step}"
        folder.mkdir(parents=True, exist_ok=True)
        state = {"global_step": step, "epoch": epoch}
        (folder / "trainer_state.json").write_text(json.dumps(state), encoding="utf-8")
        out.append(folder)
    return out


def _probe(
    out: Path,
    seen_file: Path,
    ckpt_root: Path,
    seeds: tuple[int, ...] = (42, 137),
    provider_for: object = None,
) -> tuple[MemorisationProbe, list[ScriptedProvider]]:
    """Probe a base model that knows nothing, then two checkpoints that memorised all."""
    dirs = _checkpoint_dirs(ckpt_root)
    checkpoints = resolve_checkpoints("base-model", [str(d) for d in dirs], local=False)
    seen, sets = build_sets(seen_file, seeds, out)
    seen_records = [r for r in seen.records if isinstance(r, ClosureInstance)]
    made: list[ScriptedProvider] = []

    def default_provider(ckpt: Checkpoint) -> Provider:
        p = memorising_provider([] if ckpt.base else seen_records)
        made.append(p)
        return p

    runs = asyncio.run(
        run_probe(
            checkpoints,
            [seen, *sets],
            out,
            provider_for=provider_for or default_provider,  # type: ignore[arg-type]
            mode_for=lambda: get_mode("direct"),
            settings=GenerationSettings(model="unused"),
            options=RunOptions(progress=False),
        )
    )
    probe = score_probe(
        out,
        checkpoints=checkpoints,
        seen=seen,
        sets=sets,
        runs=runs,
        seeds=seeds,
        mode="direct",
        provider="scripted",
    )
    write_probe(out, probe)
    return probe, made


Probed = tuple[Path, MemorisationProbe, Path]


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory, seen_file: Path) -> Probed:
    """One probe of three models on the small seen file, two seeds; and the checkpoints."""
    out = tmp_path_factory.mktemp("probe")
    ckpts = tmp_path_factory.mktemp("ckpts")
    probe, _ = _probe(out, seen_file, ckpts)
    return out, probe, ckpts


def _set(probe: MemorisationProbe, label: str, name: str) -> SetScores:
    ckpt = next(c for c in probe.checkpoints if c.label == label)
    return next(s for s in ckpt.sets if s.set == name)


def _gap(probe: MemorisationProbe, label: str, name: str) -> GapScores:
    ckpt = next(c for c in probe.checkpoints if c.label == label)
    return next(g for g in ckpt.gaps if g.name == name)


def test_a_memorising_model_scores_seen_one_fresh_and_reworded_zero(
    probed: Probed,
) -> None:
    _, probe, _ = probed
    assert [c.label for c in probe.checkpoints] == ["base", "checkpoint-4", "checkpoint-8"]
    assert [(c.step, c.epoch) for c in probe.checkpoints] == [(None, None), (4, 1.0), (8, 2.0)]
    for label in ("checkpoint-4", "checkpoint-8"):
        seen, fresh, reworded = (_set(probe, label, n) for n in ("seen", "fresh", "reworded"))
        assert seen.strict.value == 1.0 and seen.lenient.value == 1.0
        assert fresh.strict.value == 0.0 and reworded.strict.value == 0.0
        assert seen.answered == 8 and fresh.answered == 16 and reworded.answered == 16
        assert [s.seed for s in fresh.per_seed] == [42, 137]
        assert seen.per_seed[0].seed is None  # one seen file, evaluated once
        gap = _gap(probe, label, "seen-fresh")
        assert gap.strict.value == 1.0 and gap.strict.low is not None
        assert 0.0 < gap.strict.low < 1.0 and gap.strict.high == 1.0
        assert [g.strict for g in gap.per_seed] == [1.0, 1.0]
        assert _gap(probe, label, "seen-reworded").strict.value == 1.0
        assert seen.strict.low is not None and 0.5 < seen.strict.low < 1.0  # Wilson, n = 8
    base = _set(probe, "base", "seen")
    assert base.strict.value == 0.0 and _gap(probe, "base", "seen-fresh").strict.value == 0.0
    assert all(c.complete for c in probe.checkpoints)
    assert probe.reworded_note is None


def test_the_files_are_written_and_the_record_fits_its_schema(
    probed: Probed,
) -> None:
    out, probe, _ = probed
    data = json.loads((out / JSON_FILE).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema_for("memorisation")).validate(data)
    assert MemorisationProbe.model_validate(data) == probe
    md = (out / MARKDOWN_FILE).read_text(encoding="utf-8")
    assert "| checkpoint-8 | step 8, epoch 2 | 100.0 [67.6, 100.0] | 0.0 [0.0, 19.4] |" in md
    assert f"]({FIGURE_FILE})" in md
    assert (out / FIGURE_FILE).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for ckpt in probe.checkpoints:
        for s in ckpt.sets:
            for seed in s.per_seed:
                assert (out / seed.run / "results.jsonl").is_file()
                assert (out / seed.run / "summary.json").is_file()
    assert [(s.set, s.seed) for s in probe.sets] == [
        ("fresh", 42), ("reworded", 42), ("fresh", 137), ("reworded", 137),
    ]  # fmt: skip


def test_the_reworded_set_keeps_the_structures_and_changes_the_wording(
    seen_records: list[ClosureInstance],
) -> None:
    got = reworded_records(seen_records, 42)
    assert got is not None and len(got) == len(seen_records)
    new = [r for r in got if isinstance(r, ClosureInstance)]
    assert len(new) == len(got)
    for old, again in zip(seen_records, new, strict=True):
        assert again.id == old.id and again.answer_ids == old.answer_ids
        assert again.structure_key == old.structure_key
        assert again.question != old.question
        assert again.surface_seed != old.surface_seed
    assert {r.question for r in new}.isdisjoint({r.question for r in seen_records})
    assert [r.question for r in reworded_records(seen_records, 137) or []] != [
        r.question for r in new
    ]


def test_the_fresh_set_shares_no_structure_and_follows_the_distribution(
    seen_records: list[ClosureInstance],
) -> None:
    fresh = [r for r in fresh_records(seen_records, 42) if isinstance(r, ClosureInstance)]
    assert len(fresh) == len(seen_records)
    assert {r.structure_key for r in fresh}.isdisjoint({r.structure_key for r in seen_records})
    assert {r.question for r in fresh}.isdisjoint({r.question for r in seen_records})
    assert {r.structural_seed for r in fresh}.isdisjoint({r.structural_seed for r in seen_records})
    seen_ids = {r.id for r in seen_records}
    assert {r.id for r in fresh}.isdisjoint(seen_ids)  # the generator numbers from 0 too
    assert all(r.id == f"fresh42-{r.id.removeprefix('fresh42-')}" for r in fresh)
    assert {r.id.removeprefix("fresh42-") for r in fresh} & seen_ids  # would have collided
    assert Counter(r.category for r in fresh) == Counter(r.category for r in seen_records)
    assert [r.category for r in fresh] == [r.category for r in seen_records]
    assert {r.level for r in fresh} == {r.level for r in seen_records}
    for cat in CATEGORIES:
        ns = [r.n for r in seen_records if r.category == cat]
        assert all(min(ns) <= r.n <= max(ns) for r in fresh if r.category == cat)
    again = fresh_records(seen_records, 42)
    assert [r.to_json() for r in again] == [r.to_json() for r in fresh]
    other = fresh_records(seen_records, 137)
    assert {r.structure_key for r in other} != {r.structure_key for r in fresh}
    bigger = [
        r for r in fresh_records(seen_records, 42, count=12) if isinstance(r, ClosureInstance)
    ]
    assert len(bigger) == 12 and Counter(r.category for r in bigger) == dict.fromkeys(CATEGORIES, 3)


def test_the_same_seeds_give_byte_identical_outputs(
    tmp_path: Path,
    seen_file: Path,
    probed: Probed,
) -> None:
    first, _, ckpts = probed
    second = tmp_path / "second"
    _probe(second, seen_file, ckpts)  # the checkpoints are recorded as given: the same ones
    names = [JSON_FILE, MARKDOWN_FILE, FIGURE_FILE]
    names += [f"sets/seed-{s}/{n}.jsonl" for s in (42, 137) for n in ("fresh", "reworded")]
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_a_resumed_probe_does_not_query_again(tmp_path: Path, seen_file: Path) -> None:
    out = tmp_path / "probe"
    probe, made = _probe(out, seen_file, tmp_path / "ckpts", seeds=(7,))
    assert sum(len(p.calls) for p in made) == 3 * (8 + 8 + 8)
    before = (out / JSON_FILE).read_bytes()

    def refusing(ckpt: Checkpoint) -> Provider:
        return ScriptedProvider([])  # any request would fail: nothing may be asked

    again, _ = _probe(out, seen_file, tmp_path / "ckpts", seeds=(7,), provider_for=refusing)
    assert again == probe and (out / JSON_FILE).read_bytes() == before


def test_a_stopped_probe_resumes_where_it_stopped(tmp_path: Path, seen_file: Path) -> None:
    out = tmp_path / "probe"
    seen, sets = build_sets(seen_file, (5,), out)
    seen_records = [r for r in seen.records if isinstance(r, ClosureInstance)]
    ckpt = resolve_checkpoints("m", [], local=False)
    calls = 0

    def dying(messages: list[dict[str, str]], settings: GenerationSettings) -> str:
        nonlocal calls
        calls += 1
        if calls == 12:  # the server dies: the harness stops the run at once
            raise ProviderError("unauthorised", retryable=False, fatal=True)
        return '{"answer": "x"}'

    with pytest.raises(RunAborted):
        asyncio.run(
            run_probe(
                ckpt, [seen, *sets], out,
                provider_for=lambda c: ScriptedProvider(dying),
                mode_for=lambda: get_mode("direct"),
                settings=GenerationSettings(model="m"),
                options=RunOptions(progress=False, concurrency=1),
            )
        )  # fmt: skip
    resumed = memorising_provider(seen_records)
    runs = asyncio.run(
        run_probe(
            ckpt, [seen, *sets], out,
            provider_for=lambda c: resumed,
            mode_for=lambda: get_mode("direct"),
            settings=GenerationSettings(model="m"),
            options=RunOptions(progress=False, concurrency=1),
        )
    )  # fmt: skip
    assert len(resumed.calls) == 3 * 8 - 11  # the 11 answered before the interrupt are kept
    assert [r.probe_set.key for r in runs] == ["seen", "fresh-5", "reworded-5"]


def test_the_sets_are_read_back_on_resume(tmp_path: Path, seen_file: Path) -> None:
    _, sets = build_sets(seen_file, (3,), tmp_path)
    stamp = {s.path: s.path.stat().st_mtime_ns for s in sets}
    messages: list[str] = []
    _, again = build_sets(seen_file, (3,), tmp_path, progress=messages.append)
    assert [s.path.stat().st_mtime_ns for s in again] == list(stamp.values())
    assert all("read back" in m for m in messages)
    assert [s.records for s in again] == [s.records for s in sets]
    _, other = build_sets(seen_file, (3,), tmp_path, fresh_count=4)  # another size: anew
    assert len(other[0].records) == 4


def test_the_cli_probes_with_a_scripted_model(
    tmp_path: Path, seen_file: Path, script_file: Path
) -> None:
    out = tmp_path / "probe"
    args = [
        "memorisation", "--model", "mem", "--seen", str(seen_file), "--out", str(out),
        "--provider", "scripted", "--script", str(script_file), "--seeds", "1",
    ]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "[1/3] base · seen: 8 instances" in result.output
    assert "8 results in" in result.output  # the harness's own result line
    probe = MemorisationProbe.model_validate_json((out / JSON_FILE).read_text("utf-8"))
    assert [(s.set, s.strict.value) for s in probe.checkpoints[0].sets] == [
        ("seen", 1.0), ("fresh", 0.0), ("reworded", 0.0),
    ]  # fmt: skip
    again = runner.invoke(app, args)
    assert again.exit_code == 0 and "evaluated 0, resumed 8" in again.output
    check = runner.invoke(app, ["schema", "memorisation", "--validate", str(out / JSON_FILE)])
    assert check.exit_code == 0, check.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seen", "missing.jsonl"], "dataset file 'missing.jsonl' does not exist"),
        (["--checkpoints", "./nowhere"], "--checkpoints ./nowhere: no such folder"),
        (["--seeds", "1,1"], "--seeds: 1 is given twice"),
        (["--seeds", "x"], "--seeds 'x': 'x' is not a whole number"),
        (["--fresh-count", "0"], "--fresh-count 0 must be at least 1"),
        (["--provider", "nope"], "unknown provider kind 'nope'"),
    ],
)
def test_bad_input_is_one_error_line(
    tmp_path: Path,
    seen_file: Path,
    script_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    extra: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["memorisation", "--model", "m", "--seen", str(seen_file), "--out", "probe"]
    args += ["--provider", "scripted", "--script", str(script_file), "--no-progress"]
    result = runner.invoke(app, [*args, *extra])
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines[-1].startswith("error: ") and message in lines[-1], result.output


def test_local_checkpoints_must_hold_a_model_and_weights(tmp_path: Path) -> None:
    empty = tmp_path / "checkpoint-3"
    empty.mkdir()
    from closurebench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"neither config\.json .* nor adapter_config\.json"):
        resolve_checkpoints("m", [str(empty)], local=True)
    (empty / "adapter_config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="holds no weights"):
        resolve_checkpoints("m", [str(empty)], local=True)
    (empty / "adapter_model.safetensors").write_bytes(b"")
    got = resolve_checkpoints("m", [str(empty)], local=True)
    assert [(c.label, c.step, c.epoch) for c in got] == [
        ("base", None, None),
        ("checkpoint-3", 3, None),
    ]
    twice = tmp_path / "b" / "checkpoint-3"
    twice.mkdir(parents=True)
    labels = [c.label for c in resolve_checkpoints("m", [str(empty), str(twice)], local=False)]
    assert labels == ["base", f"{tmp_path.name}/checkpoint-3", "b/checkpoint-3"]


def test_a_grit_probe_has_fresh_graphs_and_reworded_views(tmp_path: Path) -> None:
    from closurebench.generate.grit import GritConfig, write_split

    path, *_ = write_split(
        GritConfig(
            split="train", seed=0, count=2, tasks=("bfs", "shortest_path"), n_min=5, n_max=7
        ),
        tmp_path / "grit",
    )
    seen, sets = build_sets(path, (42,), tmp_path / "probe")
    records = seen.records
    assert [s.key for s in sets] == ["fresh-42", "reworded-42"]
    fresh, reworded = sets[0].records, sets[1].records
    assert len(fresh) == len(records)
    assert {r.id for r in fresh}.isdisjoint({r.id for r in records})  # never a seen id
    assert {r.graph_id for r in fresh}.isdisjoint({r.graph_id for r in records})  # type: ignore[union-attr]
    # re-worded: every view but standard/canonical (one text whatever the surface), its
    # record's id, graph, form, naming and answer-relevant structure; new words
    by_id = {r.id: r for r in records}
    kept = [r for r in records if r.view != "standard/canonical"]  # type: ignore[union-attr]
    assert [r.id for r in reworded] == [r.id for r in kept]
    for new in reworded:
        old = by_id[new.id]
        assert new.structure_key == old.structure_key and new.view == old.view  # type: ignore[union-attr]
        assert new.question != old.question and new.graph == old.graph
    assert Counter(r.task for r in fresh) == Counter(r.task for r in records)  # type: ignore[union-attr]
    assert {r.structure_key for r in fresh}.isdisjoint({r.structure_key for r in records})
    assert {r.view for r in fresh} == {r.view for r in records}  # type: ignore[union-attr]
    assert all(5 <= r.n <= 7 for r in fresh)
    checkpoints = resolve_checkpoints("m", [], local=False)
    runs = [
        SetRun(checkpoints[0], s, tmp_path / "probe" / "runs" / "base" / s.key)
        for s in (seen, *sets)
    ]
    probe = score_probe(
        tmp_path / "probe", checkpoints=checkpoints, seen=seen, sets=sets, runs=runs,
        seeds=(42,), mode="direct", provider="scripted",
    )  # fmt: skip
    assert probe.suite == "grit" and probe.reworded_note is not None
    assert [g.name for g in probe.checkpoints[0].gaps] == ["seen-fresh", "seen-reworded"]
    assert isinstance(seen, ProbeSet)


def test_a_grit_probe_compares_reworded_views_with_the_same_seen_views(
    tmp_path: Path,
) -> None:
    """A model that memorised every seen view but standard/canonical: seen accuracy 7/8,
    re-worded 0; the seen − re-worded gap is taken over the seen file's same views (1.0),
    not the whole file (0.875)."""
    from closurebench.generate.grit import GritConfig, write_split
    from closurebench.generate.io import load_instances

    path, *_ = write_split(
        GritConfig(split="train", seed=0, count=1, tasks=("shortest_path",), n_min=5, n_max=6),
        tmp_path / "grit",
    )
    records = load_instances(path)
    script = {
        r.question: f"<answer>{r.answer}</answer>"
        for r in records
        if r.view != "standard/canonical"  # type: ignore[union-attr]
    }
    script["\n"] = "<answer>-1</answer>"  # in every question: the rest are wrong
    file = tmp_path / "script.json"
    file.write_text(json.dumps(script), encoding="utf-8")
    out = tmp_path / "probe"
    args = [
        "memorisation", "--model", "mem", "--seen", str(path), "--out", str(out), "--mode",
        "agent", "--provider", "scripted", "--script", str(file), "--seeds", "1",
        "--no-progress",
    ]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    probe = MemorisationProbe.model_validate_json((out / JSON_FILE).read_text("utf-8"))
    sets = {s.set: s.strict.value for s in probe.checkpoints[0].sets}
    assert sets["seen"] == 0.875 and sets["reworded"] == 0.0
    gaps = {g.name: g.strict.value for g in probe.checkpoints[0].gaps}
    assert gaps["seen-reworded"] == 1.0
