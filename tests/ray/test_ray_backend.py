"""``--backend ray`` on a local 2-CPU cluster: the same files as the local backend.

One cluster for the module (``ray.init(num_cpus=2)``, shut down after); the code under test
uses the session it finds. Generation through Ray is byte-identical to a local run (file
and manifest, both suites); evaluation through Ray gives every id the local backend's
result (less the latency) with a reference model and over a loopback OpenAI-compatible
server, resumes a cut results file doing only the rest, and records an instance whose
reply kills its worker twice as wrong (harness deaths), the others as usual.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Workers run this interpreter, not `uv run` in a copy of the tree (read when Ray is imported).
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
ray = pytest.importorskip("ray")
if not hasattr(ray, "init"):  # this test folder itself, found as a namespace package "ray"
    pytest.skip("the ray extra is not installed (uv sync --extra ray)", allow_module_level=True)

import typer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import closurebench  # noqa: E402
from closurebench.cli import app as cli_app  # noqa: E402
from closurebench.cli import handle_errors  # noqa: E402
from closurebench.cli.eval import eval_cmd  # noqa: E402
from closurebench.evaluate.modes import get_mode  # noqa: E402
from closurebench.evaluate.options import RunOptions  # noqa: E402
from closurebench.evaluate.providers import GenerationSettings  # noqa: E402
from closurebench.evaluate.providers.scripted import ScriptedProvider  # noqa: E402
from closurebench.evaluate.ray_backend import run_eval_ray  # noqa: E402
from closurebench.generate.closure import ClosureConfig  # noqa: E402
from closurebench.generate.closure import write_split as closure_write  # noqa: E402
from closurebench.generate.grit import GritConfig  # noqa: E402
from closurebench.generate.grit import write_split as grit_write  # noqa: E402
from closurebench.generate.ray_backend import generate_with_ray  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evaluate"))
from fake_openai_server import FakeOpenAIServer, Reply  # noqa: E402

EVAL_APP = typer.Typer()
EVAL_APP.command()(handle_errors(eval_cmd))


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Iterator[None]:
    """A local Ray cluster of 2 CPUs for the whole module."""
    import builtins

    own_print = builtins.print  # ray.init replaces it (tqdm_ray); later tests get it back
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR)
    try:
        yield
    finally:
        ray.shutdown()
        builtins.print = own_print
        # Ray's session folder (under the suite's temporary folder, which must end empty)
        shutil.rmtree(Path(tempfile.gettempdir()) / "ray", ignore_errors=True)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """A 16-instance heldout split and its records."""
    out = tmp_path_factory.mktemp("data")
    closurebench.generate_split("heldout", seed=3, count=16, out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


def _same_files(a: Path, b: Path, *names: str) -> None:
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def _results(out: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("latency_s")
    return {str(r["id"]): r for r in rows}


def _summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


# ----------------------------------------------------------------- generation


def test_closure_generation_through_ray_is_byte_identical(tmp_path: Path) -> None:
    config = ClosureConfig(seed=5, count=9)
    closure_write(config, tmp_path / "local")
    made = generate_with_ray(config, tmp_path / "ray", shards=3)
    assert made.merged.shards == 3
    _same_files(
        tmp_path / "local",
        tmp_path / "ray",
        "closure-heldout.jsonl",
        "closure-heldout.manifest.json",
    )
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == sorted(
        p.name for p in (tmp_path / "local").iterdir()
    )  # no shard or temporary folder left behind


def test_grit_generation_through_the_cli_is_byte_identical(tmp_path: Path) -> None:
    config = GritConfig(seed=2, count=6, n_min=5, n_max=6)
    grit_write(config, tmp_path / "local")
    args = ["grit", "--seed", "2", "--count", "6", "--n-min", "5", "--n-max", "6"]
    run = CliRunner().invoke(
        cli_app, ["generate", *args, "--out", str(tmp_path / "ray"), "--backend", "ray"]
    )
    assert run.exit_code == 0, run.output
    assert "from 2 shard(s) generated as Ray tasks" in run.stdout  # default: the 2 CPUs
    _same_files(tmp_path / "local", tmp_path / "ray", "grit-test.jsonl", "grit-test.manifest.json")
    again = CliRunner().invoke(
        cli_app, ["generate", *args, "--out", str(tmp_path / "ray"), "--backend", "ray"]
    )
    assert again.exit_code == 1 and "--overwrite" in again.stderr
    both = CliRunner().invoke(
        cli_app,
        ["generate", *args, "--out", str(tmp_path / "x"), "--backend", "ray", "--shard", "1/2"],
    )
    assert both.exit_code == 1 and "drop one of the two" in both.stderr


# ----------------------------------------------------------------- evaluation


def test_a_reference_model_through_ray_gives_the_local_results(
    data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    path, _ = data
    args = [str(path), "--model", "majority", "--no-progress"]
    local = CliRunner().invoke(EVAL_APP, [*args, "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output
    remote = CliRunner().invoke(
        EVAL_APP, [*args, "--out", str(tmp_path / "ray"), "--backend", "ray"]
    )
    assert remote.exit_code == 0, remote.output
    assert _results(tmp_path / "local") == _results(tmp_path / "ray")
    _same_files(tmp_path / "local", tmp_path / "ray", "run.json")
    a, b = _summary(tmp_path / "local"), _summary(tmp_path / "ray")
    assert a["strict_accuracy"] == b["strict_accuracy"] and a["counts"] == b["counts"]


def _answers(records: list[Any]) -> Any:
    """Right for two questions in three (by position), the same on every call."""
    right = {r.question: (i % 3 != 0, r.answer) for i, r in enumerate(records)}

    def step(body: dict[str, Any]) -> Reply:
        ok, answer = right[body["messages"][-1]["content"]]
        return Reply(json.dumps({"answer": answer}) if ok else "no idea")

    return step


def test_a_server_through_ray_gives_the_local_results_and_resumes_the_rest(
    data: tuple[Path, list[Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path, records = data
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        a.script(default=_answers(records))
        b.script(default=_answers(records))
        urls = ["--base-url", a.base_url, "--base-url", b.base_url]
        args = [str(path), "--model", "fake", *urls, "--no-progress", "--retries", "0"]
        local = CliRunner().invoke(EVAL_APP, [*args, "--out", str(tmp_path / "local")])
        assert local.exit_code == 0, local.output
        out = tmp_path / "ray"
        first = CliRunner().invoke(EVAL_APP, [*args, "--out", str(out), "--backend", "ray"])
        assert first.exit_code == 0, first.output
        assert _results(tmp_path / "local") == _results(out)
        ray_requests = len(a.chat_requests) + len(b.chat_requests) - len(records)
        assert ray_requests == len(records)
        endpoints = _summary(out)["endpoints"]
        assert sum(e["requests"] for e in endpoints) == len(records)
        # A killed run: only the first 5 results were written; the resume does the other 11.
        lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
        (out / "results.jsonl").write_text("".join(lines[:5]))
        (out / "cache.jsonl").unlink()
        again = CliRunner().invoke(EVAL_APP, [*args, "--out", str(out), "--backend", "ray"])
        assert again.exit_code == 0, again.output
        assert "evaluated 11, resumed 5" in again.stdout
        assert len(a.chat_requests) + len(b.chat_requests) == 3 * len(records) - 5
        assert _results(tmp_path / "local") == _results(out)
        # Cut again: the 11 redone are in the cache now, so the resume sends nothing.
        (out / "results.jsonl").write_text("".join(lines[:5]))
        cached = CliRunner().invoke(EVAL_APP, [*args, "--out", str(out), "--backend", "ray"])
        assert cached.exit_code == 0, cached.output
        assert "evaluated 11, resumed 5, cache hits 11" in cached.stdout
        assert len(a.chat_requests) + len(b.chat_requests) == 3 * len(records) - 5
    assert _results(tmp_path / "local") == _results(out)


def test_a_reply_that_kills_its_worker_is_recorded_as_wrong_after_two_deaths(
    data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    _, records = data
    fatal = str(records[3].question)
    answers = {str(r.question): json.dumps({"answer": r.answer}) for r in records}

    def make_provider() -> ScriptedProvider:
        def reply(messages: list[dict[str, str]], settings: GenerationSettings) -> str:
            question = messages[-1]["content"]
            if question == fatal:
                os._exit(1)  # the reply kills the process handling it
            return answers[question]

        return ScriptedProvider(reply)

    stats = asyncio.run(
        run_eval_ray(
            records,
            make_provider,
            get_mode("direct"),
            GenerationSettings(model="scripted"),
            tmp_path / "run",
            RunOptions(progress=False),
            provider_name="scripted",
            notice=None,
            batch_size=4,
        )
    )
    results = _results(tmp_path / "run")
    assert len(results) == len(records) and stats.harness_gave_up == 1
    dead = results[str(records[3].id)]
    assert dead["outcome"] == "wrong" and dead["harness_deaths"] == {"count": 2, "gave_up": True}
    assert all(r["strict"] for rid, r in results.items() if rid != str(records[3].id))
