"""``closurebench import grapharena``: hand-made GraphArena pickles, read safely.

The fixtures are built here, in GraphArena's layout (``{Task}_{easy|hard}.pkl``: a pickled
list of problem dicts with ``id``, ``problem_text``, ``graph`` (a networkx graph whose
nodes carry ``name``), ``exact_answer``, ``path``, and ``source``/``target`` for
Distance), from graphs, names and numbers written for these tests; none is GraphArena's.
One reference is wrong on purpose (TSP item 1) and some items pose another problem on
purpose (a directed Distance graph, an MVC self-loop, an incomplete TSP graph).
"""

from __future__ import annotations

import io
import json
import os
import pickle
import pickletools
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from typer.testing import CliRunner

import closurebench
from closurebench.cli import app
from closurebench.errors import DatasetFileError
from closurebench.generate.peers import import_peer, write_import
from closurebench.generate.peers.grapharena import ALLOWED_GLOBALS, SafeUnpickler, load_pickle

runner = CliRunner()


# ---------------------------------------------------------------- GraphArena-layout fixtures
def _named(pairs: list[tuple[int, str]]) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from((v, {"name": name}) for v, name in pairs)
    return g


def _tsp_text(g: nx.Graph) -> str:
    name = nx.get_node_attributes(g, "name")
    lines = [
        "You are required to solve the Travelling Salesman Problem for an undirected flight "
        "route network. Find the shortest route visiting every airport once and returning.",
        "\n**Problem to Solve**\n",
        "- Airports to visit: " + ", ".join(name[v] for v in g.nodes),
        "- Travel distances (in kilometers) between each pair of airports:",
        *(f"{name[u]} to {name[v]}: {d['weight']}" for u, v, d in g.edges(data=True)),
        "Please calculate the shortest tour and format your answer as follows: [Airport A, "
        "Airport B, Airport C, ..., Airport A]",
    ]
    return "\n".join(lines)


def _mvc_text(g: nx.Graph) -> str:
    name = nx.get_node_attributes(g, "name")
    pairs = ", ".join(f"{name[u]} and {name[v]}" for u, v in g.edges)
    return "\n".join(
        [
            "Your task is to solve the Minimum Vertex Cover problem in the given social "
            "network: find the fewest users touching every friendship.",
            "\n**Problem to Solve**\n",
            "- Users in the network: " + ", ".join(name[v] for v in g.nodes) + ".",
            f"- Fiendship connections: {pairs}.",
            "Identify the Minimum Vertex Cover of this network: [UserA, UserB, ...].",
        ]
    )


def _distance_text(g: nx.Graph, s: int, t: int) -> str:
    name = nx.get_node_attributes(g, "name")
    return "\n".join(
        [
            "Your task is to identify the shortest path between two specified entities in an "
            "undirected knowledge graph, minimizing the number of hops.",
            "\n**Problem to Solve**\n",
            "- Entities in this knowledge graph: " + ", ".join(name[v] for v in g.nodes),
            "- The relationships between these entities are as follows:",
            *(
                f" - {name[u]} is connected to {name[v]} via the relationship {d['relation']}."
                for u, v, d in g.edges(data=True)
            ),
            f"Please determine the shortest path between {name[s]} and {name[t]} in this network.",
            "Submit your answer in the format: [Entity1, Entity2, ..., EntityN].",
        ]
    )


def _tsp_problems() -> list[dict[str, Any]]:
    out = []
    # Item 0: four airports, optimum 4 + 5 + 6 + 7 = 22 (tour A B C D A); reference right.
    g = _named([(0, "AAX"), (1, "BBX"), (2, "CCX"), (3, "DDX")])
    g.add_weighted_edges_from([(0, 1, 4), (0, 2, 9), (0, 3, 7), (1, 2, 5), (1, 3, 8), (2, 3, 6)])
    out.append(
        {"id": 0, "problem_text": _tsp_text(g), "graph": g, "exact_answer": 22,
         "path": [0, 1, 2, 3, 0]}
    )  # fmt: skip
    # Item 1: the same distances, the reference corrupted (a worse tour, and its cost).
    g = _named([(0, "EEX"), (1, "FFX"), (2, "GGX"), (3, "HHX")])
    g.add_weighted_edges_from([(0, 1, 4), (0, 2, 9), (0, 3, 7), (1, 2, 5), (1, 3, 8), (2, 3, 6)])
    out.append(
        {"id": 1, "problem_text": _tsp_text(g), "graph": g, "exact_answer": 26,
         "path": [0, 2, 1, 3, 0]}
    )  # fmt: skip
    # Item 2: not complete (no distance for JJX - KKX): GRIT's TSP needs every pair.
    g = _named([(0, "IIX"), (1, "JJX"), (2, "KKX")])
    g.add_weighted_edges_from([(0, 1, 3), (0, 2, 4)])
    out.append(
        {"id": 2, "problem_text": _tsp_text(g), "graph": g, "exact_answer": 14,
         "path": [0, 1, 0, 2, 0]}
    )  # fmt: skip
    for p in out:  # GraphArena's generator reads these views before pickling
        _ = p["graph"].nodes, p["graph"].edges
    return out


def _mvc_problems() -> list[dict[str, Any]]:
    # A "social network" with ids not 0..n-1; problems are induced-subgraph views (as
    # GraphArena's MVC stores them), so the pickle holds the filter views too.
    big = _named([(40, "Ana Ruiz"), (41, "Ben Ode"), (42, "Cleo Maar"), (43, "Dov Shai"),
                  (44, "Eli Park"), (45, "Fay Lund"), (46, "Gus Tamm")])  # fmt: skip
    big.add_edges_from([(40, 41), (41, 42), (42, 43), (43, 40), (41, 44), (44, 45), (45, 46)])
    h = nx.induced_subgraph(big, [41, 40, 42, 43, 44])  # a 4-cycle and a pendant: optimum 2
    _ = h.nodes, h.edges, h.adj
    loop = nx.Graph(nx.induced_subgraph(big, [44, 45, 46]))
    loop.add_edge(46, 46)  # a self-loop: GraphArena would force 46 into the cover
    return [
        {"id": 0, "problem_text": _mvc_text(h), "graph": h, "exact_answer": 2,
         "path": {41, 43}},
        {"id": 1, "problem_text": _mvc_text(loop), "graph": loop, "exact_answer": 2,
         "path": {45, 46}},
    ]  # fmt: skip


def _distance_problems() -> list[dict[str, Any]]:
    kg = _named([(7, "Rhine"), (3, "Basel"), (9, "Lake Constance"), (5, "Alps"), (8, "Mainz")])
    kg.add_edges_from([(7, 3), (3, 5), (7, 9), (9, 5), (7, 8)], relation="nearby")
    h = nx.induced_subgraph(kg, [7, 3, 9, 5, 8]).copy()
    _ = h.adj  # nx.has_path reads it
    d = nx.DiGraph(h)  # directed: GraphArena's question says undirected
    return [
        {"id": 0, "problem_text": _distance_text(h, 8, 5), "graph": h, "exact_answer": 3,
         "path": [8, 7, 3, 5], "source": 8, "target": 5},
        {"id": 1, "problem_text": _distance_text(d, 8, 5), "graph": d, "exact_answer": 3,
         "path": [8, 7, 3, 5], "source": 8, "target": 5},
    ]  # fmt: skip


def _mcp_problems() -> list[dict[str, Any]]:
    g = _named([(0, "Ann"), (1, "Bo"), (2, "Cy")])
    g.add_edges_from([(0, 1), (1, 2), (0, 2)])
    return [{"id": 0, "problem_text": "Maximum clique: Ann, Bo, Cy.", "graph": g,
             "exact_answer": 3, "path": [0, 1, 2]}]  # fmt: skip


def _dump(path: Path, value: Any, protocol: int = pickle.DEFAULT_PROTOCOL) -> Path:
    path.write_bytes(pickle.dumps(value, protocol=protocol))
    return path


@pytest.fixture
def arena(tmp_path: Path) -> Path:
    """A folder in the layout of GraphArena's ``dataset/``."""
    root = tmp_path / "dataset"
    root.mkdir()
    _dump(root / "TSP_easy.pkl", _tsp_problems())
    _dump(root / "MVC_easy.pkl", _mvc_problems(), protocol=2)
    _dump(root / "Distance_hard.pkl", _distance_problems())
    _dump(root / "MCP_easy.pkl", _mcp_problems())
    _dump(root / "TSP_examples.pkl", ["- Airports to visit: AAX, BBX.\nOne shortest route: []"])
    return root


def _import(tmp_path: Path, src: Path) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    out = tmp_path / "out"
    res = runner.invoke(app, ["import", "grapharena", str(src), "--out", str(out)])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "grapharena.import-report.json").read_text())
    lines = (out / "grapharena.disagreements.jsonl").read_text().splitlines()
    return out / "grapharena.jsonl", report, [json.loads(x) for x in lines]


# ------------------------------------------------------------------------------------ tests
def test_grapharena_fixture_imports_and_reports_the_corrupted_reference(
    tmp_path: Path, arena: Path
) -> None:
    data, report, dis = _import(tmp_path, arena)
    records = closurebench.load_instances(data, suite="grit")
    assert [r.task for r in records] == ["shortest_path", "vertex_cover", "tsp", "tsp"]
    assert {(r.split, r.form, r.naming) for r in records} == {
        ("grapharena", "realistic", "semantic")
    }
    assert report["records"] == 4 and report["agree"] == 3 and report["disagreements"] == 1
    assert report["skipped"] == {"no GRIT task": 1, "unreadable": 3}
    assert report["by_peer_task"]["MCP"] == {
        "grit_task": None, "imported": 0, "agree": 0, "disagree": 0, "skipped": 1
    }  # fmt: skip
    (bad,) = dis
    assert bad["origin"] == "TSP_easy.pkl#1" and (bad["peer_value"], bad["ours"]) == (26, 22)
    assert "exceeds optimum 22" in bad["reason"]
    assert set(bad["our_solution"]) == {"EEX", "FFX", "GGX", "HHX"}
    reasons = {s["where"]: s["reason"] for s in report["skipped_items"]}
    assert "complete" in reasons["TSP_easy.pkl: item 2"]
    assert "self-loop" in reasons["MVC_easy.pkl: item 1"]
    assert "directed" in reasons["Distance_hard.pkl: item 1"]
    assert all(r.startswith("semantics differ") for w, r in reasons.items() if "MCP" not in w)
    by_id = {r.graph_id: r for r in records}
    # The records keep the peer's question and names (in its node order), our answers.
    dist = by_id["grapharena:Distance_hard.pkl#0"]
    assert dist.answer == 3 and not dist.graph.weighted and not dist.graph.directed
    assert dist.names == ["Rhine", "Basel", "Lake Constance", "Alps", "Mainz"]
    assert [dist.names[int(str(dist.params[k]))] for k in ("source", "target")] == ["Mainz", "Alps"]
    assert dist.scenario == "grapharena/knowledge-graph/hard"
    mvc = by_id["grapharena:MVC_easy.pkl#0"]
    assert mvc.answer == 2 and "Fiendship" in mvc.question
    assert f"- Users in the network: {', '.join(mvc.names)}." in mvc.question
    assert by_id["grapharena:TSP_easy.pkl#0"].question == _tsp_problems()[0]["problem_text"]
    compared = {c["origin"]: c for c in report["compared"]}
    assert compared["MVC_easy.pkl#0"]["agree"] and compared["Distance_hard.pkl#0"]["agree"]
    assert [s["file"] for s in report["sources"]] == [
        "Distance_hard.pkl", "MCP_easy.pkl", "MVC_easy.pkl", "TSP_easy.pkl"
    ]  # fmt: skip


def test_the_import_is_deterministic(tmp_path: Path, arena: Path) -> None:
    a = write_import(import_peer("grapharena", arena), tmp_path / "a")
    b = write_import(import_peer("grapharena", arena), tmp_path / "b")
    for key in a:
        assert a[key].read_bytes() == b[key].read_bytes(), key


def test_eval_direct_runs_on_the_import_and_report_shows_it(tmp_path: Path, arena: Path) -> None:
    data, _, _ = _import(tmp_path, arena)
    records = closurebench.load_instances(data, suite="grit")
    script = tmp_path / "script.json"
    script.write_text(json.dumps({r.question: f"<answer>{r.answer}</answer>" for r in records}))
    out = tmp_path / "run"
    res = runner.invoke(
        app,
        ["eval", str(data), "--model", "m", "--provider", "scripted", "--script", str(script),
         "--mode", "direct", "--out", str(out), "--concurrency", "1", "--no-progress"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    results = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert [r["outcome"] for r in results] == ["strict_correct"] * len(records)
    assert {r["split"] for r in results} == {"grapharena"}
    res = runner.invoke(app, ["report", str(out), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 0, res.output
    assert "grapharena" in (tmp_path / "rep" / "report.md").read_text()


class _Evil:
    """Unpickling this calls ``os.system`` (the classic malicious pickle)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_a_malicious_pickle_is_refused_and_has_no_effect(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    problems = _tsp_problems()
    problems[0]["exact_answer"] = _Evil(marker)
    bad = _dump(tmp_path / "TSP_easy.pkl", problems)
    with pytest.raises(DatasetFileError) as err:
        import_peer("grapharena", bad)
    assert str(err.value).startswith(f"{bad}: refused to unpickle global ")
    assert ("posix.system" in str(err.value)) or ("nt.system" in str(err.value))
    with pytest.raises(DatasetFileError, match=r"refused to unpickle global builtins\.eval"):
        load_pickle(_dump(tmp_path / "x.pkl", [eval]))
    res = runner.invoke(app, ["import", "grapharena", str(bad), "--out", str(tmp_path / "o")])
    assert res.exit_code == 1 and "refused to unpickle global" in res.output
    assert len(res.output.strip().splitlines()) == 1
    # A task GRIT does not pose is skipped whole, still unrun; nothing ran at all.
    folder = tmp_path / "mixed"
    folder.mkdir()
    _dump(folder / "GED_easy.pkl", [{"id": 0, "graph": _Evil(marker)}])
    _dump(folder / "TSP_easy.pkl", _tsp_problems()[:1])
    result = import_peer("grapharena", folder)
    assert len(result.records) == 1
    (skip,) = result.skipped
    assert skip.kind == "no GRIT task" and "safe unpickler refuses" in skip.reason
    assert not marker.exists()


def _globals(data: bytes) -> set[tuple[str, str]]:
    """The globals a pickle names, read from its opcodes (``pickletools``)."""
    found: set[tuple[str, str]] = set()
    memo: dict[int, str | None] = {}
    strings: list[str] = []
    last: str | None = None
    for op, arg, _ in pickletools.genops(data):
        if op.name in ("GLOBAL", "INST"):
            module, name = str(arg).split(" ")
            found.add(({"__builtin__": "builtins", "copy_reg": "copyreg"}.get(module, module),
                       name))  # fmt: skip
        elif op.name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE"):
            last = str(arg)
            strings.append(last)
            continue
        elif op.name == "MEMOIZE":
            memo[len(memo)] = last
            continue
        elif op.name in ("PUT", "BINPUT", "LONG_BINPUT"):
            assert arg is not None
            memo[int(arg)] = last
            continue
        elif op.name in ("GET", "BINGET", "LONG_BINGET"):
            assert arg is not None
            last = memo.get(int(arg))
            if last is not None:
                strings.append(last)
            continue
        elif op.name == "STACK_GLOBAL":
            found.add((strings[-2], strings[-1]))
        last = None
    return found


def test_the_allowed_globals_are_what_networkx_pickles_need() -> None:
    """Every protocol's pickle of real networkx graphs loads; each allowed global is used."""
    g = nx.Graph()
    g.add_nodes_from([(0, {"name": "A"}), (1, {"name": "B"}), (2, {"name": "C"})])
    g.add_edges_from([(0, 1, {"weight": 2}), (1, 2, {"weight": 3})])
    _ = g.nodes, g.edges, g.adj, g.degree
    view = nx.induced_subgraph(g, [0, 1])
    _ = view.nodes, view.edges, view.adj
    d = nx.DiGraph(g)
    _ = d.nodes, d.edges, d.in_edges, d.adj, d.succ, d.pred, d.degree, d.in_degree, d.out_degree
    value = [{"graph": g, "path": {0, 1}, "frozen": frozenset({2})}, view, d]
    used: set[tuple[str, str]] = set()
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        data = pickle.dumps(value, protocol=protocol)
        used |= _globals(data)
        back = SafeUnpickler(io.BytesIO(data)).load()
        assert nx.utils.graphs_equal(back[0]["graph"], g) and back[0]["path"] == {0, 1}
        assert sorted(back[1].edges) == [(0, 1)] and back[2].is_directed()
    assert used == set(ALLOWED_GLOBALS)


def test_wrong_format_and_unreadable_files_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(DatasetFileError, match="not a GraphArena dataset file name"):
        import_peer("grapharena", _dump(tmp_path / "graphs.pkl", []))
    with pytest.raises(DatasetFileError, match="holds a list of problems, not a dict"):
        import_peer("grapharena", _dump(tmp_path / "TSP_easy.pkl", {"a": 1}))
    with pytest.raises(DatasetFileError, match="no 'problem_text' and 'graph'"):
        import_peer("grapharena", _dump(tmp_path / "MVC_easy.pkl", [{"id": 0}]))
    cut = tmp_path / "Distance_easy.pkl"
    cut.write_bytes(pickle.dumps(_distance_problems())[:40])
    with pytest.raises(DatasetFileError, match=r"Distance_easy\.pkl: not a readable pickle"):
        import_peer("grapharena", cut)
    export = tmp_path / "GraphArena_all.json"
    export.write_text('{"TSP": []}')
    with pytest.raises(DatasetFileError, match="no graphs or reference answers"):
        import_peer("grapharena", export)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DatasetFileError, match=r"holds no \.pkl file"):
        import_peer("grapharena", empty)


def test_unreadable_references_and_items_are_reported_not_trusted(tmp_path: Path) -> None:
    problems = _distance_problems()[:1] * 4
    problems = [dict(p, id=i) for i, p in enumerate(problems)]
    problems[1]["exact_answer"] = None  # a missing reference: a disagreement
    problems[2]["path"] = [8, 99, 5]  # a node outside the graph: a disagreement
    problems[3]["problem_text"] = problems[3]["problem_text"].replace(" - Rhine is", " - Rhein is")
    result = import_peer("grapharena", _dump(tmp_path / "Distance_easy.pkl", problems))
    assert len(result.records) == 3 and len(result.disagreements) == 2
    assert all("cannot be read" in d.reason for d in result.disagreements)
    (skip,) = result.skipped
    assert skip.kind == "unreadable" and "not stated in 'problem_text'" in skip.reason


def test_cached_views_in_the_pickle_are_not_trusted(tmp_path: Path) -> None:
    """A graph's pickled ``nodes``/``edges`` views (here: another graph's) are rebuilt."""
    problems = _tsp_problems()[:1]
    g = problems[0]["graph"]
    decoy = nx.complete_graph(5)
    vars(g)["nodes"], vars(g)["edges"] = decoy.nodes, decoy.edges
    vars(g).pop("__networkx_cache__", None)  # as networkx < 3.3 pickles it
    result = import_peer("grapharena", _dump(tmp_path / "TSP_easy.pkl", problems))
    (rec,) = result.records
    assert rec.n == 4 and rec.answer == 22 and not result.disagreements
