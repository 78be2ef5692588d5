"""The GRIT scenario registry: 31 in-distribution scenarios (paper Table 8) and 24 OOD.

The OOD scenarios' semantic names come from pools that share no name with the
in-distribution pools (checked when the registry is built), so the OOD split's
identifiers are unseen in train, test and large for any seed (paper §5).

One module per task, named after the task, holds that task's scenarios as data (its
``SCENARIOS`` tuple); :data:`SCENARIOS` is the table of all of them, keyed by id, in a
fixed order (the task order of :data:`~closurebench.tasks.grit.GRIT_TASKS`, then module
order). The modules are found by the tasks' names, so a new task's scenario module needs
no edit here; every lookup reads the table at call time (a test may add a toy task's
scenarios to it).

Example:
    >>> len(in_distribution()), len(ood()), len(SCENARIOS)
    (31, 24, 55)
    >>> get("sp_datacenter_latency").task
    'shortest_path'
    >>> [s.id for s in for_task("bfs", "ood")][:2]
    ['bfs_contact_tracing', 'bfs_web_crawl']
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from closurebench.errors import ConfigError
from closurebench.surface.grit.scenarios.base import SPLITS, QueryWording, Scenario
from closurebench.surface.grit.scenarios.names import POOLS
from closurebench.tasks.grit import GRIT_TASKS

__all__ = [
    "SCENARIOS",
    "QueryWording",
    "Scenario",
    "for_task",
    "get",
    "in_distribution",
    "ood",
    "query_wordings",
]


def _module_scenarios(task: str) -> tuple[Scenario, ...]:
    """The ``SCENARIOS`` of the task's module (``scenarios/<task>.py``).

    Raises:
        ConfigError: if the task has no scenario module.
    """
    try:
        module = importlib.import_module(f"{__name__}.{task}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{task}":
            raise
        raise ConfigError(
            f"GRIT task {task!r} has no scenario module; add "
            f"src/closurebench/surface/grit/scenarios/{task}.py defining SCENARIOS"
        ) from None
    return tuple(module.SCENARIOS)


def _build() -> dict[str, Scenario]:
    table: dict[str, Scenario] = {}
    for task in GRIT_TASKS:
        for scenario in _module_scenarios(task):
            if scenario.task != task:
                raise ConfigError(f"scenario {scenario.id!r} is in the {task} module")
            if scenario.id in table:
                raise ConfigError(f"scenario id {scenario.id!r} is registered twice")
            table[scenario.id] = scenario
    _check_unseen(table.values())
    return table


def _check_unseen(scenarios: Iterable[Scenario]) -> None:
    """OOD scenarios name their nodes from pools no in-distribution scenario uses.

    Raises:
        ConfigError: naming the shared names (a pool edit that breaks the OOD split's
            unseen identifiers, paper §5).
    """
    pools: dict[str, set[str]] = {"in_distribution": set(), "ood": set()}
    for scenario in scenarios:
        pools[scenario.split].add(scenario.pool)
    seen = {name.casefold() for pool in pools["in_distribution"] for name in POOLS[pool]}
    shared = sorted({n for pool in pools["ood"] for n in POOLS[pool] if n.casefold() in seen})
    if shared:
        raise ConfigError(
            f"OOD name pools {sorted(pools['ood'])} share {len(shared)} names with the "
            f"in-distribution pools (e.g. {shared[:3]}); OOD identifiers must be unseen: give "
            "the OOD scenarios pools of their own"
        )


SCENARIOS: dict[str, Scenario] = _build()
"""Every scenario by id."""


def get(scenario: str | Scenario) -> Scenario:
    """Return the scenario with this id (a :class:`Scenario` is returned as is).

    Raises:
        ConfigError: for an unknown id, listing close matches.
    """
    if isinstance(scenario, Scenario):
        return scenario
    try:
        return SCENARIOS[scenario]
    except KeyError:
        close = [k for k in SCENARIOS if str(scenario).split("_")[0] in k][:6]
        raise ConfigError(
            f"unknown GRIT scenario {scenario!r}; known ids include {close or list(SCENARIOS)[:6]}"
        ) from None


def for_task(task: str, split: str | None = None) -> tuple[Scenario, ...]:
    """The scenarios of one task, optionally of one split, in registry order."""
    if task not in GRIT_TASKS:
        raise ConfigError(f"task {task!r} is not a GRIT task; use one of {tuple(GRIT_TASKS)}")
    if split is not None and split not in SPLITS:
        raise ConfigError(f"split {split!r} is not one of {SPLITS}")
    return tuple(
        s for s in SCENARIOS.values() if s.task == task and (split is None or s.split == split)
    )


def query_wordings() -> tuple[QueryWording, ...]:
    """The distinct query wordings of every scenario, in registry order.

    Example:
        >>> [q.slots for q in query_wordings() if q.slots]
        [(('centrality', 'kind'),)]
    """
    return tuple(dict.fromkeys(s.query for s in SCENARIOS.values()))


def in_distribution() -> tuple[Scenario, ...]:
    """The 31 scenarios of the paper's Table 8 (train, test and large-test splits)."""
    return tuple(s for s in SCENARIOS.values() if s.split == "in_distribution")


def ood() -> tuple[Scenario, ...]:
    """The 24 held-out scenarios, 4 per task, used only by the OOD split."""
    return tuple(s for s in SCENARIOS.values() if s.split == "ood")
