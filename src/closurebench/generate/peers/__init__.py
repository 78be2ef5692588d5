"""Peer benchmarks through our harness: import, re-verify, write as GRIT records.

``closurebench import nlgraph|g-real|grapharena PATH --out DIR`` reads a user's copy of a
peer benchmark that the GRAIN paper compares with, turns every question one of our GRIT
tasks poses into a :class:`~closurebench.schema.GritInstance` (split ``nlgraph`` /
``g-real`` / ``grapharena``, the peer's own question text, so accuracies compare with the
peer's), solves it with our certified exact solver, confirms it by the task's second
route, and compares the peer's reference answer (its objective value, and its certificate
judged by our checker).

Policy: **a record's answer is ours** (proven), never the peer's; the peer's reference is
kept, per record, in the import report. An item whose reference disagrees, or cannot be
read, is imported with our answer and listed in ``<stem>.disagreements.jsonl`` with both
values; nothing the peer states is trusted unchecked. Items no GRIT task poses (NLGraph's
connectivity, cycle, topological sort, Hamiltonian path), items the strict readers cannot
read, duplicates and graphs not proven within the time limit are skipped and counted.

What :func:`write_import` writes into ``DIR`` (``<stem>`` is the benchmark's name):

* ``<stem>.jsonl`` + ``<stem>.manifest.json`` + the record schema (the project's dataset
  writer): ``closurebench eval`` and ``report`` take it like any GRIT split;
* ``<stem>.import-report.json``: sources (names and sha256), counts per peer task, the
  skips, and every record's peer value beside ours;
* ``<stem>.disagreements.jsonl``: one line per disagreeing item (empty when none).

Example:
    >>> sorted(PEERS)
    ['g-real', 'grapharena', 'nlgraph']
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from closurebench import __version__
from closurebench.errors import ConfigError
from closurebench.generate.io import write_jsonl
from closurebench.generate.peers.base import (
    Disagreement,
    PeerItem,
    ReadResult,
    Skipped,
    reverify,
)
from closurebench.generate.peers.grapharena import MAPPING as GRAPHARENA_MAPPING
from closurebench.generate.peers.grapharena import read_grapharena
from closurebench.generate.peers.greal import MAPPING as GREAL_MAPPING
from closurebench.generate.peers.greal import read_greal
from closurebench.generate.peers.nlgraph import MAPPING as NLGRAPH_MAPPING
from closurebench.generate.peers.nlgraph import read_nlgraph
from closurebench.graphs.exact.errors import SolverTimeout
from closurebench.jsonl import canonical_json, clean, write_lines
from closurebench.schema import GritInstance
from closurebench.tasks.grit.base import DEFAULT_TIME_LIMIT

__all__ = [
    "PEERS",
    "Disagreement",
    "Peer",
    "PeerImport",
    "Skipped",
    "import_peer",
    "read_peer",
    "write_import",
]

#: What the records keep, said in the manifest and the report.
ANSWER_POLICY = (
    "answer, solution and certificate are our exact solver's (proven, confirmed by a second "
    "route); the peer's reference is kept in the import report, and every item whose "
    "reference disagrees or cannot be read is listed in the disagreements file"
)


@dataclass(frozen=True)
class Peer:
    """One peer benchmark the importer reads.

    Attributes:
        name: Its ``closurebench import`` name (and the records' ``split``).
        title: The benchmark and paper, for reports.
        read: ``read(path) -> ReadResult``.
        mapping: Peer task -> our GRIT task (None: skipped, no GRIT task poses it).
    """

    name: str
    title: str
    read: Callable[[Path], ReadResult]
    mapping: dict[str, str | None]


#: The one table of importable peers.
PEERS: dict[str, Peer] = {
    p.name: p
    for p in (
        Peer(
            "nlgraph",
            "NLGraph (Wang et al., NeurIPS 2023)",
            read_nlgraph,
            dict(NLGRAPH_MAPPING),
        ),
        Peer(
            "g-real",
            "G-REAL (MA-GTS, Yuan et al., EMNLP 2025)",
            read_greal,
            dict(GREAL_MAPPING),
        ),
        Peer(
            "grapharena",
            "GraphArena (Tang et al., 2024)",
            read_grapharena,
            dict(GRAPHARENA_MAPPING),
        ),
    )
}


@dataclass
class PeerImport:
    """The outcome of one import.

    Attributes:
        peer: The benchmark.
        records: The imported records, in the peer's order (answers ours).
        disagreements: The items whose peer reference our solver does not confirm.
        skipped: What was not imported, and why.
        files: ``(name, sha256, items)`` per file read.
        compared: Per record: ``id``, ``origin``, ``peer_value``, ``ours``, ``agree``.
        peer_tasks: Per record id, the peer's task name.
    """

    peer: Peer
    records: list[GritInstance] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    files: list[tuple[str, str, int]] = field(default_factory=list)
    compared: list[dict[str, Any]] = field(default_factory=list)
    peer_tasks: dict[str, str] = field(default_factory=dict)

    def by_peer_task(self) -> dict[str, dict[str, Any]]:
        """Per peer task: our task, items imported, agreeing, disagreeing and skipped."""
        out: dict[str, dict[str, Any]] = {}

        def row(task: str) -> dict[str, Any]:
            return out.setdefault(
                task,
                {
                    "grit_task": self.peer.mapping.get(task),
                    "imported": 0,
                    "agree": 0,
                    "disagree": 0,
                    "skipped": 0,
                },
            )

        bad = {d.id for d in self.disagreements}
        for rec in self.records:
            r = row(self.peer_tasks[rec.id])
            r["imported"] += 1
            r["disagree" if rec.id in bad else "agree"] += 1
        for s in self.skipped:
            row(s.peer_task)["skipped"] += 1
        return dict(sorted(out.items()))

    def report(self) -> dict[str, Any]:
        """The import report (``<stem>.import-report.json``): deterministic, JSON-ready."""
        return {
            "benchmark": self.peer.name,
            "title": self.peer.title,
            "version": __version__,
            "answer_policy": ANSWER_POLICY,
            "mapping": self.peer.mapping,
            "sources": [{"file": n, "sha256": h, "items": k} for n, h, k in self.files],
            "records": len(self.records),
            "agree": len(self.records) - len(self.disagreements),
            "disagreements": len(self.disagreements),
            "skipped": dict(sorted(Counter(s.kind for s in self.skipped).items())),
            "by_peer_task": self.by_peer_task(),
            "skipped_items": [
                {"where": s.where, "peer_task": s.peer_task, "kind": s.kind, "reason": s.reason}
                for s in self.skipped
            ],
            "compared": self.compared,
        }


def read_peer(benchmark: str, path: str | Path) -> tuple[Peer, ReadResult]:
    """Read ``path`` as ``benchmark``'s files: the items to import and what is skipped.

    Raises:
        ConfigError: an unknown benchmark (naming the known ones).
        DatasetFileError: a file that is not in the benchmark's format (one line naming
            the file, the line or record, and the fix).
    """
    peer = PEERS.get(benchmark)
    if peer is None:
        raise ConfigError(
            f"unknown peer benchmark {benchmark!r}; choose one of: {', '.join(PEERS)}"
        )
    return peer, peer.read(Path(path))


def import_peer(
    benchmark: str,
    path: str | Path,
    *,
    time_limit: float = DEFAULT_TIME_LIMIT,
    advance: Callable[[PeerItem], None] | None = None,
    read: ReadResult | None = None,
) -> PeerImport:
    """Read ``path`` as ``benchmark``, re-verify every item, build the records.

    Args:
        benchmark: A key of :data:`PEERS`.
        path: The user's copy (one file, or a folder of them).
        time_limit: Seconds per exact solve; a graph not proven in time is skipped.
        advance: Called after each item is solved (a progress display).
        read: What :func:`read_peer` already read from ``path`` (else it is read here).

    Raises:
        ConfigError: an unknown benchmark (naming the known ones).
        DatasetFileError: a file that is not in the benchmark's format (one line naming
            the file, the line or record, and the fix).
        VerificationError: our own two routes disagree (a solver bug; never imported).
    """
    peer, got = read_peer(benchmark, path) if read is None else (PEERS[benchmark], read)
    read = got
    out = PeerImport(peer, skipped=list(read.skipped), files=list(read.files))
    seen: set[str] = set()
    for item in read.items:
        try:
            record, why = reverify(item, peer.name, time_limit=time_limit)
        except SolverTimeout as exc:
            out.skipped.append(Skipped(item.where, item.peer_task, "not proven", str(exc)))
            continue
        finally:
            if advance is not None:
                advance(item)
        if record["id"] in seen:
            out.skipped.append(
                Skipped(item.where, item.peer_task, "duplicate", f"{item.origin} is read twice")
            )
            continue
        seen.add(record["id"])
        rec = GritInstance.model_validate(clean(record))
        out.records.append(rec)
        out.peer_tasks[rec.id] = item.peer_task
        if why is not None:
            out.disagreements.append(why)
        out.compared.append(
            {
                "id": rec.id,
                "origin": item.origin,
                "peer_value": item.reference.value,
                "ours": rec.answer,
                "agree": why is None,
            }
        )
    return out


def write_import(result: PeerImport, out: str | Path) -> dict[str, Path]:
    """Write the dataset, its manifest, the import report and the disagreements into ``out``.

    Returns:
        ``{"dataset", "manifest", "report", "disagreements"}`` -> path.

    Raises:
        ConfigError: nothing was imported (every item skipped): no dataset to write.
    """
    name = result.peer.name
    if not result.records:
        kinds = Counter(s.kind for s in result.skipped)
        raise ConfigError(
            f"no {name} item was imported ({dict(kinds) or 'no items read'}); pass files of "
            "a task that GRIT poses (see `closurebench import --help`)"
        )
    report = result.report()
    counts = {
        "task": dict(sorted(Counter(str(r.task) for r in result.records).items())),
        "split": {name: len(result.records)},
    }

    def manifest(sha: str, file: str) -> dict[str, Any]:
        return {
            "suite": "grit",
            "split": name,
            "version": __version__,
            "records": len(result.records),
            "files": {file: {"records": len(result.records), "sha256": sha}},
            "counts": counts,
            "imported_from": {
                "benchmark": name,
                "title": result.peer.title,
                "sources": report["sources"],
            },
            "answer_policy": ANSWER_POLICY,
            "verification": {
                "agree": report["agree"],
                "disagreements": report["disagreements"],
                "skipped": report["skipped"],
            },
        }

    folder = Path(out)
    dataset, man = write_jsonl(folder, f"{name}.jsonl", result.records, manifest)
    report_path = folder / f"{name}.import-report.json"
    report_path.write_text(
        json.dumps(clean(report), sort_keys=True, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    dis = folder / f"{name}.disagreements.jsonl"
    write_lines(dis, (canonical_json(clean(d.to_json())) for d in result.disagreements))
    return {"dataset": dataset, "manifest": man, "report": report_path, "disagreements": dis}
