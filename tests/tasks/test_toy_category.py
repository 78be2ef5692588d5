"""A new category is one module: generated, answered by the reader agent and by its programs.

The toy category below is one module-level class, the whole of what a new category
writes: its facts, its programs and its reference plan (:meth:`ClosureTask.plan`); it
keeps the default draw (:meth:`ClosureTask.sample`). Registered temporarily in
``CLOSURE_TASKS`` (monkeypatch) and with no other edit, it

* generates (``ClosureConfig(categories=(toy,))``), each answer checked here against
  NetworkX on the record's own graph;
* is answered by the reference agent (``--model reader``) in both agent modes, strictly
  correct, through graph-tool calls on the exact graph it read;
* is answered by ``--model oracle-program`` in ``program-ein`` and ``program-python``
  (the record's own verified programs, executed), strictly correct.

(``test_closure_toy_category.py`` checks the reader round trip, scoring and the
dataset API of another toy category.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import networkx as nx
import pytest

from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.options import RunOptions
from closurebench.evaluate.providers import GenerationSettings
from closurebench.evaluate.records import iter_result_records
from closurebench.evaluate.reference import reference_provider
from closurebench.evaluate.runner import run_eval
from closurebench.generate.closure import ClosureConfig, generate_records
from closurebench.graphs import reach_in
from closurebench.schema import ClosureInstance, Outcome, ResultRecord
from closurebench.structures.closure import ClosureStructure
from closurebench.tasks.closure import CLOSURE_TASKS, ClosureTask
from closurebench.tasks.closure.base import (
    AnchorExcludedSetTask,
    Answer,
    ein_edges,
    not_node,
    python_graph,
)
from closurebench.tasks.closure.plan import Reading, Step, ToolReply


class ReachersOf(AnchorExcludedSetTask):
    """The nodes that can reach X, X excluded (the other convention counts X in)."""

    name: ClassVar[str] = "toy_reachers_of"
    level: ClassVar[int] = 1
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = "Which {nouns} can reach {X} {path}? Do not include {X}{self}."
    implicit_template: ClassVar[str | None] = "Which {nouns} can reach {X} {path}?"
    conventions: ClassVar[tuple[str, ...]] = ("Do not include",)

    def solve(self, s: ClosureStructure) -> Answer:
        up = reach_in(s.graph, s.anchor("X"))
        return [v for v in range(s.n) if up[v] and v != s.anchor("X")]

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\nT = tc(A)\n"
            f"Result = select(T, {x}, 1) * {not_node(s.n, x)}\n:print Result\n"
        )

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"print(json.dumps(sorted(nx.ancestors(G, {x}))))\n"
        )

    def plan(self, q: Reading, r: Sequence[ToolReply]) -> Step:
        """One ``ancestors`` call at X."""
        if not r:
            return q.on("ancestors", node=q.name("X"))
        return Step(answer=q.ordered(r[0].value))


COUNT = 8


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ClosureTask:
    task = ReachersOf()
    monkeypatch.setitem(CLOSURE_TASKS, task.name, task)
    return task


@pytest.fixture
def records(toy: ClosureTask) -> list[ClosureInstance]:
    config = ClosureConfig(split="heldout", seed=5, count=COUNT, categories=(toy.name,))
    return generate_records(config)


def _run(
    records: Sequence[ClosureInstance], model: str, mode_name: str, out: Path
) -> list[ResultRecord]:
    """``closurebench eval --model MODEL --mode MODE`` on ``records``, in process."""
    mode = get_mode(mode_name)
    provider = reference_provider(model, records, mode)
    stats = asyncio.run(
        run_eval(
            records,
            provider,
            mode,
            GenerationSettings(model=model),
            out,
            RunOptions(progress=False, concurrency=1),
            notice=None,
        )
    )
    assert stats.evaluated == len(records)
    return list(iter_result_records(out / "results.jsonl"))


def test_the_toy_category_generates(toy: ClosureTask, records: list[ClosureInstance]) -> None:
    assert [r.category for r in records] == [toy.name] * COUNT
    assert len({r.question for r in records}) == COUNT
    for rec in records:
        assert (rec.level, rec.result_type, rec.ambiguity) == (1, "set", "set")
        s = ClosureStructure.from_dict(rec.to_json())
        graph = nx.DiGraph(list(s.graph.edges))
        graph.add_nodes_from(range(s.n))
        x = s.anchor("X")
        want = sorted(rec.labels[v] for v in nx.ancestors(graph, x))
        answer, alt = rec.answer, rec.alt_answer
        assert isinstance(answer, list) and isinstance(alt, list)
        assert sorted(map(str, answer)) == want
        assert sorted(map(str, alt)) == sorted([*want, rec.labels[x]])
        assert set(rec.programs) == {"ein", "python"}


@pytest.mark.parametrize("mode", ["agent", "agent-tools"])
def test_the_reader_agent_answers_the_toy_category(
    mode: str, records: list[ClosureInstance], tmp_path: Path
) -> None:
    results = _run(records, "reader", mode, tmp_path / "run")
    bad = [(r.id, r.reason, r.response[-200:]) for r in results if not r.strict]
    assert not bad, bad[:2]
    assert all(r.outcome is Outcome.STRICT_CORRECT for r in results)
    for r in results:
        assert r.extra["tool_calls"] == 1
        structure = r.extra["structure"]
        assert isinstance(structure, dict) and structure["cls"] == "exact"


@pytest.mark.parametrize("mode", ["program-ein", "program-python"])
def test_the_oracle_programs_answer_the_toy_category(
    mode: str, records: list[ClosureInstance], tmp_path: Path
) -> None:
    results = _run(records, "oracle-program", mode, tmp_path / "run")
    bad = [(r.id, r.reason, r.extra.get("stdout_head")) for r in results if not r.strict]
    assert not bad, bad[:2]
    assert all(r.extra["exec_outcome"] == "ok" and r.extra["graph_read"] is True for r in results)


def test_the_docs_describe_the_toy_category(toy: ClosureTask) -> None:
    """The generated reference page lists it and gives its section, from the class alone."""
    from docs import render_docs

    page = render_docs()["categories.md"]
    assert f"| [`{toy.name}`](#{toy.name}) | 1 (" in page
    section = page.split(f"### {toy.name}\n", 1)[1].split("\n### ", 1)[0]
    assert "The nodes that can reach X, X excluded" in section
    assert (
        "query template: Which {nouns} can reach {X} {path}? Do not include {X}{self}." in section
    )
    assert f"the {len(CLOSURE_TASKS)} ClosureBench categories" in render_docs()["README.md"]
