"""Typed instance records of both suites, with one common envelope.

The field names are the file format ``spec/closurebench.md`` and ``spec/grit.md`` fix
(users already hold files in it), so the two suites keep their own names for a few
things; the envelope gives them one typed spelling:

==================  ===============================  ==============================
envelope            ClosureBench field               GRIT field
==================  ===============================  ==============================
``seeds``           ``structural_seed``,             ``seed.structure``,
                    ``surface_seed``                 ``seed.surface``
``node_names``      ``labels``                       ``names``
``query``           ``anchors``                      ``params``
==================  ===============================  ==============================

Records are immutable pydantic models: :func:`parse_instance` validates a JSON object
(from a file line) and names the line and field on error; :meth:`Envelope.to_json`
gives the JSON-ready dict that :func:`closurebench.jsonl.canonical_json` writes. The
JSON Schemas (:func:`instance_schema`) are what ``closurebench schema`` prints.

Example:
    >>> rec = {"id": "x", "suite": "grit", "split": "test", "task": "bfs", "graph_id": "g",
    ...        "view": "standard/canonical", "form": "standard", "naming": "canonical",
    ...        "scenario": "s", "n": 2, "question": "Q?", "answer": ["0", "1"],
    ...        "solution": [0, 1], "certificate": None,
    ...        "graph": {"directed": False, "weighted": False, "n": 2, "edges": [[0, 1, 1]]},
    ...        "names": ["0", "1"], "aliases": {}, "params": {"source": 0},
    ...        "seed": {"structure": 1, "surface": 2}, "version": "0.1.0"}
    >>> inst = parse_instance(rec)
    >>> type(inst).__name__, inst.seeds, inst.node_names, inst.query
    ('GritInstance', Seeds(structural=1, surface=2), ['0', '1'], {'source': 0})
    >>> inst.to_json() == rec
    True
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from closurebench.errors import DatasetFileError
from closurebench.schema.enums import Ambiguity, ResultType, Suite

__all__ = [
    "ClosureGraph",
    "ClosureInstance",
    "Envelope",
    "GritGraph",
    "GritInstance",
    "Instance",
    "Seeds",
    "describe_validation_error",
    "instance_schema",
    "parse_instance",
]

NodeId = Annotated[int, Field(ge=0)]


class Seeds(NamedTuple):
    """The two independent seeds of an instance."""

    structural: int
    surface: int


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict of this record (every field, enums as their strings)."""
        return self.model_dump(mode="json")


class ClosureGraph(_Record):
    """A ClosureBench graph: ``edges`` are ``[u, v]`` pairs of node ids."""

    directed: bool
    n: Annotated[int, Field(ge=1)]
    edges: list[tuple[NodeId, NodeId]]


class GritGraph(_Record):
    """A GRIT graph: ``edges`` are ``[u, v, w]`` (``w == 1`` when unweighted)."""

    directed: bool
    weighted: bool
    n: Annotated[int, Field(ge=1)]
    edges: list[tuple[NodeId, NodeId, int]]


class Envelope(_Record):
    """Fields and accessors every instance has, whatever its suite.

    Attributes:
        id: Unique id within its split (names suite, split and position).
        split: The split the instance belongs to.
        n: Number of nodes.
        question: The question text given to the model.
        answer: The reference answer, as the model must give it (names, labels).
        version: The closurebench version that generated it.
    """

    id: str
    split: str
    n: Annotated[int, Field(ge=1)]
    question: str
    answer: JsonValue
    version: str

    @property
    @abstractmethod
    def seeds(self) -> Seeds:
        """The structural and surface seeds."""

    @property
    @abstractmethod
    def node_names(self) -> list[str]:
        """The display name of node ``i`` at index ``i``."""

    @property
    @abstractmethod
    def query(self) -> dict[str, Any]:
        """The query's anchors / parameters (node ids and numbers)."""

    @property
    @abstractmethod
    def stratum(self) -> str:
        """The category (ClosureBench) or task (GRIT): what reports group by first."""


class ClosureInstance(Envelope):
    """One ClosureBench question (``spec/closurebench.md``, "Instance record")."""

    suite: Literal[Suite.CLOSURE]
    split: Literal["train", "heldout", "finetune"]
    category: str
    level: Literal[1, 2, 3]
    result_type: ResultType
    density: float
    structural_seed: int
    surface_seed: int
    label_pool: str
    labels: list[str]
    domain: str
    style: str
    encoding: Literal["nl", "json", "matrix"]
    answer_ids: JsonValue
    alt_answer: JsonValue
    ambiguity: Ambiguity | None
    graph: ClosureGraph
    graph2: ClosureGraph | None
    anchors: dict[str, int]
    programs: dict[Literal["ein", "python"], str]

    @property
    def seeds(self) -> Seeds:
        return Seeds(self.structural_seed, self.surface_seed)

    @property
    def node_names(self) -> list[str]:
        return list(self.labels)

    @property
    def query(self) -> dict[str, Any]:
        return dict(self.anchors)

    @property
    def stratum(self) -> str:
        return self.category

    def anchor_labels(self, names: tuple[str, ...] = ("X", "Y")) -> list[str]:
        """Labels of the node anchors among ``names`` that the instance has."""
        return [
            self.labels[self.anchors[k]]
            for k in names
            if k in self.anchors and 0 <= self.anchors[k] < len(self.labels)
        ]


class GritSeed(_Record):
    """The two seeds of a GRIT view."""

    structure: int
    surface: int


class GritInstance(Envelope):
    """One GRIT question: one view of a base graph (``spec/grit.md``, "Instance record")."""

    suite: Literal[Suite.GRIT]
    split: Literal["train", "test", "large", "ood"]
    task: str
    graph_id: str
    view: str
    form: str
    naming: str
    scenario: str
    solution: JsonValue
    certificate: dict[str, JsonValue] | None
    graph: GritGraph
    names: list[str]
    aliases: dict[str, int]
    params: dict[str, JsonValue]
    seed: GritSeed

    @property
    def seeds(self) -> Seeds:
        return Seeds(self.seed.structure, self.seed.surface)

    @property
    def node_names(self) -> list[str]:
        return list(self.names)

    @property
    def query(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def stratum(self) -> str:
        return self.task


#: Any instance, told apart by ``suite``.
Instance = Annotated[ClosureInstance | GritInstance, Field(discriminator="suite")]

_INSTANCE: TypeAdapter[ClosureInstance | GritInstance] = TypeAdapter(Instance)


def describe_validation_error(exc: ValidationError, limit: int = 3) -> str:
    """A one-line account of a pydantic error: each bad field, what was expected, what came.

    Example:
        >>> try:
        ...     ClosureGraph.model_validate({"directed": True, "n": 0, "edges": []})
        ... except ValidationError as exc:
        ...     print(describe_validation_error(exc))
        field 'n': Input should be greater than or equal to 1 (got 0)
    """
    parts = []
    for err in exc.errors()[:limit]:
        loc = ".".join(str(x) for x in err["loc"]) or "(record)"
        got = err.get("input")
        shown = repr(got) if len(repr(got)) <= 60 else repr(got)[:57] + "..."
        if err["type"] == "missing":
            parts.append(f"field {loc!r} is missing")
        elif err["type"] == "extra_forbidden":
            parts.append(f"field {loc!r} is not a field of this record")
        else:
            parts.append(f"field {loc!r}: {err['msg']} (got {shown})")
    more = len(exc.errors()) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def parse_instance(obj: Mapping[str, Any], where: str = "record") -> ClosureInstance | GritInstance:
    """Validate one instance object (from a file line) into its typed record.

    Args:
        obj: The JSON object.
        where: Where it came from, for the message (``"data.jsonl:12"``).

    Raises:
        DatasetFileError: naming ``where``, the field, what was expected and the fix.
    """
    suite = obj.get("suite") if isinstance(obj, Mapping) else None
    if suite not in (Suite.CLOSURE, Suite.GRIT):
        raise DatasetFileError(
            f"{where}: field 'suite' is {suite!r}; expected 'closure' or 'grit' "
            "(is this a closurebench dataset file?)"
        )
    try:
        return _INSTANCE.validate_python(obj)
    except ValidationError as exc:
        detail = describe_validation_error(exc).replace(f"'{suite}.", "'")
        raise DatasetFileError(
            f"{where}: not a valid {suite} instance: {detail}; regenerate the file with "
            f"`closurebench generate {suite}`"
        ) from None


def instance_schema(suite: Suite | str) -> dict[str, Any]:
    """The JSON Schema of one suite's instance record (what ``closurebench schema`` prints)."""
    model = ClosureInstance if Suite(suite) is Suite.CLOSURE else GritInstance
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://closurebench.dev/schema/{Suite(suite).value}-instance.json"
    return schema
