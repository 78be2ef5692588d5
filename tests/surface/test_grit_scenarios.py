"""The scenario registry: counts per split and task, and data that renders cleanly."""

from __future__ import annotations

import re

import pytest

from closurebench.errors import ConfigError
from closurebench.surface.grit import scenarios
from closurebench.surface.grit.scenarios.base import Scenario, check_name
from closurebench.surface.grit.scenarios.names import POOLS
from closurebench.tasks.grit import GRIT_TASKS as TASKS

PAPER_TABLE_8 = {
    "centrality": 4,
    "shortest_path": 4,
    "tsp": 6,
    "graph_coloring": 7,
    "bfs": 4,
    "vertex_cover": 6,
}


def test_counts_match_the_paper_and_spec() -> None:
    assert len(scenarios.in_distribution()) == 31
    assert len(scenarios.ood()) == 24
    assert len(scenarios.SCENARIOS) == 55
    for task in TASKS:
        assert len(scenarios.for_task(task, "in_distribution")) == PAPER_TABLE_8[task]
        assert len(scenarios.for_task(task, "ood")) == 4


def test_ids_titles_and_wording_are_distinct_between_splits() -> None:
    titles = [s.title for s in scenarios.SCENARIOS.values()]
    assert len(set(titles)) == len(titles)
    for task in TASKS:
        seen = {t for s in scenarios.for_task(task, "in_distribution") for t in (*s.ask, *s.links)}
        for s in scenarios.for_task(task, "ood"):
            assert not seen & set(s.ask), f"{s.id} reuses an in-distribution question"


@pytest.mark.parametrize("scenario", list(scenarios.SCENARIOS.values()), ids=lambda s: s.id)
def test_scenario_data_is_usable(scenario: Scenario) -> None:
    pool = scenario.name_pool(60)
    assert len(pool) >= 60 and len({p.casefold() for p in pool}) == len(pool)
    assert all(check_name(p) is None for p in pool)
    texts = (*scenario.distractors, *scenario.closing)
    for text in texts:
        assert "{" not in text and not re.search(r"\d", text)
        mentioned = [p for p in POOLS[scenario.pool] if re.search(rf"\b{re.escape(p)}\b", text)]
        assert not mentioned, f"{scenario.id}: {text!r} mentions node names {mentioned}"
    assert scenario.vocabulary()["a_node"].split()[0] in ("a", "an")


def test_unknown_ids_and_bad_templates_fail_clearly() -> None:
    with pytest.raises(ConfigError, match="unknown GRIT scenario"):
        scenarios.get("sp_nowhere")
    good = scenarios.get("vc_trail_rangers")
    fields = {f: getattr(good, f) for f in good.__dataclass_fields__}
    with pytest.raises(ConfigError, match="misses"):
        Scenario(**(fields | {"links": ("A trail leaves {a}.",)}))
    with pytest.raises(ConfigError, match="has a digit"):
        Scenario(**(fields | {"distractors": ("It rained 3 times.", "x.", "y.")}))
    with pytest.raises(ConfigError, match="unknown slots"):
        Scenario(**(fields | {"opening": ("{a} is where I start.",)}))
    sp = scenarios.get("sp_metro_commute")
    sp_fields = {f: getattr(sp, f) for f in sp.__dataclass_fields__}
    with pytest.raises(ConfigError, match="starts with a name"):
        Scenario(**(sp_fields | {"opening": ("{s} is where I start.",)}))
