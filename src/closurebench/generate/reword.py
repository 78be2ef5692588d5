"""Re-word a ClosureBench file: the same structures under a new surface (paper §1, §3).

The paper's surface-vs-structure argument needs the same question asked again in other
words: the same graph, anchors and answer, with new labels, frame, style and edge order.
:func:`reword_records` keeps every record's structure (category, graph(s), anchors,
structural seed, id, encoding, answer-hint setting, and the wording of the query: a
question generated with ``--conventions implicit`` is re-worded implicitly, as the
reader finds it, :func:`~closurebench.surface.closure.read_wording`; a question it
cannot read, from an older release, is re-worded explicitly) and draws a new surface from
``derive_seed(surface_seed, "reword", id, r)``, ``r`` counting redraws made only when
the new question would equal the old one or another question of the output. Each
record is checked as a freshly generated one is:

* the answer is computed again by the three routes (solver, Ein, Python; they must
  agree) and must equal the record's ``answer_ids`` — a file whose answers do not
  follow from its own structures is refused, naming the record;
* the reader reads the new question back and must recover the graph and the query.

Answers (in labels) are re-rendered with the new labels; ``answer_ids`` do not change.

Example:
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> old = generate_records(ClosureConfig(count=2, categories=("reachability",)))
    >>> new = reword_records(old, surface_seed=7)
    >>> [a.id == b.id and a.answer_ids == b.answer_ids for a, b in zip(old, new)]
    [True, True]
    >>> any(a.question == b.question for a, b in zip(old, new))
    False
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from closurebench import __version__
from closurebench.errors import ConfigError, VerificationError
from closurebench.generate.closure import label_answer
from closurebench.generate.io import iter_instances, write_jsonl
from closurebench.jsonl import clean
from closurebench.schema import ClosureInstance, GritInstance
from closurebench.seeding import derive_seed, rng
from closurebench.structures.closure import ClosureStructure
from closurebench.surface.closure import ReadError, certify, read_wording, render_closure
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import verify

__all__ = [
    "GRIT_REDRAWS",
    "REDRAWS",
    "grit_view",
    "reword_file",
    "reword_grit_records",
    "reword_record",
    "reword_records",
]

#: Surface draws per record before giving up (only a degenerate record gets near it).
REDRAWS = 100


def reword_record(
    record: ClosureInstance, surface_seed: int, taken: set[str] | None = None
) -> ClosureInstance:
    """``record`` with a new surface drawn from ``surface_seed`` (see the module docstring).

    Args:
        record: A ClosureBench instance record.
        surface_seed: The new surface seed (the record's own is replaced).
        taken: Questions the new one must differ from (the new one is added to it).

    Raises:
        VerificationError: when the three routes disagree with the record's
            ``answer_ids`` (the record's answer does not follow from its structure).
        ConfigError: when no draw gives a new question (a degenerate record).
    """
    task = CLOSURE_TASKS[record.category]
    structure = ClosureStructure.from_dict(
        {
            "category": record.category,
            "graph": record.graph.model_dump(mode="json"),
            "graph2": record.graph2.model_dump(mode="json") if record.graph2 else None,
            "anchors": record.anchors,
        }
    )
    verified = verify(task, structure)
    ids: Any = list(verified.answer) if isinstance(verified.answer, tuple) else verified.answer
    if ids != record.answer_ids:
        raise VerificationError(
            f"{record.id}: the answer computed from its structure is {ids!r}, but the record "
            f"says answer_ids={record.answer_ids!r}; the file was edited or is corrupt - "
            "regenerate it"
        )
    try:
        wording = read_wording(record.question, record.category)
    except ReadError:  # an older release's wording: re-worded in today's explicit one
        wording = "explicit"
    seen = taken if taken is not None else set()
    for redraw in range(REDRAWS):
        seed = derive_seed(surface_seed, "reword", record.id, redraw)
        rendered = render_closure(
            structure,
            g=rng(seed),
            encoding=str(record.encoding),
            answer_hints=record.answer_hints,
            conventions=wording,
        )
        if rendered.question != record.question and rendered.question not in seen:
            break
    else:
        raise ConfigError(
            f"{record.id}: {REDRAWS} surface draws of seed {surface_seed} all repeated a "
            "question; use another --surface-seed"
        )
    certify(structure, rendered)
    seen.add(rendered.question)
    labels = list(rendered.labels)
    data = record.to_json()
    data.update(
        surface_seed=seed,
        label_pool=rendered.label_pool,
        labels=labels,
        domain=rendered.domain,
        style=rendered.style,
        encoding=rendered.encoding,
        question=rendered.question,
        answer=label_answer(task, verified.answer, labels),
        alt_answer=label_answer(task, verified.alt_answer, labels),
        programs=verified.programs,
        version=__version__,
    )
    return ClosureInstance.model_validate(clean(data))


def grit_view(
    record: GritInstance,
    seed: int,
    *,
    form: str | None = None,
    naming: str | None = None,
    keep_id: bool = False,
) -> GritInstance:
    """``record``'s structure in a new view: names and wording drawn from ``seed``.

    The form (standard / realistic) and naming scheme (canonical, random, semantic,
    mixed) are drawn from ``seed`` too unless given. The view is rendered in the record's
    scenario and certified by the reader; the answer is the record's own where the task
    is view-invariant, else re-derived for the view (names, BFS neighbour order) from a
    fresh polynomial solve.

    Args:
        record: A GRIT instance.
        seed: The view's seed.
        form: Keep this form (default: drawn).
        naming: Keep this naming scheme (default: drawn).
        keep_id: Keep ``record.id`` (a re-worded probe pairs each view with its record);
            else the id names the graph, form, naming and surface seed.

    Raises:
        VerificationError: the reader does not read the view back (certify).
    """
    from closurebench.structures.grit import GritStructure
    from closurebench.surface.grit import certify as certify_grit
    from closurebench.surface.grit.naming import NAMINGS
    from closurebench.surface.grit.render import FORMS, render
    from closurebench.tasks.grit import GRIT_TASKS
    from closurebench.tasks.grit.base import Solved

    task = GRIT_TASKS[record.task]
    s = GritStructure.from_record(record)
    pick = rng(derive_seed(seed, "pick"))
    drawn_form = FORMS[int(pick.integers(len(FORMS)))]
    drawn_naming = NAMINGS[int(pick.integers(len(NAMINGS)))]
    form, naming = form or drawn_form, naming or drawn_naming
    surface = derive_seed(seed, "surface")
    view = render(s, record.scenario, form, naming, rng(surface))
    certify_grit(s, view)
    solved = (
        Solved(record.answer, record.solution, record.certificate)
        if task.view_invariant
        else task.solve(s)
    )
    where = f"{record.id} re-viewed as {view.view}"
    answer, solution = task.for_view(s, solved, view, where=where)
    data = record.to_json()
    data.update(
        id=record.id if keep_id else f"{record.graph_id}-{form}-{naming}-s{surface % 10**8}",
        view=view.view,
        form=form,
        naming=naming,
        scenario=view.scenario,
        question=view.question,
        answer=answer,
        solution=solution,
        names=list(view.names),
        aliases=dict(view.aliases),
        seed={"structure": record.seed.structure, "surface": surface},
        version=__version__,
    )
    return GritInstance.model_validate(clean(data))


#: Surface draws per GRIT record before its view is taken as surface-free (the standard
#: form with canonical names renders one text whatever the seed).
GRIT_REDRAWS = 4


def reword_grit_records(
    records: Iterable[GritInstance], surface_seed: int
) -> tuple[list[GritInstance], int]:
    """Each GRIT record in its own form and naming scheme, with new names and wording.

    The record's id is kept (the re-worded view pairs with it); a record whose view reads
    the same under every surface (``GRIT_REDRAWS`` draws gave its own question or one
    already taken) is left out.

    Returns:
        The re-worded records (in order) and how many were left out.

    Example:
        >>> from closurebench.generate.grit import GritConfig, generate_records
        >>> cfg = GritConfig(split="train", count=1, n_max=5, tasks=("shortest_path",))
        >>> old, _ = generate_records(cfg)
        >>> new, skipped = reword_grit_records(old, surface_seed=7)
        >>> len(new) + skipped == len(old), skipped
        (True, 1)
        >>> all(a.id == b.id and a.question != b.question for a, b in
        ...     zip([r for r in old if r.view != "standard/canonical"], new))
        True
    """
    taken: set[str] = set()
    out: list[GritInstance] = []
    skipped = 0
    for record in records:
        taken.add(record.question)
    for record in records:
        for redraw in range(GRIT_REDRAWS):
            seed = derive_seed(surface_seed, "reword", record.id, redraw)
            new = grit_view(record, seed, form=record.form, naming=record.naming, keep_id=True)
            if new.question not in taken:
                taken.add(new.question)
                out.append(new)
                break
        else:
            skipped += 1
    return out, skipped


def reword_records(
    records: Iterable[ClosureInstance | GritInstance],
    surface_seed: int,
    progress: Callable[[ClosureInstance], None] | None = None,
) -> list[ClosureInstance]:
    """Re-word every record (in order); no two output questions are equal.

    Raises:
        ConfigError: on a record that is not a ClosureBench instance.
        VerificationError: see :func:`reword_record`.
    """
    taken: set[str] = set()
    out: list[ClosureInstance] = []
    for record in records:
        if not isinstance(record, ClosureInstance):
            raise ConfigError(
                f"{record.id} is a {record.suite} record; reword re-words ClosureBench "
                "files (a GRIT file already holds every graph in 8 surface views)"
            )
        new = reword_record(record, surface_seed, taken)
        out.append(new)
        if progress is not None:
            progress(new)
    return out


def _manifest(
    source: Path, source_sha: str, surface_seed: int, records: Sequence[ClosureInstance]
) -> Callable[[str, str], dict[str, Any]]:
    def build(sha: str, name: str) -> dict[str, Any]:
        return {
            "suite": "closure",
            "version": __version__,
            "reworded_from": {"file": source.name, "sha256": source_sha},
            "surface_seed": surface_seed,
            "files": {name: {"sha256": sha, "records": len(records)}},
            "records": len(records),
            "counts": {
                key: dict(sorted(Counter(str(getattr(r, key)) for r in records).items()))
                for key in ("category", "level", "encoding", "domain", "style", "label_pool")
            },
        }

    return build


def reword_file(
    source: str | Path,
    surface_seed: int,
    out: str | Path,
    progress: Callable[[ClosureInstance], None] | None = None,
) -> tuple[Path, Path, list[ClosureInstance]]:
    """Re-word the ClosureBench file ``source`` into the file ``out`` (+ its manifest).

    The manifest names the source file and its sha256 and the surface seed.

    Raises:
        DatasetFileError: when ``source`` is missing or not a valid dataset file.
        ConfigError: when ``out`` is ``source``, or ``source`` holds GRIT records.
        VerificationError: see :func:`reword_record`.
    """
    src, dst = Path(source), Path(out)
    if dst.suffix != ".jsonl":
        raise ConfigError(f"--out {dst} must name a .jsonl file, e.g. {dst}.jsonl")
    if dst.exists() and src.exists() and dst.resolve() == src.resolve():
        raise ConfigError(f"--out {dst} is the input file; write the re-worded file elsewhere")
    records = reword_records(iter_instances(src), surface_seed, progress)
    sha = hashlib.sha256(src.read_bytes()).hexdigest()
    path, man = write_jsonl(
        dst.parent, dst.name, records, _manifest(src, sha, surface_seed, records)
    )
    return path, man, records
