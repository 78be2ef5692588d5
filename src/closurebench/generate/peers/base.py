"""What every peer importer shares: the items it reads, re-verification and the records.

A format reader (:mod:`~closurebench.generate.peers.nlgraph`,
:mod:`~closurebench.generate.peers.greal`, :mod:`~closurebench.generate.peers.grapharena`)
turns a peer's file into :class:`PeerItem` (a question one of our GRIT tasks poses, its
graph as a :class:`~closurebench.structures.grit.GritStructure` and the peer's reference
as a :class:`Reference`) and :class:`Skipped` (what it refuses, with why).
:func:`reverify` solves each item with our certified exact solver, confirms that answer
by the task's second route, and compares the peer's reference with it: the objective
value, and the peer's certificate (path, tour, cover, colouring) judged by our checker.
The record keeps **our** verified answer; the peer's is kept in the import report, and
an item whose reference disagrees (or cannot be read) becomes a :class:`Disagreement`.

Example:
    >>> from closurebench.tasks.grit import GRIT_TASKS
    >>> s = GRIT_TASKS["vertex_cover"].structure(3, False, False, [(0, 1), (1, 2)])
    >>> item = PeerItem("f.json:1", "f.json#0", "f-0", "mvc", s, ("a", "b", "c"), "Q?",
    ...                 "standard", "semantic", "demo", Reference(value=2, certificate=[0, 2]))
    >>> record, why = reverify(item, "g-real")
    >>> record["answer"], record["solution"], why.reason
    (1, [1], 'the peer says 2, our exact solver proves 1; certificate: size 2 exceeds optimum 1')
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from closurebench import __version__
from closurebench.errors import DatasetFileError
from closurebench.graphs.exact.check import (
    Verdict,
    check_colouring,
    check_cover,
    check_path,
    check_tour,
)
from closurebench.graphs.exact.errors import SolverError
from closurebench.schema import Suite
from closurebench.seeding import derive_seed
from closurebench.structures.grit import GritStructure
from closurebench.tasks.grit import GRIT_TASKS
from closurebench.tasks.grit.base import DEFAULT_TIME_LIMIT, Solved, edge_list

__all__ = [
    "Disagreement",
    "PeerItem",
    "ReadResult",
    "Reference",
    "Skipped",
    "check_certificate",
    "id_part",
    "input_files",
    "load_json",
    "reverify",
    "sha256",
]


@dataclass(frozen=True)
class Reference:
    """The peer's reference answer to one item, as read from its file.

    Attributes:
        value: The objective value the peer states (cost, size, colour count), or None.
        certificate: The peer's solution in node ids (path, tour, cover, ``{node: colour}``),
            or None when it gives none.
        raw: The reference exactly as the peer's file holds it (for the report).
        problem: Why the reference cannot be read (a corrupted or missing answer), or None.
    """

    value: int | None = None
    certificate: Any = None
    raw: Any = None
    problem: str | None = None


@dataclass(frozen=True)
class PeerItem:
    """One peer question that a GRIT task poses, ready to re-verify.

    Attributes:
        where: The file and line/record, for messages (``"test.json: item '17'"``).
        origin: The peer's own id of the item (``"shortest_path/test.json#17"``).
        key: The id part that names the item in our records (``"shortest_path-test-17"``).
        peer_task: The peer's name of the task.
        structure: The graph and query, in node ids (its ``task`` is ours).
        names: The display name of node ``i`` at index ``i`` (as the question writes them).
        question: The peer's own question text.
        form: ``standard`` (graph-theory wording) or ``realistic`` (a scenario's).
        naming: ``canonical`` (node numbers) or ``semantic`` (names).
        scenario: The peer's scenario or task/difficulty (``"nlgraph/shortest_path/easy"``).
        reference: The peer's reference answer.
    """

    where: str
    origin: str
    key: str
    peer_task: str
    structure: GritStructure
    names: tuple[str, ...]
    question: str
    form: str
    naming: str
    scenario: str
    reference: Reference


@dataclass(frozen=True)
class Skipped:
    """A peer item that was not imported, and why.

    Attributes:
        where: The file and line/record.
        peer_task: The peer's task name (``"?"`` when it cannot be told).
        kind: ``no GRIT task``, ``unreadable``, ``duplicate`` or ``not proven``.
        reason: One line saying what is wrong.
    """

    where: str
    peer_task: str
    kind: str
    reason: str


@dataclass(frozen=True)
class Disagreement:
    """An imported item whose peer reference our exact solver does not confirm.

    Attributes:
        id: Our record's id.
        origin: The peer's id of the item.
        peer_task: The peer's task name.
        task: Our task.
        peer: The peer's reference as its file holds it.
        peer_value: The value the peer states (None when unreadable or absent).
        ours: Our proven optimum.
        solution: One optimal solution of ours, in the question's names.
        reason: What disagrees.
    """

    id: str
    origin: str
    peer_task: str
    task: str
    peer: Any
    peer_value: int | None
    ours: int
    solution: Any
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The JSON line ``disagreements.jsonl`` holds."""
        return {
            "id": self.id,
            "origin": self.origin,
            "peer_task": self.peer_task,
            "task": self.task,
            "peer": self.peer,
            "peer_value": self.peer_value,
            "ours": self.ours,
            "our_solution": self.solution,
            "reason": self.reason,
        }


_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def id_part(text: str) -> str:
    """``text`` as a piece of a record id: runs of other characters become one ``-``.

    Example:
        >>> id_part("shortest_path/test.json"), id_part("graph 4 (copy)")
        ('shortest_path-test', 'graph-4-copy')
    """
    stem = text[: -len(".json")] if text.endswith(".json") else text
    stem = stem[: -len(".jsonl")] if stem.endswith(".jsonl") else stem
    return _UNSAFE.sub("-", stem).strip("-") or "item"


def _path_verdict(s: GritStructure, certificate: Any, optimum: int) -> Verdict:
    """A path from ``source`` to ``target`` of cost ``optimum``."""
    return check_path(
        s.n,
        edge_list(s),
        s.param("source"),
        s.param("target"),
        certificate,
        directed=s.directed,
        optimum=optimum,
    )


def _tour_verdict(s: GritStructure, certificate: Any, optimum: int) -> Verdict:
    """A tour of the complete graph of cost ``optimum``."""
    w = [[0] * s.n for _ in range(s.n)]
    for u, v, c in s.edges:
        w[u][v] = w[v][u] = c
    return check_tour(w, certificate, optimum=optimum)


def _cover_verdict(s: GritStructure, certificate: Any, optimum: int) -> Verdict:
    """A vertex cover of size ``optimum``."""
    return check_cover(s.n, [(u, v) for u, v, _ in s.edges], certificate, optimum=optimum)


def _colouring_verdict(s: GritStructure, certificate: Any, optimum: int) -> Verdict:
    """A proper colouring with ``optimum`` colours."""
    return check_colouring(s.n, [(u, v) for u, v, _ in s.edges], certificate, optimum=optimum)


def _node_names(solution: list[Any], names: Sequence[str]) -> Any:
    """A solution that lists node ids (path, tour, cover), in names."""
    return [names[x] for x in solution]


def _colour_names(solution: list[Any], names: Sequence[str]) -> Any:
    """A colouring (node ``i``'s colour at index ``i``), as ``{name: colour}``."""
    return {names[i]: c for i, c in enumerate(solution)}


@dataclass(frozen=True)
class _PeerSolution:
    """How a peer's solution of one GRIT task is judged, and how ours is named.

    The task's own :meth:`~closurebench.tasks.grit.base.GritTask.check` judges feasibility
    only (and raises); a peer's certificate is judged against the proven optimum, with the
    checker's verdict and its reason kept for the report.

    Attributes:
        verdict: ``verdict(structure, certificate, optimum)`` by our exact checker.
        named: ``named(solution, names)``: a solution in node ids, in the question's names.
    """

    verdict: Callable[[GritStructure, Any, int], Verdict]
    named: Callable[[list[Any], Sequence[str]], Any] = _node_names


#: GRIT task -> how a peer's solution of it is judged (the tasks a peer item may pose).
_SOLUTIONS: Mapping[str, _PeerSolution] = MappingProxyType(
    {
        "shortest_path": _PeerSolution(_path_verdict),
        "tsp": _PeerSolution(_tour_verdict),
        "vertex_cover": _PeerSolution(_cover_verdict),
        "graph_coloring": _PeerSolution(_colouring_verdict, named=_colour_names),
    }
)


def check_certificate(s: GritStructure, certificate: Any, optimum: int) -> Verdict:
    """Judge a peer's solution of ``s`` (in node ids) with our checker, against ``optimum``.

    A valid candidate that beats the proven optimum is reported as invalid with that
    reason (it would mean our solver is wrong; the item is then a disagreement to look at).

    Raises:
        ValueError: no peer solution of ``s``'s task is judged.

    Example:
        >>> from closurebench.tasks.grit import GRIT_TASKS
        >>> s = GRIT_TASKS["graph_coloring"].structure(3, False, False, [(0, 1), (1, 2)])
        >>> check_certificate(s, {0: 1, 1: 2, 2: 1}, 2).ok
        True
        >>> check_certificate(s, {0: 1, 1: 1, 2: 2}, 2).reason
        'colour conflict on edge (0, 1): both have colour 1'
        >>> set(_SOLUTIONS) <= set(GRIT_TASKS)
        True
    """
    judged = _SOLUTIONS.get(s.task)
    if judged is None:
        raise ValueError(f"no certificate check for task {s.task!r}")
    try:
        return judged.verdict(s, certificate, optimum)
    except SolverError as exc:
        return Verdict(False, False, f"it beats our proven optimum {optimum}: {exc}")


def _compare(item: PeerItem, solved: Solved) -> str | None:
    """Why the peer's reference disagrees with ``solved`` (None: it agrees)."""
    ref, ours = item.reference, int(solved.answer)
    if ref.problem is not None:
        return f"the peer's reference cannot be read: {ref.problem}"
    reasons = []
    if ref.value is not None and ref.value != ours:
        reasons.append(f"the peer says {ref.value}, our exact solver proves {ours}")
    if ref.certificate is not None:
        verdict = check_certificate(item.structure, ref.certificate, ours)
        if not verdict.ok:
            reasons.append(f"certificate: {verdict.reason}")
        elif ref.value is not None and verdict.value != ref.value:
            reasons.append(f"the peer's certificate has value {verdict.value}, not {ref.value}")
    if ref.value is None and ref.certificate is None:
        reasons.append("the peer gives no answer to compare")
    return "; ".join(reasons) or None


def _named(task: str, solution: Any, names: Sequence[str]) -> Any:
    """A solution in node ids, in the question's names (a colouring as ``{name: colour}``).

    Example:
        >>> _named("graph_coloring", [0, 1], ["a", "b"]), _named("tsp", [1, 0], ["a", "b"])
        ({'a': 0, 'b': 1}, ['b', 'a'])
    """
    if not isinstance(solution, list):
        return solution
    judged = _SOLUTIONS.get(task)
    return (judged.named if judged is not None else _node_names)(solution, names)


def reverify(
    item: PeerItem, split: str, *, time_limit: float = DEFAULT_TIME_LIMIT
) -> tuple[dict[str, Any], Disagreement | None]:
    """Solve ``item`` exactly, confirm by the second route, compare with the peer's reference.

    Args:
        item: The peer item.
        split: The split its record belongs to (``nlgraph``, ``g-real``, ``grapharena``).
        time_limit: Seconds per exact solve.

    Returns:
        The instance record (a JSON dict of :class:`~closurebench.schema.GritInstance`),
        with our verified answer, and the :class:`Disagreement` when the peer's
        reference disagrees (None when it agrees).

    Raises:
        SolverTimeout: optimality not proven within ``time_limit``.
        VerificationError: our two routes disagree (a bug: never silently imported).
    """
    s = item.structure
    task = GRIT_TASKS[s.task]
    where = f"{item.where} ({item.origin})"
    solved = task.solve(s, time_limit=time_limit)
    task.verify(s, solved, where=where, time_limit=time_limit)
    body = s.to_dict()
    rid = f"{split}-{s.task}-{item.key}"
    seed = derive_seed(0, "peer", split, item.origin)
    record = {
        "id": rid,
        "suite": Suite.GRIT.value,
        "split": split,
        "task": s.task,
        "graph_id": f"{split}:{item.origin}",
        "view": f"{item.form}/{item.naming}",
        "form": item.form,
        "naming": item.naming,
        "scenario": item.scenario,
        "n": s.n,
        "question": item.question,
        "answer": int(solved.answer),
        "solution": list(solved.solution) if solved.solution is not None else None,
        "certificate": solved.certificate,
        "graph": body["graph"],
        "names": list(item.names),
        "aliases": {},
        "params": body["params"],
        "seed": {"structure": seed, "surface": seed},
        "version": __version__,
    }
    reason = _compare(item, solved)
    if reason is None:
        return record, None
    return record, Disagreement(
        id=rid,
        origin=item.origin,
        peer_task=item.peer_task,
        task=s.task,
        peer=item.reference.raw,
        peer_value=item.reference.value,
        ours=int(solved.answer),
        solution=_named(s.task, record["solution"], item.names),
        reason=reason,
    )


def input_files(path: Path, suffixes: tuple[str, ...], what: str) -> list[tuple[Path, str]]:
    """The files to read under ``path`` (itself, or those inside it), with their names.

    Names are relative to ``path`` (a file's own name when ``path`` is a file), in sorted
    order, so the import does not depend on where the copy lies.

    Raises:
        DatasetFileError: ``path`` does not exist, or a folder holds no such file.
    """
    if path.is_file():
        return [(path, path.name)]
    if not path.is_dir():
        raise DatasetFileError(
            f"{str(path)!r} does not exist; pass your copy of the {what} files (a file or "
            "the folder holding them)"
        )
    found = sorted(
        (p for p in path.rglob("*") if p.is_file() and p.name.endswith(suffixes)),
        key=lambda p: p.relative_to(path).as_posix(),
    )
    if not found:
        raise DatasetFileError(
            f"{str(path)!r} holds no {' or '.join(suffixes)} file; pass the folder holding "
            f"the {what} files, or one of them"
        )
    return [(p, p.relative_to(path).as_posix()) for p in found]


def load_json(path: Path, what: str) -> Any:
    """The JSON value in ``path``.

    Raises:
        DatasetFileError: naming the file, the line and the fix when it is not UTF-8 JSON.
    """
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise DatasetFileError(
            f"{path}: byte {exc.start} is not UTF-8; pass the {what} file as published"
        ) from None
    except json.JSONDecodeError as exc:
        raise DatasetFileError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); pass the {what} file as "
            "published (one JSON document)"
        ) from None


def sha256(path: Path) -> str:
    """The file's sha256, in hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass
class ReadResult:
    """What a format reader gives for one input: the items, what it refused, its files.

    Attributes:
        items: The items a GRIT task poses, in file order.
        skipped: What was not imported, and why.
        files: ``(name relative to the input, sha256, items read)`` per file read.
    """

    items: list[PeerItem] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    files: list[tuple[str, str, int]] = field(default_factory=list)
