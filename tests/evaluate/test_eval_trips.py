"""What a new user trips on, through ``closurebench eval`` (issue 26, item 1).

A dataset cut or edited since ``generate`` wrote it, an empty file, a folder or a
results file given as the dataset; a run folder whose first attempt stopped before any
result (a wrong model name) taken over by the corrected command; mode options that
change the prompt or the scoring (the agent's protocol reading) refused on resume like
any other identity field; ``generate`` refusing to replace a split silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from eval_cli import EVAL_APP
from fake_openai_server import FakeOpenAIServer, Reply
from typer.testing import CliRunner

from closurebench.cli import EXIT_INFRASTRUCTURE, app


def _answers(records: list[Any]) -> Any:
    by_q = {r.question: r for r in records}
    return lambda body: Reply(json.dumps({"answer": by_q[body["messages"][-1]["content"]].answer}))


def _invoke(args: list[str]) -> Any:
    return CliRunner().invoke(EVAL_APP, args)


def _eval(data: Path, out: Path, *extra: str) -> Any:
    return _invoke([str(data), "--model", "random", "--out", str(out), "--no-progress", *extra])


def test_a_cut_dataset_is_refused_against_its_manifest(data: Any, tmp_path: Path) -> None:
    path, _ = data
    folder = tmp_path / "split"
    folder.mkdir()
    cut = folder / path.name
    cut.write_text("".join(path.read_text().splitlines(keepends=True)[:12]))
    manifest = path.with_name(path.stem + ".manifest.json")
    (folder / manifest.name).write_text(manifest.read_text())
    res = _eval(cut, tmp_path / "run")
    assert res.exit_code == 1, res.output
    assert "does not match its manifest (30 records" in res.stderr
    assert "the file holds 12" in res.stderr and "--sample" in res.stderr
    assert not (tmp_path / "run").exists()  # refused before anything was written
    whole = _eval(path, tmp_path / "whole")
    assert whole.exit_code == 0 and "manifest" not in whole.stderr  # a matching file: silent
    (folder / manifest.name).unlink()  # edited on purpose: no manifest, a note
    res = _eval(cut, tmp_path / "run")
    assert res.exit_code == 0, res.output
    assert f"note: no manifest beside {cut.name}" in res.stderr
    assert "12 results" in res.stdout


def test_empty_folder_and_results_files_are_not_datasets(data: Any, tmp_path: Path) -> None:
    path, _ = data
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    res = _eval(empty, tmp_path / "run")
    assert res.exit_code == 1 and "holds no records" in res.stderr
    assert not (tmp_path / "run").exists()
    res = _eval(path.parent, tmp_path / "run")
    assert res.exit_code == 1
    assert "is a folder, not a dataset file" in res.stderr and path.name in res.stderr
    assert _eval(path, tmp_path / "done", "--limit", "2").exit_code == 0
    res = _eval(tmp_path / "done" / "results.jsonl", tmp_path / "run")
    assert res.exit_code == 1
    assert "this is a results file" in res.stderr and "closurebench report" in res.stderr


def test_a_run_with_no_results_takes_the_corrected_command(data: Any, tmp_path: Path) -> None:
    path, records = data
    out = tmp_path / "run"
    with FakeOpenAIServer(strict_models=True, served_models=["fake-model"]) as fake:
        fake.script(default=_answers(records))
        base = [str(path), "--base-url", fake.base_url, "--out", str(out), "--no-progress"]
        base += ["--retries", "0", "--limit", "3"]
        wrong = _invoke([*base, "--model", "nope"])
        assert wrong.exit_code == EXIT_INFRASTRUCTURE, wrong.output
        assert (out / "run.json").is_file()
        right = _invoke([*base, "--model", "fake-model"])
        assert right.exit_code == 0, right.output
        assert "holds no results yet: recording this run's options" in right.stderr
        assert "model 'nope' -> 'fake-model'" in right.stderr
        assert "3 results" in right.stdout
        assert json.loads((out / "run.json").read_text())["model"] == "fake-model"
        again = _invoke([*base, "--model", "nope"])  # now it holds results: refused
        assert again.exit_code == 1 and "holds another run" in again.stderr


def test_mode_options_are_part_of_the_run_identity(tmp_path: Path) -> None:
    import closurebench

    records = closurebench.generate_split("heldout", seed=1, count=3, out=tmp_path / "d")
    data = tmp_path / "d" / "closure-heldout.jsonl"
    assert len(records) == 3
    out = tmp_path / "run"
    base = [str(data), "--model", "reader", "--mode", "agent", "--out", str(out), "--no-progress"]
    first = _invoke(base)
    assert first.exit_code == 0, first.output
    identity = json.loads((out / "run.json").read_text())
    assert identity["mode_options"]["strict_protocol"] is False
    assert identity["mode_options"]["max_rounds"] >= 1
    res = _invoke([*base, "--strict-protocol"])
    assert res.exit_code == 1, res.output
    assert "mode option strict_protocol False -> True" in res.stderr
    res = _invoke([*base, "--agent-max-calls", "2"])
    assert res.exit_code == 1 and "mode option max_rounds" in res.stderr
    assert _invoke(base).exit_code == 0  # the same options resume


def test_generate_refuses_to_replace_a_split(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["generate", "closure", "--split", "heldout", "--count", "3", "--out", str(tmp_path)]
    assert runner.invoke(app, args).exit_code == 0
    before = (tmp_path / "closure-heldout.jsonl").read_bytes()
    res = runner.invoke(app, [*args, "--seed", "5"])
    assert res.exit_code == 1 and "exists; pass --overwrite" in res.output
    assert (tmp_path / "closure-heldout.jsonl").read_bytes() == before
    res = runner.invoke(app, [*args, "--seed", "5", "--overwrite"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "closure-heldout.jsonl").read_bytes() != before


def test_a_server_that_is_not_running_is_a_provider_failure(data: Any, tmp_path: Path) -> None:
    import socket

    path, _ = data
    with socket.socket() as s:  # a port nothing listens on (bound, never listening)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        res = _invoke(
            [str(path), "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1",
             "--out", str(tmp_path / "run"), "--no-progress"]
        )  # fmt: skip
    assert res.exit_code == EXIT_INFRASTRUCTURE, res.output  # the README's 3, not bad input's 1
    assert "cannot reach the server" in res.stderr and "check --base-url" in res.stderr


def test_the_mode_help_lists_every_mode() -> None:
    from closurebench.evaluate.mode_names import MODE_SUMMARIES
    from closurebench.evaluate.modes import MODES

    assert list(MODE_SUMMARIES) == list(MODES)
    res = CliRunner().invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    flat = " ".join(res.output.split())
    for name in MODES:
        assert f"{name} (" in flat, name


def test_extra_body_is_sent_recorded_and_part_of_the_identity(data: Any, tmp_path: Path) -> None:
    from closurebench.report import build_report

    path, records = data
    out = tmp_path / "run"
    extra = '{"chat_template_kwargs": {"enable_thinking": false}, "top_k": 20}'
    with FakeOpenAIServer() as fake:
        fake.script(default=_answers(records))
        base = [str(path), "--model", "m", "--base-url", fake.base_url, "--out", str(out)]
        base += ["--no-progress", "--limit", "3"]
        res = _invoke([*base, "--extra-body", extra])
        assert res.exit_code == 0, res.output
        bodies = [r.body for r in fake.chat_requests]
        assert len(bodies) == 3
        assert all(b["chat_template_kwargs"] == {"enable_thinking": False} for b in bodies)
        assert all(b["top_k"] == 20 and b["temperature"] == 0 for b in bodies)
        identity = json.loads((out / "run.json").read_text())
        assert identity["settings"]["extra_body"]["top_k"] == 20
        other = _invoke([*base, "--extra-body", '{"top_k": 5}'])
        assert other.exit_code == 1 and "setting extra_body" in other.stderr
        plain = _invoke(base)
        assert plain.exit_code == 1 and "setting extra_body" in plain.stderr
        bad = _invoke([*base, "--extra-body", '{"max_tokens": 5}'])
        assert bad.exit_code == 1 and "which --max-tokens sets" in bad.stderr
        bad = _invoke([*base, "--extra-body", "{nope"])
        assert bad.exit_code == 1 and "--extra-body is not JSON" in bad.stderr
    md, _ = build_report([out], tmp_path / "report")
    assert 'extra body {"chat_template_kwargs": {"enable_thinking": false}' in md.read_text()


def test_system_prompt_file_replaces_the_prompt_and_joins_the_identity(
    data: Any, tmp_path: Path
) -> None:
    import hashlib

    path, records = data
    prompt = tmp_path / "prompt.txt"
    prompt.write_text('Answer with {"answer": ...} only.', encoding="utf-8")
    out = tmp_path / "run"
    with FakeOpenAIServer() as fake:
        fake.script(default=_answers(records))
        base = [str(path), "--model", "m", "--base-url", fake.base_url, "--out", str(out)]
        base += ["--no-progress", "--limit", "2", "--system-prompt", str(prompt)]
        res = _invoke(base)
        assert res.exit_code == 0, res.output
        systems = {r.body["messages"][0]["content"] for r in fake.chat_requests}
        assert systems == {'Answer with {"answer": ...} only.'}
        sha = hashlib.sha256(prompt.read_bytes()).hexdigest()
        opts = json.loads((out / "run.json").read_text())["mode_options"]
        assert opts["system_prompt_sha256"] == sha
        prompt.write_text("Something else.", encoding="utf-8")
        res = _invoke(base)
        assert res.exit_code == 1 and "mode option system_prompt_sha256" in res.stderr
        (tmp_path / "empty.txt").write_text("  \n")
        res = _invoke([*base[:-1], str(tmp_path / "empty.txt"), "--force-new"])
        assert res.exit_code == 1 and "--system-prompt: the file is empty" in res.stderr


def test_a_smaller_selection_gives_the_same_numbers_in_summary_and_report(
    data: Any, tmp_path: Path
) -> None:
    from closurebench.report.aggregate import load_run

    path, _ = data
    out = tmp_path / "run"
    assert _eval(path, out, "--limit", "12").exit_code == 0
    res = _eval(path, out, "--limit", "5")
    assert res.exit_code == 0, res.output
    assert "5 results" in res.stdout and "7 earlier result(s)" in res.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["total"] == 5 and summary["counts"]["outside_selection"] == 7
    run = load_run(out)
    assert len(run.records) + run.errors == 5  # the report reads the same five
    correct = sum(r.outcome == "strict_correct" for r in run.records)
    assert correct == summary["strict_correct"]
    assert len(summary["selected_ids"]) == 5
    assert _eval(path, out, "--limit", "12").exit_code == 0  # all twelve again
    summary = json.loads((out / "summary.json").read_text())
    assert "outside_selection" not in summary["counts"] and "selected_ids" not in summary
    assert len(load_run(out).records) == 12


def test_several_models_in_one_command(data: Any, tmp_path: Path) -> None:
    path, records = data
    out = tmp_path / "runs"
    with FakeOpenAIServer(strict_models=True, served_models=["org/good"]) as fake:
        fake.script(default=_answers(records))
        args = [str(path), "--base-url", fake.base_url, "--out", str(out), "--no-progress"]
        args += ["--limit", "4", "--retries", "0", "--model", "org/good", "--model", "nope"]
        res = _invoke(args)
    assert res.exit_code == EXIT_INFRASTRUCTURE, res.output  # the worst of the two
    assert "== org/good ->" in res.stdout and "== nope ->" in res.stdout
    good = json.loads((out / "org--good" / "summary.json").read_text())
    assert good["strict_accuracy"] == 1.0 and good["counts"]["total"] == 4
    assert json.loads((out / "nope" / "summary.json").read_text())["counts"]["total"] == 0
    md = (out / "report" / "report.md").read_text()
    assert "**org/good · direct**" in md and "**nope**" in md and "incomplete" in md
    assert "not every run finished: nope (exit 3)" in res.stderr
    twice = _invoke([*args[:-4], "--model", "random", "--model", "random"])
    assert twice.exit_code == 1 and "given twice" in twice.stderr
    both = _invoke([str(path), "--out", str(tmp_path / "ref"), "--no-progress", "--limit", "3",
                    "--model", "random", "--model", "majority"])  # fmt: skip
    assert both.exit_code == 0, both.output
    assert (tmp_path / "ref" / "report" / "report.html").is_file()


def test_fewshot_examples_come_from_another_file_and_join_the_identity(
    data: Any, tmp_path: Path
) -> None:
    import closurebench

    path, records = data
    pool = closurebench.generate_split("train", seed=0, count=12, out=tmp_path / "train")
    pool_file = tmp_path / "train" / "closure-train.jsonl"
    by_q = {r.question: r for r in pool}
    out = tmp_path / "run"
    with FakeOpenAIServer() as fake:
        fake.script(default=_answers(records))
        base = [str(path), "--model", "m", "--base-url", fake.base_url, "--out", str(out)]
        base += ["--no-progress", "--limit", "2", "--fewshot-from", str(pool_file)]
        res = _invoke([*base, "--fewshot", "2"])
        assert res.exit_code == 0, res.output
        sent = [r.body["messages"] for r in fake.chat_requests]
        assert [m["role"] for m in sent[0]] == ["system", "user", "assistant"] * 1 + [
            "user", "assistant", "user"]  # fmt: skip
        assert sent[0][1:5] == sent[1][1:5]  # the same examples for every question
        for question, reply in ((sent[0][1], sent[0][2]), (sent[0][3], sent[0][4])):
            example = by_q[question["content"]]
            assert json.loads(reply["content"]) == {"answer": example.answer}
        assert sent[0][-1]["content"] in {r.question for r in records}
        opts = json.loads((out / "run.json").read_text())["mode_options"]
        assert opts["fewshot"] == 2 and len(opts["fewshot_sha256"]) == 64
        again = _invoke([*base, "--fewshot", "3"])
        assert again.exit_code == 1 and "mode option fewshot 2 -> 3" in again.stderr
        res = _invoke([*base, "--fewshot", "2", "--mode", "agent", "--force-new"])
        assert res.exit_code == 1 and "--fewshot applies to single-request modes" in res.stderr
        res = _invoke([*base[:-2], "--fewshot", "2", "--force-new"])
        assert res.exit_code == 1 and "--fewshot needs --fewshot-from FILE" in res.stderr
        res = _invoke([*base, "--fewshot", "99", "--force-new"])
        assert res.exit_code == 1 and "usable example(s)" in res.stderr
