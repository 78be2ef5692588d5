"""``closurebench export lm-eval``: lm-eval runs the tasks and reports closurebench's scores.

The end-to-end test runs ``lm_eval.simple_evaluate`` in-process with the
``local-chat-completions`` model against the loopback fake OpenAI server of the
evaluation tests, on a few instances of both suites, and checks that lm-eval's metrics
are the means of what closurebench's own scorer gives the same replies, and that every
request carried exactly the messages ``closurebench eval --mode direct`` sends.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from statistics import mean
from typing import Any

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.evaluate import lm_eval_tasks
from closurebench.evaluate.chance import chance_reply
from closurebench.evaluate.modes import get_mode, score_text
from closurebench.generate import hf
from closurebench.generate.closure import ClosureConfig, generate_records
from closurebench.generate.io import write_jsonl
from closurebench.schema import ClosureInstance

datasets = pytest.importorskip("datasets")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evaluate"))
from fake_openai_server import FakeOpenAIServer, Reply  # noqa: E402

runner = CliRunner()


def _export(*args: str) -> Any:
    return runner.invoke(app, ["export", "lm-eval", *args])


@pytest.fixture(autouse=True)
def _hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``datasets.load_dataset`` caches under the test's folder, not the user's."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")


@pytest.fixture(scope="module")
def few(
    grit_data: tuple[Path, list[Any]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[Path], list[Any]]:
    """Two files with a few instances: 2 ClosureBench categories x 3, 2 GRIT tasks x 3 views."""
    closure = generate_records(
        ClosureConfig(
            split="heldout", seed=0, count=6, categories=("reachability", "reach_then_count")
        )
    )
    grit = [r for t in ("shortest_path", "bfs") for r in grit_data[1] if r.task == t]
    grit = grit[:3] + grit[-3:]
    out = tmp_path_factory.mktemp("lm-eval-data")
    c, _ = write_jsonl(out, "closure-heldout.jsonl", closure, lambda sha, name: {"sha": sha})
    g, _ = write_jsonl(out, "grit-test.jsonl", grit, lambda sha, name: {"sha": sha})
    return [c, g], [*closure, *grit]


def _reply(record: Any, i: int) -> str:
    """A reply per instance: right, lenient-only or wrong, or no answer, in turn."""
    kind = i % 4
    if kind == 0 or kind == 2:
        return chance_reply(record, record.answer, "direct")
    if kind == 3:
        return "I cannot tell."
    if isinstance(record, ClosureInstance):
        if record.ambiguity is not None and isinstance(record.answer, int):
            return json.dumps({"answer": record.answer + 1})  # lenient only
        return json.dumps({"answer": not record.answer})
    return "<answer>nobody</answer>"


def test_the_tasks_run_in_lm_eval_and_report_our_scores(
    few: tuple[list[Path], list[Any]], tmp_path: Path
) -> None:
    lm_eval = pytest.importorskip("lm_eval")
    from lm_eval.tasks import TaskManager

    files, records = few
    out = tmp_path / "tasks"
    res = _export("--out", str(out), *map(str, files))
    assert res.exit_code == 0, res.output
    by_question = {r.question: r for r in records}
    replies = {r.id: _reply(r, i) for i, r in enumerate(records)}
    direct = get_mode("direct")

    def answer(request: dict[str, Any]) -> Reply:
        record = by_question[request["messages"][-1]["content"]]
        return Reply(replies[record.id])

    with FakeOpenAIServer() as fake:
        fake.script(default=answer)
        results = lm_eval.simple_evaluate(
            model="local-chat-completions",
            model_args={
                "base_url": f"{fake.base_url}/chat/completions",
                "model": "fake",
                "tokenizer_backend": None,
                "max_retries": 1,
            },
            tasks=["closurebench"],
            task_manager=TaskManager(include_path=str(out), include_defaults=False),
            apply_chat_template=True,
            bootstrap_iters=0,
        )
        chats = [r for r in fake.requests if r.path.endswith("/chat/completions")]
    assert results is not None
    # every request is what `closurebench eval --mode direct` sends, once per instance
    assert sorted(json.dumps(r.messages) for r in chats) == sorted(
        json.dumps(direct.messages(r)) for r in records
    )
    scores = {r.id: score_text(r, replies[r.id]) for r in records}
    got = results["results"]

    def expect(name: str, members: list[Any]) -> None:
        assert got[name]["strict,none"] == pytest.approx(mean(scores[r.id].strict for r in members))
        assert got[name]["lenient,none"] == pytest.approx(
            mean(scores[r.id].lenient for r in members)
        )

    for record in records:
        suite, split, stratum = str(record.suite), str(record.split), str(record.stratum)
        same = [r for r in records if (r.suite, r.split, r.stratum) == (suite, split, stratum)]
        expect(lm_eval_tasks.task_name(suite, split, stratum), same)
    expect("closurebench_closure", [r for r in records if r.suite == "closure"])
    expect("closurebench_grit_test", [r for r in records if r.suite == "grit"])
    expect("closurebench", records)
    # the replies make the scores informative: some right, some only lenient, some wrong
    assert 0 < got["closurebench"]["strict,none"] < got["closurebench"]["lenient,none"] < 1


def test_the_hooks_prompt_and_score_as_the_harness(
    few: tuple[list[Path], list[Any]], tmp_path: Path
) -> None:
    files, records = few
    out = tmp_path / "tasks"
    assert _export("--out", str(out), *map(str, files)).exit_code == 0
    direct = get_mode("direct")
    for suite, split, stratum in (
        ("closure", "heldout", "reach_then_count"),
        ("grit", "test", None),
    ):
        docs = lm_eval_tasks.load_docs(
            out / "data", "direct", suite=suite, split=split, stratum=stratum, version=1.0
        )[split]
        mine = [r for r in records if r.suite == suite and stratum in (None, r.stratum)]
        assert [d["id"] for d in docs] == [r.id for r in mine]
        for doc, record in zip(docs, mine, strict=True):
            system, user = direct.messages(record)
            assert doc[lm_eval_tasks.SYSTEM_COLUMN] == system["content"]
            assert lm_eval_tasks.doc_to_text(doc, "direct") == user["content"]
            target = lm_eval_tasks.doc_to_target(doc, "direct")
            assert lm_eval_tasks.process_results(doc, [target], "direct") == {
                "strict": 1.0,
                "lenient": 1.0,
            }
            assert lm_eval_tasks.process_results(doc, ["no idea"], "direct") == {
                "strict": 0.0,
                "lenient": 0.0,
            }


def _files(root: Path) -> Iterator[tuple[str, bytes]]:
    for p in sorted(root.rglob("*")):
        if p.is_file():
            yield p.relative_to(root).as_posix(), p.read_bytes()


def test_the_folder_names_its_tasks_and_is_deterministic(
    few: tuple[list[Path], list[Any]], tmp_path: Path
) -> None:
    files, _ = few
    outs = [tmp_path / f"tasks-{i}" for i in (1, 2)]
    for out in outs:
        res = _export("--out", str(out), *map(str, files), "--mode", "cot")
        assert res.exit_code == 0, res.output
    assert dict(_files(outs[0])) == dict(_files(outs[1]))
    names = sorted(p.name for p in outs[0].glob("*.yaml"))
    assert names == [
        "closurebench_cot.yaml",
        "closurebench_cot_closure.yaml",
        "closurebench_cot_closure_heldout.yaml",
        "closurebench_cot_closure_heldout_reach_then_count.yaml",
        "closurebench_cot_closure_heldout_reachability.yaml",
        "closurebench_cot_grit.yaml",
        "closurebench_cot_grit_test.yaml",
        "closurebench_cot_grit_test_bfs.yaml",
        "closurebench_cot_grit_test_shortest_path.yaml",
    ]
    utils = (outs[0] / "utils.py").read_text(encoding="utf-8")
    assert "MODE = 'cot'" in utils and "from closurebench.evaluate import lm_eval_tasks" in utils
    template = (outs[0] / lm_eval_tasks.TEMPLATE).read_text(encoding="utf-8")
    assert "output_type: generate_until" in template and "until: []" in template
    loaded = datasets.load_dataset(str(outs[0] / "data"), "grit", split="test")
    assert len(loaded) == 6 and hf.from_row(loaded[0]).suite == "grit"


def test_without_files_it_generates_the_default_splits(
    few: tuple[list[Path], list[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, records = few
    calls: list[int] = []

    def small(progress: Any = None) -> list[Any]:
        calls.append(1)
        return records

    monkeypatch.setattr(lm_eval_tasks, "default_records", small)
    res = _export("--out", str(tmp_path / "tasks"))
    assert res.exit_code == 0, res.output
    assert calls == [1] and "generating the default evaluation splits" in res.output


@pytest.mark.parametrize(
    ("case", "match"),
    [
        ("mode", "--mode 'agent' cannot run as an lm-eval task"),
        ("no-datasets", "install the `lm-eval` extra"),
        ("foreign", "holds other files"),
    ],
)
def test_bad_input_is_one_line_exit_1(
    few: tuple[list[Path], list[Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    match: str,
) -> None:
    files, _ = few
    out = tmp_path / "tasks"
    args = ["--out", str(out), str(files[0])]
    if case == "mode":
        args += ["--mode", "agent"]
    if case == "no-datasets":
        monkeypatch.setattr(hf, "hf_available", lambda: False)
    if case == "foreign":
        out.mkdir()
        (out / "notes.txt").write_text("mine", encoding="utf-8")
    res = _export(*args)
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0], res.output
    assert case == "foreign" or not out.exists()
