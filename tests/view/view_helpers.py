"""Helpers of the viewer tests: real offline runs of every mode, made once per session.

Each test module declares the ``runs`` and ``view`` fixtures from :func:`shared_runs`
and :func:`viewer` (no ``conftest.py``: a second module named ``conftest`` would shadow
another folder's, whose tests import from it). The runs:

* ``direct`` (``--model random``) and ``cot`` (``--model majority``) on ClosureBench;
* ``program-python`` and ``program-ein`` (``--model oracle-program``) on ClosureBench,
  behind the sandbox wall where bubblewrap works and, as the program-mode tests do
  with these trusted reference programs, with ``--unsafe-no-sandbox`` where it does
  not;
* ``agent`` and ``agent-tools`` (``--model reader``) on GRIT;
* ``evil``: a scripted model whose replies hold markup (``</script>``, ``<img
  onerror>``), one instance without a reply (an ``error`` result);
* ``handmade``: a results file written from typed records, for what offline models
  never produce (reasoning text, harness deaths, an ``extra`` key the viewer does not
  know).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from closurebench.cli import app
from closurebench.evaluate.records import iter_result_records
from closurebench.generate.io import iter_instances
from closurebench.sandbox import isolation_available
from closurebench.schema import HarnessDeaths, Outcome, ResultRecord, Usage

#: Markup a model might write; the page must show it as text.
HOSTILE = (
    "</script><script>document.title='pwned'</script>"
    "<img src=x onerror=\"document.title='pwned2'\"><b>bold?</b> & &amp;"
)

_DATA_BLOCK = re.compile(r'<script type="application/json" id="cb-data">(.*?)</script>', re.S)


def cli(*args: str) -> Result:
    """``closurebench ARGS`` through typer's CliRunner."""
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def page_data(page: str) -> dict[str, Any]:
    """The JSON block a viewer page embeds (checked to hold no raw ``<``, ``>``, ``&``)."""
    (block,) = _DATA_BLOCK.findall(page)
    assert not set(block) & set("<>&"), "the embedded JSON holds raw markup characters"
    data: dict[str, Any] = json.loads(block)
    return data


@dataclass(frozen=True)
class Runs:
    """The session's run folders by name, and the datasets they were made from."""

    dirs: dict[str, Path]
    closure: Path
    grit: Path

    def records(self, name: str) -> list[ResultRecord]:
        """The typed results of one run."""
        return list(iter_result_records(self.dirs[name] / "results.jsonl"))

    def instances(self, name: str) -> dict[str, Any]:
        """``id -> instance`` of the dataset the run was made from."""
        path = self.grit if name.startswith("agent") else self.closure
        return {inst.id: inst for inst in iter_instances(path)}


def _eval(data: Path, out: Path, *args: str) -> Path:
    res = cli("eval", str(data), "--out", str(out), "--no-progress", "--concurrency", "2", *args)
    assert res.exit_code in (0, 4), res.output
    return out


def _wall() -> list[str]:
    """Our own verified programs may run without the wall where bubblewrap does not work."""
    works, _ = isolation_available("bwrap")
    return [] if works else ["--unsafe-no-sandbox"]


def _handmade(folder: Path, closure: Path) -> Path:
    """A run folder whose results come from typed records (no run.json)."""
    ids = [inst.id for inst in iter_instances(closure)]
    folder.mkdir()
    records = [
        ResultRecord(
            id=ids[0], outcome=Outcome.WRONG, mode="cot", response="Answer: 7 — naïve ∑",
            reasoning="First I count… then I recount.", extracted=7, reason="expected 3",
            usage=Usage(prompt_tokens=11, completion_tokens=22, reasoning_tokens=5),
            latency_s=1.25, requests=1, finish_reason="length",
            harness_deaths=HarnessDeaths(count=2, gave_up=True),
            extra={"custom_probe": {"note": HOSTILE, "steps": [1, 2]}},
        ),
        ResultRecord(id="not-in-the-dataset", outcome=Outcome.NO_ANSWER, mode="cot"),
    ]  # fmt: skip
    lines = [json.dumps(r.to_json(), ensure_ascii=False) for r in records]
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def make_runs(base: Path) -> Runs:
    """Every mode's run (see the module docstring) under ``base``."""
    res = cli("generate", "closure", "--out", str(base / "cl"), "--count", "4", "--n-max", "6")
    assert res.exit_code == 0, res.output
    res = cli("generate", "grit", "--out", str(base / "gr"), "--count", "1", "--n-min", "5",
              "--n-max", "7", "--tasks", "shortest_path")  # fmt: skip
    assert res.exit_code == 0, res.output
    closure, grit = base / "cl" / "closure-heldout.jsonl", base / "gr" / "grit-test.jsonl"
    questions = [inst.question for inst in iter_instances(closure)]
    script = base / "script.json"
    replies = {
        questions[0]: json.dumps({"answer": HOSTILE}) + "\n" + HOSTILE,
        questions[1]: "I think " + HOSTILE,
        questions[2]: '{"answer": 1}',
    }  # questions[3] has no reply: an ``error`` result
    script.write_text(json.dumps(replies), encoding="utf-8")
    dirs = {
        "direct": _eval(closure, base / "direct", "--model", "random"),
        "cot": _eval(closure, base / "cot", "--mode", "cot", "--model", "majority"),
        "program-python": _eval(closure, base / "py", "--mode", "program-python",
                                "--model", "oracle-program", *_wall()),
        "program-ein": _eval(closure, base / "ein", "--mode", "program-ein",
                             "--model", "oracle-program", *_wall()),
        "agent": _eval(grit, base / "agent", "--mode", "agent", "--model", "reader",
                       "--limit", "3"),
        "agent-tools": _eval(grit, base / "tools", "--mode", "agent-tools", "--model", "reader",
                             "--limit", "3"),
        "evil": _eval(closure, base / "evil", "--model", "evil", "--provider", "scripted",
                      "--script", str(script), "--retries", "0"),
        "handmade": _handmade(base / "handmade", closure),
    }  # fmt: skip
    return Runs(dirs, closure, grit)


_MADE: dict[Path, Runs] = {}


def shared_runs(factory: pytest.TempPathFactory) -> Runs:
    """The session's runs, made on first use (under pytest's base temporary folder)."""
    base = factory.getbasetemp()
    if base not in _MADE:
        _MADE[base] = make_runs(factory.mktemp("view-runs"))
    return _MADE[base]


def viewer(tmp_path: Path) -> Callable[..., tuple[Path, str]]:
    """``view(run_dir, ..., extra args) -> (page path, page text)`` through the CLI."""

    def make(*args: str | Path, out: Path | None = None) -> tuple[Path, str]:
        target = out or tmp_path / "view.html"
        res = cli("view", *map(str, args), "--out", str(target))
        assert res.exit_code == 0, res.output
        assert res.stdout.strip() == str(target)
        return target, target.read_text(encoding="utf-8")

    return make
