"""``create_dataset("grit:<task>")``: the ClosureBench procedural shape, for GRIT."""

from __future__ import annotations

import json

import pytest

import closurebench
from closurebench.dataset import ProceduralDataset
from closurebench.errors import ConfigError
from closurebench.generate.grit import GritConfig, generate_records
from closurebench.schema import GritInstance, parse_instance


def test_grit_bfs_is_deterministic_and_equal_across_calls() -> None:
    first = closurebench.create_dataset("grit:bfs", seed=1, size=4)
    again = closurebench.create_dataset("grit:bfs", seed=1, size=4)
    assert isinstance(first, ProceduralDataset) and len(first) == 4
    items = list(first)
    assert items == list(again)
    assert items[2] == again[2] == first[2] == first[-2]
    for i, item in enumerate(items):
        assert set(item) == {"question", "answer", "metadata"}
        record = first.record(i)
        assert isinstance(record, GritInstance) and record.task == "bfs"
        assert parse_instance(item["metadata"]) == record
        assert item["question"] == record.question
        assert json.loads(item["answer"]) == record.answer
    # the four items are four views of one base graph
    views = [first.record(i) for i in range(4)]
    grit_views = [r for r in views if isinstance(r, GritInstance)]
    assert len(grit_views) == 4
    assert len({r.graph_id for r in grit_views}) == 1
    assert len({r.view for r in grit_views}) == 4
    other = closurebench.create_dataset("grit:bfs", seed=2, size=4)
    assert other[0] != items[0]


def test_items_are_the_records_of_the_split_generator() -> None:
    ds = closurebench.create_dataset("grit", seed=3, size=12, n_max=12)
    records, _ = generate_records(GritConfig(split="train", seed=3, count=2, n_max=12))
    assert [ds.record(i) for i in range(12)] == records[:12]
    grit = [r for r in (ds.record(i) for i in range(12)) if isinstance(r, GritInstance)]
    assert len(grit) == 12 and {r.task for r in grit} == {"shortest_path", "graph_coloring"}


def test_score_answer_judges_grit_entries() -> None:
    ds = closurebench.create_dataset("grit", seed=0, size=48, n_max=10)
    tasks = set()
    for item in ds:
        record = parse_instance(item["metadata"])
        assert isinstance(record, GritInstance)
        tasks.add(record.task)
        assert closurebench.score_answer(item["answer"], item) == 1.0, record.id
        answer = record.answer
        as_tags = (
            f"<answer>{', '.join(map(str, answer))}</answer>"
            if isinstance(answer, list)
            else f"<answer>{answer}</answer>"
        )
        assert closurebench.score_answer(as_tags, item) == 1.0, (record.id, as_tags)
        wrong = answer[::-1] if isinstance(answer, list) else answer
        if isinstance(answer, int):
            wrong = answer + 1
        elif isinstance(answer, str):
            wrong = next(n for n in record.names if n != answer)
        if wrong != answer:
            assert closurebench.score_answer(json.dumps(wrong), item) == 0.0, record.id
        assert closurebench.score_answer(None, item) == 0.0
        assert closurebench.score_answer("  ", record) == 0.0
    assert len(tasks) == 6


@pytest.mark.parametrize(
    ("name", "kwargs", "match"),
    [
        ("grit:dfs", {}, "no GRIT task 'dfs'"),
        ("grit:bfs", {"tasks": ("tsp",)}, "pass tasks only with name='grit'"),
        ("grit", {"count": 3}, "count cannot be set"),
        ("grit", {"split": "dev"}, "split 'dev' is unknown"),
        ("grit", {"colour": "red"}, "unknown dataset option"),
        ("grit", {"size": 0}, "must be a whole number, at least 1"),
    ],
)
def test_bad_grit_datasets_are_clear_errors(name: str, kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        closurebench.create_dataset(name, **kwargs)


def test_indices_out_of_range() -> None:
    ds: ProceduralDataset = closurebench.create_dataset("grit:centrality", seed=0, size=3)
    with pytest.raises(IndexError, match="out of range"):
        ds[3]
    with pytest.raises(TypeError, match="ints"):
        ds["0"]  # type: ignore[index]
