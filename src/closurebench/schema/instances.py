"""Typed instance records of both suites, with one common envelope.

The field names are the file format ``docs/formats.md`` documents
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

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    Strict,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from closurebench.errors import DatasetFileError
from closurebench.jsonl import canonical_json
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
    "hints_by_default",
    "instance_schema",
    "parse_instance",
    "structure_key",
]

# Numbers and booleans are strict: a file holding ``"n": "5"`` or ``"directed": "true"`` is
# damaged, not something to coerce (pydantic's lax mode would read them as 5 and True).
# Strict floats still take ints (``clean`` writes 1.0 as 1).
Int = Annotated[int, Strict()]
Bool = Annotated[bool, Strict()]
Float = Annotated[float, Strict()]
NodeId = Annotated[int, Strict(), Field(ge=0)]
Count = Annotated[int, Strict(), Field(ge=1)]


def _exact_int(value: Any) -> Any:
    """Refuse a float or bool where an integer literal is due (``Strict`` cannot wrap one).

    Example:
        >>> _exact_int(2)
        2
        >>> _exact_int(2.0)
        Traceback (most recent call last):
        ...
        ValueError: expected an integer, got float 2.0
    """
    if isinstance(value, bool | float):
        raise ValueError(f"expected an integer, got {type(value).__name__} {value!r}")
    return value


def _required(value: JsonValue) -> JsonValue:
    """Reject ``null`` where the spec requires a value (a reference answer).

    Example:
        >>> _required([1, 2])
        [1, 2]
        >>> _required(None)
        Traceback (most recent call last):
        ...
        ValueError: null is not allowed: every instance needs its reference answer
    """
    if value is None:
        raise ValueError("null is not allowed: every instance needs its reference answer")
    return value


#: A JSON value that must be present and not ``null`` (the reference answer).
Required = Annotated[
    JsonValue,
    AfterValidator(_required),
    Field(json_schema_extra={"not": {"type": "null"}}),
]


def structure_key(
    stratum: str,
    graph: Mapping[str, Any],
    graph2: Mapping[str, Any] | None,
    query: Mapping[str, Any],
) -> str:
    """One canonical string for a question's structure: what it asks about which graph.

    Two instances with the same key ask the same question of the same graph (only the
    surface may differ): ClosureBench's (category, graph, graph2, anchors), GRIT's
    (task, graph, params). The generator keys sampled structures the same way, so a
    key computed before rendering equals :attr:`Envelope.structure_key` of the record.

    Example:
        >>> g = {"directed": True, "n": 2, "edges": [(0, 1)]}
        >>> structure_key("reachability", g, None, {"Y": 1, "X": 0})
        '["reachability",{"directed":true,"edges":[[0,1]],"n":2},null,{"X":0,"Y":1}]'
    """
    return canonical_json([stratum, dict(graph), None if graph2 is None else dict(graph2), query])


def hints_by_default(version: object) -> bool:
    """Whether a record of ``version`` that lacks ``answer_hints`` carried them.

    Every file written before 0.2.0 ended each question with a per-category answer form
    (``Answer with a JSON object {"answer": <number>}.``) and has no ``answer_hints``
    field; from 0.2.0 on the field is always written.

    Example:
        >>> hints_by_default("0.1.0"), hints_by_default("0.1.3.dev1"), hints_by_default("0.2.0")
        (True, True, False)
    """
    if not isinstance(version, str):
        return False
    parts = version.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return False
    return (major, minor) < (0, 2)


class Seeds(NamedTuple):
    """The two independent seeds of an instance."""

    structural: int
    surface: int


class _Record(BaseModel):
    # Field docstrings become the fields' descriptions in the JSON Schemas (and docs/).
    model_config = ConfigDict(
        extra="forbid", frozen=True, use_enum_values=False, use_attribute_docstrings=True
    )

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict of this record (every field, enums as their strings)."""
        return self.model_dump(mode="json")


class ClosureGraph(_Record):
    """A ClosureBench graph: ``edges`` are ``[u, v]`` pairs of node ids."""

    directed: Bool
    """Whether an edge ``[u, v]`` goes one way (False only for the triangle categories)."""
    n: Count
    """Number of nodes; nodes are ``0 .. n-1``."""
    edges: list[tuple[NodeId, NodeId]]
    """The edges ``[u, v]``, in node ids."""


class GritGraph(_Record):
    """A GRIT graph: ``edges`` are ``[u, v, w]`` (``w == 1`` when unweighted)."""

    directed: Bool
    """Whether an edge ``[u, v, w]`` goes one way."""
    weighted: Bool
    """Whether the weights mean something (else every ``w`` is 1)."""
    n: Count
    """Number of nodes; nodes are ``0 .. n-1``."""
    edges: list[tuple[NodeId, NodeId, Int]]
    """The edges ``[u, v, w]``, in node ids, with integer weight ``w``."""

    @property
    def density(self) -> float:
        """Fraction of the possible edges present (GRAIN App. H, Table 20).

        ``2|E| / (|V|(|V|-1))`` for an undirected graph, ``|E| / (|V|(|V|-1))`` for a
        directed one; 0.0 for a single node.

        Example:
            >>> g = GritGraph(directed=False, weighted=False, n=4, edges=[(0, 1, 1), (1, 2, 1)])
            >>> g.density
            0.3333333333333333
            >>> GritGraph(directed=True, weighted=False, n=4, edges=[(0, 1, 1), (1, 0, 1)]).density
            0.16666666666666666
        """
        pairs = self.n * (self.n - 1)
        if pairs == 0:
            return 0.0
        return (1 if self.directed else 2) * len(self.edges) / pairs


class Envelope(_Record):
    """Fields and accessors every instance has, whatever its suite.

    Attributes:
        id: Unique id within its split (names suite, split and position).
        split: The split the instance belongs to.
        n: Number of nodes.
        question: The question text given to the model.
        answer: The reference answer, as the model must give it (names, labels); never
            ``null``.
        version: The closurebench version that generated it.
    """

    id: str
    """Unique id within its file (names suite, split and position)."""
    split: str
    """The split the instance belongs to."""
    n: Count
    """Number of nodes."""
    question: str
    """The question text given to the model."""
    answer: Required
    """The reference answer as the model must give it (in names/labels); never null."""
    version: str
    """The closurebench version that generated it."""

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

    @property
    @abstractmethod
    def structure_key(self) -> str:
        """What is asked of which graph, as one string (see :func:`structure_key`)."""


class ClosureInstance(Envelope):
    """One ClosureBench question."""

    suite: Literal[Suite.CLOSURE]
    """Always ``closure``."""
    split: Literal["train", "heldout", "finetune", "sweep"]
    """The split the instance belongs to."""
    category: str
    """One of the 26 categories (``docs/categories.md``)."""
    level: Annotated[Literal[1, 2, 3], BeforeValidator(_exact_int)]
    """1 atomic, 2 chain, 3 composition."""
    result_type: ResultType
    """The JSON type of the answer; scoring compares by it."""
    density: Float
    """The edge density ρ the graph was drawn at."""
    structural_seed: Int
    """Fixes n, ρ, the graph, the anchors and so the answer."""
    surface_seed: Int
    """Fixes the label pool, frame, style, edge order and encoding."""
    label_pool: str
    """The pool the node labels were drawn from."""
    labels: list[str]
    """The label of node ``i`` at index ``i``."""
    domain: str
    """The domain frame the question is worded in (cities, companies, family, ...)."""
    style: str
    """The wording style of the question."""
    encoding: Literal["nl", "json", "matrix"]
    """How the graph is given: natural language, JSON edge list or adjacency matrix."""
    answer_ids: Required
    """The reference answer in node ids; never null."""
    alt_answer: JsonValue
    """The answer under the other source-inclusion convention (lenient scoring of the
    ambiguous categories), in labels; null when there is none."""
    ambiguity: Ambiguity | None
    """The lenient-scoring class (``count`` or ``set``), or null."""
    graph: ClosureGraph
    """The graph the question describes."""
    graph2: ClosureGraph | None
    """This year's graph of ``graph_comparison`` (``graph`` is last year's); else null."""
    anchors: dict[str, Int]
    """The query's anchors: node ids (``X``, ``Y``) and numbers (``k``)."""
    programs: dict[Literal["ein", "python"], str]
    """The two programs that compute the answer: Ein and Python + NetworkX."""
    answer_hints: Bool = True
    """Whether the question ends with a per-category answer form (``Answer with a JSON
    object {"answer": <number>}.``); off by default from 0.2.0 (the paper gives no
    per-category hint). Absent only in files written before 0.2.0, which all carry hints."""

    @model_validator(mode="before")
    @classmethod
    def _hints_field(cls, data: Any) -> Any:
        """Refuse a missing ``answer_hints`` except in files written before 0.2.0."""
        if (
            isinstance(data, Mapping)
            and "answer_hints" not in data
            and not hints_by_default(data.get("version"))
        ):
            raise ValueError(
                "field 'answer_hints' is missing; records from version 0.2.0 on state "
                "whether the question carries an answer-type hint"
            )
        return data

    def to_json(self) -> dict[str, Any]:
        """The JSON-ready dict (a pre-0.2.0 record without ``answer_hints`` stays so)."""
        exclude = None if "answer_hints" in self.model_fields_set else {"answer_hints"}
        return self.model_dump(mode="json", exclude=exclude)

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

    @property
    def structure_key(self) -> str:
        g2 = None if self.graph2 is None else self.graph2.to_json()
        return structure_key(self.category, self.graph.to_json(), g2, self.anchors)

    def anchor_labels(self, names: tuple[str, ...] = ("X", "Y")) -> list[str]:
        """Labels of the node anchors among ``names`` that the instance has."""
        return [
            self.labels[self.anchors[k]]
            for k in names
            if k in self.anchors and 0 <= self.anchors[k] < len(self.labels)
        ]


class GritSeed(_Record):
    """The two seeds of a GRIT view."""

    structure: Int
    """Fixes the base graph and its query (shared by the graph's 8 views)."""
    surface: Int
    """Fixes this view's wording and names."""


class GritInstance(Envelope):
    """One GRIT question: one view of a base graph."""

    suite: Literal[Suite.GRIT]
    """Always ``grit``."""
    split: Literal["train", "test", "large", "ood", "nlgraph", "g-real", "grapharena"]
    """The split the instance belongs to (``nlgraph``, ``g-real``, ``grapharena``: a peer
    benchmark's questions, imported by ``closurebench import``)."""
    task: str
    """One of the 6 tasks (``docs/categories.md``)."""
    graph_id: str
    """The base graph: its 8 views share it (``grit-<split>-<index>``)."""
    view: str
    """``<form>/<naming>``."""
    form: str
    """``standard`` (graph-theory wording) or ``realistic`` (a scenario's wording)."""
    naming: str
    """How nodes are named: ``canonical``, ``random``, ``semantic`` or ``mixed``."""
    scenario: str
    """The scenario the realistic form is worded in."""
    solution: JsonValue
    """One optimal path/tour/cover/colouring/order in node ids, or null."""
    certificate: dict[str, JsonValue] | None
    """``{"method", "bound", "gap": 0}`` proving optimality (NP-hard tasks), else null."""
    graph: GritGraph
    """The base graph, in node ids."""
    names: list[str]
    """The display name of node ``i`` at index ``i`` in this view."""
    aliases: dict[str, NodeId]
    """Other names this view uses for a node (alias -> node id)."""
    params: dict[str, JsonValue]
    """The query: ``source``, ``target``, ``centrality`` kind, ... (node ids, numbers)."""
    seed: GritSeed
    """The view's two seeds."""

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

    @property
    def structure_key(self) -> str:
        return structure_key(self.task, self.graph.to_json(), None, self.params)

    @property
    def density(self) -> float:
        """The density of the base graph (:attr:`GritGraph.density`), what a result records.

        A GRIT instance has no drawn density of its own (a ClosureBench one has the ρ it
        was drawn at); results carry this one, so reports can bin by it (GRAIN Table 20).
        """
        return self.graph.density


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
            msg = err["msg"].removeprefix("Value error, ")
            parts.append(f"field {loc!r}: {msg} (got {shown})")
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
