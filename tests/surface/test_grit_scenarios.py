"""The scenario registry: counts per split and task, and data that renders cleanly."""

from __future__ import annotations

import re

import pytest

from closurebench.errors import ConfigError
from closurebench.surface.grit import scenarios
from closurebench.surface.grit.scenarios.base import QueryWording, Scenario, check_name
from closurebench.surface.grit.scenarios.names import POOLS
from closurebench.tasks.grit import CENTRALITIES
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


def test_a_tasks_query_wording_lives_in_its_scenario_module() -> None:
    from closurebench.surface.grit.scenarios import bfs, centrality, frames

    cen = scenarios.get("cen_airport_hubs")
    assert cen.query is centrality.QUERY and cen.query.slot("centrality") == "kind"
    assert {v for v, _ in cen.query.definitions} == set(CENTRALITIES)
    assert all(s.query is bfs.QUERY for s in scenarios.for_task("bfs"))
    assert not hasattr(frames, "CENTRALITY_NOTE") and set(frames.PARAM_SLOT) == {"source", "target"}
    fields = {f: getattr(cen, f) for f in cen.__dataclass_fields__}
    with pytest.raises(ConfigError, match="definitions are needed exactly when"):
        Scenario(**(fields | {"query": QueryWording(slots=(("centrality", "kind"),))}))
    with pytest.raises(ConfigError, match="'centrality' has no template slot"):
        Scenario(**(fields | {"query": QueryWording(definitions=centrality.QUERY.definitions)}))
    reserved = QueryWording(slots=(("centrality", "s"),), definitions=cen.query.definitions)
    with pytest.raises(ConfigError, match=r"query slot \{s\} is a slot the renderer fills"):
        Scenario(**(fields | {"query": reserved}))
    b = scenarios.get("bfs_cave_exploration")
    b_fields = {f: getattr(b, f) for f in b.__dataclass_fields__}
    with pytest.raises(ConfigError, match="an order rule is needed exactly when"):
        Scenario(**(b_fields | {"query": QueryWording()}))
    with pytest.raises(ConfigError, match="no definition of 'eigenvector'"):
        cen.query.definition("eigenvector")
