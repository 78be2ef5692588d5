"""A new ClosureBench category is one class: generated, read back and scored with no other edit.

The toy category below states its wording, result type, ambiguity class, anchors,
alternative-answer rule and programs in one place; registering it in ``CLOSURE_TASKS``
is the only other step. Generation (which renders and certifies every question through
the independent reader), the dataset API and the scorer then work unchanged.
"""

from __future__ import annotations

import json
from typing import ClassVar

import numpy as np
import pytest

from closurebench import ein
from closurebench.dataset import create_dataset, score_answer
from closurebench.generate.closure import ClosureConfig, generate_records
from closurebench.graphs import reach_in
from closurebench.schema import Ambiguity, ClosureInstance, Outcome, ResultType
from closurebench.scoring import score_closure
from closurebench.structures.closure import ClosureStructure
from closurebench.surface.closure import certify, read_closure
from closurebench.tasks.closure import CLOSURE_TASKS, ClosureTask
from closurebench.tasks.closure.base import Answer, ein_edges, not_node, python_graph
from closurebench.tasks.closure.sampling import digraph, distinct_nodes


class ReachedByCount(ClosureTask):
    """How many nodes can reach X, X itself not counted (alternative: counted)."""

    name: ClassVar[str] = "reached_by_count"
    level: ClassVar[int] = 1
    result_type: ClassVar[ResultType] = ResultType.INTEGER
    ambiguity: ClassVar[Ambiguity | None] = Ambiguity.COUNT
    anchor_names: ClassVar[tuple[str, ...]] = ("X",)
    template: ClassVar[str] = "How many {nouns} can reach {X} {path}, not counting {X}{self}?"
    conventions: ClassVar[tuple[str, ...]] = ("not counting",)

    def sample(self, g: np.random.Generator, n: int, density: float) -> ClosureStructure:
        (x,) = distinct_nodes(g, n, 1)
        return ClosureStructure(self.name, digraph(g, n, density), (("X", x),))

    def solve(self, s: ClosureStructure) -> Answer:
        return int(reach_in(s.graph, s.anchor("X")).sum()) - 1

    def alternative(self, s: ClosureStructure, answer: Answer) -> Answer | None:
        return answer + 1

    def ein_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"// {self.name}\n{ein_edges(s.graph)}\nT = tc(A)\n"
            f"Result = sum(select(T, {x}, 1) * {not_node(s.n, x)})\n:print Result\n"
        )

    def ein_answer(self, result: ein.EinResult, s: ClosureStructure) -> Answer:
        return float(result.value)

    def python_program(self, s: ClosureStructure) -> str:
        x = s.anchor("X")
        return (
            f"import json\nimport networkx as nx\n{python_graph(s.graph)}\n"
            f"print(json.dumps(len(nx.ancestors(G, {x}))))\n"
        )


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ClosureTask:
    task = ReachedByCount()
    monkeypatch.setitem(CLOSURE_TASKS, task.name, task)
    return task


def test_a_toy_category_generates_reads_back_and_scores(toy: ClosureTask) -> None:
    config = ClosureConfig(split="heldout", seed=2, count=6, categories=(toy.name,))
    records = [
        r if isinstance(r, ClosureInstance) else ClosureInstance.model_validate(r)
        for r in generate_records(config)
    ]
    assert [r.category for r in records] == [toy.name] * 6
    for rec in records:
        # The task's facts are what the record carries.
        assert (rec.result_type, rec.ambiguity, rec.level) == (ResultType.INTEGER, "count", 1)
        # The independent reader recovers the stated structure from the text alone.
        structure = ClosureStructure.from_dict(rec.to_json())
        assert read_closure(rec.question, toy.name) == structure
        certify(structure, rec)
        assert rec.question.split("\n\n")[-1].startswith("How many ")
        # Scored strictly and leniently from the record, like any category.
        answer = rec.answer
        assert isinstance(answer, int) and rec.alt_answer == answer + 1
        assert score_closure(rec, json.dumps({"answer": answer})).outcome is Outcome.STRICT_CORRECT
        assert score_closure(rec, json.dumps({"answer": answer + 1})).outcome is (
            Outcome.LENIENT_ONLY
        )
        assert score_closure(rec, json.dumps({"answer": answer + 2})).outcome is Outcome.WRONG


def test_a_toy_category_is_a_procedural_dataset(toy: ClosureTask) -> None:
    ds = create_dataset(toy.name, seed=4, size=3)
    for item in ds:
        assert item["metadata"]["category"] == toy.name
        assert score_answer(item["answer"], item) == 1.0
        assert score_answer(str(json.loads(item["answer"]) + 1), item) == 0.0
